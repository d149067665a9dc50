package search

import (
	"sort"

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

// numEntry is one indexed value of one document.
type numEntry struct {
	key string // parseNumber's encoding
	doc uint32
}

func (a numEntry) less(b numEntry) bool {
	return a.key < b.key || a.key == b.key && a.doc < b.doc
}

// numTree is an ordered multiset of (value, document) pairs kept as a list
// of sorted chunks of at most chunkMax entries: the leaves of a B+tree
// without the inner nodes (a binary search over the chunks' last entries
// replaces them). An entry costs its struct in a shared array plus its
// key's bytes; there is no heap node per entry.
type numTree struct {
	chunks [][]numEntry
	n      int
	// pre holds, by document id, keyPrefix of the document's key (0:
	// none): filters compare 8 bytes held densely instead of following
	// the document's pointers (evalFiltered).
	pre []uint64
}

// keyPrefix packs a key's first 8 bytes (zero-padded, the first plus 1 so
// that no key packs to 0) into an integer whose order is the keys' order
// where two prefixes differ (equal prefixes: compare the keys).
func keyPrefix(k string) uint64 {
	var b [8]byte
	copy(b[:], k)
	b[0]++
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}

const chunkMax = 256

// chunkFor returns the index of the chunk where e belongs.
func (t *numTree) chunkFor(e numEntry) int {
	i := sort.Search(len(t.chunks), func(i int) bool {
		c := t.chunks[i]
		return !c[len(c)-1].less(e)
	})
	if i == len(t.chunks) {
		i--
	}
	return i
}

func (t *numTree) insert(e numEntry) {
	for int(e.doc) >= len(t.pre) {
		t.pre = append(t.pre, 0)
	}
	t.pre[e.doc] = keyPrefix(e.key)
	t.n++
	if len(t.chunks) == 0 {
		t.chunks = [][]numEntry{{e}}
		return
	}
	ci := t.chunkFor(e)
	c := t.chunks[ci]
	j := sort.Search(len(c), func(j int) bool { return !c[j].less(e) })
	c = append(c, numEntry{})
	copy(c[j+1:], c[j:])
	c[j] = e
	if len(c) > chunkMax {
		h := len(c) / 2
		right := append(make([]numEntry, 0, chunkMax), c[h:]...)
		left := append(make([]numEntry, 0, chunkMax), c[:h]...)
		t.chunks = append(t.chunks, nil)
		copy(t.chunks[ci+2:], t.chunks[ci+1:])
		t.chunks[ci], t.chunks[ci+1] = left, right
		return
	}
	t.chunks[ci] = c
}

func (t *numTree) remove(e numEntry) bool {
	if len(t.chunks) == 0 {
		return false
	}
	ci := t.chunkFor(e)
	c := t.chunks[ci]
	j := sort.Search(len(c), func(j int) bool { return !c[j].less(e) })
	if j == len(c) || c[j] != e {
		return false
	}
	t.pre[e.doc] = 0
	t.n--
	copy(c[j:], c[j+1:])
	c[len(c)-1] = numEntry{}
	c = c[:len(c)-1]
	if len(c) == 0 {
		t.chunks = append(t.chunks[:ci], t.chunks[ci+1:]...)
		return true
	}
	t.chunks[ci] = c
	return true
}

// scan calls fn for every entry with lo <(=) key <(=) hi, in order.
func (t *numTree) scan(lo string, loEx bool, hi string, hiEx bool, fn func(doc uint32)) {
	t.scanEntries(lo, loEx, hi, hiEx, func(e numEntry) { fn(e.doc) })
}

// scanEntries calls fn for every entry with lo <(=) key <(=) hi, in order.
func (t *numTree) scanEntries(lo string, loEx bool, hi string, hiEx bool, fn func(e numEntry)) {
	start := sort.Search(len(t.chunks), func(i int) bool {
		c := t.chunks[i]
		k := c[len(c)-1].key
		return k > lo || !loEx && k == lo
	})
	for ci := start; ci < len(t.chunks); ci++ {
		for _, e := range t.chunks[ci] {
			if e.key < lo || loEx && e.key == lo {
				continue
			}
			if e.key > hi || hiEx && e.key == hi {
				return
			}
			fn(e)
		}
	}
}

// estimate is about how many entries have lo <(=) key <(=) hi: the
// entries of the chunks the range spans (exact to a chunk at each end).
func (t *numTree) estimate(lo string, loEx bool, hi string, hiEx bool) int {
	if t == nil || len(t.chunks) == 0 {
		return 0
	}
	start := sort.Search(len(t.chunks), func(i int) bool {
		c := t.chunks[i]
		k := c[len(c)-1].key
		return k > lo || !loEx && k == lo
	})
	end := sort.Search(len(t.chunks), func(i int) bool {
		k := t.chunks[i][0].key
		return k > hi || hiEx && k == hi
	})
	if end <= start {
		return 0
	}
	n := 0
	if end-start <= 2 {
		for _, c := range t.chunks[start:end] {
			n += len(c)
		}
		return n
	}
	return len(t.chunks[start]) + (end-start-2)*(chunkMax*3/4) + len(t.chunks[end-1])
}
