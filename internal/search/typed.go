package search

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
)

// The typed Go entry point (package ordo's DB.Search): a query built from
// Go values instead of a query string, evaluated by the same evaluator as
// FT.SEARCH under the engine lock, with results as Go values (no RESP).

// Handle is one engine's search extension, for Go callers: register it
// with engine.New(cfg, h.Register) and query with h.Search.
type Handle struct{ h holder }

// NewHandle returns a Handle to register into one engine.
func NewHandle() *Handle { return &Handle{} }

// Register adds the FT.* commands to t, as Register does, keeping access
// to their indexes for Search.
func (h *Handle) Register(t *engine.Table) { register(t, &h.h) }

// Query is a typed query: build it with All, NumRange, TagIn, Words,
// Prefix, Missing, Geo, And, Or, Not. The zero Query matches nothing.
type Query struct {
	n   *node
	err error
}

// All matches every document of the index (the query "*").
func All() Query { return Query{n: &node{op: opAll}} }

// NumRange matches documents whose NUMERIC field lies between lo and hi,
// compared exactly as decimals. A bound is a decimal number, "-inf" or
// "+inf", prefixed with "(" for an exclusive bound, as in @f:[lo hi].
func NumRange(field, lo, hi string) Query {
	n := &node{op: opNum, field: field}
	for i, b := range []string{lo, hi} {
		ex := strings.HasPrefix(b, "(")
		k, ok := parseNumber(strings.TrimPrefix(b, "("))
		if !ok {
			return Query{err: fmt.Errorf("search: NumRange %s: bad bound %q", field, b)}
		}
		if i == 0 {
			n.lo, n.loEx = k, ex
		} else {
			n.hi, n.hiEx = k, ex
		}
	}
	return Query{n: n}
}

// TagIn matches documents whose TAG field has any of the tags (taken
// literally: no escaping needed).
func TagIn(field string, tags ...string) Query {
	n := &node{op: opTag, field: field}
	for _, t := range tags {
		n.tags = append(n.tags, tagTerm{val: t})
	}
	return Query{n: n}
}

// Words matches documents whose TEXT field (every TEXT field if field is
// "") holds every word, with the index's folding, stemming and stop words.
// Each string is split into words as documents' text is (textWords: at
// punctuation and spaces, a backslash escaping one), so Words("", "foo-bar")
// is foo AND bar, and Words("", `John\ Doe`) the one word "john doe".
func Words(field string, words ...string) Query {
	var kids []*node
	for _, w := range words {
		textWords(w, func(_, _ int, t string) {
			kids = append(kids, &node{op: opTerm, field: field, term: t})
		})
	}
	if len(kids) == 1 {
		return Query{n: kids[0]}
	}
	return Query{n: &node{op: opAnd, kids: kids}}
}

// Prefix matches documents with a word starting with prefix in the TEXT
// field (every TEXT field if field is ""). The prefix is taken as a $param
// of FT.SEARCH's "$p*" is (paramTerm): one term, backslash escapes
// removed, case folded.
func Prefix(field, prefix string) Query {
	return Query{n: &node{op: opPrefix, field: field, term: paramTerm(prefix)}}
}

// Missing matches documents without the field (declared INDEXMISSING).
func Missing(field string) Query { return Query{n: &node{op: opMissing, field: field}} }

// Geo matches documents whose GEO field is within radius meters of
// (lon, lat).
func Geo(field string, lon, lat, radius float64) Query {
	return Query{n: &node{op: opGeo, field: field, geo: [3]float64{lon, lat, radius}}}
}

// And matches the documents every query matches.
func And(qs ...Query) Query { return combine(opAnd, qs) }

// Or matches the documents any query matches.
func Or(qs ...Query) Query { return combine(opOr, qs) }

// Not matches the documents q does not match.
func Not(q Query) Query { return combine(opNot, []Query{q}) }

func combine(op opKind, qs []Query) Query {
	n := &node{op: op}
	for _, q := range qs {
		if q.err != nil {
			return q
		}
		if q.n == nil {
			q.n = &node{op: opNone}
		}
		n.kids = append(n.kids, q.n)
	}
	if op != opNot && len(n.kids) == 0 {
		n.op = opNone
	}
	return Query{n: n}
}

// Options are Search's options (FT.SEARCH's LIMIT, SORTBY, RETURN,
// NOCONTENT, WITHSCORES).
type Options struct {
	Offset int
	// Limit is the most documents returned: 0 means 10 (RediSearch's
	// default), a negative value none (Total only).
	Limit     int
	SortBy    []SortKey
	Return    []string // nil: every field
	NoContent bool
	Scores    bool // compute Doc.Score (always done when SortBy is empty)
}

// SortKey is one SORTBY field.
type SortKey struct {
	Field string
	Desc  bool
}

// Doc is one document found.
type Doc struct {
	Key string
	// Fields holds name, value pairs (the hash's fields, or "$" and the
	// JSON text for ON JSON; RETURN's fields when Options.Return is set).
	Fields []string
	Score  float64
}

// Get returns the value of field in d.Fields.
func (d Doc) Get(field string) (string, bool) {
	for i := 0; i+1 < len(d.Fields); i += 2 {
		if d.Fields[i] == field {
			return d.Fields[i+1], true
		}
	}
	return "", false
}

// Result is a search's answer.
type Result struct {
	Total int // documents matched (all pages)
	Docs  []Doc
}

// ErrUnknownIndexGo is Search's error for an index that does not exist.
var ErrUnknownIndexGo = errors.New(ErrUnknownIndex)

// Search runs q on the index (or alias) called name. It takes the engine
// lock: it sees every write that returned before it.
func (h *Handle) Search(e *engine.Engine, name string, q Query, o Options) (Result, error) {
	if q.err != nil {
		return Result{}, q.err
	}
	if q.n == nil {
		q.n = &node{op: opNone}
	}
	e.Lock()
	defer e.Unlock()
	s := h.h.get(e)
	ix := s.lookupIndex(name)
	if ix == nil {
		return Result{}, fmt.Errorf("%s: no such index", name)
	}
	n, err := resolve(ix, q.n)
	if err != nil {
		return Result{}, err
	}
	so := &searchOpts{num: 10, slop: -1, lang: ix.lang, scorer: scorerTFIDF, off: o.Offset, withScores: o.Scores, noContent: o.NoContent}
	if o.Offset < 0 {
		return Result{}, errors.New("search: negative Offset")
	}
	if o.Limit > 0 {
		so.num = o.Limit
	} else if o.Limit < 0 {
		so.num = 0
	}
	for _, k := range o.SortBy {
		so.sortBy = append(so.sortBy, sortKey{name: strings.TrimPrefix(k.Field, "@"), desc: k.Desc})
	}
	if o.Return != nil {
		so.retSet = true
		for _, r := range o.Return {
			so.ret = append(so.ret, retField{name: r, as: r})
		}
	}
	so.hitBuf = &s.hitBuf // the page is copied out below, under the lock
	total, page, msg := s.runSearch(e, ix, n, so, time.Now().UnixMilli())
	if msg != "" {
		return Result{}, errors.New(msg)
	}
	res := Result{Total: total, Docs: make([]Doc, len(page))}
	content := !so.noContent && !(so.retSet && len(so.ret) == 0)
	for i, hh := range page {
		res.Docs[i] = Doc{Key: hh.key, Score: hh.score}
	}
	switch {
	case !content:
	case !ix.json && !so.retSet:
		ix.hashPage(e, page, res.Docs)
	default:
		for i := range res.Docs {
			res.Docs[i].Fields = ix.fieldsOf(e, res.Docs[i].Key, so)
		}
	}
	return res, nil
}

// hashPage fills the Fields of a page of hash documents (docs[i] is
// page[i]'s) with all their fields, read through the documents' handles
// (handles.go: no keyspace lookup): one slice of pairs for the whole page and one copy of the small
// (listpack) hashes' encodings, the strings viewing it (engine.Hash's
// AppendPairs; a big hash's strings are the keyspace's own, immutable).
// Two allocations per page of up to 128, none per document or field. Each
// document's Fields is capped, so appending to one never overwrites the
// next.
func (ix *index) hashPage(e *engine.Engine, page []hit, docs []Doc) {
	var small [128]*engine.Hash // a page of up to 128 allocates no hs
	hs := small[:0]
	if len(docs) > len(small) {
		hs = make([]*engine.Hash, 0, len(docs))
	}
	hs = hs[:len(docs)]
	pairs, size := 0, 0
	for i, d := range docs {
		if h := ix.hashOf(e, page[i].id, d.Key); h != nil {
			hs[i] = h
			pairs += 2 * h.Len()
			size += h.PairsBytes()
		}
	}
	out := make([]string, 0, pairs)
	var sb strings.Builder
	sb.Grow(size)
	for i, h := range hs {
		if h != nil {
			start := len(out)
			out = h.AppendPairs(out, &sb)
			docs[i].Fields = out[start:len(out):len(out)]
		}
	}
}

// resolve checks a typed query's fields against ix (names are
// case-insensitive; the node gets the attribute's alias), returning a
// copy: a Query may be reused across indexes.
func resolve(ix *index, n *node) (*node, error) {
	c := *n
	c.kids = nil
	if t, ok := leafType(n.op); ok && !(n.field == "" && t == typeText) {
		f := ix.attr(n.field)
		if f == nil || f.noindex {
			return nil, fmt.Errorf("search: unknown field %s", n.field)
		}
		if f.typ != t {
			return nil, fmt.Errorf("field %s is %s, not %s", n.field, f.typ, t)
		}
		c.field = f.alias
	}
	switch n.op {
	case opMissing:
		f := ix.attr(n.field)
		if f == nil {
			return nil, fmt.Errorf("search: unknown field %s", n.field)
		}
		if !f.missing {
			return nil, fmt.Errorf("search: Missing requires field '%s' to be defined with 'INDEXMISSING'", n.field)
		}
		c.field = f.alias
	case opTerm:
		if ix.isStop(n.term) {
			c = node{op: opNone, stop: true}
		}
	}
	for _, k := range n.kids {
		r, err := resolve(ix, k)
		if err != nil {
			return nil, err
		}
		c.kids = append(c.kids, r)
	}
	return &c, nil
}

// leafType is the field type a leaf of kind op queries.
func leafType(op opKind) (fieldType, bool) {
	switch op {
	case opNum:
		return typeNumeric, true
	case opTag:
		return typeTag, true
	case opGeo:
		return typeGeo, true
	case opTerm, opPrefix:
		return typeText, true
	}
	return 0, false
}

// fieldsOf returns the document's fields as name, value pairs, as
// writeFields writes them: a JSON document's (all, or RETURN's), or a
// hash's RETURN fields (all of a hash's: hashPage).
func (ix *index) fieldsOf(e *engine.Engine, key string, o *searchOpts) []string {
	v, _, _ := e.Peek(ix.db, key)
	if ix.json {
		j, _ := v.Obj().(*engine.JSON)
		if j == nil {
			return nil
		}
		if !o.retSet {
			return []string{"$", j.String()}
		}
		src := jsonSource{j.Root(), ix}
		var out []string
		for _, r := range o.ret {
			name := strings.TrimPrefix(r.name, "@")
			if name == "$" {
				out = append(out, r.as, j.String())
			} else if val, ok := src.get(name); ok {
				out = append(out, r.as, val)
			}
		}
		return out
	}
	h, _ := v.Obj().(*engine.Hash)
	if h == nil {
		return nil
	}
	var out []string
	for _, r := range o.ret {
		name := r.name
		if f := ix.attr(strings.TrimPrefix(name, "@")); f != nil {
			name = f.name
		}
		if val, ok := h.Get(name); ok {
			out = append(out, r.as, val)
		}
	}
	return out
}
