package stream

import (
	"runtime"

	"github.com/ordo-db/ordo/internal/ds/mem"
)

// Off-heap storage of full nodes.
//
// Go's collector lets the heap grow to about twice what is live, so a
// stream kept on the Go heap costs about twice its bytes in RSS. A node
// that is full (a new one was started after it) only changes in place
// from then on (deletion flags, counters of the same size), so once a
// stream has a few full nodes they are copied into chunks mapped from the
// OS (package mem), bump-allocated: they are outside the heap goal, and a
// chunk is unmapped as soon as its last node is trimmed or deleted. A
// node that must grow or change size moves back to the heap first. Small
// streams stay on the heap (a mapping per tiny stream would waste pages).
// A stream that becomes unreachable returns its chunks through a runtime
// cleanup.

const (
	slabMinNodes   = 8        // full nodes before a stream maps anything
	chunkMin       = 64 << 10 // first chunk
	chunkMax       = 1 << 20
	slabMaxNodeLen = 32 << 10 // bigger nodes stay on the heap
)

type chunk struct {
	mem  []byte
	used int
	live int
}

type slab struct {
	acct   *mem.Acct
	chunks []*chunk
	next   int // size of the next chunk
}

func (sl *slab) freeAll() {
	for _, c := range sl.chunks {
		sl.acct.Unmap(len(c.mem))
		mem.UnmapAnon(c.mem)
	}
	sl.chunks = nil
}

// SetAcct makes the stream count the memory it maps in a.
func (s *Stream) SetAcct(a *mem.Acct) { s.acct = a }

// seal is called on a node that just became full: it moves it off the
// heap when the stream is big enough.
func (s *Stream) seal(nd *node) {
	if len(s.nodes) < slabMinNodes || len(nd.lp) > slabMaxNodeLen {
		nd.lp = clipCopy(nd.lp)
		return
	}
	sl := s.slab
	if sl == nil {
		sl = &slab{acct: s.acct, next: chunkMin}
		s.slab = sl
		runtime.AddCleanup(s, func(sl *slab) { sl.freeAll() }, sl)
	}
	var c *chunk
	if n := len(sl.chunks); n > 0 && len(sl.chunks[n-1].mem)-sl.chunks[n-1].used >= len(nd.lp) {
		c = sl.chunks[n-1]
	} else {
		m := mem.MapAnon(sl.next)
		if m == nil { // no mappings on this platform
			nd.lp = clipCopy(nd.lp)
			return
		}
		sl.acct.MapPending(len(m))
		c = &chunk{mem: m}
		sl.chunks = append(sl.chunks, c)
		sl.next = min(sl.next*2, chunkMax)
	}
	dst := c.mem[c.used : c.used+len(nd.lp) : c.used+len(nd.lp)]
	copy(dst, nd.lp)
	c.used += len(nd.lp)
	c.live += len(nd.lp)
	nd.lp, nd.ck = dst, c
}

// release forgets nd's place in its chunk (the node is removed, or was
// copied to the heap), unmapping the chunk when it holds nothing else.
func (s *Stream) release(nd *node) {
	c := nd.ck
	if c == nil {
		return
	}
	nd.ck = nil
	c.live -= cap(nd.lp)
	if c.live > 0 {
		return
	}
	sl := s.slab
	for i, x := range sl.chunks {
		if x == c {
			sl.chunks = append(sl.chunks[:i], sl.chunks[i+1:]...)
			break
		}
	}
	sl.acct.Unmap(len(c.mem))
	mem.UnmapAnon(c.mem)
}

// toHeap moves an off-heap node back to the heap (before it grows).
func (s *Stream) toHeap(nd *node) {
	if nd.ck == nil {
		return
	}
	lp := append(make([]byte, 0, len(nd.lp)+64), nd.lp...)
	s.release(nd)
	nd.lp = lp
}

// replaceInt is lpReplaceInt on a node, keeping the chunk accounting
// right when the listpack has to be reallocated.
func (s *Stream) replaceInt(nd *node, off int, v int64) {
	out := lpReplaceInt(nd.lp, off, v)
	if nd.ck != nil && (len(out) != len(nd.lp) || &out[0] != &nd.lp[0]) {
		old := nd.lp
		nd.lp = old
		s.release(nd) // out is a fresh heap copy
	}
	nd.lp = out
}

func clipCopy(b []byte) []byte {
	if cap(b)-len(b) <= len(b)/16 {
		return b
	}
	return append(make([]byte, 0, len(b)), b...)
}

// Acct is the account given to SetAcct.
func (s *Stream) Acct() *mem.Acct { return s.acct }
