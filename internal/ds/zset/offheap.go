package zset

import (
	"runtime"
	"unsafe"

	"github.com/ordo-db/ordo/internal/ds/mem"
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
//
// Mappings are counted in the *mem.Acct the set was given (BuildIndex),
// as pending ones (mem.Acct.MapPending): a dead set's mappings are freed
// by its cleanup only after a GC, and a workload that keeps replacing big
// sets (ZUNIONSTORE into a temporary key, DEL) would otherwise hold dead
// mappings until heap growth alone triggers a cycle. Whether to start a
// collection is the Acct owner's decision; this package never does.

const mmapThreshold = 256 << 10

// regions are a set's mappings; a separate object so the cleanup
// attached to the tree can free them without referencing the tree.
type regions struct {
	acct                   *mem.Acct
	ents, arena, idx, tags []byte
}

func (r *regions) freeAll() {
	unmap(r.acct, r.ents)
	unmap(r.acct, r.arena)
	unmap(r.acct, r.idx)
	unmap(r.acct, r.tags)
	*r = regions{acct: r.acct}
}

func unmap(a *mem.Acct, b []byte) {
	if b != nil {
		a.Unmap(len(b))
		mem.UnmapAnon(b)
	}
}

// allocSlice returns a zeroed slice of n T (T must hold no pointers) and
// the mapping behind it, or nil when it lives on the Go heap.
// The mapping is counted in a.
func allocSlice[T any](a *mem.Acct, n int) ([]T, []byte) {
	var zero T
	size := n * int(unsafe.Sizeof(zero))
	if size < mmapThreshold {
		return make([]T, n), nil
	}
	m := mem.MapAnon(size)
	if m == nil {
		return make([]T, n), nil
	}
	a.MapPending(len(m))
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(m))), n), m
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
		s.rg = &regions{acct: s.acct}
		runtime.AddCleanup(s, func(r *regions) { r.freeAll() }, s.rg)
	}
	return s.rg
}

func (s *tree) setEnts(ents []entry, m []byte) {
	if s.rg != nil {
		unmap(s.acct, s.rg.ents)
		s.rg.ents = nil
	}
	if m != nil {
		s.regs().ents = m
	}
	s.ents = ents
}

func (s *tree) setArena(arena []byte, m []byte) {
	if s.rg != nil {
		unmap(s.acct, s.rg.arena)
		s.rg.arena = nil
	}
	if m != nil {
		s.regs().arena = m
	}
	s.arena = arena
}

func (s *tree) setIdx(idx []uint32, m []byte) {
	if s.rg != nil {
		unmap(s.acct, s.rg.idx)
		s.rg.idx = nil
	}
	if m != nil {
		s.regs().idx = m
	}
	s.idx = idx
}

func (s *tree) setTags(tags []uint8, m []byte) {
	if s.rg != nil {
		unmap(s.acct, s.rg.tags)
		s.rg.tags = nil
	}
	if m != nil {
		s.regs().tags = m
	}
	s.tags = tags
}

func (s *tree) appendEnt(e entry) uint32 {
	n := len(s.ents)
	if n == cap(s.ents) {
		ents, m := allocSlice[entry](s.acct, growCap(n, n+1))
		copy(ents, s.ents)
		s.setEnts(ents[:n], m)
	}
	s.ents = s.ents[:n+1]
	s.ents[n] = e
	return uint32(n)
}

func (s *tree) appendArena(m []byte) {
	n := len(s.arena)
	if n+len(m) > cap(s.arena) {
		arena, am := allocSlice[byte](s.acct, growCap(cap(s.arena), n+len(m)))
		copy(arena, s.arena)
		s.setArena(arena[:n], am)
	}
	s.arena = append(s.arena, m...)
}

// freeAllIfAny releases the mappings at once (a tree dropped by its set).
func (r *regions) freeAllIfAny() {
	if r != nil {
		r.freeAll()
	}
}
