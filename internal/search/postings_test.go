package search

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestKeyTable: random inserts and removals against a map.
func TestKeyTable(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	keys := map[uint32]string{}
	model := map[string]uint32{}
	var kt keyTable
	keyOf := func(id uint32) string { return keys[id] }
	next := uint32(0)
	for i := range 50000 {
		k := "k" + strconv.Itoa(r.IntN(3000))
		if id, ok := model[k]; ok {
			kt.remove(k, id)
			delete(model, k)
			delete(keys, id)
		} else {
			keys[next] = k
			model[k] = next
			kt.insert(k, next, keyOf)
			next++
		}
		if i%997 == 0 || i == 49999 {
			for k, id := range model {
				if got, ok := kt.find(k, keyOf); !ok || got != id {
					t.Fatalf("step %d: find %q = %d %v, want %d", i, k, got, ok, id)
				}
			}
			if _, ok := kt.find("absent", keyOf); ok {
				t.Fatal("found an absent key")
			}
			if kt.n != len(model) {
				t.Fatalf("n %d, want %d", kt.n, len(model))
			}
		}
	}
}

// TestPlist: random adds and removals against a map, ids in order.
func TestPlist(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var p plist[uint64]
	model := map[uint32]uint64{}
	for i := range 100000 {
		id := uint32(r.IntN(5000))
		if i%7 == 0 {
			id = p.last // removals and updates at the tail
		}
		if i < 20000 {
			id = uint32(i) // ids in order first: chunks filled by appends
		}
		if _, ok := model[id]; ok && r.IntN(2) == 0 {
			if !p.remove(id) {
				t.Fatalf("remove %d: absent", id)
			}
			delete(model, id)
			continue
		}
		v := r.Uint64()
		p.add(id, v)
		model[id] = v
	}
	if p.n != len(model) {
		t.Fatalf("n %d, want %d", p.n, len(model))
	}
	var ids []uint32
	p.each(func(id uint32, v uint64) {
		if model[id] != v {
			t.Fatalf("id %d: %d, want %d", id, v, model[id])
		}
		ids = append(ids, id)
	})
	if len(ids) > 0 && p.last != ids[len(ids)-1] {
		t.Fatalf("last %d, want %d", p.last, ids[len(ids)-1])
	}
	if len(ids) != len(model) || !slices.IsSorted(ids) {
		t.Fatalf("%d ids (sorted %v), want %d", len(ids), slices.IsSorted(ids), len(model))
	}
	for _, c := range p.ch {
		if len(c.ids) == 0 || len(c.ids) > plistChunk {
			t.Fatalf("chunk of %d ids", len(c.ids))
		}
	}
	for id := range uint32(5100) {
		_, want := model[id]
		if _, got := p.get(id); got != want || p.has(id) != want {
			t.Fatalf("get %d: %v, want %v", id, got, want)
		}
	}
}

// TestTlist: a term's posting list against a map, through appends in id
// order, inserts, replacements and removals anywhere (the tail chunk
// emptying, full chunks splitting and merging), checked every 1000
// operations: order, values, counts, chunk sizes, get and has, and
// appendIDs; then emptied completely.
func TestTlist(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var p tlist
	model := map[uint32]uint64{}
	last := func() uint32 {
		if p.n == 0 {
			return 0
		}
		return p.tail[len(p.tail)-1].id
	}
	check := func() {
		t.Helper()
		if p.n != len(model) || (p.n > 0) != (len(p.tail) > 0) {
			t.Fatalf("n %d tail %d, want n %d", p.n, len(p.tail), len(model))
		}
		var ids []uint32
		p.each(func(id uint32, v uint64) {
			if w, ok := model[id]; !ok || w != v {
				t.Fatalf("id %d: %d, want %d (%v)", id, v, w, ok)
			}
			ids = append(ids, id)
		})
		if len(ids) != len(model) || !slices.IsSorted(ids) {
			t.Fatalf("%d ids (sorted %v), want %d", len(ids), slices.IsSorted(ids), len(model))
		}
		if got := p.appendIDs(nil); !slices.Equal(got, ids) {
			t.Fatalf("appendIDs differs from each")
		}
		for _, c := range append(slices.Clone(p.full), p.tail) {
			if len(c) > plistChunk || len(c) == 0 && p.n > 0 {
				t.Fatalf("chunk of %d entries", len(c))
			}
		}
		for id := range uint32(5100) {
			w, want := model[id]
			if v, got := p.get(id); got != want || v != w || p.has(id) != want {
				t.Fatalf("get %d: %v, want %v", id, got, want)
			}
		}
	}
	for i := range 100000 {
		id := uint32(r.IntN(5000))
		switch {
		case i < 20000:
			id = uint32(i / 4) // ids in order first: chunks filled by appends
		case i%7 == 0:
			id = last() // removals and updates at the tail
		}
		if _, ok := model[id]; ok && r.IntN(2) == 0 {
			if _, ok := p.take(id); !ok {
				t.Fatalf("take %d: absent", id)
			}
			delete(model, id)
		} else {
			v := r.Uint64()
			p.add(id, v)
			model[id] = v
		}
		if i%1000 == 999 {
			check()
		}
	}
	check()
	if len(p.full) == 0 {
		t.Fatalf("the test never made a second chunk")
	}
	for id := range model {
		p.take(id)
		delete(model, id)
	}
	check()
	if _, ok := p.take(1); ok || p.full != nil || p.tail != nil {
		t.Fatalf("empty list: take found, or chunks left")
	}
}
