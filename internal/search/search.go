// Package search is Ordo's engine-maintained secondary indexes and the
// FT.* commands of RediSearch over them (FT.CREATE, FT.SEARCH, FT.INFO,
// FT._LIST, FT.DROPINDEX, FT.DROP, FT.AGGREGATE and the rest listed
// below), registered into an engine like
// scripting: engine.New(cfg, script.Register, search.Register).
//
// # Guarantees
//
//   - Never stale. Every change to a key under an index's prefixes (HSET,
//     HDEL, JSON.SET, JSON.DEL, DEL, RENAME, MOVE, FLUSHDB, SWAPDB,
//     expiry, and the commands of MULTI and of scripts) is recorded
//     inside the command's atomic step, through the engine's KeyObserver
//     hook, and applied before any command reads an index, under the
//     engine lock: a search right after a write sees it, and no client
//     can see an index between the two. A key past its TTL is never
//     returned, even before it is reaped: queries check expiry (without
//     reaping). While the initial background scan runs, an index is
//     incomplete but never stale.
//   - Exact numbers. NUMERIC values are ordered by their exact decimal
//     value (numeric.go): integers beyond 2^53 and long decimals compare
//     exactly, ±inf included. They are held as doubles, with the exact
//     decimal kept for the values whose double is not their shortest
//     decimal, and compared exactly wherever two doubles are equal. A document whose NUMERIC field is not a
//     number (or GEO field not a point, or JSON value of the wrong type)
//     is not indexed at all and counts in hash_indexing_failures, as in
//     RediSearch.
//   - Durable definitions. FT.CREATE and FT.DROPINDEX are logged to the
//     AOF; an AOF rewrite or snapshot re-emits every definition first
//     (engine.StateRewriter), and contents are rebuilt as keys load.
//   - Per engine. Indexes belong to one engine; nothing is global.
//
// # Go entry point
//
// Handle (typed.go) registers the commands like Register and keeps access
// to the engine's indexes: Handle.Search takes a Query built from Go
// values (no parsing), builds the same node tree the query parser builds
// and runs it through FT.SEARCH's evaluator (runSearch) under the engine
// lock, returning Go values (no RESP). Package ordo's DB.Search uses it.
//
// # Design
//
// An index is built for Go's memory (postings.go, index.go): no heap
// object per document or per entry. Documents get ids in indexing order
// (never reused; holes are closed by renumbering every structure when
// they outnumber half the documents, keeping their order, so that id
// order is indexing order and breaks score ties), and their records
// (where the forward record is, and the norms: 12 bytes) are values in
// pages of 1024; a document's score is kept by id only in an index where
// a SCORE_FIELD gives one that is not the index's, and which fields it
// has only in an index with an INDEXMISSING field. Each document's key
// and forward record (the ids of its tags and terms, so that a change
// removes exactly what was indexed before the document is re-read) are
// bytes appended to pages of at most 64 KiB that never move (one growing
// array was copied whole at each growth), compacted into new pages when
// half of them is dead; the key -> id table is
// an open-addressing array of 8-byte slots (id and hash bits) reading
// keys from the records. Terms and tag values are interned to ids, each
// with a posting list: sorted document ids in chunks of at most 256
// (appends in id order touch only the tail). A term's entries are packed
// in 64 bits (frequency, fields, its one position; others in an overflow
// table) and its list (tlist.go) keeps each id next to its value, 12
// bytes an entry, with the tail chunk in the list itself: a write to a
// term reads the list's header and the entry's cache line, not four
// places. A NUMERIC field is a column of doubles by id (exact keys kept
// aside only for the rare values their double does not say, numeric.go)
// and a chunked sorted array of (double, id), whose writes are buffered
// (4096, or an eighth of the array up to 65536, so that a write moves
// about 8 entries at any size), radix-sorted and merged into the chunks
// in one ordered pass by the next reader of the array; TAG and GEO fields have a
// column by id too, for filters. bench's index memory row measures about
// 57 bytes of RSS per indexed field per document (TEXT+NUMERIC+TAG; 68
// before the 12-byte records and record pages), against 70-79 for the
// hand-made sorted set and sets on redis-server; FT.INFO reports the
// sizes of the structures, and MEASURE=1 go test -run
// TestMeasureIndexStore breaks the Go heap down (44.5 bytes per field
// per document, 55.1 before).
// Changed keys are queued by KeyChanged and applied by the next
// FT command (sync), or when the queue reaches 64 keys (small, so that a
// key is re-read while its data is still in the CPU's caches): a command
// may report a key before it has finished writing it, and every reader
// of an index takes the same lock and syncs first. A key indexed again
// keeps its place in the key table (only its id changes). Queries evaluate to sorted
// document id lists (intersection, union, difference); intersections
// under SLOP/INORDER or a quoted phrase then check positions, and each
// hit's match is folded by the scorer (score.go); keys past their TTL are
// dropped. FT.CREATE indexes existing keys in the background (scan.go).
// Each document of an ON HASH index keeps a handle to its hash object in
// the keyspace (handles.go: 8 bytes per id), taken where it is indexed
// and dropped where it is removed, so it is exactly as fresh as the index
// (never stale), and a page of results is read without looking its keys
// up in the keyspace again.
// Two shapes skip the id lists (fastpath.go): a query that is one numeric
// range walks it once into a bounded heap of offset+limit hits (by score,
// or only the first hits when sorted by that field, either direction);
// and exact tags and ranges (one, or an intersection) sorted by a NUMERIC
// field read the smallest leaf once, checking the others per document,
// counting every match and keeping the page in a bounded heap (or, when
// that leaf is a range of the sort field, walking it in order). Each tag
// of 256 documents or more also keeps its documents in the order of each
// SORTABLE NUMERIC field (tagnum.go, 12 bytes an entry, a composite
// (tag, number) index): "@t:{x} @n:[a b] SORTBY n" walks it from a and
// stops after the page, counting the total chunk by chunk.
//
// Text analysis (text.go) follows RediSearch 2.x: its separators
// (,./(){}[]:;~!@#$%^&*-=+|'`"<>? space and tab; not \r or \n), a
// backslash escaping one, control characters removed from words (so
// "Genesis\r\nIsaac" is the one word "genesisisaac"), the text cut at a
// NUL byte, case folding, stop words (its default English list, or STOPWORDS),
// positions per field, and stems indexed as "+stem" terms at the word's
// position. Libraries: github.com/kljensen/snowball (Snowball stemmers:
// english, french, spanish, russian, swedish, norwegian, hungarian) and
// github.com/antzucaro/matchr (Double Metaphone for PHONETIC); both are
// small, dependency-free and maintained, and give the same algorithms
// RediSearch links (libstemmer, its double metaphone). No Unicode word
// segmentation is needed: RediSearch splits at those ASCII separators
// only (Chinese aside).
//
// Scoring (score.go) is src/ext/default.c's: a query's match of a document
// is a tree of term, union, intersection and "virtual" results; TFIDF
// sums weight x frequency x idf (idf = logb(1 + docs/termdocs)), times the
// document score, over the document's largest term frequency (TFIDF) or
// its length (TFIDF.DOCNORM), divided by the "slop" of
// IndexResult_MinOffsetDelta; BM25 is 2.x's variant (k1 1.2f, b 0.5, the
// average document length only), BM25STD the standard one; DISMAX and
// DOCSCORE as RediSearch. Frequencies count max(1, field weight) per
// occurrence and max(1, weight x 0.2) per stem, as its forward index.
// Ties keep indexing order (RediSearch's document ids).
//
// # Differences from RediSearch
//
// An index covers the documents of the database it was created in
// (clients in other databases can query it by name). SKIPINITIALSCAN
// skips the keys present at creation, but a restart indexes every key as
// it loads (keys logged before their index's FT.CREATE are indexed by its
// background scan, so a search right after start-up may see a partial
// index while FT.INFO reports indexing 1, as in RediSearch). FLUSHDB/FLUSHALL empty indexes but keep their definitions;
// SWAPDB re-indexes synchronously. Counts are exact (never stale), where
// RediSearch's idf uses term document counts that include deleted
// documents until its garbage collector runs, so scores can differ after
// deletions. A phrase, SLOP or INORDER never spans two fields or two
// values of a JSON array (positions are per field, values 100 apart).
// Scores follow default.c as read; its quirks are kept (a word matched
// together with its stem at one position gets a slop of 10). Not
// implemented: HAMMING scores 0 (no payloads),
// INDEXEMPTY queries for empty TEXT values (empty tags are: @t:{""}),
// several NUMERIC values per JSON field
// (the first is indexed), languages without a Snowball stemmer in the
// library (accepted, not stemmed), PHONETIC languages other than English
// (accepted, English rules), VECTOR fields. Prefix, suffix, infix and
// fuzzy terms scan the term dictionary (at most 200 expansions, as
// RediSearch's MAXPREFIXEXPANSIONS); GEO radius scans the field's points.
// Replies have RediSearch's RESP2 shapes under RESP3 too. Words with
// invalid UTF-8 keep their bytes (RediSearch re-encodes them as code
// points); a query word drops an escaped control character as documents
// do (RediSearch keeps it, so its query finds nothing).
//
// Query attributes (query.go) follow an atom: term, phrase, group or
// field expression, "=>{$weight: w; $slop: n; $inorder: b; $phonetic:
// b}", with RediSearch's errors ("Invalid attribute x", "Invalid value
// (v) for `slop`", "field does not support phonetics"). $weight
// multiplies the node's result weight in every scorer; $slop and
// $inorder override the query's SLOP/INORDER for that intersection (a
// quoted phrase stays exact); $phonetic: false turns a term's phonetic
// expansion off. HIGHLIGHT and SUMMARIZE (highlight.go) give
// RediSearch's output, computed from the returned text and the terms the
// query matched rather than from stored byte offsets (the file says
// how); an index made with NOOFFSETS or NOHL refuses them, as
// RediSearch's.
//
// # Aggregation and the other FT commands
//
// FT.AGGREGATE (aggregate.go, expressions in expr.go, values in
// value.go) runs RediSearch 2.x's pipeline over the query's documents
// under the engine lock, with its replies: rows of property/value pairs
// in the order properties entered the pipeline, computed numbers printed
// as integers or with %.12g. Differences: a number read from a hash
// (LOAD, or a NUMERIC field a step names) keeps its exact text where
// RediSearch prints its double ("1e3" stays "1e3", 2^53+1 stays exact),
// and two such numbers compare exactly (SORTBY, FILTER, MIN/MAX keep
// float64 arithmetic); COUNT_DISTINCTISH and QUANTILE are exact; a missing property
// makes an expression null instead of failing the query. A cursor
// (cursor.go) over a pipeline without GROUPBY or SORTBY computes COUNT
// rows per read from the keys the query matched (a document is loaded
// with its values at the read; deleted ones are skipped); with GROUPBY or
// SORTBY it holds the rows that stage left at FT.AGGREGATE. FT.ALIAS*, FT.CONFIG (alias.go), FT.ALTER and
// FT.TAGVALS (alter.go), FT.SUG* (sug.go), FT.DICT* (dict.go), FT.SYN*
// (synonym.go), FT.EXPLAIN(CLI) (explain.go) and FT.PROFILE (profile.go)
// keep their per-engine state in ext (alias.go); each file says how it
// differs from RediSearch. Aliases, altered schemas, synonyms,
// dictionaries and suggestions are durable: logged, and re-emitted by
// RewriteState.
package search

import (
	"hash/maphash"
	"slices"
	"strings"
	"unsafe"

	"github.com/ordo-db/ordo/internal/engine"
)

// Error replies, with RediSearch's texts.
const (
	ErrUnknownIndex = "Unknown Index name"
	ErrIndexExists  = "Index already exists"
)

// state is one engine's indexes, guarded by the engine lock.
type state struct {
	e       *engine.Engine
	indexes map[string]*index
	list    []*index // indexes' values, for the write path's loops (a map's iteration costs more than the work it guards)

	// Keys changed since the indexes were last brought up to date, in
	// order of first change. KeyChanged runs at a command's first change
	// to a key, possibly before the command has finished writing it (HSET
	// on a new key reports the key once, when it is created empty), so the
	// key is re-read later: before any command reads an index (sync), all
	// under the same lock hold as far as any client can tell.
	pending []pendKey
	pendH   []uint64 // by pending key: its hash (pendHash), scanned for a repeat before it is queued
	pendBuf []byte   // the pending keys' bytes
	seed    maphash.Seed

	hitBuf []hit // searchOpts.pageBuf's buffer, reused by every search

	x        ext  // aliases, cursors, suggestions, dictionaries, synonyms, config (alias.go)
	scanning bool // the scanner goroutine runs (scan.go)
}

type pendKey struct {
	db  int
	key string
}

// maxPending bounds the pending keys: beyond it, KeyChanged brings the
// indexes up to date for every pending key but the one being changed. It
// is small so that a key is re-read while what its command touched is
// still in the CPU's caches (4096 keys made an overwriting HSET about 15%
// slower: the key's entry, its hash and its document were cold again).
const maxPending = 64

// holder creates an engine's state on its first FT command (the engine
// does not exist yet when its command table is built).
type holder struct{ s *state }

func (h *holder) get(e *engine.Engine) *state {
	if h.s == nil {
		h.s = &state{e: e, indexes: map[string]*index{}, seed: maphash.MakeSeed()}
		e.Observe(h.s)
		e.AddStateRewriter(h.s)
	}
	h.s.sync()
	return h.s
}

// KeyChanged implements engine.KeyObserver (lock held): a key under an
// index's prefixes becomes pending; FLUSHDB empties and SWAPDB rebuilds
// the indexes over the databases concerned.
func (s *state) KeyChanged(ev engine.KeyEvent) {
	s.sugKeyEvent(ev)
	if len(s.indexes) == 0 {
		return
	}
	switch ev.Event {
	case "flushdb", "swapdb":
		s.dropPending(ev.DB)
		if ev.Event == "swapdb" {
			s.dropPending(ev.Other)
		}
		for _, ix := range s.indexes {
			switch {
			case ev.Event == "flushdb" && ix.db == ev.DB:
				ix.clear()
			case ev.Event == "swapdb" && (ix.db == ev.DB || ix.db == ev.Other):
				ix.rebuild(s.e)
			}
		}
		return
	}
	covered := false
	for _, ix := range s.list {
		if ix.db == ev.DB && ix.covers(ev.Key) {
			covered = true
			break
		}
	}
	if !covered {
		return
	}
	// A command's changes to one key come together ("new" then "hset"):
	// the last pending key is checked before the set.
	if n := len(s.pending); n > 0 && s.pending[n-1].db == ev.DB && s.pending[n-1].key == ev.Key {
		return
	}
	// A key already pending: its hash among the (at most maxPending)
	// pending keys' hashes, then the key itself.
	h := s.pendHash(ev.DB, ev.Key)
	for i, x := range s.pendH {
		if x == h && s.pending[i].db == ev.DB && s.pending[i].key == ev.Key {
			return
		}
	}
	if len(s.pending) >= maxPending {
		s.sync()
	}
	// The keys are copied into one buffer, reused after each sync (the
	// views die with pending): no allocation per key.
	off := len(s.pendBuf)
	s.pendBuf = append(s.pendBuf, ev.Key...)
	s.pending = append(s.pending, pendKey{ev.DB, unsafe.String(unsafe.SliceData(s.pendBuf[off:]), len(ev.Key))})
	s.pendH = append(s.pendH, h)
}

// pendHash is a pending key's hash.
func (s *state) pendHash(db int, key string) uint64 {
	return maphash.String(s.seed, key) ^ uint64(db)*0x9e3779b97f4a7c15
}

// addIndex adds a created index to the state.
func (s *state) addIndex(ix *index) {
	s.indexes[ix.name] = ix
	s.list = append(s.list, ix)
}

// removeIndex forgets index name.
func (s *state) removeIndex(name string) {
	if ix := s.indexes[name]; ix != nil {
		delete(s.indexes, name)
		s.list = slices.DeleteFunc(s.list, func(x *index) bool { return x == ix })
	}
}

// sync re-reads every pending key into the indexes over its database.
func (s *state) sync() {
	for _, pk := range s.pending {
		for _, ix := range s.list {
			if ix.db == pk.db && ix.covers(pk.key) {
				ix.update(s.e, pk.key)
			}
		}
	}
	clear(s.pending) // no view of pendBuf is left
	s.pending = s.pending[:0]
	s.pendH = s.pendH[:0]
	s.pendBuf = s.pendBuf[:0]
}

// dropPending forgets the pending keys of database db.
func (s *state) dropPending(db int) {
	out, outH := s.pending[:0], s.pendH[:0]
	for i, pk := range s.pending {
		if pk.db == db {
			continue
		}
		out, outH = append(out, pk), append(outH, s.pendH[i])
	}
	clear(s.pending[len(out):])
	s.pending, s.pendH = out, outH
}

// RewriteState implements engine.StateRewriter: the FT.CREATE of every
// index, in name order.
func (s *state) RewriteState(emit func(db int, args [][]byte)) {
	names := make([]string, 0, len(s.indexes))
	for n := range s.indexes {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		ix := s.indexes[n]
		emit(ix.db, ix.create)
	}
	s.rewriteExt(emit)
}

// Register adds the FT.* commands (and MODULE LIST, reporting the search
// module) to an engine's command table. The indexes belong to that one
// engine.
func Register(t *engine.Table) { register(t, &holder{}) }

func register(t *engine.Table, h *holder) {
	spec := func(arity int, flags ...string) engine.Spec {
		return engine.Spec{Arity: arity, Flags: flags, Categories: []string{"@search"}}
	}
	t.RegisterSpec("ft.create", func(c *engine.Ctx) { ftCreate(c, h.get(c.E)) }, spec(-2, "write", "denyoom"))
	t.RegisterSpec("ft.search", func(c *engine.Ctx) { ftSearch(c, h.get(c.E)) }, spec(-3, "readonly"))
	t.RegisterSpec("ft.info", func(c *engine.Ctx) { ftInfo(c, h.get(c.E)) }, spec(2, "readonly"))
	t.RegisterSpec("ft._list", func(c *engine.Ctx) { ftList(c, h.get(c.E)) }, spec(1, "readonly"))
	t.RegisterSpec("ft.dropindex", func(c *engine.Ctx) { ftDrop(c, h.get(c.E), "dd") }, spec(-2, "write"))
	t.RegisterSpec("ft.drop", func(c *engine.Ctx) { ftDrop(c, h.get(c.E), "keepdocs") }, spec(-2, "write"))
	registerExt(t, h, spec)
	t.RegisterContainer("module")
	t.Register("module|list", func(c *engine.Ctx) {
		c.W.Array(1)
		c.W.Array(8)
		for _, s := range []string{"name", "search", "ver"} {
			c.W.BulkString(s)
		}
		c.W.Int(ModuleVersion)
		c.W.BulkString("path")
		c.W.BulkString("")
		c.W.BulkString("args")
		c.W.Array(0)
	})
}

// ModuleVersion is the RediSearch version MODULE LIST reports: clients
// (redis-py, redis-om) check it before using FT.*.
const ModuleVersion = 20610

// ftList is FT._LIST.
func ftList(c *engine.Ctx, s *state) {
	names := make([]string, 0, len(s.indexes))
	for n := range s.indexes {
		names = append(names, n)
	}
	slices.Sort(names)
	c.W.Array(len(names))
	for _, n := range names {
		c.W.BulkString(n)
	}
}

// ftDrop is FT.DROPINDEX idx [DD] (opt "dd": delete the documents when
// given) and FT.DROP idx [KEEPDOCS] (opt "keepdocs": delete them unless).
func ftDrop(c *engine.Ctx, s *state, opt string) {
	ix := s.lookupIndex(string(c.Args[1]))
	if ix == nil {
		c.Error(ErrUnknownIndex)
		return
	}
	name := ix.name
	given := false
	for i := 2; i < len(c.Args); i++ {
		if len(c.Args[i]) == 0 {
			continue // redis-py 4 sends FT.DROP idx "" to delete the documents
		}
		if !c.ArgIs(i, opt) {
			c.Error("Unknown argument `" + string(c.Args[i]) + "`")
			return
		}
		given = true
	}
	deleteDocs := given == (opt == "dd")
	s.removeIndex(name)
	s.dropExt(name)
	// The documents' deletions are logged as DELs in the index's database
	// (the command's context moves there), then the drop itself.
	c.DB = c.E.DBs()[ix.db]
	if deleteDocs {
		keys := make([]string, 0, ix.live)
		ix.eachDoc(func(id uint32, _ *doc) bool {
			keys = append(keys, strings.Clone(ix.key(id)))
			return true
		})
		slices.Sort(keys)
		for _, k := range keys {
			if c.Delete([]byte(k)) {
				c.PropagateStrings("DEL", k)
			}
		}
	}
	c.PropagateStrings("FT.DROPINDEX", name)
	c.Dirty(1)
	c.W.OK()
}
