package dict

import (
	"runtime"
	"unsafe"

	"github.com/ordo-db/ordo/internal/ds/mem"
)

// Off-heap storage for a Dict's bucket tables (pointer-free, never handed
// out to callers). As for the sorted sets (zset/offheap.go): Go's
// collector lets the heap grow to about twice what is live, so a byte on
// the Go heap costs about two of RSS; a mapped array costs one, is
// returned to the OS as soon as it is replaced, and a Dict that becomes
// unreachable gives its mappings back through a runtime cleanup. Arena
// chunks stay on the Go heap: the strings handed out view them and must
// keep them alive.
//
// Mappings are counted in the Dict's *mem.Acct with Acct.Map (not
// MapPending): a Dict unmaps what it replaces at once, and its Clear and
// rebuilds free their mappings eagerly, so only an unreachable Dict
// waits for a collection.

const dictMmapThreshold = 256 << 10

// dictRegions are a Dict's mappings; a separate object so the cleanup
// attached to the Dict can free them without referencing it.
type dictRegions struct {
	acct *mem.Acct
	tab  [2][]byte
}

func (r *dictRegions) freeAll() {
	dictUnmap(r.acct, r.tab[0])
	dictUnmap(r.acct, r.tab[1])
	*r = dictRegions{acct: r.acct}
}

func dictUnmap(a *mem.Acct, b []byte) {
	if b != nil {
		a.Unmap(len(b))
		mem.UnmapAnon(b)
	}
}

// dictAlloc returns a zeroed slice of n T (T must hold no pointers) and
// the mapping behind it, or nil when it lives on the Go heap. The mapping
// is counted in a.
func dictAlloc[T any](a *mem.Acct, n int) ([]T, []byte) {
	var zero T
	size := n * int(unsafe.Sizeof(zero))
	if size < dictMmapThreshold {
		return make([]T, n), nil
	}
	m := mem.MapAnon(size)
	if m == nil {
		return make([]T, n), nil
	}
	a.Map(len(m))
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(m))), n), m
}

// alloc32 allocates a bucket table of n buckets.
func (d *Dict[V]) alloc32(n int) ([]uint32, []byte) { return dictAlloc[uint32](d.acct, n) }

func (d *Dict[V]) regs() *dictRegions {
	if d.rg == nil {
		d.rg = &dictRegions{acct: d.acct}
		runtime.AddCleanup(d, func(r *dictRegions) { r.freeAll() }, d.rg)
	}
	return d.rg
}

// setTable installs tb (mapped in mem, or nil) as table t, unmapping the
// table it replaces.
func (d *Dict[V]) setTable(t int, tb []uint32, m []byte) {
	if d.rg != nil {
		dictUnmap(d.acct, d.rg.tab[t])
		d.rg.tab[t] = nil
	}
	if m != nil {
		d.regs().tab[t] = m
	}
	d.tables[t] = tb
}

// promoteTable makes table 1 table 0 once rehashing is over.
func (d *Dict[V]) promoteTable() {
	d.setTable(0, d.tables[1], nil)
	if d.rg != nil {
		d.rg.tab[0], d.rg.tab[1] = d.rg.tab[1], nil
	}
	d.tables[1] = nil
}

// Reserve makes room for n entries in all: a table of at least n
// buckets, so that adding up to n entries does not rehash. Loading a
// dataset whose size is known (the AOF's base says it) saves the
// incremental rehashing, a third of a load's time into a growing dict.
// A dict that already holds entries starts an ordinary incremental
// rehash to the bigger table. It does nothing while rehashing.
func (d *Dict[V]) Reserve(n int) {
	if n <= d.Len() || d.isRehashing() {
		return
	}
	if size := nextPow2(n); size > len(d.tables[0]) {
		if d.Len() == 0 {
			tb, m := d.alloc32(size)
			d.setTable(0, tb, m)
		} else {
			d.resize(n)
		}
	}
	if d.mode == dictAny && cap(d.vals) < n {
		d.vals = append(make([]V, 0, n), d.vals...)
	}
}

// cloneSlice copies s into a new array of the same capacity (mapped when
// big, as the original), returning it and its mapping.
func cloneSlice[T any](a *mem.Acct, s []T) ([]T, []byte) {
	if s == nil {
		return nil, nil
	}
	c, m := dictAlloc[T](a, cap(s))
	copy(c, s)
	return c[:len(s)], m
}

// Clone returns a copy of d in time proportional to its memory, not to
// its entries: tables and arena chunks are copied as arrays (a chunk's
// records hold their chain links, which each copy changes on its own;
// a copy's chunk is cut to the bytes in use, and the copy starts a new
// active chunk). Values are copied as V values, so objects a dictAny or
// dictValue Dict holds are shared; the engine clones only string and set
// dicts.
func (d *Dict[V]) Clone() *Dict[V] {
	c := &Dict[V]{
		used: d.used, rehash: d.rehash, mode: d.mode,
		sideBytes: d.sideBytes, cur: -1, nextSize: d.nextSize,
		acct: d.acct, metaOn: d.metaOn,
	}
	var m []byte
	for t := 0; t < 2; t++ {
		if c.tables[t], m = cloneSlice(d.acct, d.tables[t]); m != nil {
			c.regs().tab[t] = m
		}
	}
	c.vals = append([]V(nil), d.vals...)
	c.valsFree = append([]uint32(nil), d.valsFree...)
	c.side = append([]strObj(nil), d.side...)
	c.sideFree = append([]uint32(nil), d.sideFree...)
	c.objs = append([]any(nil), d.objs...)
	c.objsFree = append([]uint32(nil), d.objsFree...)
	c.chunks = make([][]byte, len(d.chunks))
	for i, b := range d.chunks {
		if b != nil {
			c.chunks[i] = append(make([]byte, 0, len(b)), b...)
			c.arena += int64(len(b))
		}
	}
	c.live = append([]int32(nil), d.live...)
	c.chunkFree = append([]uint32(nil), d.chunkFree...)
	return c
}
