package search

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/ds/jsonpath"
	"github.com/ordo-db/ordo/internal/engine"
)

type fieldType int

const (
	typeText fieldType = iota
	typeTag
	typeNumeric
	typeGeo
)

func (t fieldType) String() string {
	return [...]string{"TEXT", "TAG", "NUMERIC", "GEO"}[t]
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
	unf           bool           // SORTABLE UNF: sort (and FT.AGGREGATE sees) the value as is
	path          *jsonpath.Path // ON JSON: the field's path
	phonetic      string         // PHONETIC matcher ("" none)
	missing       bool           // INDEXMISSING
	empty         bool           // INDEXEMPTY
	ord           int            // TEXT: the field's bit in text masks
}

// doc is one indexed hash: what was indexed for it, so that a change can
// remove exactly that.
type doc struct {
	key     string
	nums    []string   // per field: parseNumber key ("" none)
	tags    [][]string // per field: distinct normalized tags
	geos    []geoPoint // per field (GEO)
	terms   []string   // distinct indexed terms (words and "+stems") of every TEXT field
	has     uint64     // bit i: the hash has field i (INDEXMISSING); fields past 64 always present
	maxFreq uint32     // the largest term frequency (TFIDF's norm)
	length  uint32     // the sum of term frequencies (TFIDF.DOCNORM, BM25)
	score   float64    // the document's score (SCORE_FIELD, else the index's SCORE)
	seq     uint64     // order of indexing: RediSearch's document id, which breaks score ties
}

// records is the number of index entries of d.
func (d *doc) records() int {
	n := len(d.terms)
	for i := range d.nums {
		if d.nums[i] != "" {
			n++
		}
		n += len(d.tags[i])
	}
	return n
}

// tentry is one term of one document: its frequency (occurrences
// weighted by field, as RediSearch counts them), the TEXT fields it
// occurs in, and its positions, each fieldOrd<<24 | position.
type tentry struct {
	freq uint32
	mask uint64
	pos  []uint32
}

const posBits = 24

// geoPoint is a GEO value.
type geoPoint struct {
	lon, lat float64
	ok       bool
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
	json     bool     // ON JSON
	lang     string   // LANGUAGE (default english)
	langF    string   // LANGUAGE_FIELD
	scoreF   string   // SCORE_FIELD
	score    float64  // SCORE: the default document score
	totalLen uint64   // the sum of the documents' lengths (BM25)
	records  int      // index entries (FT.INFO num_records)
	seq      uint64   // the last document's seq

	ids  map[string]uint32 // key -> doc id
	docs []*doc            // by id; nil for a free id
	free []uint32
	live int

	nums  []*numTree                   // per field (numeric)
	tags  []map[string]map[uint32]bool // per field (tag): tag -> docs
	texts map[string]map[uint32]tentry // term -> doc -> entry, every TEXT field

	failures int64 // hashes that could not be indexed (hash_indexing_failures)

	scan  scanState         // the initial walk of the keyspace
	stems map[string]string // word -> stem in lang (stemOf)

	scratch termScratch // addSource's, reused
}

func newIndex(name string, db int) *index {
	return &index{name: name, db: db, ids: map[string]uint32{}, lang: "english", langF: "__language", scoreF: "__score", score: 1}
}

func (ix *index) initFields() {
	ix.nums = make([]*numTree, len(ix.fields))
	ix.tags = make([]map[string]map[uint32]bool, len(ix.fields))
	ix.texts = map[string]map[uint32]tentry{}
	ix.totalLen, ix.records = 0, 0
	for i, f := range ix.fields {
		switch f.typ {
		case typeNumeric:
			ix.nums[i] = &numTree{}
		case typeTag:
			ix.tags[i] = map[string]map[uint32]bool{}
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

// clear forgets every document (and ends any initial walk).
func (ix *index) clear() {
	ix.scan.active = false
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
	src, ok := ix.sourceOf(v)
	if !ok {
		return
	}
	ix.addSource(strings.Clone(key), src)
}

// fieldSource is a document's fields: a hash.
type fieldSource interface {
	Get(field string) (string, bool)
}

// add indexes hash h at key (absent from the index). A hash whose NUMERIC
// or GEO field does not hold a valid value is not indexed at all and
// counts as an indexing failure, as in RediSearch.
func (ix *index) add(key string, h fieldSource) { ix.addSource(key, hashSource{h}) }

func (ix *index) addSource(key string, h source) {
	d := &doc{
		nums:  make([]string, len(ix.fields)),
		tags:  make([][]string, len(ix.fields)),
		score: ix.score,
	}
	if v, ok := h.get(ix.scoreF); ok {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f <= 1 {
			d.score = f
		}
	}
	lang := ix.lang
	if ix.langF != "" {
		if v, ok := h.get(ix.langF); ok && validLanguage(v) {
			lang = v
		}
	}
	entries := ix.scratch.reset()
	hs, isHash := h.(hashSource)
	var one [1]string // a hash field's value, without a slice per field
	for i, f := range ix.fields {
		var vals []string
		present, ok := false, true
		if isHash {
			one[0], present = hs.h.Get(f.name)
			vals = one[:]
		} else {
			vals, present, ok = h.values(f)
		}
		if !ok {
			ix.failures++
			return
		}
		if !present {
			continue
		}
		if i < 64 {
			d.has |= 1 << i
		}
		if f.noindex {
			continue
		}
		val := vals[0]
		switch f.typ {
		case typeNumeric:
			k, ok := parseNumber(val)
			if !ok {
				ix.failures++
				return
			}
			d.nums[i] = k
		case typeGeo:
			p, ok := parseGeo(val)
			if !ok {
				ix.failures++
				return
			}
			if d.geos == nil {
				d.geos = make([]geoPoint, len(ix.fields))
			}
			d.geos[i] = p
		case typeTag:
			var tags []string
			for _, val := range vals {
				for t := range strings.SplitSeq(val, string(f.sep)) {
					if t = f.normTag(t); (t != "" || f.empty) && !slices.Contains(tags, t) {
						tags = append(tags, t)
					}
				}
			}
			d.tags[i] = tags
		case typeText:
			base := uint32(0)
			for _, val := range vals {
				base = ix.analyze(d, entries, f, val, lang, base) + multiTextGap
			}
		}
	}
	d.terms = make([]string, 0, len(entries.at))
	npos := 0
	for t, i := range entries.at {
		d.terms = append(d.terms, t)
		npos += len(entries.es[i].pos)
	}
	// Every term's positions in one array: a document's postings are
	// added and removed together.
	posBuf := make([]uint32, 0, npos)
	d.key = key
	ix.seq++
	d.seq = ix.seq
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
	ix.totalLen += uint64(d.length)
	ix.records += d.records()
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
	}
	for _, t := range d.terms {
		e := entries.es[entries.at[t]]
		s := ix.texts[t]
		if s == nil {
			s = map[uint32]tentry{}
			ix.texts[t] = s
		}
		n := len(posBuf)
		posBuf = append(posBuf, e.pos...)
		e.pos = posBuf[n:len(posBuf):len(posBuf)]
		s[id] = e
	}
}

// termScratch collects one document's terms (addSource), reused from
// document to document: its map and its entries' position buffers stay
// allocated.
type termScratch struct {
	at map[string]int32 // term -> index in es
	es []tentry
}

func (sc *termScratch) reset() *termScratch {
	if sc.at == nil || len(sc.at) > 4096 {
		sc.at = map[string]int32{}
		sc.es = nil
	}
	clear(sc.at)
	sc.es = sc.es[:0]
	return sc
}

func (sc *termScratch) get(term string) *tentry {
	if i, ok := sc.at[term]; ok {
		return &sc.es[i]
	}
	n := len(sc.es)
	if n < cap(sc.es) {
		sc.es = sc.es[:n+1]
		sc.es[n] = tentry{pos: sc.es[n].pos[:0]}
	} else {
		sc.es = append(sc.es, tentry{})
	}
	sc.at[term] = int32(n)
	return &sc.es[n]
}

// analyze indexes the words of TEXT field f's value into entries, with
// RediSearch's frequencies: each occurrence adds max(1, weight) to its
// word, and max(1, weight x 0.2) to its stem.
func (ix *index) analyze(d *doc, entries *termScratch, f *field, val, lang string, base uint32) uint32 {
	inc := max(1, uint32(float32(f.weight)))
	stemInc := max(1, uint32(float32(f.weight)*stemFactor))
	put := func(term string, pos uint32, n uint32) {
		e := entries.get(term)
		e.freq += n
		e.mask |= 1 << f.ord
		if pos < 1<<posBits {
			e.pos = append(e.pos, uint32(f.ord)<<posBits|pos)
		}
		d.maxFreq = max(d.maxFreq, e.freq)
		d.length += n
	}
	last := base
	tokenize(val, ix.stop, func(t token) {
		t.pos += base
		last = t.pos
		put(t.word, t.pos, inc)
		if !f.nostem {
			if s := ix.stemOf(t.word, lang); s != "" && s != t.word {
				put(stemPrefix+s, t.pos, stemInc)
			}
		}
		if f.phonetic != "" {
			for _, p := range phoneticCodes(t.word) {
				put(phoneticPrefix+p, t.pos, inc)
			}
		}
	})
	return last
}

// stemCacheMax bounds an index's cache of stems (the library allocates;
// a vocabulary repeats).
const stemCacheMax = 1 << 16

// stemOf is stem, cached per index for its default language.
func (ix *index) stemOf(word, lang string) string {
	if lang != ix.lang {
		return stem(word, lang)
	}
	if s, ok := ix.stems[word]; ok {
		return s
	}
	s := stem(word, lang)
	if len(ix.stems) >= stemCacheMax || ix.stems == nil {
		ix.stems = map[string]string{}
	}
	ix.stems[word] = s
	return s
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
	}
	for _, t := range d.terms {
		s := ix.texts[t]
		delete(s, id)
		if len(s) == 0 {
			delete(ix.texts, t)
		}
	}
	ix.totalLen -= uint64(d.length)
	ix.records -= d.records()
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
			if _, ok := ix.sourceOf(v); ok {
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
func (ix *index) numTerms() int { return len(ix.texts) }
