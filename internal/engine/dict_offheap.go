package engine

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// Off-heap storage for a Dict's big pointer-free arrays: the entry slab
// and the bucket tables (never handed out to callers). As for the sorted
// sets (zset/offheap.go): Go's collector lets the heap grow to about twice
// what is live, so a byte on the Go heap costs about two of RSS; a mapped
// array costs one, is returned to the OS as soon as it is replaced, and a
// Dict that becomes unreachable gives its mappings back through a runtime
// cleanup. Arena chunks stay on the Go heap: the strings handed out view
// them and must keep them alive.

const dictMmapThreshold = 256 << 10

var dictMapped atomic.Int64

// DictMappedBytes is the memory Dicts hold outside the Go heap.
func DictMappedBytes() int64 { return dictMapped.Load() }

// dictRegions are a Dict's mappings; a separate object so the cleanup
// attached to the Dict can free them without referencing it.
type dictRegions struct {
	ents []byte
	tab  [2][]byte
}

func (r *dictRegions) freeAll() {
	dictUnmap(r.ents)
	dictUnmap(r.tab[0])
	dictUnmap(r.tab[1])
	*r = dictRegions{}
}

func dictUnmap(b []byte) {
	if b != nil {
		dictMapped.Add(-int64(len(b)))
		dictOSUnmap(b)
	}
}

// dictAlloc returns a zeroed slice of n T (T must hold no pointers) and
// the mapping behind it, or nil when it lives on the Go heap.
func dictAlloc[T any](n int) ([]T, []byte) {
	var zero T
	size := n * int(unsafe.Sizeof(zero))
	if size < dictMmapThreshold {
		return make([]T, n), nil
	}
	mem := dictOSMap(size)
	if mem == nil {
		return make([]T, n), nil
	}
	dictMapped.Add(int64(len(mem)))
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(mem))), n), mem
}

func (d *Dict[V]) regs() *dictRegions {
	if d.rg == nil {
		d.rg = &dictRegions{}
		runtime.AddCleanup(d, func(r *dictRegions) { r.freeAll() }, d.rg)
	}
	return d.rg
}

// setTable installs tb (mapped in mem, or nil) as table t, unmapping the
// table it replaces.
func (d *Dict[V]) setTable(t int, tb []uint32, mem []byte) {
	if d.rg != nil {
		dictUnmap(d.rg.tab[t])
		d.rg.tab[t] = nil
	}
	if mem != nil {
		d.regs().tab[t] = mem
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

// growEnts makes room for one more entry in the slab.
func (d *Dict[V]) growEnts() {
	n := len(d.ents)
	c := n * 2
	if n >= 4096 {
		c = n + n/4
	}
	ents, mem := dictAlloc[dent](max(c, 8))
	copy(ents, d.ents)
	if d.rg != nil {
		dictUnmap(d.rg.ents)
		d.rg.ents = nil
	}
	if mem != nil {
		d.regs().ents = mem
	}
	d.ents = ents[:n]
}
