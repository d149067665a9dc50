package search

import (
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

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

// doc is one indexed document's record, by id in fixed-size pages:
// what scoring reads, and where the rest of what was indexed for it (its
// key, tags and terms; numbers and points are in their fields' columns)
// is, so that a change can remove exactly that.
//
// Its order of indexing (RediSearch's document id, which breaks score
// ties) is its id's order: ids are handed out increasing and renumbering
// keeps their order, so no sequence number is stored (8 bytes a
// document); FT.INFO's max_doc_id counts in index.seq.
type doc struct {
	rec     uint32 // where the document's record is in index.recs (recArena.at); 0: a free id
	maxFreq uint32 // the largest term frequency (TFIDF's norm)
	length  uint32 // the sum of term frequencies (TFIDF.DOCNORM, BM25)
}

// sdoc is what a scorer reads of a document: its record and its score.
type sdoc struct {
	*doc
	score float64
}

// sdoc returns document id's record and score.
func (ix *index) sdoc(id uint32) sdoc { return sdoc{ix.doc(id), ix.docScore(id)} }

// docScore is document id's score (SCORE_FIELD, else the index's SCORE).
func (ix *index) docScore(id uint32) float64 {
	if int(id) < len(ix.scores) {
		return ix.scores[id]
	}
	return ix.score
}

// setScore records document id's score (addSource: ids come in
// increasing order, so the column grows at its end). The column exists
// once a document's score is not the index's; ids past it have the
// index's.
func (ix *index) setScore(id uint32, s float64) {
	if s == ix.score && int(id) >= len(ix.scores) {
		return
	}
	for int(id) >= len(ix.scores) {
		ix.scores = append(ix.scores, ix.score)
	}
	ix.scores[id] = s
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
	textRecs int      // text entries (term, document)
	offsets  int      // their positions
	seq      uint64   // documents indexed so far (FT.INFO max_doc_id)

	docs  [][]doc  // by id, in pages of pageSize
	top   uint32   // ids handed out so far
	holes int      // renumber once removed ids exceed this plus half the documents
	odd   []uint64 // bit per id: the document's score is not the index's, or a term occurs in it more than once (doc.odd)
	live  int
	keys  keyTable // key -> id
	recs  recArena // the documents' records, appended
	dead  int      // bytes of recs no document uses
	recSc []byte   // addSource's record, reused

	nums  []*numTree   // per field (numeric)
	tags  []*tagDict   // per field (tag): tag -> documents
	tagc  [][]uint32   // per field (tag): by id, its tag's id+1 if it has one, multiTag if several, 0 if none
	geos  [][]geoPoint // per field (geo): by id
	terms *termDict    // every TEXT field's terms -> documents and their packed entries (tlist.go)
	over  []tentry     // text entries too large to pack (tpacked), by index
	overF []uint32     // free indexes of over
	tn    tagNums      // per tag, its documents in the order of each SORTABLE NUMERIC field (tagnum.go)

	failures int64 // hashes that could not be indexed (hash_indexing_failures)
	reslot   int   // update: the key table position of the document's key, or -1

	scan  scanState // the initial walk of the keyspace
	tmark []int32   // by term id: its entry in scratch + 1 while a document is analyzed

	scratch termScratch // addSource's, reused
	wanted  []string    // readHash's: the hash fields it reads
	hsrc    hashSource  // update's source for a hash

	handles []*engine.Hash // by id: the document's hash in the keyspace (handles.go)

	// By id, bit i: the hash has field i (fields past 64 always count as
	// present); kept only by an index with an INDEXMISSING field, the one
	// reader (ismissing), so that other indexes spare 8 bytes a document.
	present []uint64

	// By id, the documents' scores, up to the last whose score is not the
	// index's (nil while every score is the index's, as it is unless a
	// SCORE_FIELD sets one: 8 bytes a document spared).
	scores []float64
}

const (
	pageBits = 10
	pageSize = 1 << pageBits
)

func newIndex(name string, db int) *index {
	return &index{name: name, db: db, lang: "english", langF: "__language", scoreF: "__score", score: 1, terms: newDict[uint64, tlist](), holes: 4096, reslot: -1}
}

func (ix *index) initFields() {
	ix.nums = make([]*numTree, len(ix.fields))
	ix.tags = make([]*tagDict, len(ix.fields))
	ix.geos = make([][]geoPoint, len(ix.fields))
	ix.tagc = make([][]uint32, len(ix.fields))
	ix.terms = newDict[uint64, tlist]()
	ix.over, ix.overF = nil, nil
	ix.totalLen, ix.records, ix.textRecs, ix.offsets = 0, 0, 0, 0
	ix.tnInit()
	for i, f := range ix.fields {
		switch f.typ {
		case typeNumeric:
			ix.nums[i] = &numTree{}
		case typeTag:
			ix.tags[i] = newDict[struct{}, plist[struct{}]]()
		}
	}
}

// keepsPresent reports whether the index has an INDEXMISSING field
// (index.present).
func (ix *index) keepsPresent() bool {
	for _, f := range ix.fields {
		if f.missing {
			return true
		}
	}
	return false
}

// hasField reports whether document id's hash has field fi.
func (ix *index) hasField(id uint32, fi int) bool {
	return fi >= 64 || int(id) < len(ix.present) && ix.present[id]&(1<<fi) != 0
}

// doc returns document id's record (not live: a free id).
func (ix *index) doc(id uint32) *doc { return &ix.docs[id>>pageBits][id&(pageSize-1)] }

// live reports whether the record is a document's (not a free id's).
func (d *doc) live() bool { return d.rec != 0 }

// A document's record in recs: uvarint length of the rest, uvarint key
// length, the key, then for each TAG field (in schema order) uvarint
// count and its tags' ids, then uvarint count and the ids of its terms.
// Records are only appended (a changed document gets a new one), so a
// key read from one stays valid; recs is compacted into a new arena when
// more than half of it is dead.

// recArena holds the records in pages of at most recPage bytes (a record
// larger than that has a page of its own), each filled and never moved: a
// record's place is its page << recPageBits | its offset there, plus 1
// (0 is no record: a free id). One
// growing array was copied whole at each growth (Go grows a large slice
// by a quarter: about five bytes allocated and copied per byte kept,
// more than the record itself cost to build); pages cost one allocation
// per recPage bytes, and at most the last page's room is slack. First
// pages are small (an index of a few documents holds a few hundred
// bytes), doubling up to recPage. At most 2^(32-recPageBits) pages: 4 GiB
// of records, as a 32-bit offset into one array allowed.
type recArena struct {
	pages [][]byte
	used  int // bytes of records, over all pages
	room  int // bytes allocated, over all pages
}

const (
	recPageBits = 16
	recPage     = 1 << recPageBits
)

// at returns the bytes from record place off on.
func (a *recArena) at(off uint32) []byte {
	off--
	return a.pages[off>>recPageBits][off&(recPage-1):]
}

// add appends a record: b prefixed by its uvarint length; its place.
func (a *recArena) add(b []byte) uint32 {
	need := uvarintLen(uint64(len(b))) + len(b)
	np := len(a.pages)
	if np == 0 || cap(a.pages[np-1])-len(a.pages[np-1]) < need {
		size := recPage
		if np == 0 || cap(a.pages[np-1]) < recPage/2 {
			size = 256
			if np > 0 {
				size = 2 * cap(a.pages[np-1])
			}
		}
		a.pages = append(a.pages, make([]byte, 0, max(size, need)))
		a.room += max(size, need)
		np++
	}
	pg := &a.pages[np-1]
	off := uint32(np-1)<<recPageBits | uint32(len(*pg)) + 1
	*pg = binary.AppendUvarint(*pg, uint64(len(b)))
	*pg = append(*pg, b...)
	a.used += need
	return off
}

// uvarintLen is the length of x's uvarint encoding.
func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// key returns document id's key. The string is a view of recs, immutable.
func (ix *index) key(id uint32) string {
	b := ix.recs.at(ix.doc(id).rec)
	_, w := binary.Uvarint(b)
	b = b[w:]
	n, w := binary.Uvarint(b)
	if n == 0 {
		return ""
	}
	return unsafe.String(&b[w], int(n))
}

// idOf returns the id of the document at key.
func (ix *index) idOf(key string) (uint32, bool) { return ix.keys.find(key, ix.key) }

// eachDoc calls fn for every document, in id order, until fn returns false.
func (ix *index) eachDoc(fn func(id uint32, d *doc) bool) {
	for p, page := range ix.docs {
		for i := range page {
			if d := &page[i]; d.live() {
				if !fn(uint32(p<<pageBits|i), d) {
					return
				}
			}
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
	ix.docs, ix.top, ix.live, ix.odd = nil, 0, 0, nil
	ix.keys = keyTable{}
	ix.recs, ix.dead = recArena{}, 0
	ix.handles, ix.present, ix.scores = nil, nil, nil
	ix.initFields()
}

// update re-reads key from the engine (lock held) and indexes its current
// value: the document is removed, then added back if key holds a hash.
func (ix *index) update(e *engine.Engine, key string) {
	// A key indexed before keeps its place in the key table: the new
	// document's id is written there (ix.reslot), or the place is freed
	// if the key is no longer indexed.
	at, id := ix.keys.slot(key, ix.key)
	if at >= 0 {
		ix.removeDoc(id, false)
	}
	ix.reslot = at
	if !ix.updateSource(e, key) && at >= 0 {
		ix.keys.removeAt(at)
	}
	ix.reslot = -1
}

// updateSource indexes key's current value; false if it is not indexed.
func (ix *index) updateSource(e *engine.Engine, key string) bool {
	v, _, ok := e.Peek(ix.db, key)
	if !ok {
		return false
	}
	if h, ok := v.Obj().(*engine.Hash); ok && !ix.json {
		// The index's own source: no interface value allocated per update.
		ix.hsrc = hashSource{h}
		ok := ix.addSource(key, &ix.hsrc)
		ix.hsrc = hashSource{}
		if ok {
			ix.setHandle(ix.top-1, v) // addSource's new id is the last
		}
		return ok
	}
	src, ok := ix.sourceOf(v)
	if !ok {
		return false
	}
	return ix.addSource(key, src)
}

// fieldSource is a document's fields: a hash.
type fieldSource interface {
	Get(field string) (string, bool)
}

// add indexes hash h at key (absent from the index). A hash whose NUMERIC
// or GEO field does not hold a valid value is not indexed at all and
// counts as an indexing failure, as in RediSearch.
func (ix *index) add(key string, h fieldSource) { ix.addSource(key, &hashSource{h}) }

// numScratch is one NUMERIC value parsed by addSource.
type numScratch struct {
	fi    int
	f     float64
	exact string
}

// geoScratch is one GEO value parsed by addSource.
type geoScratch struct {
	fi int
	p  geoPoint
}

// addSource indexes the document at key (absent from the index); false if
// it could not be (an indexing failure).
func (ix *index) addSource(key string, h source) bool {
	var d doc
	score := ix.score
	var has uint64 // the fields present (index.present)
	sc := ix.scratch.reset(ix)
	var scoreV, langV string
	var hasScore, hasLang bool
	if hs, ok := h.(*hashSource); ok {
		if eh, ok := hs.h.(*engine.Hash); ok && eh.Len() <= 64 {
			scoreV, hasScore, langV, hasLang = ix.readHash(eh, sc)
		} else {
			for i, f := range ix.fields {
				if v, present := hs.h.Get(f.name); present {
					sc.vals[i] = append(sc.vals[i], v)
				}
			}
			scoreV, hasScore = h.get(ix.scoreF)
			if ix.langF != "" {
				langV, hasLang = h.get(ix.langF)
			}
		}
	} else {
		for i, f := range ix.fields {
			vals, present, ok := h.values(f)
			if !ok {
				ix.failures++
				return false
			}
			if present { // present: at least one value
				sc.vals[i] = append(sc.vals[i], vals...)
			}
		}
		scoreV, hasScore = h.get(ix.scoreF)
		if ix.langF != "" {
			langV, hasLang = h.get(ix.langF)
		}
	}
	if hasScore {
		if f, err := strconv.ParseFloat(scoreV, 64); err == nil && f >= 0 && f <= 1 {
			score = f
		}
	}
	lang := ix.lang
	if hasLang && validLanguage(langV) {
		lang = langV
	}
	// Numbers and points are parsed first: a document that fails is left
	// before anything is interned.
	for i, f := range ix.fields {
		vals := sc.vals[i]
		if len(vals) == 0 {
			continue
		}
		if i < 64 {
			has |= 1 << i
		}
		if f.noindex {
			continue
		}
		switch f.typ {
		case typeNumeric:
			x, exact, ok := numValue(vals[0])
			if !ok {
				ix.failures++
				return false
			}
			sc.nums = append(sc.nums, numScratch{i, x, exact})
		case typeGeo:
			p, ok := parseGeo(vals[0])
			if !ok {
				ix.failures++
				return false
			}
			sc.geos = append(sc.geos, geoScratch{i, p})
		}
	}
	for i, f := range ix.fields {
		vals := sc.vals[i]
		if len(vals) == 0 || f.noindex {
			continue
		}
		switch f.typ {
		case typeTag:
			tags := sc.tags[i][:0]
			for _, val := range vals {
				for t := range strings.SplitSeq(val, string(f.sep)) {
					if t = f.normTag(t); (t != "" || f.empty) && !slices.Contains(tags, t) {
						tags = append(tags, t)
					}
				}
			}
			sc.tags[i] = tags
		case typeText:
			base := uint32(0)
			for _, val := range vals {
				base = ix.analyze(&d, sc, f, val, lang, base) + multiTextGap
			}
		}
	}
	id := ix.allocID()
	ix.seq++
	records := len(sc.tids) + len(sc.nums)
	// The record: key, tags' ids per TAG field, terms' ids.
	b := ix.recSc[:0]
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	for i, f := range ix.fields {
		if f.typ != typeTag {
			continue
		}
		b = binary.AppendUvarint(b, uint64(len(sc.tags[i])))
		cv := uint32(0)
		for _, t := range sc.tags[i] {
			tid := ix.tags[i].intern(t)
			ix.tags[i].posts[tid].add(id, struct{}{})
			b = binary.AppendUvarint(b, uint64(tid))
			cv = tid + 1
		}
		if len(sc.tags[i]) > 1 {
			cv = multiTag
		}
		if cv != 0 || int(id) < len(ix.tagc[i]) {
			col := ix.tagc[i]
			for int(id) >= len(col) {
				col = append(col, 0)
			}
			col[id] = cv
			ix.tagc[i] = col
		}
		records += len(sc.tags[i])
	}
	b = binary.AppendUvarint(b, uint64(len(sc.tids)))
	ix.textRecs += len(sc.tids)
	for j, tid := range sc.tids {
		ix.offsets += len(sc.es[j].pos)
		ix.terms.posts[tid].add(id, ix.pack(&sc.es[j]))
		b = binary.AppendUvarint(b, uint64(tid))
	}
	ix.recSc = b
	d.rec = ix.recs.add(b)
	*ix.doc(id) = d
	if ix.keepsPresent() {
		for int(id) >= len(ix.present) {
			ix.present = append(ix.present, 0)
		}
		ix.present[id] = has
	}
	ix.setScore(id, score)
	if score != ix.score || d.maxFreq > 1 {
		ix.setOdd(id)
	}
	for _, n := range sc.nums {
		ix.nums[n.fi].insert(id, n.f, n.exact)
	}
	for _, g := range sc.geos {
		col := ix.geos[g.fi]
		for int(id) >= len(col) {
			col = append(col, geoPoint{})
		}
		col[id] = g.p
		ix.geos[g.fi] = col
	}
	if ix.reslot >= 0 {
		ix.keys.setAt(ix.reslot, id)
	} else {
		ix.keys.insert(key, id, ix.key)
	}
	ix.live++
	ix.totalLen += uint64(d.length)
	ix.records += records
	ix.tnAdd(id)
	return true
}

// multiTag marks, in a tag column, a document with several tags.
const multiTag = math.MaxUint32

// readHash reads the hash fields the index uses in one pass over a small
// hash: the schema's fields into the scratch's values, and the score and
// language fields. The values are copied into the scratch's buffer.
func (ix *index) readHash(h *engine.Hash, sc *termScratch) (scoreV string, hasScore bool, langV string, hasLang bool) {
	nf := len(ix.fields)
	// The names wanted, by w: the fields', the score's, the language's.
	nw := nf + 1
	if ix.langF != "" {
		nw++
	}
	if len(ix.wanted) != nw { // FT.ALTER adds fields
		ix.wanted = ix.wanted[:0]
		for _, f := range ix.fields {
			ix.wanted = append(ix.wanted, f.name)
		}
		ix.wanted = append(ix.wanted, ix.scoreF)
		if ix.langF != "" {
			ix.wanted = append(ix.wanted, ix.langF)
		}
	}
	wanted := ix.wanted
	buf := sc.buf[:0]
	spans := sc.spans[:0]
	h.Each(func(f, v string) bool {
		for w, name := range wanted {
			if name == f {
				off := len(buf)
				buf = append(buf, v...)
				spans = append(spans, valSpan{w, off, len(buf)})
			}
		}
		return true
	})
	// Views of the scratch buffer, valid until the next document: what is
	// kept (terms, tags, exact numbers) is copied where it is interned or
	// parsed.
	var all string
	if len(buf) > 0 {
		all = unsafe.String(&buf[0], len(buf))
	}
	for _, sp := range spans {
		v := all[sp.off:sp.end]
		switch {
		case sp.w < nf:
			sc.vals[sp.w] = append(sc.vals[sp.w], v)
		case sp.w == nf:
			scoreV, hasScore = v, true
		default:
			langV, hasLang = v, true
		}
	}
	sc.buf, sc.spans = buf, spans
	return
}

// valSpan is where readHash copied the value of wanted field w.
type valSpan struct{ w, off, end int }

// Document ids are handed out in increasing order and never reused, so
// that id order is indexing order (seq): posting lists grow at their
// tails, and ties between equal scores are broken by id without reading
// the documents (searchNumRange). A removed document leaves a hole; when
// the holes outnumber half the documents, renumber closes them.

// allocID returns a new document id (its record zero).
func (ix *index) allocID() uint32 {
	if holes := int(ix.top) - ix.live; holes > ix.live/2+ix.holes {
		ix.renumber()
	}
	id := ix.top
	if id&(pageSize-1) == 0 {
		ix.docs = append(ix.docs, make([]doc, pageSize))
	}
	ix.top++
	return id
}

// A text posting's value packs the common entry, a frequency below 2^15
// in fields 0-15 at one position, into 64 bits: 1<<63 | freq<<48 |
// mask<<32 | position. Any other entry is held in ix.over, and the value
// is its index there.
const packed = 1 << 63

func (ix *index) pack(e *tentry) uint64 {
	if e.freq < 1<<15 && e.mask < 1<<16 && len(e.pos) == 1 {
		return packed | uint64(e.freq)<<48 | e.mask<<32 | uint64(e.pos[0])
	}
	o := tentry{freq: e.freq, mask: e.mask, pos: slices.Clone(e.pos)}
	if n := len(ix.overF); n > 0 {
		i := ix.overF[n-1]
		ix.overF = ix.overF[:n-1]
		ix.over[i] = o
		return uint64(i)
	}
	ix.over = append(ix.over, o)
	return uint64(len(ix.over) - 1)
}

// unpack returns the entry of a posting's value; an entry's single
// position is appended to buf (the entry's pos is then a view of it).
func (ix *index) unpack(v uint64, buf []uint32) (tentry, []uint32) {
	if v&packed == 0 {
		return ix.over[v], buf
	}
	n := len(buf)
	buf = append(buf, uint32(v))
	return tentry{freq: uint32(v>>48) & (1<<15 - 1), mask: (v >> 32) & 0xffff, pos: buf[n : n+1 : n+1]}, buf
}

// entryMask is the TEXT fields of a posting's value.
func (ix *index) entryMask(v uint64) uint64 {
	if v&packed == 0 {
		return ix.over[v].mask
	}
	return (v >> 32) & 0xffff
}

// termMask returns the TEXT fields in which document id has term t.
func (ix *index) termMask(t string, id uint32) (uint64, bool) {
	p := ix.terms.list(t)
	if p == nil {
		return 0, false
	}
	v, ok := p.get(id)
	if !ok {
		return 0, false
	}
	return ix.entryMask(v), true
}

// termDocs is the number of documents holding term t.
func (ix *index) termDocs(t string) int {
	if p := ix.terms.list(t); p != nil {
		return p.n
	}
	return 0
}

// termScratch collects one document's values, terms, tags, numbers and
// points (addSource), reused from document to document: its buffers stay
// allocated. A term's entry is found through index.tmark, by term id.
type termScratch struct {
	es    []tentry
	tids  []uint32   // the terms' ids, as es
	vals  [][]string // per field: its values
	tags  [][]string // per field
	nums  []numScratch
	geos  []geoScratch
	buf   []byte // readHash's
	spans []valSpan
}

func (sc *termScratch) reset(ix *index) *termScratch {
	for _, tid := range sc.tids {
		ix.tmark[tid] = 0
	}
	sc.tids = sc.tids[:0]
	sc.es = sc.es[:0]
	if fields := len(ix.fields); len(sc.tags) != fields {
		sc.tags = make([][]string, fields)
		sc.vals = make([][]string, fields)
	}
	for i := range sc.tags {
		clear(sc.tags[i])
		sc.tags[i] = sc.tags[i][:0]
		clear(sc.vals[i])
		sc.vals[i] = sc.vals[i][:0]
	}
	sc.nums = sc.nums[:0]
	sc.geos = sc.geos[:0]
	return sc
}

// entry returns the document's entry for term tid.
func (ix *index) entry(sc *termScratch, tid uint32) *tentry {
	for int(tid) >= len(ix.tmark) {
		ix.tmark = append(ix.tmark, 0)
	}
	if m := ix.tmark[tid]; m != 0 {
		return &sc.es[m-1]
	}
	n := len(sc.es)
	if n < cap(sc.es) {
		sc.es = sc.es[:n+1]
		sc.es[n] = tentry{pos: sc.es[n].pos[:0]}
	} else {
		sc.es = append(sc.es, tentry{})
	}
	ix.tmark[tid] = int32(n + 1)
	sc.tids = append(sc.tids, tid)
	return &sc.es[n]
}

// analyze indexes the words of TEXT field f's value into the scratch,
// with RediSearch's frequencies: each occurrence adds max(1, weight) to
// its word, and max(1, weight x 0.2) to its stem.
func (ix *index) analyze(d *doc, sc *termScratch, f *field, val, lang string, base uint32) uint32 {
	inc := max(1, uint32(float32(f.weight)))
	stemInc := max(1, uint32(float32(f.weight)*stemFactor))
	put := func(tid uint32, pos uint32, n uint32) {
		e := ix.entry(sc, tid)
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
		tid := ix.terms.intern(t.word)
		put(tid, t.pos, inc)
		if !f.nostem {
			if st, ok := ix.stemTerm(tid, t.word, lang); ok {
				put(st, t.pos, stemInc)
			}
		}
		if f.phonetic != "" {
			for _, p := range phoneticCodes(t.word) {
				put(ix.terms.intern(phoneticPrefix+p), t.pos, inc)
			}
		}
	})
	return last
}

// stemTerm returns the id of the "+stem" term of word (id tid) in lang,
// false if its stem is the word itself; cached by word id for the index's
// language (the stemmer allocates, and a vocabulary repeats).
func (ix *index) stemTerm(tid uint32, word, lang string) (uint32, bool) {
	d := ix.terms
	cached := lang == ix.lang
	if cached {
		switch v := d.stemT[tid]; {
		case v == 1:
			return 0, false
		case v >= 2 && d.gen[v-2] == d.stemG[tid]:
			return v - 2, true
		}
	}
	s := stem(word, lang)
	if s == "" || s == word {
		if cached {
			d.stemT[tid] = 1
		}
		return 0, false
	}
	st := d.intern(stemPrefix + s)
	if cached {
		d.stemT[tid], d.stemG[tid] = st+2, d.gen[st]
	}
	return st, true
}

func (ix *index) remove(id uint32) { ix.removeDoc(id, true) }

// removeDoc removes document id, and its key from the key table if
// unkey (update keeps the key's place for the new document).
func (ix *index) removeDoc(id uint32, unkey bool) {
	ix.tnRemove(id)
	d := ix.doc(id)
	if unkey {
		ix.keys.remove(ix.key(id), id)
	}
	b := ix.recs.at(d.rec)
	n, w := binary.Uvarint(b)
	b = b[w : w+int(n)]
	ix.dead += w + int(n)
	kl, w := binary.Uvarint(b)
	b = b[w+int(kl):]
	records := 0
	read := func() uint32 {
		x, w := binary.Uvarint(b)
		b = b[w:]
		return uint32(x)
	}
	for i, f := range ix.fields {
		switch f.typ {
		case typeTag:
			if col := ix.tagc[i]; int(id) < len(col) {
				col[id] = 0
			}
			for k := read(); k > 0; k-- {
				ix.tags[i].drop(read(), id)
				records++
			}
		case typeNumeric:
			if _, _, ok := ix.nums[i].value(id); ok {
				ix.nums[i].remove(id)
				records++
			}
		case typeGeo:
			if col := ix.geos[i]; int(id) < len(col) {
				col[id] = geoPoint{}
			}
		}
	}
	for k := read(); k > 0; k-- {
		if v, ok := ix.terms.take(read(), id); ok && v&packed == 0 {
			ix.offsets -= len(ix.over[v].pos)
			ix.over[v] = tentry{}
			ix.overF = append(ix.overF, uint32(v))
		} else if ok {
			ix.offsets--
		}
		ix.textRecs--
		records++
	}
	ix.dropHandle(id)
	if int(id) < len(ix.present) {
		ix.present[id] = 0
	}
	if int(id) < len(ix.scores) {
		ix.scores[id] = ix.score
	}
	ix.totalLen -= uint64(d.length)
	ix.records -= records
	if int(id>>6) < len(ix.odd) {
		ix.odd[id>>6] &^= 1 << (id & 63)
	}
	*d = doc{}
	ix.live--
	if ix.dead > 1<<16 && ix.dead*2 > ix.recs.used {
		ix.compact()
	}
}

func (ix *index) setOdd(id uint32) {
	for int(id>>6) >= len(ix.odd) {
		ix.odd = append(ix.odd, 0)
	}
	ix.odd[id>>6] |= 1 << (id & 63)
}

// isOdd reports whether document id is odd (doc.odd).
func (ix *index) isOdd(id uint32) bool {
	return int(id>>6) < len(ix.odd) && ix.odd[id>>6]&(1<<(id&63)) != 0
}

// uniform reports whether scorer gives every document that is not odd
// the same score for a match of a numeric or geo range alone (see
// scoreDoc: those scorers read only the document's score and TFIDF's
// norm), and that score.
func (ix *index) uniform(scorer string) (float64, bool) {
	switch scorer {
	case scorerTFIDF, scorerBM25, scorerDocScore, scorerDisMax, scorerHamming:
		return ix.scoreDoc(scorer, resNumeric, sdoc{&doc{maxFreq: 1, length: 1}, ix.score}), true
	}
	return 0, false
}

// renumber gives the documents consecutive ids from 0, in the same order,
// in every structure that holds ids (the map from old to new ids is
// increasing, so every sorted list stays sorted).
func (ix *index) renumber() {
	m := make([]uint32, ix.top) // old id -> new id + 1; 0: a hole
	n := uint32(0)
	for id := range ix.top {
		if ix.doc(id).live() {
			n++
			m[id] = n
		}
	}
	docs := make([][]doc, 0, (n+pageSize-1)/pageSize)
	for id := range ix.top {
		if m[id] == 0 {
			continue
		}
		nid := m[id] - 1
		if nid&(pageSize-1) == 0 {
			docs = append(docs, make([]doc, pageSize))
		}
		docs[nid>>pageBits][nid&(pageSize-1)] = *ix.doc(id)
	}
	remap := func(ids []uint32) {
		for i, id := range ids {
			ids[i] = m[id] - 1
		}
	}
	for i := range ix.terms.posts {
		ix.terms.posts[i].remap(m)
	}
	column := func(col []uint32) []uint32 {
		if col == nil {
			return nil
		}
		out := make([]uint32, n)
		for id, v := range col {
			if m[id] != 0 {
				out[m[id]-1] = v
			}
		}
		return out
	}
	for i := range ix.fields {
		if d := ix.tags[i]; d != nil {
			for j := range d.posts {
				for _, c := range d.posts[j].ch {
					remap(c.ids)
				}
			}
			ix.tagc[i] = column(ix.tagc[i])
		}
		if t := ix.nums[i]; t != nil {
			t.flush()
			for _, c := range t.ch {
				remap(c.ids)
			}
			remap(t.maxID)
			vals := make([]float64, n)
			for id := range vals {
				vals[id] = math.NaN()
			}
			for id, v := range t.vals {
				if m[id] != 0 {
					vals[m[id]-1] = v
				}
			}
			t.vals = vals
			if t.exact != nil {
				exact := make(map[uint32]string, len(t.exact))
				for id, k := range t.exact {
					exact[m[id]-1] = k
				}
				t.exact = exact
			}
		}
		if g := ix.geos[i]; g != nil {
			out := make([]geoPoint, n)
			for id, p := range g {
				if m[id] != 0 {
					out[m[id]-1] = p
				}
			}
			ix.geos[i] = out
		}
	}
	if ix.scores != nil {
		out := make([]float64, n)
		for id := range out {
			out[id] = ix.score
		}
		for id, v := range ix.scores {
			if m[id] != 0 {
				out[m[id]-1] = v
			}
		}
		ix.scores = out
	}
	if ix.present != nil {
		out := make([]uint64, n)
		for id, v := range ix.present {
			if m[id] != 0 {
				out[m[id]-1] = v
			}
		}
		ix.present = out
	}
	for i, s := range ix.keys.slots {
		if s != 0 {
			ix.keys.slots[i] = s&^(1<<32-1) | uint64(m[uint32(s)-1])
		}
	}
	var odd []uint64
	for id := range ix.top {
		if m[id] != 0 && ix.isOdd(id) {
			nid := m[id] - 1
			for int(nid>>6) >= len(odd) {
				odd = append(odd, 0)
			}
			odd[nid>>6] |= 1 << (nid & 63)
		}
	}
	ix.tnRenumber(m)
	ix.renumberHandles(m, n)
	ix.docs, ix.top, ix.odd = docs, n, odd
}

// compact copies the live records into a new arena (keys read before stay
// views of the old one, which no longer changes).
func (ix *index) compact() {
	var recs recArena
	ix.eachDoc(func(_ uint32, d *doc) bool {
		b := ix.recs.at(d.rec)
		n, w := binary.Uvarint(b)
		d.rec = recs.add(b[w : w+int(n)])
		return true
	})
	ix.recs, ix.dead = recs, 0
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

// memory is what an index's structures take, in bytes, as FT.INFO
// reports it (capacities of the arrays; map entries estimated).
type memory struct {
	inverted  int // text and tag postings, numeric trees, the term and tag dictionaries
	blocks    int // posting chunks (text, tag) and numeric chunks
	offsets   int // text positions: 4 bytes each, in a posting's value or an overflow entry
	docTable  int // document records (pages) and their forward records, keys aside
	sortables int // per-document value columns: numbers, points, tags
	keyTable  int // the key table and the keys' bytes
}

func (ix *index) memory() memory {
	var m memory
	n, b := ix.terms.bytes()
	m.inverted += n + ix.terms.keysBytes()
	m.blocks += b
	m.inverted += cap(ix.over)*int(unsafe.Sizeof(tentry{})) + cap(ix.overF)*4
	m.offsets = ix.offsets * 4
	for i := range ix.fields {
		if d := ix.tags[i]; d != nil {
			n, b := d.bytes()
			m.inverted += n + d.keysBytes()
			m.blocks += b
			m.sortables += cap(ix.tagc[i]) * 4
		}
		if t := ix.nums[i]; t != nil {
			tb := t.bytes()
			col := cap(t.vals) * 8
			m.inverted += tb - col
			m.sortables += col
			m.blocks += len(t.ch)
		}
		m.sortables += cap(ix.geos[i]) * int(unsafe.Sizeof(geoPoint{}))
	}
	m.inverted += ix.tnBytes()
	keys := 0
	ix.eachDoc(func(id uint32, _ *doc) bool {
		keys += len(ix.key(id))
		return true
	})
	m.keyTable = ix.keys.bytes() + keys
	m.docTable = len(ix.docs)*pageSize*int(unsafe.Sizeof(doc{})) + ix.recs.room + cap(ix.recs.pages)*24 - keys
	m.docTable += ix.handlesBytes() + cap(ix.present)*8 + cap(ix.scores)*8
	return m
}

// numTerms is the number of distinct terms of the TEXT fields.
func (ix *index) numTerms() int { return ix.terms.len() }
