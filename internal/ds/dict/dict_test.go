package dict

import (
	"maps"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/ds/mem"
)

// Value has the layout of the engine's Value (a string, or an object),
// which the Dict stores in its dictValue mode.
type Value struct {
	s string
	o any
}

type Set struct{ _ int }

// TestDictModel runs random operations on every kind of Dict against a
// Go map: inserts, overwrites (short, long and object values), deletes,
// shrinking, chunk compaction and slab rebuilds; strings handed out
// earlier must keep their contents.
func TestDictModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	val := func() string {
		switch rng.IntN(10) {
		case 0:
			return strings.Repeat("L", BigValue+rng.IntN(300))
		case 1:
			return ""
		case 2:
			return strings.Repeat("K", dictOwnChunk+10)
		}
		return "v" + strconv.Itoa(rng.IntN(1e6))
	}
	d := New[Value](nil)
	ds := New[string](nil)
	dt := New[struct{}](nil)
	di := New[int64](nil)
	model := map[string]Value{}
	type kept struct{ s, want string }
	var keep []kept
	obj := &Set{}
	check := func() {
		if d.Len() != len(model) || ds.Len() != len(model) || dt.Len() != len(model) || di.Len() != len(model) {
			t.Fatalf("len %d %d %d %d, want %d", d.Len(), ds.Len(), dt.Len(), di.Len(), len(model))
		}
		n := 0
		d.Each(func(k string, v Value) bool {
			n++
			if w, ok := model[k]; !ok || w != v {
				t.Fatalf("Each %q: %v, want %v", k, v, w)
			}
			return true
		})
		if n != len(model) {
			t.Fatalf("Each visited %d", n)
		}
		for k, w := range model {
			if v, ok := d.Get(k); !ok || v != w {
				t.Fatalf("Get %q", k)
			}
			if v, ok := ds.Get(k); !ok || v != w.s {
				t.Fatalf("string Get %q", k)
			}
			if !dt.Has(k) {
				t.Fatalf("set Has %q", k)
			}
			if v, ok := di.Get(k); !ok || v != int64(len(k)) {
				t.Fatalf("int Get %q", k)
			}
		}
		for _, x := range keep {
			if x.s != x.want {
				t.Fatalf("a string handed out changed: %q", x.want)
			}
		}
	}
	for round := 0; round < 6; round++ {
		keys := 200 + rng.IntN(3000)
		for i := 0; i < 20000; i++ {
			k := "key:" + strconv.Itoa(rng.IntN(keys))
			switch op := rng.IntN(10); {
			case op < 5:
				v := Value{s: val()}
				if rng.IntN(8) == 0 {
					v = Value{o: obj}
				}
				w, had := model[k]
				if rng.IntN(2) == 0 {
					// Swap: Set returning the value replaced, which must
					// keep its contents.
					old, was, _ := d.Swap(k, v)
					if was != had || old != w {
						t.Fatalf("Swap %q: %v %v, want %v %v", k, old, was, w, had)
					}
					if len(keep) < 1000 && had {
						keep = append(keep, kept{old.s, strings.Clone(old.s)})
					}
				} else if d.Set(k, v) == had {
					t.Fatalf("Set %q new=%v", k, !had)
				}
				if ds.Set(k, v.s) == had || dt.Set(k, struct{}{}) == had || di.Set(k, int64(len(k))) == had {
					t.Fatalf("Set %q new=%v", k, !had)
				}
				model[k] = v
			case op < 9:
				w, had := model[k]
				v, ok := d.Delete(k)
				if ok != had || v != w {
					t.Fatalf("Delete %q", k)
				}
				if s, ok := ds.Delete(k); ok != had || s != w.s {
					t.Fatalf("string Delete %q", k)
				}
				dt.Delete(k)
				di.Delete(k)
				delete(model, k)
				if len(keep) < 1000 && had {
					keep = append(keep, kept{v.s, strings.Clone(v.s)})
				}
				d.ShrinkIfNeeded()
				ds.ShrinkIfNeeded()
				dt.ShrinkIfNeeded()
				di.ShrinkIfNeeded()
			default:
				if k, v, ok := d.Random(); ok {
					if model[k] != v {
						t.Fatalf("Random %q", k)
					}
					keep = append(keep, kept{k, strings.Clone(k)})
				}
			}
		}
		check()
		// Mostly empty now: the slab and the arena must shrink.
		for k := range model {
			if rng.IntN(20) != 0 {
				d.Delete(k)
				ds.Delete(k)
				dt.Delete(k)
				di.Delete(k)
				delete(model, k)
				d.ShrinkIfNeeded()
				ds.ShrinkIfNeeded()
			}
		}
		check()
	}
	var arena int64
	for _, c := range ds.chunks {
		arena += int64(cap(c))
	}
	if arena != ds.arena {
		t.Fatalf("arena accounting %d, chunks hold %d", ds.arena, arena)
	}
	d.Clear()
	if d.Len() != 0 || d.mode != dictValue {
		t.Fatal("Clear")
	}
}

// TestDictScanResize checks the SCAN guarantee on the Dict directly while
// it grows and shrinks between calls.
func TestDictScanResize(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 20; round++ {
		d := New[struct{}](nil)
		for i := 0; i < 500; i++ {
			d.Set("stable:"+strconv.Itoa(i), struct{}{})
		}
		seen := map[string]bool{}
		var cursor uint64
		tmp := 0
		for calls := 0; ; calls++ {
			cursor = d.Scan(cursor, func(k string, _ struct{}) { seen[k] = true })
			if cursor == 0 {
				break
			}
			if calls%3 == 0 {
				for j := 0; j < rng.IntN(400); j++ {
					d.Set("temp:"+strconv.Itoa(tmp), struct{}{})
					tmp++
				}
			} else {
				for j := 0; j < tmp; j++ {
					d.Delete("temp:" + strconv.Itoa(j))
					d.ShrinkIfNeeded()
				}
			}
		}
		for i := 0; i < 500; i++ {
			if !seen["stable:"+strconv.Itoa(i)] {
				t.Fatalf("round %d: stable:%d not returned", round, i)
			}
		}
	}
}

// TestDictOffHeap grows a Dict past the size where its slab and tables
// are mapped outside the Go heap, shrinks it (slab rebuild) and clears it.
func TestDictOffHeap(t *testing.T) {
	acct := mem.NewAcct(nil, nil)
	DictMappedBytes := acct.MappedBytes
	before := DictMappedBytes()
	d := New[Value](acct)
	const n = 100000
	for i := 0; i < n; i++ {
		d.Set("key:"+strconv.Itoa(i), Value{s: "value:" + strconv.Itoa(i)})
	}
	if d.rg == nil || d.rg.ents == nil || DictMappedBytes()-before < n*int64(dictEntryBytes) {
		t.Fatalf("slab not mapped: %d bytes mapped", DictMappedBytes()-before)
	}
	for i := 0; i < n; i++ {
		if i%50 != 0 {
			d.Delete("key:" + strconv.Itoa(i))
			d.ShrinkIfNeeded()
		}
	}
	if len(d.ents) > n/8 {
		t.Fatalf("slab not rebuilt: %d entries for %d keys", len(d.ents), d.Len())
	}
	for i := 0; i < n; i += 50 {
		if v, ok := d.Get("key:" + strconv.Itoa(i)); !ok || v.s != "value:"+strconv.Itoa(i) {
			t.Fatalf("key:%d after rebuild: %q %v", i, v.s, ok)
		}
	}
	d.Clear()
	if got := DictMappedBytes() - before; got != 0 {
		t.Fatalf("%d bytes still mapped after Clear", got)
	}
}

// TestMeta: each entry's metadata word survives growth, rehashing,
// compaction and the reuse of freed entries (which start at 0 again).
func TestMeta(t *testing.T) {
	d := New[string](nil)
	d.Set("before", "x")
	d.EnableMeta()
	want := map[string]uint32{"before": 0}
	for i := 0; i < 5000; i++ {
		k := "k" + strconv.Itoa(i)
		d.Set(k, strings.Repeat("v", i%50))
		_, m, ok := d.GetMeta(k)
		if !ok || m == nil || *m != 0 {
			t.Fatalf("new key %s: meta %v", k, m)
		}
		*m = uint32(i + 1)
		want[k] = uint32(i + 1)
		if i%3 == 0 {
			d.Delete("k" + strconv.Itoa(i/2))
			delete(want, "k"+strconv.Itoa(i/2))
		}
	}
	for k, w := range want {
		if _, m, ok := d.GetMeta(k); !ok || *m != w {
			t.Fatalf("%s: meta %d, want %d", k, *m, w)
		}
	}
	if _, m, ok := d.GetMeta("nokey"); ok || m != nil {
		t.Fatal("absent key has meta")
	}
	// A shrinking rebuild keeps each key's word.
	n := 0
	for k := range want {
		if n++; n%10 != 0 {
			d.Delete(k)
			delete(want, k)
		}
	}
	d.ShrinkIfNeeded()
	for k, w := range want {
		if _, m, ok := d.GetMeta(k); !ok || *m != w {
			t.Fatalf("after rebuild %s: meta %v, want %d", k, m, w)
		}
	}
	d.Clear()
	d.Set("after", "x")
	if _, m, _ := d.GetMeta("after"); m == nil || *m != 0 {
		t.Fatal("Clear dropped EnableMeta or kept a value")
	}
}

// TestEachWithLookups: lookups inside Each (ZINTER of a set with itself)
// must not rehash under the walk: every entry is seen exactly once,
// whatever point of a rehash the Dict is at.
func TestEachWithLookups(t *testing.T) {
	for n := 1; n <= 300; n++ {
		d := New[struct{}](nil)
		for i := 0; i < n; i++ {
			d.Set("m"+strconv.Itoa(i), struct{}{})
		}
		seen := map[string]int{}
		d.Each(func(k string, _ struct{}) bool {
			seen[k]++
			for j := 0; j < 3; j++ {
				d.Has(k)
				d.Has("absent")
			}
			return true
		})
		if len(seen) != n {
			t.Fatalf("n=%d: Each saw %d distinct entries", n, len(seen))
		}
		for k, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d: Each saw %q %d times", n, k, c)
			}
		}
		if d.isRehashing() {
			d.Has("m0") // rehashing resumes after the walk
		}
	}
}

// TestClone checks that a clone and its original evolve independently:
// random overwrites (short and long values), deletes and inserts on both,
// with chunk compaction, rehashing and off-heap tables, each compared with
// its own map; the clone shares the original's arena chunks, which must
// therefore never change under either of them.
func TestClone(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	val := func() string {
		if rng.IntN(8) == 0 {
			return strings.Repeat("L", BigValue+rng.IntN(100))
		}
		return "v" + strconv.Itoa(rng.IntN(1e6))
	}
	for _, n := range []int{10, 5000, 100000} {
		a := mem.NewAcct(nil, nil)
		d := New[string](a)
		ma := map[string]string{}
		for i := 0; i < n; i++ {
			k := "k" + strconv.Itoa(i)
			v := val()
			d.Set(k, v)
			ma[k] = v
		}
		for i := 0; i < n/3; i++ { // garbage and free entries before cloning
			k := "k" + strconv.Itoa(rng.IntN(n))
			delete(ma, k)
			d.Delete(k)
		}
		c := d.Clone()
		mc := maps.Clone(ma)
		step := func(x *Dict[string], m map[string]string) {
			k := "k" + strconv.Itoa(rng.IntN(2*n))
			switch rng.IntN(3) {
			case 0:
				x.Delete(k)
				delete(m, k)
			default:
				v := val()
				x.Set(k, v)
				m[k] = v
			}
		}
		for i := 0; i < 3*n; i++ {
			step(d, ma)
			step(c, mc)
		}
		for _, p := range []struct {
			x *Dict[string]
			m map[string]string
		}{{d, ma}, {c, mc}} {
			if p.x.Len() != len(p.m) {
				t.Fatalf("n=%d: len %d, want %d", n, p.x.Len(), len(p.m))
			}
			for k, w := range p.m {
				if v, ok := p.x.Get(k); !ok || v != w {
					t.Fatalf("n=%d: Get %q = %q %v, want %q", n, k, v, ok, w)
				}
			}
			seen := 0
			p.x.Each(func(k, v string) bool {
				seen++
				return p.m[k] == v
			})
			if seen != len(p.m) {
				t.Fatalf("n=%d: Each saw %d of %d", n, seen, len(p.m))
			}
		}
	}
}

// TestReserve: a Dict given its size first takes n entries without
// rehashing or growing its slab, and one reserved while it holds entries
// keeps them; mappings are counted and given back as without Reserve.
func TestReserve(t *testing.T) {
	acct := mem.NewAcct(nil, nil)
	const n = 100000
	d := New[Value](acct)
	d.EnableMeta()
	d.Reserve(n)
	buckets, slab := d.Buckets(), cap(d.ents)
	if buckets < n || slab != n || cap(d.meta) < n {
		t.Fatalf("Reserve(%d): %d buckets, slab %d, meta %d", n, buckets, slab, cap(d.meta))
	}
	for i := 0; i < n; i++ {
		meta, _ := d.SetMeta("key:"+strconv.Itoa(i), Value{s: "v" + strconv.Itoa(i)})
		*meta = uint32(i)
		if d.isRehashing() || d.Buckets() != buckets || cap(d.ents) != slab {
			t.Fatalf("after %d entries: rehashing %v, %d buckets, slab %d", i+1, d.isRehashing(), d.Buckets(), cap(d.ents))
		}
	}
	e := New[int64](acct)
	for i := 0; i < 1000; i++ {
		e.Set("k"+strconv.Itoa(i), int64(i))
	}
	e.Reserve(n)
	for i := 1000; i < n; i++ {
		e.Set("k"+strconv.Itoa(i), int64(i))
	}
	for i := 0; i < n; i++ {
		k := "key:" + strconv.Itoa(i)
		if v, meta, ok := d.GetMeta(k); !ok || v.s != "v"+strconv.Itoa(i) || *meta != uint32(i) {
			t.Fatalf("%s: %q %v", k, v.s, ok)
		}
		if v, ok := e.Get("k" + strconv.Itoa(i)); !ok || v != int64(i) {
			t.Fatalf("k%d: %d %v", i, v, ok)
		}
	}
	d.Clear()
	e.Clear()
	if got := acct.MappedBytes(); got != 0 {
		t.Fatalf("%d bytes still mapped after Clear", got)
	}
}
