package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRenumber: an index that closes its id holes after every few
// removals answers exactly as one that never does: the same documents in
// the same order, the same scores, values and counts, after random
// upserts and deletions (ismissing and document scores included: which
// fields a document has and its score are kept by id too).
func TestRenumber(t *testing.T) {
	mk := func(holes int) *index {
		args := []string{"FT.CREATE", "i", "SCHEMA", "n", "NUMERIC", "t", "TAG", "title", "TEXT", "g", "GEO", "INDEXMISSING"}
		b := make([][]byte, len(args))
		for i, a := range args {
			b[i] = []byte(a)
		}
		ix, err := parseCreate(b, 0)
		if err != "" {
			t.Fatal(err)
		}
		ix.holes = holes
		return ix
	}
	a, b := mk(1<<30), mk(3)
	r := rand.New(rand.NewPCG(11, 12))
	words := []string{"alpha", "beta", "gamma", "running", "runs", "delta"}
	queries := []string{"*", "@n:[10 50]", "@t:{x|y}", "alpha", "run*", "@title:(beta gamma)", "-@t:{z} @n:[(0 +inf]", "@g:[2 48 500 km]", "ismissing(@g)", "ismissing(@g) @n:[0 50]"}
	for step := range 4000 {
		key := fmt.Sprint("d", r.IntN(200))
		for _, ix := range []*index{a, b} {
			if id, ok := ix.idOf(key); ok {
				ix.remove(id)
			}
		}
		if r.IntN(4) > 0 {
			h := mapSource{
				"n":     fmt.Sprint(r.IntN(100)),
				"t":     []string{"x", "y", "z", "x,y"}[r.IntN(4)],
				"title": words[r.IntN(6)] + " " + words[r.IntN(6)] + " " + words[r.IntN(6)],
			}
			if r.IntN(2) == 0 {
				h["g"] = fmt.Sprintf("%d,48", r.IntN(5))
			}
			if r.IntN(3) == 0 {
				h["__score"] = fmt.Sprintf("0.%d", r.IntN(10))
			}
			a.add(key, h)
			b.add(key, h)
		}
		if step%200 != 199 {
			continue
		}
		if a.live != b.live || a.records != b.records || a.offsets != b.offsets || a.textRecs != b.textRecs {
			t.Fatalf("step %d: counts differ", step)
		}
		if int(b.top) > b.live+b.live/2+b.holes+1 {
			t.Fatalf("step %d: %d ids for %d documents", step, b.top, b.live)
		}
		for _, q := range queries {
			na, err := parseQuery(q, nil, a)
			if err != nil {
				t.Fatal(q, err)
			}
			nb, _ := parseQuery(q, nil, b)
			ka, kb := keysOf(a, na), keysOf(b, nb)
			if !slices.Equal(ka, kb) {
				t.Fatalf("step %d, %q:\n%v\n%v", step, q, ka, kb)
			}
		}
		prevB := -1
		a.eachDoc(func(id uint32, d *doc) bool {
			key := a.key(id)
			idb, ok := b.idOf(key)
			if !ok {
				t.Fatalf("step %d: %s missing", step, key)
			}
			// Ids keep the order of indexing (score ties are broken by it).
			if a.nums[0].key(id) != b.nums[0].key(idb) || int(idb) <= prevB || b.key(idb) != key || a.isOdd(id) != b.isOdd(idb) {
				t.Fatalf("step %d: %s differs", step, key)
			}
			prevB = int(idb)
			return true
		})
	}
	if b.top >= a.top/2 {
		t.Fatalf("ids: %d renumbered, %d not", b.top, a.top)
	}
}

// keysOf is the keys matching n with their scores, in id order.
func keysOf(ix *index, n *node) []string {
	var out []string
	qc := ix.newQctx()
	for _, id := range qc.eval(n) {
		s := 0.0
		if r := qc.matchDoc(n, id); r != nil {
			s = ix.scoreDoc(scorerTFIDF, r, ix.sdoc(id))
		}
		out = append(out, fmt.Sprint(ix.key(id), s))
	}
	return out
}

// TestRecordCompaction: re-indexing documents many times leaves dead
// records, which are compacted away; keys, tags and terms read from the
// records stay right.
func TestRecordCompaction(t *testing.T) {
	ix, err := parseCreate([][]byte{[]byte("FT.CREATE"), []byte("i"), []byte("SCHEMA"), []byte("t"), []byte("TAG"), []byte("x"), []byte("TEXT")}, 0)
	if err != "" {
		t.Fatal(err)
	}
	long := string(make([]byte, 200))
	compacted := false
	for i := range 3000 {
		key := fmt.Sprint("k", i%7, long)
		before := ix.recs.used
		if id, ok := ix.idOf(key); ok {
			ix.remove(id)
		}
		ix.add(key, mapSource{"t": fmt.Sprint("a,", i%3), "x": fmt.Sprint("w", i%5, " common")})
		compacted = compacted || ix.recs.used < before
	}
	if !compacted || ix.dead*2 > ix.recs.used+1<<16 {
		t.Fatalf("compacted %v, %d dead bytes of %d", compacted, ix.dead, ix.recs.used)
	}
	for k := range 7 {
		key := fmt.Sprint("k", k, long)
		id, ok := ix.idOf(key)
		if !ok || ix.key(id) != key {
			t.Fatalf("%d: not found", k)
		}
	}
	n, _ := parseQuery("@t:{a} common", nil, ix)
	if got := len(ix.eval(n)); got != 7 {
		t.Fatalf("%d documents, want 7", got)
	}
	if ix.records != 7*4 {
		t.Fatalf("records %d, want 28", ix.records)
	}
}
