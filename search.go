package ordo

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/search"
)

// Secondary indexes, typed: the engine's FT.* indexes (kept in step with
// every write, exact decimals for NUMERIC) from Go without query strings.
//
//	db.CreateIndex(ctx, ordo.IndexSpec{Name: "users", Prefixes: []string{"user:"},
//		Fields: []ordo.IndexField{ordo.TagField("city"), ordo.NumericField("age").Sorted()}})
//	res, err := db.Search(ctx, "users",
//		ordo.And(ordo.TagIn("city", "Paris"), ordo.NumRange("age", "30", "(40")),
//		ordo.SearchOptions{Limit: 100, SortBy: []ordo.SortKey{{Field: "age"}}})
//
// Search evaluates in-process under the engine lock with FT.SEARCH's
// evaluator: no RESP encoding, no parsing; it sees every write that
// returned before it (DEL, EXPIRE and expiry included). An index created
// here is the same as one made by FT.CREATE: redis-cli, redis-py or
// node-redis clients of a served engine query it too.

// IndexOn is what an index covers: hashes or JSON documents.
type IndexOn int

// Index kinds.
const (
	OnHash IndexOn = iota
	OnJSON
)

// IndexSpec declares an index (FT.CREATE name ON HASH|JSON PREFIX … SCHEMA …).
type IndexSpec struct {
	Name     string
	On       IndexOn
	Prefixes []string // keys covered; none: every key
	Fields   []IndexField
}

// IndexField is one schema field; build it with TextField, TagField,
// NumericField or GeoField.
type IndexField struct {
	Name string // hash field, or JSON path ("$.a.b") for OnJSON
	As   string // attribute name queries use ("" : Name)
	kind string
	// Sortable keeps the value for SortBy (SORTABLE).
	Sortable bool
	// IndexMissing lets Missing(field) find documents without it.
	IndexMissing bool
	// Separator of a TAG field (0: ',').
	Separator byte
	// CaseSensitive TAG matching.
	CaseSensitive bool
}

// TextField is a full-text field (TEXT).
func TextField(name string) IndexField { return IndexField{Name: name, kind: "TEXT"} }

// TagField is an exact-match field of separated tags (TAG).
func TagField(name string) IndexField { return IndexField{Name: name, kind: "TAG"} }

// NumericField is a number compared as an exact decimal (NUMERIC).
func NumericField(name string) IndexField { return IndexField{Name: name, kind: "NUMERIC"} }

// GeoField is a "lon,lat" point (GEO).
func GeoField(name string) IndexField { return IndexField{Name: name, kind: "GEO"} }

// Sorted returns f with Sortable set.
func (f IndexField) Sorted() IndexField { f.Sortable = true; return f }

// Alias returns f queried as name (AS).
func (f IndexField) Alias(name string) IndexField { f.As = name; return f }

// CreateIndex creates an index; existing keys are indexed in the
// background (FT.INFO shows progress), later writes in their own atomic
// step. It is logged like FT.CREATE, so it survives restarts.
func (db *DB) CreateIndex(ctx context.Context, spec IndexSpec) error {
	args := []any{"FT.CREATE", spec.Name, "ON", [...]string{"HASH", "JSON"}[spec.On&1]}
	if len(spec.Prefixes) > 0 {
		args = append(args, "PREFIX", len(spec.Prefixes))
		for _, p := range spec.Prefixes {
			args = append(args, p)
		}
	}
	args = append(args, "SCHEMA")
	for _, f := range spec.Fields {
		args = append(args, f.Name)
		if f.As != "" {
			args = append(args, "AS", f.As)
		}
		args = append(args, f.kind)
		if f.kind == "TAG" {
			if f.Separator != 0 {
				args = append(args, "SEPARATOR", string(f.Separator))
			}
			if f.CaseSensitive {
				args = append(args, "CASESENSITIVE")
			}
		}
		if f.Sortable {
			args = append(args, "SORTABLE")
		}
		if f.IndexMissing {
			args = append(args, "INDEXMISSING")
		}
	}
	return db.Do(ctx, args...).Err()
}

// DropIndex drops an index (its documents stay).
func (db *DB) DropIndex(ctx context.Context, name string) error {
	return db.Do(ctx, "FT.DROPINDEX", name).Err()
}

// Query is a typed search query: build it with All, NumRange, TagIn,
// Words, Prefix, Missing, GeoRadius, And, Or and Not. A Query can be
// reused and shared.
type Query = search.Query

// All matches every document (the query "*").
func All() Query { return search.All() }

// NumRange matches documents whose NUMERIC field is between lo and hi,
// compared exactly as decimals (integers beyond 2^53 included). A bound
// is a decimal, "-inf" or "+inf", with a leading "(" for an exclusive
// bound: NumRange("price", "(10", "+inf") is price > 10.
func NumRange(field, lo, hi string) Query { return search.NumRange(field, lo, hi) }

// TagIn matches documents whose TAG field has any of tags, taken
// literally (no escaping).
func TagIn(field string, tags ...string) Query { return search.TagIn(field, tags...) }

// Words matches documents whose TEXT field ("": any TEXT field) contains
// every word, analyzed as the documents are (split at punctuation and
// spaces, a backslash escaping one; case, stems, stop words).
func Words(field string, words ...string) Query { return search.Words(field, words...) }

// Prefix matches documents with a word beginning with prefix in the TEXT
// field ("": any TEXT field). The prefix is one term, as FT.SEARCH's
// "$p*" with PARAMS: backslash escapes removed, case folded.
func Prefix(field, prefix string) Query { return search.Prefix(field, prefix) }

// Missing matches documents without the field (declared IndexMissing).
func Missing(field string) Query { return search.Missing(field) }

// GeoRadius matches documents whose GEO field is within radius meters of
// (lon, lat).
func GeoRadius(field string, lon, lat, meters float64) Query {
	return search.Geo(field, lon, lat, meters)
}

// And matches what every query matches.
func And(qs ...Query) Query { return search.And(qs...) }

// Or matches what any query matches.
func Or(qs ...Query) Query { return search.Or(qs...) }

// Not matches what q does not.
func Not(q Query) Query { return search.Not(q) }

// SortKey is one sort field of SearchOptions.SortBy.
type SortKey = search.SortKey

// SearchOptions are Search's options.
type SearchOptions struct {
	Offset int
	// Limit is the most documents returned: 0 means 10 (RediSearch's
	// default), negative none (Total only).
	Limit int
	// SortBy orders by several fields, the first primary; documents
	// without a value come last. Empty: by relevance score.
	SortBy []SortKey
	// Return limits Doc.Fields to these fields (nil: all).
	Return []string
	// NoContent returns keys only.
	NoContent bool
	// Scores fills Doc.Score even when SortBy is set.
	Scores bool
}

// Doc is one document found: Key, Fields (name, value pairs: the hash's
// fields, or "$" and the document's JSON text for an OnJSON index, or
// SearchOptions.Return's) and Score. Doc.Get(field) reads a field.
//
// Fields are the caller's to keep. They are not one allocation each: a
// small hash's fields and values (up to hash-max-listpack-entries and
// -value) are substrings of one copy of its encoding, shared by the whole
// page of a Search, and a big hash's are the keyspace's own immutable
// strings, not copied. GetDoc copies a small hash into buffers shared
// with the documents of other GetDoc calls (a []string and a byte buffer
// of 2 KiB each). So keeping one field keeps that copy (or those
// buffers, or a block of the keyspace's storage, up to 64 KiB) alive:
// clone it (strings.Clone) to keep it alone for long.
type Doc = search.Doc

// SearchResult is Search's answer: the page of documents and how many
// matched in all.
type SearchResult struct {
	Total int
	Docs  []Doc
}

// Search runs q on the index (or alias) called index, as FT.SEARCH
// would, without a query string or RESP.
func (db *DB) Search(ctx context.Context, index string, q Query, opts SearchOptions) (SearchResult, error) {
	if !db.enter() {
		return SearchResult{}, ErrClosed
	}
	defer db.leave()
	if err := ctx.Err(); err != nil {
		return SearchResult{}, err
	}
	r, err := db.ft.Search(db.e, index, q, search.Options{
		Offset: opts.Offset, Limit: opts.Limit, SortBy: opts.SortBy,
		Return: opts.Return, NoContent: opts.NoContent, Scores: opts.Scores,
	})
	if err != nil {
		if strings.HasSuffix(err.Error(), ": no such index") {
			return SearchResult{}, &Error{Msg: err.Error()}
		}
		return SearchResult{}, err
	}
	return SearchResult{Total: r.Total, Docs: r.Docs}, nil
}

// GetDoc returns the document at key as Search returns one: a hash's
// fields and values, or "$" and a JSON document's text. It is a direct
// lookup under the engine lock, with no command and no RESP: ok is false
// when the key does not exist or has expired, and a key of another type
// gets a WRONGTYPE *Error. Unlike HGETALL it is not counted in INFO's
// keyspace_hits and misses, and does not refresh the key's LRU/LFU clock.
// A small hash's fields are copied into buffers shared with other calls'
// documents (see Doc), so a get allocates nothing most of the time.
func (db *DB) GetDoc(ctx context.Context, key string) (Doc, bool, error) {
	if !db.enter() {
		return Doc{}, false, ErrClosed
	}
	defer db.leave()
	if err := ctx.Err(); err != nil {
		return Doc{}, false, err
	}
	e := db.e
	e.Lock()
	var fields []string
	var err error
	v, ok := db.peek(key, nowLazy)
	if h, _ := v.Obj().(*engine.Hash); ok && h != nil && db.gets.fits(h) {
		fields = db.gets.take(h)
	} else if ok {
		var sb strings.Builder
		fields, err = valueFields(nil, &sb, v, true)
		ok = err == nil
	}
	e.Unlock()
	if !ok {
		return Doc{}, false, err
	}
	return Doc{Key: key, Fields: fields}, true, nil
}

// docSlab is where GetDoc copies a small hash's fields: documents are
// carved from a shared []string and a shared byte buffer, allocated a
// few KiB at a time, so that a point get allocates nothing most of the
// time (two allocations a get cost about a quarter of its CPU time, and
// a page of Search results already shares one copy the same way). A
// document's Fields have their own length and capacity (appending to one
// never writes into another's), and neither part is ever written again
// once handed out. The DB's engine lock guards it.
//
// The price: a document kept alive keeps its slab alive, up to
// slabStrings strings and slabBytes bytes shared with other documents
// (Doc says so). Hashes above a quarter of either are copied alone.
type docSlab struct {
	strs  []string        // the free tail is strs[len:cap]
	bytes strings.Builder // appended to only, so what it handed out stays
}

const (
	slabStrings = 128  // 2 KiB of string headers
	slabBytes   = 2048 // and of bytes
)

// fits reports whether h is small enough to be copied into the slab.
func (s *docSlab) fits(h *engine.Hash) bool {
	return 2*h.Len() <= slabStrings/4 && h.PairsBytes() <= slabBytes/4 && h.PairsBytes() > 0
}

// take copies h's fields and values into the slab (h fits).
func (s *docSlab) take(h *engine.Hash) []string {
	n, nb := 2*h.Len(), h.PairsBytes()
	if len(s.strs)+n > cap(s.strs) {
		s.strs = make([]string, 0, slabStrings)
	}
	if s.bytes.Cap()-s.bytes.Len() < nb {
		s.bytes = strings.Builder{}
		s.bytes.Grow(slabBytes)
	}
	k := len(s.strs)
	f := h.AppendPairs(s.strs[k:k:k+n], &s.bytes)
	s.strs = s.strs[:k+n]
	return f
}

// peekFields appends the fields and values of the hash at key in
// database 0 (or "$" and the text of a JSON document, if json) to dst.
// A small (listpack) hash is copied with one write of its encoding to sb,
// its strings substrings of the copy (engine.Hash.AppendPairs); a big one's
// strings are the keyspace's own, immutable. ok is false for a missing or
// expired key, and err a WRONGTYPE *Error for a key of another type. The
// lock must be held. now is nowLazy to read the clock only for a key with
// a TTL.
func (db *DB) peekFields(dst []string, sb *strings.Builder, key string, now int64, json bool) (out []string, ok bool, err error) {
	v, ok := db.peek(key, now)
	if !ok {
		return dst, false, nil
	}
	out, err = valueFields(dst, sb, v, json)
	return out, err == nil, err
}

// peek returns the live value at key in database 0: ok is false for a
// missing or expired key. The lock must be held.
func (db *DB) peek(key string, now int64) (engine.Value, bool) {
	v, at, ok := db.e.Peek(0, key)
	if at >= 0 && now == nowLazy {
		now = engine.NowMs()
	}
	return v, ok && (at < 0 || at > now)
}

// valueFields is peekFields for the value v found.
func valueFields(dst []string, sb *strings.Builder, v engine.Value, json bool) ([]string, error) {
	switch o := v.Obj().(type) {
	case *engine.Hash:
		// Room for it all first: the pairs and the bytes are one
		// allocation each.
		sb.Grow(o.PairsBytes())
		return o.AppendPairs(slices.Grow(dst, 2*o.Len()), sb), nil
	case *engine.JSON:
		if json {
			return append(dst, "$", o.String()), nil
		}
	}
	return dst, &Error{Msg: engine.ErrWrongType}
}

// nowLazy, as peekFields' now, reads the clock only if the key has a TTL.
const nowLazy = math.MinInt64
