// Package quicklist is the deque of strings behind Ordo's lists: Redis's
// quicklist in Go, elements packed into byte chunks rather than one heap
// object each.
//
// # Guarantees
//
//   - PushFront, PushBack, PopFront and PopBack are O(1) (amortized: only
//     the chunk directory, one pointer per chunk, is ever reallocated).
//   - Element i is found in O(1) chunk lookup plus at most 128
//     steps inside its chunk; each chunk remembers the last position it
//     looked up, so walking the list in either direction costs one step
//     per element. In a packed chunk (below) reading element i decodes
//     at most 63 entries (each a header byte and the bytes it adds),
//     reading on forwards one entry per element, and changing one
//     unpacks the chunk (a few µs for 4 KiB).
//   - Insert is O(n) (it shifts the shorter side); SetAt is O(chunk
//     bytes); TruncateFront and TruncateBack drop whole chunks at once.
//   - Values passed in are copied; the list never keeps a caller's bytes.
//   - Copy is a deep copy that shares nothing with the original.
//
// # Layout
//
// A chunk is one []byte holding its elements in order, each as
// uvarint(len), the bytes, and len again as a reversed uvarint so that
// the chunk can be walked backwards: 2 bytes of overhead for an element
// shorter than 128 bytes, and one heap object per chunk (the garbage
// collector never sees the elements). A chunk keeps room at its front as
// well as its back, so pushing or popping at either end of a chunk moves
// nothing.
//
// Up to 256 elements a list is one chunk ("small" mode). Above
// that it is a deque of chunks of exactly 256 elements (the first
// and the last may hold fewer), reached through a directory with free
// room at both ends; element i is in chunk (off+i)/256. A big list
// that shrinks to 64 elements becomes one chunk again. 256 elements of
// 16 bytes are 4 KiB, half of a Redis node at list-max-listpack-size
// -2 (8 KiB); chunks of 128 cost 0.3 bytes more per element in a long
// list (the chunk header, its directory slot, the allocator's rounding)
// and changed nothing measurable in pushes, pops or ranges. A chunk started
// at either end reserves the size of its full neighbour (plus 1/16), so
// a list built by pushes produces almost no garbage.
//
// Chunks three or more chunks away from both ends are packed (pack.go):
// each element stored as the length of the prefix it shares with the
// previous one and the rest, as Redis's list-compress-depth compresses
// inner nodes (with LZF there, off by default). Pushes and pops never
// see a packed chunk except when the list's end reaches one.
//
// Memory (`ordo bench -rows 'list elements'`, RSS of the whole process
// after RPUSH of 1,000,000 "element:N", redis-server 7.0 / ordo-server):
// 27.7 / 33.0 MiB before packing, when the elements cost what Redis's
// listpacks cost (2 bytes each over the text). Packed, "element:N"
// costs about 2.8 bytes (2.3 in a packed chunk of 256: a header byte
// and the digit that changed, a restart every 64; then the chunk header,
// its directory slot and the allocator's size-class rounding): 2.8 MB
// of Go heap for the million, 5.1 MB with the previous packing (two
// header bytes, a restart every 16, chunks of 128).
//
// # Not safe
//
// A List is not safe for concurrent use, not even for concurrent reads
// (lookups move the chunk cursor); callers serialize access (the engine
// lock). Byte slices returned by BytesAt are views into the list, valid
// only until the next call on it. The package has no global mutable
// state.
package quicklist

import (
	"encoding/binary"
	"unsafe"
)

const (
	chunkShift = 8
	chunkSize  = 1 << chunkShift // elements in a full chunk
	chunkMask  = chunkSize - 1
	smallMax   = chunkSize     // a small list holds at most this many
	shrinkAt   = chunkSize / 4 // a big list this short becomes small again
)

// view is b as a string without copying (b must not change while in use).
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

type chunk struct {
	b    []byte // entries in b[head:]
	head int
	n    int // entries
	ck   int // cursor: entry ck starts at b[co] (0 <= ck <= n)
	co   int
	// packed is, for a packed chunk (pack.go), the length of its entries
	// unpacked; b then holds the packed form. 0 for a chunk in use.
	packed int
}

func uvarintLen(x int) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

func entrySize(n int) int { return 2*uvarintLen(n) + n }

// writeEntry encodes v at b[0:entrySize(len(v))].
func writeEntry(b []byte, v string) {
	w := binary.PutUvarint(b, uint64(len(v)))
	copy(b[w:], v)
	e := w + len(v)
	for i := 0; i < w; i++ {
		b[e+i] = b[w-1-i]
	}
}

// entryAt returns the size of the entry at off and the offset and length of its bytes.
func (ch *chunk) entryAt(off int) (size, start, n int) {
	x, w := binary.Uvarint(ch.b[off:])
	return 2*w + int(x), off + w, int(x)
}

// entryBefore returns the size of the entry ending at end.
func (ch *chunk) entryBefore(end int) int {
	var x uint64
	var shift uint
	w := 0
	for {
		c := ch.b[end-1-w]
		w++
		x |= uint64(c&0x7f) << shift
		shift += 7
		if c < 0x80 {
			break
		}
	}
	return 2*w + int(x)
}

// seek returns the offset of entry k (0 <= k <= n), walking from the
// nearest of the front, the cursor and the back, and moves the cursor there.
func (ch *chunk) seek(k int) int {
	pos, off, cost := 0, ch.head, k
	if d := max(k-ch.ck, ch.ck-k); d < cost {
		pos, off, cost = ch.ck, ch.co, d
	}
	if ch.n-k < cost {
		pos, off = ch.n, len(ch.b)
	}
	for pos < k {
		s, _, _ := ch.entryAt(off)
		off += s
		pos++
	}
	for pos > k {
		off -= ch.entryBefore(off)
		pos--
	}
	ch.ck, ch.co = k, off
	return off
}

func (ch *chunk) get(k int) []byte {
	_, start, n := ch.entryAt(ch.seek(k))
	return ch.b[start : start+n : start+n]
}

// room makes size free bytes at off (shifting what follows) and returns
// the possibly moved offset; at the front it uses the head room.
func (ch *chunk) room(off, size int) int {
	if off == ch.head && ch.head >= size {
		ch.head -= size
		return ch.head
	}
	if off == ch.head && off < len(ch.b) {
		// front of a non-empty chunk without head room: reallocate with some
		live := len(ch.b) - ch.head
		front := live/8 + size + 8
		nb := make([]byte, front+live)
		copy(nb[front:], ch.b[ch.head:])
		ch.b, ch.head = nb, front-size
		return ch.head
	}
	if cap(ch.b)-len(ch.b) < size {
		nb := make([]byte, len(ch.b), len(ch.b)+(len(ch.b)-ch.head)/8+size+8)
		copy(nb, ch.b)
		ch.b = nb
	}
	ch.b = ch.b[:len(ch.b)+size]
	copy(ch.b[off+size:], ch.b[off:])
	return off
}

// insert puts v (which must not alias the chunk) before entry k.
func (ch *chunk) insert(k int, v string) {
	off := ch.seek(k)
	size := entrySize(len(v))
	off = ch.room(off, size)
	writeEntry(ch.b[off:], v)
	ch.n++
	ch.ck, ch.co = k, off
}

// remove deletes entry k.
func (ch *chunk) remove(k int) {
	off := ch.seek(k)
	size, _, _ := ch.entryAt(off)
	switch {
	case off == ch.head:
		ch.head += size
	default:
		copy(ch.b[off:], ch.b[off+size:])
		ch.b = ch.b[:len(ch.b)-size]
	}
	ch.n--
	ch.ck, ch.co = k, off
	if k == 0 {
		ch.co = ch.head
	}
	ch.tidy()
}

// set replaces entry k with v (which must not alias the chunk).
func (ch *chunk) set(k int, v string) {
	off := ch.seek(k)
	old, _, _ := ch.entryAt(off)
	size := entrySize(len(v))
	switch {
	case size > old:
		off = ch.room(off, size-old)
	case size < old:
		copy(ch.b[off+size:], ch.b[off+old:])
		ch.b = ch.b[:len(ch.b)-(old-size)]
	}
	writeEntry(ch.b[off:], v)
	ch.ck, ch.co = k, off
	ch.tidy()
}

// tidy gives back room when the chunk uses less than half of its bytes.
func (ch *chunk) tidy() {
	live := len(ch.b) - ch.head
	if cap(ch.b) > 2*live+64 {
		ch.compact(live / 8)
	}
}

// compact reallocates the chunk with extra bytes of room at the back.
func (ch *chunk) compact(extra int) {
	live := len(ch.b) - ch.head
	var nb []byte
	if live+extra > 0 {
		nb = make([]byte, live, live+extra)
		copy(nb, ch.b[ch.head:])
	}
	ch.co -= ch.head
	ch.b, ch.head = nb, 0
}

// fit drops the room of a chunk that just became full, unless it is
// small (at most 1/8 of its bytes): reallocating to save that little
// would cost more garbage than it frees.
func (ch *chunk) fit() {
	live := len(ch.b) - ch.head
	if cap(ch.b)-live > live/8+16 {
		ch.compact(0)
	}
}

func (ch *chunk) clone() *chunk {
	cp := *ch
	if ch.packed > 0 {
		cp.b = append([]byte(nil), ch.b...)
		return &cp
	}
	cp.b = append([]byte(nil), ch.b[ch.head:]...)
	cp.head, cp.co = 0, ch.co-ch.head
	return &cp
}

const chunkHeader = int64(unsafe.Sizeof(chunk{}))

func (ch *chunk) memory() int64 { return chunkHeader + int64(cap(ch.b)) }

// List is a deque of byte strings. The zero value is an empty list.
type List struct {
	sm     chunk    // small mode (dir == nil)
	dir    []*chunk // big mode: chunks dir[lo:hi]
	lo, hi int
	off    int // position of element 0 in chunk dir[lo], counting its absent slots
	n      int
	// big is the memory of the chunks dir[lo:hi], kept as they change so
	// that MemoryUsage is O(1): the engine re-measures a list after every
	// write.
	big int64
	// loose are the dir indexes + 1 (0: none) of the two interior chunks
	// most recently unpacked to be read or changed, loose[0] the newer;
	// a third one unpacked packs loose[1] again (pack.go).
	loose [2]int
}

// New returns an empty list.
func New() *List { return &List{} }

// Len is the number of elements.
func (l *List) Len() int { return l.n }

// Copy returns a deep copy of the list.
func (l *List) Copy() *List {
	cp := &List{n: l.n, lo: l.lo, hi: l.hi, off: l.off, loose: l.loose}
	if l.dir == nil {
		cp.sm = *l.sm.clone()
		return cp
	}
	cp.dir = make([]*chunk, len(l.dir))
	for i := l.lo; i < l.hi; i++ {
		cp.dir[i] = l.dir[i].clone()
		cp.big += cp.dir[i].memory()
	}
	return cp
}

// MemoryUsage is an estimate in bytes of the list, its header included.
func (l *List) MemoryUsage() int64 {
	size := int64(unsafe.Sizeof(List{}))
	if l.dir == nil {
		return size + int64(cap(l.sm.b))
	}
	return size + int64(len(l.dir))*8 + l.big
}

// loc returns the chunk of element i and its index there.
func (l *List) loc(i int) (*chunk, int) {
	if l.dir == nil {
		return &l.sm, i
	}
	ci, k := l.where(i)
	return l.chunkAt(ci), k
}

// where returns the index in dir of the chunk of element i (big mode)
// and the element's index there.
func (l *List) where(i int) (ci, k int) {
	p := l.off + i
	ci = l.lo + p>>chunkShift
	k = p & chunkMask
	if ci == l.lo {
		k -= l.off
	}
	return ci, k
}

// BytesAt returns element i without copying; valid until the list changes.
func (l *List) BytesAt(i int) []byte {
	if l.dir == nil {
		return l.sm.get(i)
	}
	ci, k := l.where(i)
	if l.dir[ci].packed > 0 {
		return l.readPacked(ci, k)
	}
	return l.dir[ci].get(k)
}

// At returns element i (0 <= i < Len).
func (l *List) At(i int) string { return string(l.BytesAt(i)) }

// SetAt replaces element i with v (copied; v must not alias the list).
func (l *List) SetAt(i int, v string) {
	ch, k := l.loc(i)
	before := ch.memory()
	ch.set(k, v)
	if l.dir != nil {
		l.big += ch.memory() - before
	}
}

// regrow reallocates the chunk directory with free room at both ends.
func (l *List) regrow() {
	live := l.hi - l.lo
	size := 2*live + 4
	nd := make([]*chunk, size)
	start := (size - live) / 2
	copy(nd[start:], l.dir[l.lo:l.hi])
	for i, x := range l.loose {
		if x != 0 {
			l.loose[i] = x - l.lo + start
		}
	}
	l.sm.packed = 0 // the read cursor's chunk index (pack.go) moved
	l.dir, l.lo, l.hi = nd, start, start+live
}

// newChunkMax bounds what newChunk reserves (a list of big elements then
// grows its chunks as before), so a list never holds more than this in
// room it may not use.
const newChunkMax = 64 << 10

// newChunk starts an empty chunk next to the full chunk nb, with room
// for as many bytes as nb holds plus 1/16 (at its front when front is
// set). Elements pushed one by one then fill it without reallocating:
// growing by small steps instead produced about eight times the chunk's
// size in garbage and kept the heap at twice the list's size.
func (l *List) newChunk(nb *chunk, front bool) *chunk {
	est := len(nb.b) - nb.head
	if nb.packed > 0 {
		est = nb.packed
	}
	est += est/16 + 16
	est = min(est, newChunkMax)
	b := make([]byte, est)
	if front {
		return &chunk{b: b, head: est, co: est}
	}
	return &chunk{b: b[:0]}
}

// toBig turns a full small list into a one-chunk big list.
func (l *List) toBig() {
	ch := l.sm
	ch.compact(0)
	dir := make([]*chunk, 5)
	dir[2] = &ch
	*l = List{dir: dir, lo: 2, hi: 3, n: ch.n, big: ch.memory()}
}

func (l *List) toSmall() {
	var sm chunk
	for i := 0; i < l.n; i++ {
		sm.insert(i, view(l.BytesAt(i)))
	}
	sm.compact(0)
	*l = List{sm: sm, n: l.n}
}

// PushBack appends v (copied).
func (l *List) PushBack(v string) {
	if l.dir == nil {
		if l.n < smallMax {
			l.sm.insert(l.n, v)
			l.n++
			return
		}
		l.toBig()
	}
	p := l.off + l.n
	ci := l.lo + p>>chunkShift
	if ci == l.hi {
		if l.hi == len(l.dir) {
			l.regrow()
			ci = l.hi
		}
		l.dir[l.hi] = l.newChunk(l.dir[l.hi-1], false)
		l.big += l.dir[l.hi].memory()
		l.hi++
		l.packAt(l.hi - 1 - packDepth)
	}
	ch := l.chunkAt(ci)
	before := ch.memory()
	ch.insert(ch.n, v)
	l.n++
	if ch.n == chunkSize {
		ch.fit()
	}
	l.big += ch.memory() - before
}

// PushFront prepends v (copied).
func (l *List) PushFront(v string) {
	if l.dir == nil {
		if l.n < smallMax {
			l.sm.insert(0, v)
			l.n++
			return
		}
		l.toBig()
	}
	if l.off == 0 {
		if l.lo == 0 {
			l.regrow()
		}
		l.lo--
		l.dir[l.lo] = l.newChunk(l.dir[l.lo+1], true)
		l.big += l.dir[l.lo].memory()
		l.off = chunkSize
		l.packAt(l.lo + packDepth)
	}
	l.off--
	ch := l.chunkAt(l.lo)
	before := ch.memory()
	ch.insert(0, v)
	l.n++
	if ch.n == chunkSize {
		ch.fit()
	}
	l.big += ch.memory() - before
}

// dropFront removes the first element (Len must be > 0).
func (l *List) dropFront() {
	if l.dir == nil {
		l.sm.remove(0)
		l.n--
		return
	}
	ch := l.chunkAt(l.lo)
	before := ch.memory()
	ch.remove(0)
	l.big += ch.memory() - before
	l.off++
	l.n--
	if l.n == 0 {
		*l = List{}
		return
	}
	if l.off == chunkSize {
		l.big -= ch.memory()
		l.dir[l.lo] = nil
		l.lo++
		l.off = 0
	}
	if l.n <= shrinkAt {
		l.toSmall()
	}
}

// dropBack removes the last element (Len must be > 0).
func (l *List) dropBack() {
	if l.dir == nil {
		l.sm.remove(l.n - 1)
		l.n--
		return
	}
	ch := l.chunkAt(l.hi - 1)
	before := ch.memory()
	ch.remove(ch.n - 1)
	l.big += ch.memory() - before
	l.n--
	if l.n == 0 {
		*l = List{}
		return
	}
	if ch.n == 0 {
		l.big -= ch.memory()
		l.dir[l.hi-1] = nil
		l.hi--
	}
	if l.n <= shrinkAt {
		l.toSmall()
	}
}

// PopFront removes and returns the first element (Len must be > 0).
func (l *List) PopFront() string {
	ch, k := l.loc(0) // unpacked: dropFront changes it
	v := string(ch.get(k))
	l.dropFront()
	return v
}

// PopBack removes and returns the last element (Len must be > 0).
func (l *List) PopBack() string {
	ch, k := l.loc(l.n - 1)
	v := string(ch.get(k))
	l.dropBack()
	return v
}

// Pop removes an element from the head (left) or the tail.
func (l *List) Pop(left bool) string {
	if left {
		return l.PopFront()
	}
	return l.PopBack()
}

// Push adds an element (copied) at the head (left) or the tail.
func (l *List) Push(v string, left bool) {
	if left {
		l.PushFront(v)
	} else {
		l.PushBack(v)
	}
}

// Move copies element j over element i, through the scratch buffer tmp
// (the two may share a chunk).
func (l *List) Move(i, j int, tmp *[]byte) {
	*tmp = append((*tmp)[:0], l.BytesAt(j)...)
	l.SetAt(i, view(*tmp))
}

// Insert puts v (copied) at index i (0 <= i <= Len), shifting the shorter side.
func (l *List) Insert(i int, v string) {
	if l.dir == nil && l.n < smallMax {
		l.sm.insert(i, v)
		l.n++
		return
	}
	var tmp []byte
	if i <= l.n/2 {
		l.PushFront("")
		for j := 0; j < i; j++ {
			l.Move(j, j+1, &tmp)
		}
	} else {
		l.PushBack("")
		for j := l.n - 1; j > i; j-- {
			l.Move(j, j-1, &tmp)
		}
	}
	l.SetAt(i, v)
}

// TruncateBack drops the last k elements (0 <= k <= Len). Whole chunks are
// dropped at once.
func (l *List) TruncateBack(k int) {
	for k > 0 {
		if l.dir != nil && l.hi-l.lo > 1 && k >= l.dir[l.hi-1].n {
			ch := l.dir[l.hi-1]
			k -= ch.n
			l.n -= ch.n
			l.hi--
			l.dir[l.hi] = nil
			l.big -= ch.memory()
			if l.n <= shrinkAt {
				l.toSmall()
			}
			continue
		}
		l.dropBack()
		k--
	}
}

// TruncateFront drops the first k elements (0 <= k <= Len). Whole chunks are
// dropped at once.
func (l *List) TruncateFront(k int) {
	for k > 0 {
		if l.dir != nil && l.hi-l.lo > 1 && k >= l.dir[l.lo].n {
			ch := l.dir[l.lo]
			k -= ch.n
			l.n -= ch.n
			l.dir[l.lo] = nil
			l.big -= ch.memory()
			l.lo++
			l.off = 0
			if l.n <= shrinkAt {
				l.toSmall()
			}
			continue
		}
		l.dropFront()
		k--
	}
}
