package search

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTopK: the heap's first k equal a full sort's.
func TestTopK(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	order := func(a, b hit) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	}
	for range 200 {
		n := r.IntN(300)
		hits := make([]hit, n)
		for i := range hits {
			hits[i] = hit{seq: uint64(i), score: float64(r.IntN(10))}
		}
		k := r.IntN(40)
		want := slices.Clone(hits)
		slices.SortFunc(want, order)
		want = want[:min(k, n)]
		got := topK(slices.Clone(hits), k, order)
		if !slices.EqualFunc(got, want, func(a, b hit) bool { return a.seq == b.seq }) {
			t.Fatalf("n %d k %d: got %v want %v", n, k, got, want)
		}
	}
}
