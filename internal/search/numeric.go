package search

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/engine"
)

// Exact numbers. A NUMERIC value is kept as its decimal text's exact
// value: the text is normalized to sign, significant digits and a decimal
// exponent and encoded as a byte string whose lexicographic order is the
// numeric order (no float64 rounding: 2^53+1 and 9007199254740993.5 are
// distinct, 25500.12346 is what it says). The encoding:
//
//	0x00                      -inf
//	0x01 ^exp(2) ^digits 0xff negative (every byte inverted, so larger magnitudes sort first)
//	0x02                      zero
//	0x03 exp(2) digits        positive: 0.d1d2d3... x 10^exp
//	0x04                      +inf
//
// where exp is a big-endian uint16 offset by 0x8000 and digits are ASCII
// with leading and trailing zeros removed.

const maxExp = 30000 // |exponent| beyond this is not a number we index

// parseNumber returns the order-preserving key of s, or false if s is not
// a decimal number (optional sign, digits with an optional point, an
// optional exponent; or inf/infinity). NaN and hexadecimal are refused.
func parseNumber(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	neg := false
	i := 0
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		i = 1
	}
	if rest := s[i:]; engine.EqualFold([]byte(rest), "inf") || engine.EqualFold([]byte(rest), "infinity") {
		if neg {
			return "\x00", true
		}
		return "\x04", true
	}
	var digits []byte
	exp := 0 // position of the decimal point relative to digits' start
	seenPoint, any := false, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			any = true
			if c == '0' && len(digits) == 0 {
				// leading zero: shifts the point only after it
				if seenPoint {
					exp--
				}
				continue
			}
			digits = append(digits, c)
			if !seenPoint {
				exp++
			}
		case c == '.' && !seenPoint:
			seenPoint = true
		default:
			goto tail
		}
	}
tail:
	if !any {
		return "", false
	}
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return "", false
		}
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return "", false
		}
		e := 0
		for ; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return "", false
			}
			if e < 1e6 {
				e = e*10 + int(c-'0')
			}
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 {
		return "\x02", true
	}
	if exp > maxExp || exp < -maxExp {
		return "", false
	}
	u := uint16(exp + 0x8000)
	b := make([]byte, 0, 4+len(digits))
	if neg {
		b = append(b, 0x01, ^byte(u>>8), ^byte(u))
		for _, d := range digits {
			b = append(b, ^d)
		}
		b = append(b, 0xff)
	} else {
		b = append(b, 0x03, byte(u>>8), byte(u))
		b = append(b, digits...)
	}
	return string(b), true
}

// Numbers in the index. A value is held as its float64 (the nearest
// double) and, only when that double's shortest decimal is not the value
// itself (integers beyond 2^53, more than 15 significant digits, 1e400),
// its exact key too (parseNumber's encoding). Rounding to the nearest
// double is monotonic (a < b gives double(a) <= double(b)), so doubles
// order the values except among equal doubles, where the exact keys
// decide; two values whose doubles are equal and both say them are equal.
// Most values cost 8 bytes, and comparisons are float comparisons.

// numValue parses s: its double, and its exact key when the double does
// not say it ("" when it does); false if s is not a number parseNumber
// accepts.
func numValue(s string) (f float64, exact string, ok bool) {
	// Fast path: at most 15 digits, an optional sign and point: every
	// such decimal is the shortest decimal of its double.
	digits, points, plain := 0, 0, len(s) > 0
	for i := 0; i < len(s) && plain; i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			points++
		case (c == '-' || c == '+') && i == 0:
		default:
			plain = false
		}
	}
	if plain && digits > 0 && digits <= 15 && points <= 1 {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f, "", true
		}
	}
	k, ok := parseNumber(s)
	if !ok {
		return 0, "", false
	}
	f = keyFloat(k)
	if canonKey(f) == k {
		k = ""
	}
	return f, k, true
}

// keyFloat is the double nearest to key's value (±Inf beyond the range).
func keyFloat(key string) float64 {
	switch key[0] {
	case 0x00:
		return math.Inf(-1)
	case 0x02:
		return 0
	case 0x04:
		return math.Inf(1)
	}
	b := []byte(key[1:])
	neg := key[0] == 0x01
	if neg {
		for i := range b {
			b[i] = ^b[i]
		}
		b = b[:len(b)-1]
	}
	exp := int(uint16(b[0])<<8|uint16(b[1])) - 0x8000
	s := make([]byte, 0, len(b)+12)
	if neg {
		s = append(s, '-')
	}
	s = append(s, "0."...)
	s = append(s, b[2:]...)
	s = append(s, 'e')
	s = strconv.AppendInt(s, int64(exp), 10)
	f, _ := strconv.ParseFloat(string(s), 64) // overflow: ±Inf, underflow: 0, both monotonic
	return f
}

// canonKey is the key of f's shortest decimal.
func canonKey(f float64) string {
	k, _ := parseNumber(strconv.FormatFloat(f, 'g', -1, 64))
	return k
}

// exactKey is the key of a value held as (f, exact).
func exactKey(f float64, exact string) string {
	if exact != "" {
		return exact
	}
	return canonKey(f)
}

// numCmp compares two values held as (double, exact key or "").
func numCmp(fa float64, ka string, fb float64, kb string) int {
	switch {
	case fa < fb:
		return -1
	case fa > fb:
		return 1
	case ka == kb: // both "" (the doubles say them), or the same key
		return 0
	}
	return strings.Compare(exactKey(fa, ka), exactKey(fb, kb))
}

// orderedBits maps a double to an integer of the same order (-0 as 0).
func orderedBits(f float64) uint64 {
	if f == 0 {
		f = 0
	}
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// numBound is one end of a numeric range.
type numBound struct {
	f  float64
	k  string // exact key, "" when f says it
	ex bool   // exclusive
}

// boundsOf returns the bounds of numeric range node n.
func boundsOf(n *node) (lo, hi numBound) {
	mk := func(key string, ex bool) numBound {
		f := keyFloat(key)
		if canonKey(f) == key {
			key = ""
		}
		return numBound{f, key, ex}
	}
	return mk(n.lo, n.loEx), mk(n.hi, n.hiEx)
}

// in reports whether the value (f, k) lies between lo and hi.
func inRange(f float64, k string, lo, hi *numBound) bool {
	if f > lo.f && f < hi.f {
		return true
	}
	if f < lo.f || f > hi.f || f != f {
		return false
	}
	if c := numCmp(lo.f, lo.k, f, k); c > 0 || c == 0 && lo.ex {
		return false
	}
	c := numCmp(f, k, hi.f, hi.k)
	return c < 0 || c == 0 && !hi.ex
}

// numTree is one NUMERIC field's index: every document's value by id
// (vals, NaN for none, and the exact keys of the few values their double
// does not say), and the (value, id) pairs in order, as sorted chunks of
// at most chunkMax: the leaves of a B+tree without the inner nodes (a
// binary search over the chunks' last entries replaces them). An entry
// costs 12 bytes in shared arrays, plus 8 in vals; no heap node per entry.
//
// Writes go to vals at once and to the chunks in batches: inserted and
// removed pairs wait in adds and dels (up to numTree.full's bound) and flush sorts
// them and merges each chunk's share in one pass, walking the chunks in
// order. A write costs an append; placing it costs a sequential pass
// where one insertion at a time paid a binary search and cache misses in
// a random chunk. Every reader of the chunks (scan, runs, count,
// estimate, bytes, renumber) flushes first; readers of one document's
// value (value, has, sortVal) read vals, always current.
type numTree struct {
	ch    []numChunk
	maxF  []float64 // by chunk: its last entry, dense for the binary search
	maxID []uint32
	n     int
	vals  []float64
	exact map[uint32]string
	spare []numChunk // reshape's output, swapped with ch
	adds  []numEntry // inserted pairs not yet in ch
	dels  []numEntry // removed pairs still in ch (or in adds)
	tmp   []numEntry // flush's sorting scratch
}

type numChunk struct {
	f   []float64
	ids []uint32
}

// numEntry is a (value, id) pair of the write buffer.
type numEntry struct {
	f  float64
	id uint32
}

func numEntryCmp(a, b numEntry) int {
	switch {
	case a.f < b.f:
		return -1
	case a.f > b.f:
		return 1
	case a.id < b.id:
		return -1
	case a.id > b.id:
		return 1
	}
	return 0
}

const (
	chunkMax    = 128
	numBatch    = 4096    // buffered writes flushed at once, at least
	numBatchMax = 1 << 16 // and at most (a reader's flush stays short)
)

// full reports whether the buffered writes are to be flushed: at
// numBatch, or an eighth of the tree when larger (up to numBatchMax). A
// flush of b random pairs rewrites the chunks they land in, min(b,
// chunks) of them: about n/b entries moved per write while b covers the
// chunks, chunkMax per write when it does not. An eighth keeps that near
// 8 at any size, where 4096 moved about 50 per write at 200,000 values
// and 128 from 500,000 on.
func (t *numTree) full() bool { return len(t.adds)+len(t.dels) >= t.batch() }

func (t *numTree) batch() int { return max(numBatch, min(t.n/8, numBatchMax)) }

// less orders entries by value's double, then id.
func numLess(fa float64, ida uint32, fb float64, idb uint32) bool {
	return fa < fb || fa == fb && ida < idb
}

// value returns document id's value.
func (t *numTree) value(id uint32) (f float64, exact string, ok bool) {
	if int(id) >= len(t.vals) || t.vals[id] != t.vals[id] {
		return 0, "", false
	}
	f = t.vals[id]
	if t.exact != nil {
		exact = t.exact[id]
	}
	return f, exact, true
}

// key returns document id's value as parseNumber's key ("" for none).
func (t *numTree) key(id uint32) string {
	f, k, ok := t.value(id)
	if !ok {
		return ""
	}
	return exactKey(f, k)
}

// chunkFor returns the index of the chunk where (f, id) belongs.
func (t *numTree) chunkFor(f float64, id uint32) int {
	lo, hi := 0, len(t.ch)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if numLess(t.maxF[m], t.maxID[m], f, id) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(t.ch) {
		lo--
	}
	return lo
}

func (c *numChunk) search(f float64, id uint32) int {
	lo, hi := 0, len(c.f)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if numLess(c.f[m], c.ids[m], f, id) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// insert adds document id's value (the document has none).
func (t *numTree) insert(id uint32, f float64, exact string) {
	for int(id) >= len(t.vals) {
		t.vals = append(t.vals, math.NaN())
	}
	t.vals[id] = f
	if exact != "" {
		if t.exact == nil {
			t.exact = map[uint32]string{}
		}
		t.exact[id] = exact
	}
	t.n++
	if b := t.batch(); cap(t.adds) == 0 && b > numBatch {
		// One allocation for a large batch (the bound grows with n
		// meanwhile); a small tree's buffer grows as it fills.
		t.adds = make([]numEntry, 0, b*5/4)
	}
	t.adds = append(t.adds, numEntry{f, id})
	if t.full() {
		t.flush()
	}
}

// fix sets chunk ci's last entry in maxF and maxID.
func (t *numTree) fix(ci int) {
	c := &t.ch[ci]
	t.maxF[ci], t.maxID[ci] = c.f[len(c.f)-1], c.ids[len(c.ids)-1]
}

// remove deletes document id's value, if it has one.
func (t *numTree) remove(id uint32) {
	f, _, ok := t.value(id)
	if !ok {
		return
	}
	t.vals[id] = math.NaN()
	if t.exact != nil {
		delete(t.exact, id)
	}
	t.n--
	if k := len(t.adds); k > 0 && t.adds[k-1] == (numEntry{f, id}) {
		t.adds = t.adds[:k-1] // not placed yet
		return
	}
	t.dels = append(t.dels, numEntry{f, id})
	if t.full() {
		t.flush()
	}
}

// flush places the buffered writes in the chunks: both buffers sorted
// (a pair both added and removed cancels), then each chunk concerned
// takes its share in one merge, in chunk order. Chunks that empty,
// overflow or become small are dropped, split or joined in one pass over
// the chunk list afterwards.
func (t *numTree) flush() {
	if len(t.adds) == 0 && len(t.dels) == 0 {
		return
	}
	adds, dels := t.adds, t.dels
	t.tmp = sortNumEntries(adds, t.tmp)
	t.tmp = sortNumEntries(dels, t.tmp)
	if len(adds) > 0 && len(dels) > 0 {
		adds, dels = cancelPairs(adds, dels)
	}
	if len(t.ch) == 0 && len(adds) > 0 {
		t.ch = []numChunk{{}}
		t.maxF, t.maxID = []float64{0}, []uint32{0}
	}
	reshape := false
	ai, di := 0, 0
	for ai < len(adds) || di < len(dels) {
		e := numEntry{}
		if di < len(dels) && (ai == len(adds) || numEntryCmp(dels[di], adds[ai]) < 0) {
			e = dels[di]
		} else {
			e = adds[ai]
		}
		// A chunk's max only decreases here (the last chunk takes every
		// pair beyond), and the pairs up to its old max are all taken
		// with it: the binary search over maxF stays valid.
		ci := t.chunkFor(e.f, e.id)
		last := ci == len(t.ch)-1
		mf, mid := t.maxF[ci], t.maxID[ci]
		ae := ai
		for ae < len(adds) && (last || !numLess(mf, mid, adds[ae].f, adds[ae].id)) {
			ae++
		}
		de := di
		for de < len(dels) && (last || !numLess(mf, mid, dels[de].f, dels[de].id)) {
			de++
		}
		if t.mergeChunk(ci, adds[ai:ae], dels[di:de]) {
			if last && len(t.ch[ci].f) > chunkMax && !reshape {
				t.splitLast() // appends in order: no pass over the chunk list
			} else {
				reshape = true
			}
		}
		ai, di = ae, de
	}
	if reshape {
		t.reshape()
	}
	clear(t.adds[len(t.adds):cap(t.adds)])
	t.adds, t.dels = t.adds[:0], t.dels[:0]
	// The buffers keep their room for the next batch, unless it is large
	// for the tree (after deletions) or beyond numBatch: a large batch's
	// buffers are allocated again by the next one, so that an index at
	// rest holds none (4 bytes per value otherwise).
	if cap(t.adds) > min(2*t.n+64, 2*numBatch) {
		t.adds = nil
	}
	if cap(t.dels) > min(2*t.n+64, 2*numBatch) {
		t.dels = nil
	}
	if cap(t.tmp) > min(2*t.n+64, 2*numBatch) {
		t.tmp = nil
	}
}

// sortNumEntries sorts es by value's double, then id (numEntryCmp), with
// tmp as scratch (returned, grown as needed). Large batches are sorted by
// radix, least significant byte first, on the id then on the double's
// ordered bits, skipping the bytes every entry shares: a flush's batch of
// integers in a small range takes a few passes, where a comparison sort
// paid a dozen indirect comparisons an entry. The id passes are skipped
// when the batch is already in id order (inserts come in id order: ids
// are handed out increasing).
func sortNumEntries(es, tmp []numEntry) []numEntry {
	n := len(es)
	if n < 256 {
		slices.SortFunc(es, numEntryCmp)
		return tmp
	}
	if cap(tmp) < n {
		tmp = make([]numEntry, n)
	}
	tmp = tmp[:n]
	var cnt [12][256]uint32
	byID := true
	for i := range es {
		k := orderedBits(es[i].f)
		id := es[i].id
		if i > 0 && id < es[i-1].id {
			byID = false
		}
		for b := range 4 {
			cnt[b][byte(id>>(8*b))]++
		}
		for b := range 8 {
			cnt[4+b][byte(k>>(8*b))]++
		}
	}
	src, dst := es, tmp
	for b := range 12 {
		if b < 4 && byID {
			continue
		}
		c := &cnt[b]
		var sh uint
		var fromID bool
		if b < 4 {
			sh, fromID = uint(8*b), true
		} else {
			sh = uint(8 * (b - 4))
		}
		// A byte every entry shares orders nothing.
		var first uint32
		if fromID {
			first = c[byte(src[0].id>>sh)]
		} else {
			first = c[byte(orderedBits(src[0].f)>>sh)]
		}
		if int(first) == n {
			continue
		}
		sum := uint32(0)
		for v := range c {
			x := c[v]
			c[v] = sum
			sum += x
		}
		if fromID {
			for _, e := range src {
				d := byte(e.id >> sh)
				dst[c[d]] = e
				c[d]++
			}
		} else {
			for _, e := range src {
				d := byte(orderedBits(e.f) >> sh)
				dst[c[d]] = e
				c[d]++
			}
		}
		src, dst = dst, src
	}
	if &src[0] != &es[0] {
		copy(es, src)
	}
	return tmp
}

// cancelPairs removes the pairs present in both sorted lists (added and
// removed before a flush), in place.
func cancelPairs(adds, dels []numEntry) ([]numEntry, []numEntry) {
	a, d := 0, 0
	i, j := 0, 0
	for i < len(adds) && j < len(dels) {
		switch c := numEntryCmp(adds[i], dels[j]); {
		case c == 0:
			i++
			j++
		case c < 0:
			adds[a] = adds[i]
			a, i = a+1, i+1
		default:
			dels[d] = dels[j]
			d, j = d+1, j+1
		}
	}
	a += copy(adds[a:], adds[i:])
	d += copy(dels[d:], dels[j:])
	return adds[:a], dels[:d]
}

// mergeChunk removes dels from chunk ci and merges adds into it (both
// sorted, within the chunk's range); true if the chunk must be reshaped
// (empty, over chunkMax, or small).
func (t *numTree) mergeChunk(ci int, adds, dels []numEntry) bool {
	c := &t.ch[ci]
	if len(dels) > 0 {
		j := c.search(dels[0].f, dels[0].id)
		w, k := j, 0
		for r := j; r < len(c.f); r++ {
			if k < len(dels) && c.f[r] == dels[k].f && c.ids[r] == dels[k].id {
				k++
				continue
			}
			c.f[w], c.ids[w] = c.f[r], c.ids[r]
			w++
		}
		c.f, c.ids = c.f[:w], c.ids[:w]
	}
	if len(adds) > 0 {
		n := len(c.f)
		m := n + len(adds)
		if m > cap(c.f) {
			nc := max(8, min(2*cap(c.f), chunkMax), m)
			c.f = append(make([]float64, 0, nc), c.f...)
			c.ids = append(make([]uint32, 0, nc), c.ids...)
		}
		c.f, c.ids = c.f[:m], c.ids[:m]
		// Backward merge: only the pairs after the first insertion move.
		i, k := n-1, len(adds)-1
		for w := m - 1; k >= 0; w-- {
			if i >= 0 && numLess(adds[k].f, adds[k].id, c.f[i], c.ids[i]) {
				c.f[w], c.ids[w] = c.f[i], c.ids[i]
				i--
			} else {
				c.f[w], c.ids[w] = adds[k].f, adds[k].id
				k--
			}
		}
	}
	l := len(c.f)
	small := l < chunkMax/4 && len(dels) > 0 &&
		(ci > 0 && len(t.ch[ci-1].f)+l <= chunkMax/2 || ci+1 < len(t.ch) && l+len(t.ch[ci+1].f) <= chunkMax/2)
	if l == 0 || l > chunkMax || small {
		return true
	}
	t.fix(ci)
	return false
}

// splitLast splits the last chunk, over chunkMax, into full chunks.
func (t *numTree) splitLast() {
	ci := len(t.ch) - 1
	c := t.ch[ci]
	t.ch = t.ch[:ci]
	t.maxF, t.maxID = t.maxF[:ci], t.maxID[:ci]
	for lo := 0; lo < len(c.f); lo += chunkMax {
		hi := min(lo+chunkMax, len(c.f))
		nc := min(chunkMax, hi-lo+16)
		t.ch = append(t.ch, numChunk{f: append(make([]float64, 0, nc), c.f[lo:hi]...), ids: append(make([]uint32, 0, nc), c.ids[lo:hi]...)})
		t.maxF, t.maxID = append(t.maxF, c.f[hi-1]), append(t.maxID, c.ids[hi-1])
	}
}

// reshape drops empty chunks, splits those over chunkMax (the last into
// full chunks, as appends in order fill it; the others evenly, leaving
// room) and joins a small chunk to the previous one when both fit in
// half a chunk; then rebuilds maxF and maxID.
func (t *numTree) reshape() {
	// Into the spare list (the previous one, cleared): no allocation of
	// a chunk list per flush.
	ch := slices.Grow(t.spare[:0], len(t.ch)+len(t.ch)/8+1)
	for i, c := range t.ch {
		l := len(c.f)
		switch {
		case l == 0:
		case l > chunkMax:
			size := chunkMax
			if i < len(t.ch)-1 {
				pieces := (l + chunkMax*3/4 - 1) / (chunkMax * 3 / 4)
				size = (l + pieces - 1) / pieces
			}
			for lo := 0; lo < l; lo += size {
				hi := min(lo+size, l)
				nc := min(chunkMax, hi-lo+16)
				ch = append(ch, numChunk{f: append(make([]float64, 0, nc), c.f[lo:hi]...), ids: append(make([]uint32, 0, nc), c.ids[lo:hi]...)})
			}
		default:
			if k := len(ch); k > 0 && len(ch[k-1].f)+l <= chunkMax/2 {
				p := &ch[k-1]
				p.f, p.ids = append(p.f, c.f...), append(p.ids, c.ids...)
				continue
			}
			ch = append(ch, c)
		}
	}
	clear(t.ch) // its chunks are in ch now, or dropped
	t.ch, t.spare = ch, t.ch[:0]
	t.maxF, t.maxID = t.maxF[:0], t.maxID[:0]
	for _, c := range ch {
		t.maxF, t.maxID = append(t.maxF, c.f[len(c.f)-1]), append(t.maxID, c.ids[len(c.ids)-1])
	}
}

// startAt returns the position (chunk, index) of the first entry whose
// double is at least f.
func (t *numTree) startAt(f float64) (int, int) {
	ci, _ := slices.BinarySearchFunc(t.maxF, f, func(m, f float64) int {
		if m < f {
			return -1
		}
		return 1
	})
	if ci == len(t.ch) {
		return ci, 0
	}
	c := t.ch[ci].f
	j, _ := slices.BinarySearchFunc(c, f, func(x, f float64) int {
		if x < f {
			return -1
		}
		return 1
	})
	return ci, j
}

// scan calls fn for every document whose value lies between lo and hi,
// in the order of the values' doubles (documents whose doubles are equal
// come by id), until fn returns false.
func (t *numTree) scan(lo, hi *numBound, fn func(id uint32, f float64) bool) {
	t.flush()
	ci, j := t.startAt(lo.f)
	for ; ci < len(t.ch); ci, j = ci+1, 0 {
		c := &t.ch[ci]
		for ; j < len(c.f); j++ {
			f := c.f[j]
			if f > lo.f && f < hi.f {
				if !fn(c.ids[j], f) {
					return
				}
				continue
			}
			if f > hi.f {
				return
			}
			if t.edgeIn(f, c.ids[j], lo, hi) && !fn(c.ids[j], f) {
				return
			}
		}
	}
}

// edgeIn decides, by its exact text, whether document id's value f (not
// strictly inside lo..hi's doubles) lies in the range.
func (t *numTree) edgeIn(f float64, id uint32, lo, hi *numBound) bool {
	var k string
	if t.exact != nil {
		k = t.exact[id]
	}
	return inRange(f, k, lo, hi)
}

// runs calls fn with the ids of the documents whose value lies between lo
// and hi, in scan's order, a run of them at a time (one call per chunk
// where the range spans it), until fn returns false.
func (t *numTree) runs(lo, hi *numBound, fn func(ids []uint32) bool) {
	t.flush()
	ci, j := t.startAt(lo.f)
	for ; ci < len(t.ch); ci, j = ci+1, 0 {
		c := &t.ch[ci]
		start := j
		for ; j < len(c.f); j++ {
			f := c.f[j]
			if f > lo.f && f < hi.f {
				continue
			}
			// An end of the range: flush the run, then check exactly.
			if j > start && !fn(c.ids[start:j]) {
				return
			}
			start = j + 1
			if f > hi.f {
				return
			}
			if t.edgeIn(f, c.ids[j], lo, hi) && !fn(c.ids[j:j+1]) {
				return
			}
		}
		if j > start && !fn(c.ids[start:j]) {
			return
		}
	}
}

// count is the number of documents whose value lies between lo and hi,
// reading only the range's ends entry by entry.
func (t *numTree) count(lo, hi *numBound) int {
	t.flush()
	n := 0
	ci, j := t.startAt(lo.f)
	for ; ci < len(t.ch); ci, j = ci+1, 0 {
		c := &t.ch[ci]
		if j == 0 && len(c.f) > 0 && c.f[0] > lo.f && c.f[len(c.f)-1] < hi.f {
			n += len(c.f)
			continue
		}
		for ; j < len(c.f); j++ {
			f := c.f[j]
			if f > hi.f {
				return n
			}
			if f > lo.f && f < hi.f {
				n++
				continue
			}
			if t.edgeIn(f, c.ids[j], lo, hi) {
				n++
			}
		}
	}
	return n
}

// has reports whether document id's value lies between lo and hi.
func (t *numTree) has(id uint32, lo, hi *numBound) bool {
	if int(id) >= len(t.vals) {
		return false
	}
	f := t.vals[id]
	if f > lo.f && f < hi.f {
		return true
	}
	if f < lo.f || f > hi.f || f != f {
		return false
	}
	return t.edgeIn(f, id, lo, hi)
}

// estimate is about how many entries lie between lo and hi: the entries
// of the chunks the range spans (exact to a chunk at each end).
func (t *numTree) estimate(lo, hi *numBound) int {
	if t == nil {
		return 0
	}
	t.flush()
	if len(t.ch) == 0 {
		return 0
	}
	start, _ := t.startAt(lo.f)
	end, _ := slices.BinarySearchFunc(t.ch, hi.f, func(c numChunk, f float64) int {
		if c.f[0] <= f {
			return -1
		}
		return 1
	})
	if end <= start {
		return 0
	}
	n := 0
	if end-start <= 2 {
		for _, c := range t.ch[start:end] {
			n += len(c.f)
		}
		return n
	}
	return len(t.ch[start].f) + (end-start-2)*(chunkMax*3/4) + len(t.ch[end-1].f)
}

// bytes is the memory the tree takes (FT.INFO).
func (t *numTree) bytes() int {
	t.flush()
	n := (cap(t.ch)+cap(t.spare))*48 + cap(t.vals)*8 + cap(t.maxF)*8 + cap(t.maxID)*4 + (cap(t.adds)+cap(t.dels)+cap(t.tmp))*16
	for _, c := range t.ch {
		n += cap(c.f)*8 + cap(c.ids)*4
	}
	for _, k := range t.exact {
		n += 32 + len(k)
	}
	return n
}

// sortVal is document id's value as a SORTBY value (without its text).
func (t *numTree) sortVal(id uint32) sortVal {
	f, k, ok := t.value(id)
	if !ok {
		return sortVal{}
	}
	return sortVal{p: orderedBits(f), f: f, v: k, num: true, has: true}
}
