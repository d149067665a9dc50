package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMsortStable: msort gives exactly slices.SortStableFunc's order
// (ties keep their input order) on random inputs with many ties.
func TestMsortStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	type kv struct{ k, pos int }
	cmp := func(a, b *kv) int { return a.k - b.k }
	for iter := 0; iter < 2000; iter++ {
		n := rng.IntN(200)
		v := make([]kv, n)
		for i := range v {
			v[i] = kv{rng.IntN(1 + n/4), i}
		}
		want := slices.Clone(v)
		slices.SortStableFunc(want, func(a, b kv) int { return cmp(&a, &b) })
		msort(v, make([]kv, n), cmp)
		if !slices.Equal(v, want) {
			t.Fatalf("n=%d:\n got %v\nwant %v", n, v, want)
		}
	}
}
