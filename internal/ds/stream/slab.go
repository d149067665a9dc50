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
//
// Once a stream has a few full nodes, its tail node is built in a chunk
// too, at the chunk's bump pointer (the chunk is "open"): entries are
// appended in place and sealing the node only moves the pointer past it,
// so a node is never built on the heap to be copied and dropped. A tail
// that outgrows the chunk's free space moves to a new chunk (the rest of
// the old one stays unused, less than a node).

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
	next   int    // size of the next chunk
	open   *chunk // the chunk holding the open tail at its used mark, or nil
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
// heap when the stream is big enough, or closes it in its chunk.
func (s *Stream) seal(nd *node) {
	if s.isOpen(nd) {
		c := nd.ck
		n := len(nd.lp)
		nd.lp = nd.lp[:n:n]
		c.used += n
		c.live += n
		s.slab.open = nil
		return
	}
	if nd.ck != nil {
		return // already sealed
	}
	if len(s.nodes) < slabMinNodes || len(nd.lp) > slabMaxNodeLen {
		nd.lp = clipCopy(nd.lp)
		return
	}
	c, dst := s.carve(len(nd.lp))
	if c == nil {
		nd.lp = clipCopy(nd.lp)
		return
	}
	dst = dst[:len(nd.lp):len(nd.lp)]
	copy(dst, nd.lp)
	c.used += len(nd.lp)
	c.live += len(nd.lp)
	nd.lp, nd.ck = dst, c
}

// carve returns free space of at least n bytes at the used mark of the
// last chunk, mapping a new chunk when it has too little (nil if the
// platform maps nothing). The space is not taken: the caller moves used.
func (s *Stream) carve(n int) (*chunk, []byte) {
	sl := s.slab
	if sl == nil {
		sl = &slab{acct: s.acct, next: chunkMin}
		s.slab = sl
		runtime.AddCleanup(s, func(sl *slab) { sl.freeAll() }, sl)
	}
	if k := len(sl.chunks); k > 0 && len(sl.chunks[k-1].mem)-sl.chunks[k-1].used >= n && sl.chunks[k-1] != sl.open {
		c := sl.chunks[k-1]
		return c, c.mem[c.used:c.used:len(c.mem)]
	}
	size := sl.next
	for size < n {
		size *= 2
	}
	m := mem.MapAnon(size)
	if m == nil { // no mappings on this platform
		return nil, nil
	}
	sl.acct.MapPending(len(m))
	c := &chunk{mem: m}
	sl.chunks = append(sl.chunks, c)
	sl.next = min(sl.next*2, chunkMax)
	return c, c.mem[:0:len(c.mem)]
}

// isOpen reports whether nd is the open tail: in a chunk, at its used
// mark (every sealed node of the chunk lies before the mark).
func (s *Stream) isOpen(nd *node) bool {
	c := nd.ck
	return c != nil && s.slab.open == c && c.used < len(c.mem) && &nd.lp[0] == &c.mem[c.used]
}

// newNodeLP returns an empty listpack for a new tail node with room for
// n bytes: open in a chunk once the stream is big enough, else on the
// heap sized as the last node (nodes tend to look alike).
func (s *Stream) newNodeLP(n int) ([]byte, *chunk) {
	hint := max(n, s.nextCap())
	if len(s.nodes) >= slabMinNodes && hint <= slabMaxNodeLen {
		if c, buf := s.carve(hint); c != nil {
			s.slab.open = c
			return lpInit(buf), c
		}
	}
	return lpNew(hint), nil
}

// room makes sure the tail node nd can take n more bytes without moving
// out of its chunk behind the slab's back: an open tail without the room
// moves to fresh chunk space (or to the heap when it gets too big for
// chunks). Heap nodes just grow by append.
func (s *Stream) room(nd *node, n int) {
	if nd.ck == nil || cap(nd.lp)-len(nd.lp) >= n {
		return
	}
	want := len(nd.lp) + n + len(nd.lp)/8
	if want > slabMaxNodeLen {
		s.toHeap(nd)
	} else if c, buf := s.carve(want); c != nil {
		lp := append(buf, nd.lp...)
		s.release(nd)
		nd.lp, nd.ck = lp, c
		s.slab.open = c
	} else {
		s.toHeap(nd)
	}
}

// release forgets nd's place in its chunk (the node is removed, or was
// copied to the heap), unmapping the chunk when it holds nothing else.
func (s *Stream) release(nd *node) {
	c := nd.ck
	if c == nil {
		return
	}
	sl := s.slab
	if s.isOpen(nd) {
		sl.open = nil
	} else {
		c.live -= len(nd.lp)
	}
	nd.ck = nil
	if c.live > 0 || c == sl.open {
		return
	}
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
	lp := append(make([]byte, 0, len(nd.lp)+len(nd.lp)/8+64), nd.lp...)
	s.release(nd)
	nd.lp = lp
}

// replaceInt is lpReplaceInt on a node, keeping the chunk accounting
// right when the listpack has to be reallocated.
func (s *Stream) replaceInt(nd *node, off int, v int64) {
	out := lpReplaceInt(nd.lp, off, v)
	if len(out) != len(nd.lp) {
		s.layout++ // the entries after off moved
	}
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
