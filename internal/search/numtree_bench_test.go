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
	keys := make([]string, 400000)
	for i := range keys {
		keys[i], _ = parseNumber(strconv.Itoa(r.IntN(1000000)))
	}
	for i := range 200000 {
		t.insert(numEntry{keys[i], uint32(i)})
	}
	b.ReportAllocs()
	i := 200000
	for b.Loop() {
		k := keys[i%len(keys)]
		t.insert(numEntry{k, uint32(i)})
		t.remove(numEntry{k, uint32(i)})
		i++
	}
}
