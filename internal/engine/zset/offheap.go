package zset

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// Off-heap storage for the big pointer-free arrays (slab, arena, index).
//
// Go's collector sizes the heap to (1 + GOGC/100) times the live heap, so
// every byte kept on the Go heap costs about two bytes of RSS under a
// steady write load. The slab, the arena and the member index hold no
// pointers, so once they pass mmapThreshold they are mapped directly from
// the OS: they are not part of the heap goal, growing one returns the old
// mapping at once, and a set that becomes unreachable gives its mappings
// back through a runtime cleanup. Small sets stay on the Go heap (a
// mapping per tiny set would waste pages and mapping slots).

const mmapThreshold = 256 << 10

var (
	mappedBytes   atomic.Int64
	mappedSinceGC atomic.Int64
	gcRunning     atomic.Bool
)

// noteMapped starts a collection in the background once much memory was
// mapped since the last one: mappings are freed by cleanups that run only
// after a GC, and mapped bytes do not count towards the heap goal, so a
// workload that keeps replacing big sets (ZUNIONSTORE into a temporary
// key, DEL) would otherwise hold dead mappings until heap growth alone
// triggers a cycle.
func noteMapped(n int) {
	since := mappedSinceGC.Add(int64(n))
	if since < 64<<20 || since < mappedBytes.Load()/2 || !gcRunning.CompareAndSwap(false, true) {
		return
	}
	mappedSinceGC.Store(0)
	go func() {
		runtime.GC()
		gcRunning.Store(false)
	}()
}

// MappedBytes is the memory sorted sets hold outside the Go heap (for
// INFO memory and maxmemory).
func MappedBytes() int64 { return mappedBytes.Load() }

// regions are a set's mappings; a separate object so the cleanup
// attached to the tree can free them without referencing the tree.
type regions struct {
	ents, arena, idx, tags []byte
}

func (r *regions) freeAll() {
	unmap(r.ents)
	unmap(r.arena)
	unmap(r.idx)
	unmap(r.tags)
	*r = regions{}
}

func unmap(b []byte) {
	if b != nil {
		mappedBytes.Add(-int64(len(b)))
		osUnmap(b)
	}
}

// allocSlice returns a zeroed slice of n T (T must hold no pointers) and
// the mapping behind it, or nil when it lives on the Go heap.
func allocSlice[T any](n int) ([]T, []byte) {
	var zero T
	size := n * int(unsafe.Sizeof(zero))
	if size < mmapThreshold {
		return make([]T, n), nil
	}
	mem := osMap(size)
	if mem == nil {
		return make([]T, n), nil
	}
	mappedBytes.Add(int64(len(mem)))
	noteMapped(len(mem))
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(mem))), n), mem
}

func growCap(old, need int) int {
	c := old * 2
	if old >= 4096 {
		c = old + old/4
	}
	return max(c, need, 8)
}

// regs returns the set's regions, attaching the cleanup on first use.
func (s *tree) regs() *regions {
	if s.rg == nil {
		s.rg = &regions{}
		runtime.AddCleanup(s, func(r *regions) { r.freeAll() }, s.rg)
	}
	return s.rg
}

func (s *tree) setEnts(ents []entry, mem []byte) {
	if s.rg != nil {
		unmap(s.rg.ents)
		s.rg.ents = nil
	}
	if mem != nil {
		s.regs().ents = mem
	}
	s.ents = ents
}

func (s *tree) setArena(arena []byte, mem []byte) {
	if s.rg != nil {
		unmap(s.rg.arena)
		s.rg.arena = nil
	}
	if mem != nil {
		s.regs().arena = mem
	}
	s.arena = arena
}

func (s *tree) setIdx(idx []uint32, mem []byte) {
	if s.rg != nil {
		unmap(s.rg.idx)
		s.rg.idx = nil
	}
	if mem != nil {
		s.regs().idx = mem
	}
	s.idx = idx
}

func (s *tree) setTags(tags []uint8, mem []byte) {
	if s.rg != nil {
		unmap(s.rg.tags)
		s.rg.tags = nil
	}
	if mem != nil {
		s.regs().tags = mem
	}
	s.tags = tags
}

func (s *tree) appendEnt(e entry) uint32 {
	n := len(s.ents)
	if n == cap(s.ents) {
		ents, mem := allocSlice[entry](growCap(n, n+1))
		copy(ents, s.ents)
		s.setEnts(ents[:n], mem)
	}
	s.ents = s.ents[:n+1]
	s.ents[n] = e
	return uint32(n)
}

func (s *tree) appendArena(m []byte) {
	n := len(s.arena)
	if n+len(m) > cap(s.arena) {
		arena, mem := allocSlice[byte](growCap(cap(s.arena), n+len(m)))
		copy(arena, s.arena)
		s.setArena(arena[:n], mem)
	}
	s.arena = append(s.arena, m...)
}

// freeAllIfAny releases the mappings at once (a tree dropped by its set).
func (r *regions) freeAllIfAny() {
	if r != nil {
		r.freeAll()
	}
}
