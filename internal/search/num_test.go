package search

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseNumberOrder(t *testing.T) {
	vals := []string{"-inf", "-1e10", "-25500.12346", "-25500.1234", "-5", "-0.5", "-0.05", "0", "-0", "0.0", "1e-3", "0.05", ".5", "1", "1.", "10", "100", "9007199254740992", "9007199254740993", "9007199254740993.5", "1e20", "+inf"}
	for _, a := range vals {
		for _, b := range vals {
			ka, ok1 := parseNumber(a)
			kb, ok2 := parseNumber(b)
			if !ok1 || !ok2 {
				t.Fatalf("parse %q %q", a, b)
			}
			if got, want := cmpKey(ka, kb), cmpRat(a, b); got != want {
				t.Errorf("%s vs %s: key order %d, value order %d", a, b, got, want)
			}
		}
	}
	for _, bad := range []string{"", "abc", "1x", "nan", "1e", "--1", ".", "0x10", " 1", "1e99999"} {
		if _, ok := parseNumber(bad); ok {
			t.Errorf("%q parsed as a number", bad)
		}
	}
}

func cmpKey(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func ratOf(s string) (*big.Rat, int) {
	switch s {
	case "-inf":
		return nil, -1
	case "+inf", "inf":
		return nil, 1
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return r, 0
}

func cmpRat(a, b string) int {
	ra, ia := ratOf(a)
	rb, ib := ratOf(b)
	if ia != 0 || ib != 0 {
		switch {
		case ia < ib:
			return -1
		case ia > ib:
			return 1
		}
		return 0
	}
	return ra.Cmp(rb)
}

func TestParseNumberRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gen := func() string {
		s := strconv.FormatInt(r.Int64N(2000000)-1000000, 10)
		if r.IntN(2) == 0 {
			s += "." + strconv.Itoa(r.IntN(1000))
		}
		if r.IntN(4) == 0 {
			s += "e" + strconv.Itoa(r.IntN(40)-20)
		}
		return s
	}
	for range 20000 {
		a, b := gen(), gen()
		ka, _ := parseNumber(a)
		kb, _ := parseNumber(b)
		if cmpKey(ka, kb) != cmpRat(a, b) {
			t.Fatalf("%s vs %s", a, b)
		}
	}
}

// genNum is a random number's text: small integers and decimals, integers
// around 2^53 and 2^63, long decimals, huge and tiny exponents, infinities.
func genNum(r *rand.Rand) string {
	switch r.IntN(8) {
	case 0:
		return strconv.FormatInt(r.Int64N(40)-20, 10)
	case 1:
		return strconv.FormatInt(1<<53+r.Int64N(8)-4, 10)
	case 2:
		return "-" + strconv.FormatUint(1<<63+uint64(r.IntN(4)), 10)
	case 3:
		return "25500.1234" + strconv.Itoa(r.IntN(10)) + "0000000000000" + strconv.Itoa(r.IntN(3))
	case 4:
		return []string{"inf", "-inf", "1e400", "-1e400", "1e-400", "0.0", "-0"}[r.IntN(7)]
	case 5:
		return strconv.Itoa(r.IntN(10)) + "." + strconv.Itoa(r.IntN(100))
	}
	return strconv.FormatInt(r.Int64N(2000)-1000, 10)
}

// TestNumValue: a value held as (double, exact key or "") gives back the
// exact key, and numCmp orders values exactly.
func TestNumValue(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		a, b := genNum(r), genNum(r)
		ka, _ := parseNumber(a)
		kb, _ := parseNumber(b)
		fa, ea, ok1 := numValue(a)
		fb, eb, ok2 := numValue(b)
		if !ok1 || !ok2 {
			t.Fatalf("%q %q not numbers", a, b)
		}
		if exactKey(fa, ea) != ka {
			t.Fatalf("%q: key %q, want %q", a, exactKey(fa, ea), ka)
		}
		if got, want := numCmp(fa, ea, fb, eb), strings.Compare(ka, kb); got != want {
			t.Fatalf("%q vs %q: %d, want %d", a, b, got, want)
		}
	}
}

func TestNumTree(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tr := &numTree{}
	model := map[uint32]string{} // doc -> key
	for i := range 20000 {
		id := uint32(r.IntN(500))
		if _, ok := model[id]; ok || r.IntN(3) == 0 {
			tr.remove(id)
			delete(model, id)
			continue
		}
		s := genNum(r)
		f, exact, _ := numValue(s)
		tr.insert(id, f, exact)
		model[id], _ = parseNumber(s)
		if r.IntN(200) == 0 { // a reader places the buffered writes
			checkNumTree(t, tr, model)
		}
		if i%1000 == 0 {
			if tr.n != len(model) {
				t.Fatalf("step %d: n %d, model %d", i, tr.n, len(model))
			}
		}
	}
	if tr.n != len(model) {
		t.Fatalf("n %d, model %d", tr.n, len(model))
	}
	checkNumTree(t, tr, model)
	for range 300 {
		a, b := genNum(r), genNum(r)
		ka, _ := parseNumber(a)
		kb, _ := parseNumber(b)
		for _, ex := range []bool{false, true} {
			n := &node{op: opNum, lo: ka, hi: kb, loEx: ex, hiEx: ex}
			lo, hi := boundsOf(n)
			var got []uint32
			tr.scan(&lo, &hi, func(d uint32, _ float64) bool { got = append(got, d); return true })
			want := 0
			for id, k := range model {
				in := (k > ka || !ex && k == ka) && (k < kb || !ex && k == kb)
				if in {
					want++
				}
				if tr.has(id, &lo, &hi) != in {
					t.Fatalf("has %d (%q) in [%s %s] ex=%v: %v", id, k, a, b, ex, !in)
				}
			}
			var runs []uint32
			tr.runs(&lo, &hi, func(ids []uint32) bool { runs = append(runs, ids...); return true })
			if !slices.Equal(runs, got) {
				t.Fatalf("runs [%s %s] ex=%v: %v, scan %v", a, b, ex, runs, got)
			}
			if len(got) != want || tr.count(&lo, &hi) != want {
				t.Fatalf("scan [%s %s] ex=%v: %d entries, count %d, want %d", a, b, ex, len(got), tr.count(&lo, &hi), want)
			}
			for j := 1; j < len(got); j++ {
				fa, _, _ := tr.value(got[j-1])
				fb, _, _ := tr.value(got[j])
				if fa > fb {
					t.Fatalf("scan out of order")
				}
			}
		}
	}
}

// checkNumTree flushes tr and checks its chunks: every pair of the model
// once, in order, each chunk within chunkMax and its max recorded.
func checkNumTree(t *testing.T, tr *numTree, model map[uint32]string) {
	t.Helper()
	tr.flush()
	n := 0
	for ci, c := range tr.ch {
		if len(c.f) == 0 || len(c.f) > chunkMax || len(c.f) != len(c.ids) || tr.maxF[ci] != c.f[len(c.f)-1] || tr.maxID[ci] != c.ids[len(c.ids)-1] {
			t.Fatalf("chunk %d: %d pairs, max (%v, %d)", ci, len(c.f), tr.maxF[ci], tr.maxID[ci])
		}
		for j := range c.f {
			if v, _, ok := tr.value(c.ids[j]); !ok || v != c.f[j] {
				t.Fatalf("chunk %d: pair (%v, %d) not the document's value", ci, c.f[j], c.ids[j])
			}
			if j > 0 && !numLess(c.f[j-1], c.ids[j-1], c.f[j], c.ids[j]) || j == 0 && ci > 0 && !numLess(tr.maxF[ci-1], tr.maxID[ci-1], c.f[0], c.ids[0]) {
				t.Fatalf("chunk %d: pairs out of order at %d", ci, j)
			}
		}
		n += len(c.f)
	}
	if n != len(model) || tr.n != n {
		t.Fatalf("%d pairs in chunks, n %d, model %d", n, tr.n, len(model))
	}
}

// TestNumTreeBatches: many writes between readers (buffers flushed when
// full, chunks split, emptied and joined), values in random order and in
// increasing order (appends at the tail), against a model.
func TestNumTreeBatches(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, inOrder := range []bool{false, true} {
		tr := &numTree{}
		model := map[uint32]string{}
		next := 0
		for i := range 60000 {
			id := uint32(r.IntN(20000))
			if _, ok := model[id]; ok || r.IntN(4) == 0 {
				tr.remove(id)
				delete(model, id)
				continue
			}
			s := genNum(r)
			if inOrder {
				next += r.IntN(3)
				s = strconv.Itoa(next)
			}
			f, exact, _ := numValue(s)
			tr.insert(id, f, exact)
			model[id], _ = parseNumber(s)
			if r.IntN(3000) == 0 || i == 30000 {
				checkNumTree(t, tr, model)
			}
		}
		checkNumTree(t, tr, model)
	}
}

// TestSortNumEntries: flush's radix sort orders a batch as numEntryCmp
// does (value's double, then id), for batches in id order (inserts) and
// not (removals), with negative values, ±0, ±inf, repeated values and
// values sharing every byte but one.
func TestSortNumEntries(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	vals := []func() float64{
		func() float64 { return float64(r.IntN(100000)) },
		func() float64 { return float64(r.IntN(5)) },
		func() float64 { return r.NormFloat64() * 1e6 },
		func() float64 {
			return []float64{math.Inf(-1), math.Inf(1), 0, math.Copysign(0, -1), -1, 1, 1e300, -1e-300}[r.IntN(8)]
		},
		func() float64 { return 1 + float64(r.IntN(256))*(1.0/(1<<52)) }, // the low byte only
	}
	var tmp []numEntry
	for _, n := range []int{0, 1, 255, 256, 1000, 4096} {
		for vi, val := range vals {
			for _, inOrder := range []bool{true, false} {
				es := make([]numEntry, n)
				for i := range es {
					es[i] = numEntry{val(), uint32(i * 3)}
					if !inOrder {
						es[i].id = r.Uint32N(1 << 20)
					}
				}
				want := slices.Clone(es)
				slices.SortStableFunc(want, numEntryCmp)
				tmp = sortNumEntries(es, tmp)
				for i := range es {
					if numEntryCmp(es[i], want[i]) != 0 {
						t.Fatalf("n %d vals %d in order %v: at %d got %v want %v", n, vi, inOrder, i, es[i], want[i])
					}
				}
			}
		}
	}
}
