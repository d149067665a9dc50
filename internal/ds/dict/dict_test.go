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
// shrinking, chunk compaction and side-slice rebuilds; strings handed
// out earlier must keep their contents, and the layout's invariants
// (checkDict) hold after each round.
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
	di := New[int64](nil)   // int64s in the record's tag
	df := New[float64](nil) // other types in the vals slice
	model := map[string]Value{}
	ival := func(v Value) int64 { // values of every uvarint length, both signs
		n := int64(len(v.s))
		x := n << (n % 60)
		if n%2 == 1 {
			x = -x
		}
		return x
	}
	type kept struct{ s, want string }
	var keep []kept
	obj := &Set{}
	raw := &Set{}
	check := func() {
		if d.Len() != len(model) || ds.Len() != len(model) || dt.Len() != len(model) || di.Len() != len(model) {
			t.Fatalf("len %d %d %d %d, want %d", d.Len(), ds.Len(), dt.Len(), di.Len(), len(model))
		}
		checkDict(t, d)
		checkDict(t, ds)
		checkDict(t, dt)
		checkDict(t, di)
		checkDict(t, df)
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
			if v, ok := di.Get(k); !ok || v != ival(w) {
				t.Fatalf("int Get %q: %d, want %d", k, v, ival(w))
			}
			if v, ok := df.Get(k); !ok || v != float64(len(w.s))+0.5 {
				t.Fatalf("float Get %q", k)
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
			if len(k)%4 == 0 { // some keys of 128 bytes or more: a longer length prefix
				k = strings.Repeat("x", 130) + k
			}
			switch op := rng.IntN(10); {
			case op < 5:
				v := Value{s: val()}
				switch rng.IntN(8) {
				case 0:
					v = Value{o: obj} // an object alone: a slot of objs
				case 1:
					v.o = raw // a string and an object (the engine's raw strings): side
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
				if ds.Set(k, v.s) == had || dt.Set(k, struct{}{}) == had || di.Set(k, ival(v)) == had || df.Set(k, float64(len(v.s))+0.5) == had {
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
				df.Delete(k)
				delete(model, k)
				if len(keep) < 1000 && had {
					keep = append(keep, kept{v.s, strings.Clone(v.s)})
				}
				d.ShrinkIfNeeded()
				ds.ShrinkIfNeeded()
				dt.ShrinkIfNeeded()
				di.ShrinkIfNeeded()
				df.ShrinkIfNeeded()
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
				df.Delete(k)
				delete(model, k)
				d.ShrinkIfNeeded()
				ds.ShrinkIfNeeded()
				df.ShrinkIfNeeded()
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

// TestDictOffHeap grows a Dict past the size where its tables are mapped
// outside the Go heap, shrinks it (the arena compacts) and clears it.
func TestDictOffHeap(t *testing.T) {
	acct := mem.NewAcct(nil, nil)
	DictMappedBytes := acct.MappedBytes
	before := DictMappedBytes()
	d := New[Value](acct)
	const n = 100000
	for i := 0; i < n; i++ {
		d.Set("key:"+strconv.Itoa(i), Value{s: "value:" + strconv.Itoa(i)})
	}
	if d.rg == nil || d.rg.tab[0] == nil || DictMappedBytes()-before < n*4 {
		t.Fatalf("table not mapped: %d bytes mapped", DictMappedBytes()-before)
	}
	arena := d.arena
	for i := 0; i < n; i++ {
		if i%50 != 0 {
			d.Delete("key:" + strconv.Itoa(i))
			d.ShrinkIfNeeded()
		}
	}
	if d.arena > arena/8 {
		t.Fatalf("arena not compacted: %d bytes for %d keys (%d for %d)", d.arena, d.Len(), arena, n)
	}
	for i := 0; i < n; i += 50 {
		if v, ok := d.Get("key:" + strconv.Itoa(i)); !ok || v.s != "value:"+strconv.Itoa(i) {
			t.Fatalf("key:%d after compaction: %q %v", i, v.s, ok)
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
// its own map; strings the original handed out before the clone keep
// their contents.
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
		type kept struct{ s, want string }
		var keep []kept
		d.Each(func(k, v string) bool {
			keep = append(keep, kept{k, strings.Clone(k)}, kept{v, strings.Clone(v)})
			return len(keep) < 2000
		})
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
		for _, x := range keep {
			if x.s != x.want {
				t.Fatalf("n=%d: a string handed out before the clone changed: %q", n, x.want)
			}
		}
		checkDict(t, d)
		checkDict(t, c)
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
// rehashing, and one reserved while it holds entries
// keeps them; mappings are counted and given back as without Reserve.
func TestReserve(t *testing.T) {
	acct := mem.NewAcct(nil, nil)
	const n = 100000
	d := New[Value](acct)
	d.EnableMeta()
	d.Reserve(n)
	buckets := d.Buckets()
	if buckets < n {
		t.Fatalf("Reserve(%d): %d buckets", n, buckets)
	}
	for i := 0; i < n; i++ {
		meta, _ := d.SetMeta("key:"+strconv.Itoa(i), Value{s: "v" + strconv.Itoa(i)})
		*meta = uint32(i)
		if d.isRehashing() || d.Buckets() != buckets {
			t.Fatalf("after %d entries: rehashing %v, %d buckets", i+1, d.isRehashing(), d.Buckets())
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

// checkDict checks the layout's invariants: every record a chain leads
// to is in a live chunk, inside the bytes written, aligned, in the bucket
// its key hashes to, and reached once; the chains hold Len records; each
// chunk's live count is the size of the records reached in it; and the
// arena total is the chunks' capacity.
func checkDict[V any](t *testing.T, d *Dict[V]) {
	t.Helper()
	live := make([]int32, len(d.chunks))
	seen := map[uint32]bool{}
	n := 0
	for ti := 0; ti < 2; ti++ {
		tb := d.tables[ti]
		for b, e := range tb {
			if ti == 0 && d.isRehashing() && b < d.rehash && e != 0 {
				t.Fatalf("bucket %d of table 0 already moved holds %x", b, e)
			}
			for ; e != 0; e = d.next(e) {
				c, off := d.at(e)
				if c <= 0 || c >= len(d.chunks) || d.chunks[c] == nil || off >= len(d.chunks[c]) {
					t.Fatalf("location %x: chunk %d offset %d outside the arena", e, c, off)
				}
				if off%d.align(c) != 0 {
					t.Fatalf("location %x: offset %d not aligned to %d", e, off, d.align(c))
				}
				if seen[e] {
					t.Fatalf("location %x reached twice", e)
				}
				seen[e] = true
				k, _, _, size := d.rec(e)
				if off+size > len(d.chunks[c]) {
					t.Fatalf("record %q at %x runs past its chunk", k, e)
				}
				if dictHash(k)&uint64(len(tb)-1) != uint64(b) {
					t.Fatalf("%q in bucket %d of table %d, hashes elsewhere", k, b, ti)
				}
				live[c] += int32(size)
				n++
			}
		}
	}
	if n != d.Len() {
		t.Fatalf("chains hold %d records, Len %d", n, d.Len())
	}
	var arena int64
	for c, b := range d.chunks {
		arena += int64(cap(b))
		if live[c] != d.live[c] {
			t.Fatalf("chunk %d: %d live bytes counted, %d reached", c, d.live[c], live[c])
		}
	}
	if arena != d.arena {
		t.Fatalf("arena %d, chunks hold %d", d.arena, arena)
	}
}

// TestSecondTier runs the model test's operations on a Dict whose chunk
// indexes start at the second tier (1 MiB chunks, offsets in 16-byte
// units), as a Dict past 2 GiB of records would, with metadata words:
// values, metadata, compaction and the invariants must hold there too.
func TestSecondTier(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	d := New[string](nil)
	d.EnableMeta()
	d.chunks, d.live = make([][]byte, dictTier1), make([]int32, dictTier1)
	model := map[string]string{}
	metas := map[string]uint32{}
	for round := 0; round < 4; round++ {
		for i := 0; i < 60000; i++ {
			k := "key:" + strconv.Itoa(rng.IntN(20000))
			switch op := rng.IntN(10); {
			case op < 6:
				v := strings.Repeat("v", rng.IntN(40))
				if rng.IntN(20) == 0 {
					v = strings.Repeat("L", BigValue+rng.IntN(100))
				}
				m, isNew := d.SetMeta(k, v)
				if _, had := model[k]; had == isNew {
					t.Fatalf("SetMeta %q new=%v", k, isNew)
				} else if !had {
					metas[k] = 0
				}
				if *m != metas[k] {
					t.Fatalf("%q: meta %d, want %d", k, *m, metas[k])
				}
				*m = uint32(i)
				metas[k] = uint32(i)
				model[k] = v
			default:
				if _, ok := d.Delete(k); ok != hasKey(model, k) {
					t.Fatalf("Delete %q: %v", k, ok)
				}
				delete(model, k)
				delete(metas, k)
				d.ShrinkIfNeeded()
			}
		}
		checkDict(t, d)
		for k, w := range model {
			v, m, ok := d.GetMeta(k)
			if !ok || v != w || *m != metas[k] {
				t.Fatalf("%q: %q %v meta %d, want %q meta %d", k, v, ok, *m, w, metas[k])
			}
		}
		for c, b := range d.chunks {
			if b != nil && c < dictTier1 {
				t.Fatalf("chunk %d in the first tier", c)
			}
		}
	}
}

func hasKey[V any](m map[string]V, k string) bool { _, ok := m[k]; return ok }

// TestScanRelinked: overwriting values writes new records and compacts
// chunks, moving records while a SCAN is under way; a record keeps its
// place in its chain, so every key present for the whole scan is still
// returned, with inserts, deletes and resizes between the calls too.
func TestScanRelinked(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := 0; round < 4; round++ {
		d := New[string](nil)
		const stable = 500
		for i := 0; i < stable; i++ {
			d.Set("stable:"+strconv.Itoa(i), "v")
		}
		seen := map[string]bool{}
		var cursor uint64
		tmp := 0
		for calls := 0; ; calls++ {
			cursor = d.Scan(cursor, func(k, _ string) { seen[k] = true })
			if cursor == 0 {
				break
			}
			for j := 0; j < 20; j++ { // garbage everywhere: compaction moves records
				d.Set("stable:"+strconv.Itoa(rng.IntN(stable)), strings.Repeat("x", rng.IntN(30)))
			}
			switch calls % 4 {
			case 0:
				for j := 0; j < rng.IntN(400); j++ {
					d.Set("temp:"+strconv.Itoa(tmp), "t")
					tmp++
				}
			case 2:
				for j := 0; j < tmp; j++ {
					d.Delete("temp:" + strconv.Itoa(j))
					d.ShrinkIfNeeded()
				}
			}
		}
		checkDict(t, d)
		for i := 0; i < stable; i++ {
			if !seen["stable:"+strconv.Itoa(i)] {
				t.Fatalf("round %d: stable:%d not returned", round, i)
			}
		}
	}
}
