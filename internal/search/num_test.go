package search

import (
	"math/big"
	"math/rand/v2"
	"strconv"
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

func TestNumTree(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tr := &numTree{}
	model := map[numEntry]bool{}
	for i := range 20000 {
		e := numEntry{key: string(rune('a' + r.IntN(20))), doc: uint32(r.IntN(500))}
		if r.IntN(3) == 0 {
			if tr.remove(e) != model[e] {
				t.Fatalf("step %d: remove %v", i, e)
			}
			delete(model, e)
		} else if !model[e] {
			tr.insert(e)
			model[e] = true
		}
	}
	if tr.n != len(model) {
		t.Fatalf("n %d, model %d", tr.n, len(model))
	}
	for _, q := range [][2]string{{"c", "f"}, {"a", "z"}, {"g", "g"}} {
		for _, ex := range []bool{false, true} {
			var got []numEntry
			tr.scan(q[0], ex, q[1], ex, func(d uint32) { got = append(got, numEntry{doc: d}) })
			n := 0
			for e := range model {
				if (e.key > q[0] || !ex && e.key == q[0]) && (e.key < q[1] || !ex && e.key == q[1]) {
					n++
				}
			}
			if len(got) != n {
				t.Errorf("scan %v ex=%v: %d entries, want %d", q, ex, len(got), n)
			}
		}
	}
}
