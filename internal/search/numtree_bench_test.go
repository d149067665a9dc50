package search

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// BenchmarkNumTreeInsert: inserting into a tree of 200,000 values.
func BenchmarkNumTreeInsert(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	t := &numTree{}
	keys := make([]float64, 400000)
	for i := range keys {
		keys[i], _, _ = numValue(strconv.Itoa(r.IntN(1000000)))
	}
	for i := range 200000 {
		t.insert(uint32(i), keys[i], "")
	}
	b.ReportAllocs()
	i := 200000
	for b.Loop() {
		k := keys[i%len(keys)]
		t.insert(uint32(i), k, "")
		t.remove(uint32(i))
		i++
	}
}
