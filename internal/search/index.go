package search

import (
	"math"
	"slices"
	"strings"

	"github.com/ordo-db/ordo/internal/engine"
)

type fieldType int

const (
	typeText fieldType = iota
	typeTag
	typeNumeric
)

func (t fieldType) String() string {
	return [...]string{"TEXT", "TAG", "NUMERIC"}[t]
}

// field is one attribute of a schema.
type field struct {
	name          string // the hash field
	alias         string // the attribute name queries use (name unless AS)
	typ           fieldType
	sortable      bool
	noindex       bool
	sep           byte // TAG separator
	caseSensitive bool
	weight        float64
	nostem        bool
	unf           bool // SORTABLE UNF: FT.AGGREGATE sees the value as is
}

// doc is one indexed hash: what was indexed for it, so that a change can
// remove exactly that.
type doc struct {
	key   string
	nums  []string     // per field: parseNumber key ("" none)
	tags  [][]string   // per field: distinct normalized tags
	terms [][]termFreq // per field: distinct words, sorted
	words int          // number of indexed words (TF-IDF normalization)
}

// termFreq is a word of a document's field and its number of occurrences.
type termFreq struct {
	term string
	n    uint32
}

// freq returns the occurrences of term in ts (sorted).
func freq(ts []termFreq, term string) uint32 {
	i, ok := slices.BinarySearchFunc(ts, term, func(t termFreq, s string) int { return strings.Compare(t.term, s) })
	if !ok {
		return 0
	}
	return ts[i].n
}

// index is one FT.CREATE'd index over the hashes of one database.
type index struct {
	name     string
	db       int
	prefixes []string
	fields   []*field
	stop     map[string]bool
	create   [][]byte // the FT.CREATE arguments, for AOF rewrites
	options  []string // FT.INFO index_options

	ids  map[string]uint32 // key -> doc id
	docs []*doc            // by id; nil for a free id
	free []uint32
	live int

	nums  []*numTree                     // per field (numeric)
	tags  []map[string]map[uint32]bool   // per field (tag): tag -> docs
	texts []map[string]map[uint32]uint32 // per field (text): term -> doc -> frequency

	failures int64 // hashes that could not be indexed (hash_indexing_failures)
}

func newIndex(name string, db int) *index {
	return &index{name: name, db: db, ids: map[string]uint32{}}
}

func (ix *index) initFields() {
	ix.nums = make([]*numTree, len(ix.fields))
	ix.tags = make([]map[string]map[uint32]bool, len(ix.fields))
	ix.texts = make([]map[string]map[uint32]uint32, len(ix.fields))
	for i, f := range ix.fields {
		switch f.typ {
		case typeNumeric:
			ix.nums[i] = &numTree{}
		case typeTag:
			ix.tags[i] = map[string]map[uint32]bool{}
		case typeText:
			ix.texts[i] = map[string]map[uint32]uint32{}
		}
	}
}

// attr returns the field whose attribute name is name (case-insensitive,
// as RediSearch).
func (ix *index) attr(name string) *field {
	for _, f := range ix.fields {
		if strings.EqualFold(f.alias, name) {
			return f
		}
	}
	return nil
}

func (ix *index) fieldIndex(alias string) int {
	for i, f := range ix.fields {
		if f.alias == alias {
			return i
		}
	}
	return -1
}

func (ix *index) isStop(t string) bool { return ix.stop[t] }

// covers reports whether key is under one of the index's prefixes.
func (ix *index) covers(key string) bool {
	if len(ix.prefixes) == 0 {
		return true
	}
	for _, p := range ix.prefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// normTag is the indexed form of a tag.
func (f *field) normTag(t string) string {
	t = strings.TrimSpace(t)
	if !f.caseSensitive {
		t = strings.ToLower(t)
	}
	return t
}

// clear forgets every document.
func (ix *index) clear() {
	ix.ids = map[string]uint32{}
	ix.docs, ix.free, ix.live = nil, nil, 0
	ix.initFields()
}

// update re-reads key from the engine (lock held) and indexes its current
// value: the document is removed, then added back if key holds a hash.
func (ix *index) update(e *engine.Engine, key string) {
	if id, ok := ix.ids[key]; ok {
		ix.remove(id)
	}
	v, _, ok := e.Peek(ix.db, key)
	if !ok {
		return
	}
	h, ok := v.Obj().(*engine.Hash)
	if !ok {
		return
	}
	ix.add(strings.Clone(key), h)
}

// add indexes hash h at key (absent from the index). A hash whose NUMERIC
// field does not hold a number is not indexed at all and counts as an
// indexing failure, as in RediSearch.
func (ix *index) add(key string, h *engine.Hash) {
	d := &doc{
		nums:  make([]string, len(ix.fields)),
		tags:  make([][]string, len(ix.fields)),
		terms: make([][]termFreq, len(ix.fields)),
	}
	for i, f := range ix.fields {
		if f.noindex {
			continue
		}
		val, ok := h.Get(f.name)
		if !ok {
			continue
		}
		switch f.typ {
		case typeNumeric:
			k, ok := parseNumber(val)
			if !ok {
				ix.failures++
				return
			}
			d.nums[i] = k
		case typeTag:
			var tags []string
			for _, t := range strings.Split(val, string(f.sep)) {
				if t = f.normTag(t); t != "" && !slices.Contains(tags, t) {
					tags = append(tags, t)
				}
			}
			d.tags[i] = tags
		case typeText:
			m := map[string]uint32{}
			tokenize(val, func(w string) {
				if !ix.stop[w] {
					m[w]++
					d.words++
				}
			})
			ts := make([]termFreq, 0, len(m))
			for t, n := range m {
				ts = append(ts, termFreq{t, n})
			}
			slices.SortFunc(ts, func(a, b termFreq) int { return strings.Compare(a.term, b.term) })
			d.terms[i] = ts
		}
	}
	d.key = key
	var id uint32
	if n := len(ix.free); n > 0 {
		id = ix.free[n-1]
		ix.free = ix.free[:n-1]
		ix.docs[id] = d
	} else {
		id = uint32(len(ix.docs))
		ix.docs = append(ix.docs, d)
	}
	ix.ids[key] = id
	ix.live++
	for i := range ix.fields {
		if k := d.nums[i]; k != "" {
			ix.nums[i].insert(numEntry{k, id})
		}
		for _, t := range d.tags[i] {
			s := ix.tags[i][t]
			if s == nil {
				s = map[uint32]bool{}
				ix.tags[i][t] = s
			}
			s[id] = true
		}
		for _, tf := range d.terms[i] {
			t, n := tf.term, tf.n
			s := ix.texts[i][t]
			if s == nil {
				s = map[uint32]uint32{}
				ix.texts[i][t] = s
			}
			s[id] = n
		}
	}
}

func (ix *index) remove(id uint32) {
	d := ix.docs[id]
	for i := range ix.fields {
		if k := d.nums[i]; k != "" {
			ix.nums[i].remove(numEntry{k, id})
		}
		for _, t := range d.tags[i] {
			s := ix.tags[i][t]
			delete(s, id)
			if len(s) == 0 {
				delete(ix.tags[i], t)
			}
		}
		for _, tf := range d.terms[i] {
			t := tf.term
			s := ix.texts[i][t]
			delete(s, id)
			if len(s) == 0 {
				delete(ix.texts[i], t)
			}
		}
	}
	delete(ix.ids, d.key)
	ix.docs[id] = nil
	ix.free = append(ix.free, id)
	ix.live--
}

// rebuild re-indexes every hash of the index's database (lock held).
func (ix *index) rebuild(e *engine.Engine) {
	ix.clear()
	var keys []string
	// Keys past their TTL are indexed too: queries skip them, and their
	// expiry (lazy or active) removes them.
	e.DBs()[ix.db].Each(math.MinInt64, func(k string, v engine.Value, _ int64) bool {
		if ix.covers(k) {
			if _, ok := v.Obj().(*engine.Hash); ok {
				keys = append(keys, k)
			}
		}
		return true
	})
	slices.Sort(keys) // deterministic document ids
	for _, k := range keys {
		ix.update(e, k)
	}
}

// numTerms is the number of distinct terms of the TEXT fields.
func (ix *index) numTerms() int {
	n := 0
	for _, m := range ix.texts {
		n += len(m)
	}
	return n
}
