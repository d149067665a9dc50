package engine

// Lists: LPUSH, RPUSH, LPUSHX, RPUSHX, LPOP, RPOP, LLEN, LRANGE, LINDEX,
// LSET, LINSERT, LREM, LTRIM, LPOS, RPOPLPUSH, LMOVE, LMPOP and the
// blocking forms BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, with Redis
// 7.0's replies, errors and argument-checking order (t_list.c).

import (
	"encoding/binary"
	"strconv"
	"unsafe"

	"github.com/ordo-db/ordo/internal/resp"
)

// Error replies of the list commands, as Redis 7.0 writes them.
const (
	ErrListRankZero  = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"
	ErrListCountNeg  = "ERR COUNT can't be negative"
	ErrListMaxlenNeg = "ERR MAXLEN can't be negative"
	ErrListNumkeys   = "ERR numkeys should be greater than 0"
)

// mpopCount parses the optional COUNT n that ends LMPOP and ZMPOP
// (from args[i:]; 1 when absent), replying as Redis does when n is not a
// positive integer and with a syntax error for anything else.
func mpopCount(c *Ctx, i int) (int64, bool) {
	count := int64(-1)
	for j := i; j < len(c.Args); j++ {
		if count == -1 && c.ArgIs(j, "count") && j+1 < len(c.Args) {
			j++
			n, ok := ParseInt(c.Args[j])
			if !ok || n < 1 {
				c.Error(ErrCountPositive)
				return 0, false
			}
			count = n
			continue
		}
		c.Error(ErrSyntax)
		return 0, false
	}
	if count == -1 {
		count = 1
	}
	return count, true
}

// ---- the List type ----
//
// A List is a deque of strings packed into chunks, as Redis's quicklist
// packs them into listpacks. A chunk is one []byte holding its elements
// in order, each as uvarint(len), the bytes, and len again as a reversed
// uvarint so that the chunk can be walked backwards: 2 bytes of overhead
// for an element shorter than 128 bytes, and one heap object per chunk
// (the garbage collector never sees the elements). A chunk keeps room at
// its front as well as its back, so pushing or popping at either end of a
// chunk moves nothing; it remembers the last position it looked up, so
// walking a chunk in either direction costs one step per element.
//
// Up to listSmallMax elements a list is one chunk. Above that it is a
// deque of chunks of exactly listChunkSize elements (the first and the
// last may hold fewer), reached through a directory with free room at
// both ends: push and pop at either end are O(1) (only the directory,
// one pointer per chunk, is ever reallocated), and element i is in chunk
// (off+i)/listChunkSize, found in O(1), then at most listChunkSize/2
// steps inside it.

const (
	listChunkShift = 7
	listChunkSize  = 1 << listChunkShift
	listChunkMask  = listChunkSize - 1
	listSmallMax   = listChunkSize     // a small list holds at most this many
	listShrinkAt   = listChunkSize / 4 // a big list this short becomes small again
	listRewriteMax = 64                // elements per RPUSH in Rewrite (Redis's AOF_REWRITE_ITEMS_PER_CMD)
)

type listChunk struct {
	b    []byte // entries in b[head:]
	head int
	n    int // entries
	ck   int // cursor: entry ck starts at b[co] (0 <= ck <= n)
	co   int
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
func (ch *listChunk) entryAt(off int) (size, start, n int) {
	x, w := binary.Uvarint(ch.b[off:])
	return 2*w + int(x), off + w, int(x)
}

// entryBefore returns the size of the entry ending at end.
func (ch *listChunk) entryBefore(end int) int {
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
func (ch *listChunk) seek(k int) int {
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

func (ch *listChunk) get(k int) []byte {
	_, start, n := ch.entryAt(ch.seek(k))
	return ch.b[start : start+n : start+n]
}

// room makes size free bytes at off (shifting what follows) and returns
// the possibly moved offset; at the front it uses the head room.
func (ch *listChunk) room(off, size int) int {
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
func (ch *listChunk) insert(k int, v string) {
	off := ch.seek(k)
	size := entrySize(len(v))
	off = ch.room(off, size)
	writeEntry(ch.b[off:], v)
	ch.n++
	ch.ck, ch.co = k, off
}

// remove deletes entry k.
func (ch *listChunk) remove(k int) {
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
func (ch *listChunk) set(k int, v string) {
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
func (ch *listChunk) tidy() {
	live := len(ch.b) - ch.head
	if cap(ch.b) > 2*live+64 {
		ch.compact(live / 8)
	}
}

// compact reallocates the chunk with extra bytes of room at the back.
func (ch *listChunk) compact(extra int) {
	live := len(ch.b) - ch.head
	var nb []byte
	if live+extra > 0 {
		nb = make([]byte, live, live+extra)
		copy(nb, ch.b[ch.head:])
	}
	ch.co -= ch.head
	ch.b, ch.head = nb, 0
}

func (ch *listChunk) clone() *listChunk {
	cp := *ch
	cp.b = append([]byte(nil), ch.b[ch.head:]...)
	cp.head, cp.co = 0, ch.co-ch.head
	return &cp
}

func (ch *listChunk) memory() int64 {
	return int64(unsafe.Sizeof(listChunk{})) + int64(cap(ch.b))
}

// List is the value of a list key.
type List struct {
	sized
	sm     listChunk    // small mode (dir == nil)
	dir    []*listChunk // big mode: chunks dir[lo:hi]
	lo, hi int
	off    int // position of element 0 in chunk dir[lo], counting its absent slots
	n      int
}

// NewList returns an empty list.
func NewList() *List { return &List{} }

// TypeName implements Typed.
func (l *List) TypeName() string { return "list" }

// Encoding implements Typed: Redis 7.0 reports quicklist for every list.
func (l *List) Encoding() string { return "quicklist" }

// Len implements Typed.
func (l *List) Len() int { return l.n }

// Copy implements Typed.
func (l *List) Copy() Typed {
	cp := &List{n: l.n, lo: l.lo, hi: l.hi, off: l.off}
	if l.dir == nil {
		cp.sm = *l.sm.clone()
		return cp
	}
	cp.dir = make([]*listChunk, len(l.dir))
	for i := l.lo; i < l.hi; i++ {
		cp.dir[i] = l.dir[i].clone()
	}
	return cp
}

// Rewrite implements Typed: RPUSH commands of at most 64 elements.
func (l *List) Rewrite(key string, emit func(args [][]byte)) {
	for i := 0; i < l.n; i += listRewriteMax {
		m := min(listRewriteMax, l.n-i)
		args := make([][]byte, 0, 2+m)
		args = append(args, []byte("RPUSH"), []byte(key))
		for j := i; j < i+m; j++ {
			args = append(args, append([]byte(nil), l.bytesAt(j)...))
		}
		emit(args)
	}
}

// MemoryUsage implements Typed (an estimate in bytes).
func (l *List) MemoryUsage() int64 {
	size := int64(unsafe.Sizeof(List{}))
	if l.dir == nil {
		return size + int64(cap(l.sm.b))
	}
	size += int64(len(l.dir)) * 8
	for i := l.lo; i < l.hi; i++ {
		size += l.dir[i].memory()
	}
	return size
}

// loc returns the chunk of element i and its index there.
func (l *List) loc(i int) (*listChunk, int) {
	if l.dir == nil {
		return &l.sm, i
	}
	p := l.off + i
	ci := l.lo + p>>listChunkShift
	k := p & listChunkMask
	if ci == l.lo {
		k -= l.off
	}
	return l.dir[ci], k
}

// bytesAt returns element i without copying; valid until the list changes.
func (l *List) bytesAt(i int) []byte {
	ch, k := l.loc(i)
	return ch.get(k)
}

// At returns element i (0 <= i < Len).
func (l *List) At(i int) string { return string(l.bytesAt(i)) }

// SetAt replaces element i with v (copied; v must not alias the list).
func (l *List) SetAt(i int, v string) {
	ch, k := l.loc(i)
	ch.set(k, v)
}

// regrow reallocates the chunk directory with free room at both ends.
func (l *List) regrow() {
	live := l.hi - l.lo
	size := 2*live + 4
	nd := make([]*listChunk, size)
	start := (size - live) / 2
	copy(nd[start:], l.dir[l.lo:l.hi])
	l.dir, l.lo, l.hi = nd, start, start+live
}

// toBig turns a full small list into a one-chunk big list.
func (l *List) toBig() {
	ch := l.sm
	ch.compact(0)
	dir := make([]*listChunk, 5)
	dir[2] = &ch
	*l = List{dir: dir, lo: 2, hi: 3, n: ch.n}
}

func (l *List) toSmall() {
	var sm listChunk
	for i := 0; i < l.n; i++ {
		sm.insert(i, view(l.bytesAt(i)))
	}
	sm.compact(0)
	*l = List{sm: sm, n: l.n}
}

// PushBack appends v (copied).
func (l *List) PushBack(v string) {
	if l.dir == nil {
		if l.n < listSmallMax {
			l.sm.insert(l.n, v)
			l.n++
			return
		}
		l.toBig()
	}
	p := l.off + l.n
	ci := l.lo + p>>listChunkShift
	if ci == l.hi {
		if l.hi == len(l.dir) {
			l.regrow()
			ci = l.hi
		}
		l.dir[l.hi] = &listChunk{}
		l.hi++
	}
	ch := l.dir[ci]
	ch.insert(ch.n, v)
	l.n++
	if ch.n == listChunkSize {
		ch.compact(0)
	}
}

// PushFront prepends v (copied).
func (l *List) PushFront(v string) {
	if l.dir == nil {
		if l.n < listSmallMax {
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
		l.dir[l.lo] = &listChunk{}
		l.off = listChunkSize
	}
	l.off--
	ch := l.dir[l.lo]
	ch.insert(0, v)
	l.n++
	if ch.n == listChunkSize {
		ch.compact(0)
	}
}

// dropFront removes the first element (Len must be > 0).
func (l *List) dropFront() {
	if l.dir == nil {
		l.sm.remove(0)
		l.n--
		return
	}
	l.dir[l.lo].remove(0)
	l.off++
	l.n--
	if l.n == 0 {
		*l = List{}
		return
	}
	if l.off == listChunkSize {
		l.dir[l.lo] = nil
		l.lo++
		l.off = 0
	}
	if l.n <= listShrinkAt {
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
	ch := l.dir[l.hi-1]
	ch.remove(ch.n - 1)
	l.n--
	if l.n == 0 {
		*l = List{}
		return
	}
	if ch.n == 0 {
		l.dir[l.hi-1] = nil
		l.hi--
	}
	if l.n <= listShrinkAt {
		l.toSmall()
	}
}

// PopFront removes and returns the first element (Len must be > 0).
func (l *List) PopFront() string {
	v := string(l.bytesAt(0))
	l.dropFront()
	return v
}

// PopBack removes and returns the last element (Len must be > 0).
func (l *List) PopBack() string {
	v := string(l.bytesAt(l.n - 1))
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

// move copies element j over element i, through the scratch buffer tmp
// (the two may share a chunk).
func (l *List) move(i, j int, tmp *[]byte) {
	*tmp = append((*tmp)[:0], l.bytesAt(j)...)
	l.SetAt(i, view(*tmp))
}

// Insert puts v (copied) at index i (0 <= i <= Len), shifting the shorter side.
func (l *List) Insert(i int, v string) {
	if l.dir == nil && l.n < listSmallMax {
		l.sm.insert(i, v)
		l.n++
		return
	}
	var tmp []byte
	if i <= l.n/2 {
		l.PushFront("")
		for j := 0; j < i; j++ {
			l.move(j, j+1, &tmp)
		}
	} else {
		l.PushBack("")
		for j := l.n - 1; j > i; j-- {
			l.move(j, j-1, &tmp)
		}
	}
	l.SetAt(i, v)
}

// truncateBack drops the last k elements (k < Len); truncateFront the
// first k. Whole chunks are dropped at once.
func (l *List) truncateBack(k int) {
	for k > 0 {
		if l.dir != nil && l.hi-l.lo > 1 && k >= l.dir[l.hi-1].n {
			ch := l.dir[l.hi-1]
			k -= ch.n
			l.n -= ch.n
			l.hi--
			l.dir[l.hi] = nil
			if l.n <= listShrinkAt {
				l.toSmall()
			}
			continue
		}
		l.dropBack()
		k--
	}
}

func (l *List) truncateFront(k int) {
	for k > 0 {
		if l.dir != nil && l.hi-l.lo > 1 && k >= l.dir[l.lo].n {
			ch := l.dir[l.lo]
			k -= ch.n
			l.n -= ch.n
			l.dir[l.lo] = nil
			l.lo++
			l.off = 0
			if l.n <= listShrinkAt {
				l.toSmall()
			}
			continue
		}
		l.dropFront()
		k--
	}
}

// ---- commands ----

func registerLists(t *Table) {
	t.register("lpush", func(c *Ctx) { pushCommand(c, true, false) })
	t.register("rpush", func(c *Ctx) { pushCommand(c, false, false) })
	t.register("lpushx", func(c *Ctx) { pushCommand(c, true, true) })
	t.register("rpushx", func(c *Ctx) { pushCommand(c, false, true) })
	t.register("lpop", func(c *Ctx) { popCommand(c, true) })
	t.register("rpop", func(c *Ctx) { popCommand(c, false) })
	t.register("llen", llenCommand)
	t.register("lrange", lrangeCommand)
	t.register("lindex", lindexCommand)
	t.register("lset", lsetCommand)
	t.register("linsert", linsertCommand)
	t.register("lrem", lremCommand)
	t.register("ltrim", ltrimCommand)
	t.register("lpos", lposCommand)
	t.register("rpoplpush", func(c *Ctx) { lmoveGeneric(c, false, true) })
	t.register("lmove", lmoveCommand)
	t.register("lmpop", func(c *Ctx) { lmpopGeneric(c, 1, false) })
	t.register("blpop", func(c *Ctx) { bpopCommand(c, true) })
	t.register("brpop", func(c *Ctx) { bpopCommand(c, false) })
	t.register("blmove", blmoveCommand)
	t.register("brpoplpush", brpoplpushCommand)
	t.register("blmpop", func(c *Ctx) { lmpopGeneric(c, 2, true) })
}

// listChanged finishes a change of n elements to the list at key:
// deletes the key if the list is empty, else signals the modification.
func listChanged(c *Ctx, key []byte, l *List, n int) {
	c.Dirty(n)
	if l.Len() == 0 {
		c.Delete(key)
	} else {
		c.Modified(key)
	}
}

// listPosition parses LEFT/RIGHT (true for LEFT), replying a syntax error otherwise.
func listPosition(c *Ctx, i int) (left, ok bool) {
	switch {
	case c.ArgIs(i, "left"):
		return true, true
	case c.ArgIs(i, "right"):
		return false, true
	}
	c.Error(ErrSyntax)
	return false, false
}

func listPopName(left bool) string {
	if left {
		return "LPOP"
	}
	return "RPOP"
}

func listPosName(left bool) string {
	if left {
		return "LEFT"
	}
	return "RIGHT"
}

func pushCommand(c *Ctx, left, xx bool) {
	key := c.Args[1]
	l, ok := Get[*List](c, key)
	if !ok {
		return
	}
	if l == nil {
		if xx {
			c.W.Int(0)
			return
		}
		l = NewList()
		c.Add(key, ObjectValue(l))
	} else {
		c.Modified(key)
	}
	for _, a := range c.Args[2:] {
		l.Push(view(a), left)
	}
	c.Dirty(len(c.Args) - 2)
	c.Ready(key)
	c.W.Int(int64(l.Len()))
}

func popCommand(c *Ctx, left bool) {
	if len(c.Args) > 3 {
		c.Error("ERR wrong number of arguments for '" + c.Cmd.Name + "' command")
		return
	}
	hasCount := len(c.Args) == 3
	var count int64
	if hasCount {
		n, ok := ParseInt(c.Args[2])
		if !ok || n < 0 {
			c.Error(ErrNotPositive)
			return
		}
		count = n
	}
	key := c.Args[1]
	l, ok := Get[*List](c, key)
	if !ok {
		return
	}
	if l == nil {
		if hasCount {
			c.W.NullArray()
		} else {
			c.W.Null()
		}
		return
	}
	if !hasCount {
		c.W.BulkString(l.Pop(left))
		listChanged(c, key, l, 1)
		return
	}
	if count == 0 {
		c.W.Array(0)
		return
	}
	n := int(min(count, int64(l.Len())))
	c.W.Array(n)
	for i := 0; i < n; i++ {
		c.W.BulkString(l.Pop(left))
	}
	listChanged(c, key, l, n)
}

func llenCommand(c *Ctx) {
	l, ok := Get[*List](c, c.Args[1])
	if !ok {
		return
	}
	if l == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(l.Len()))
}

func lrangeCommand(c *Ctx) {
	start, ok := c.IntArg(2)
	if !ok {
		return
	}
	end, ok := c.IntArg(3)
	if !ok {
		return
	}
	l, ok := Get[*List](c, c.Args[1])
	if !ok {
		return
	}
	if l == nil {
		c.W.Array(0)
		return
	}
	n := int64(l.Len())
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	if start > end || start >= n {
		c.W.Array(0)
		return
	}
	if end >= n {
		end = n - 1
	}
	c.W.Array(int(end - start + 1))
	for i := int(start); i <= int(end); i++ {
		c.W.Bulk(l.bytesAt(i))
	}
}

// listIndex converts a Redis index (negative from the tail) to a
// position, reporting whether it is inside the list.
func listIndex(l *List, idx int64) (int, bool) {
	n := int64(l.Len())
	if idx < 0 {
		idx += n
	}
	if idx < 0 || idx >= n {
		return 0, false
	}
	return int(idx), true
}

func lindexCommand(c *Ctx) {
	l, ok := Get[*List](c, c.Args[1])
	if !ok {
		return
	}
	if l == nil {
		c.W.Null()
		return
	}
	idx, ok := c.IntArg(2)
	if !ok {
		return
	}
	i, in := listIndex(l, idx)
	if !in {
		c.W.Null()
		return
	}
	c.W.Bulk(l.bytesAt(i))
}

func lsetCommand(c *Ctx) {
	key := c.Args[1]
	l, ok := Get[*List](c, key)
	if !ok {
		return
	}
	if l == nil {
		c.Error(ErrNoSuchKey)
		return
	}
	idx, ok := c.IntArg(2)
	if !ok {
		return
	}
	i, in := listIndex(l, idx)
	if !in {
		c.Error(ErrOutOfRange)
		return
	}
	l.SetAt(i, view(c.Args[3]))
	c.Modified(key)
	c.Dirty(1)
	c.W.OK()
}

func linsertCommand(c *Ctx) {
	var after bool
	switch {
	case c.ArgIs(2, "after"):
		after = true
	case c.ArgIs(2, "before"):
	default:
		c.Error(ErrSyntax)
		return
	}
	key := c.Args[1]
	l, ok := Get[*List](c, key)
	if !ok {
		return
	}
	if l == nil {
		c.W.Int(0)
		return
	}
	pivot := view(c.Args[3])
	for i := 0; i < l.Len(); i++ {
		if string(l.bytesAt(i)) == pivot {
			if after {
				i++
			}
			l.Insert(i, view(c.Args[4]))
			c.Modified(key)
			c.Dirty(1)
			c.W.Int(int64(l.Len()))
			return
		}
	}
	c.W.Int(-1)
}

func lremCommand(c *Ctx) {
	count, ok := c.IntArg(2)
	if !ok {
		return
	}
	key := c.Args[1]
	l, ok := Get[*List](c, key)
	if !ok {
		return
	}
	if l == nil {
		c.W.Int(0)
		return
	}
	elem := view(c.Args[3])
	n := l.Len()
	removed := int64(0)
	limit := count
	if limit < 0 {
		limit = -limit // -MinInt64 stays negative: no limit, as in Redis
	}
	more := func() bool { return limit <= 0 || removed < limit }
	if count >= 0 {
		var tmp []byte
		w := 0
		for r := 0; r < n; r++ {
			if more() && string(l.bytesAt(r)) == elem {
				removed++
				continue
			}
			if w != r {
				l.move(w, r, &tmp)
			}
			w++
		}
		l.truncateBack(n - w)
	} else {
		var tmp []byte
		w := n - 1
		for r := n - 1; r >= 0; r-- {
			if more() && string(l.bytesAt(r)) == elem {
				removed++
				continue
			}
			if w != r {
				l.move(w, r, &tmp)
			}
			w--
		}
		l.truncateFront(w + 1)
	}
	if removed > 0 {
		listChanged(c, key, l, int(removed))
	}
	c.W.Int(removed)
}

func ltrimCommand(c *Ctx) {
	start, ok := c.IntArg(2)
	if !ok {
		return
	}
	end, ok := c.IntArg(3)
	if !ok {
		return
	}
	key := c.Args[1]
	l, ok := Get[*List](c, key)
	if !ok {
		return
	}
	if l == nil {
		c.W.OK()
		return
	}
	n := int64(l.Len())
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	var ltrim, rtrim int64
	if start > end || start >= n {
		ltrim, rtrim = n, 0
	} else {
		if end >= n {
			end = n - 1
		}
		ltrim, rtrim = start, n-end-1
	}
	if ltrim == n {
		c.Delete(key)
	} else {
		l.truncateFront(int(ltrim))
		l.truncateBack(int(rtrim))
		c.Modified(key)
	}
	c.Dirty(int(ltrim + rtrim))
	c.W.OK()
}

func lposCommand(c *Ctx) {
	rank, count, maxlen := int64(1), int64(-1), int64(0)
	for j := 3; j < len(c.Args); j++ {
		more := len(c.Args) - 1 - j
		switch {
		case c.ArgIs(j, "rank") && more > 0:
			j++
			n, ok := c.IntArg(j)
			if !ok {
				return
			}
			if n == 0 {
				c.Error(ErrListRankZero)
				return
			}
			rank = n
		case c.ArgIs(j, "count") && more > 0:
			j++
			n, ok := ParseInt(c.Args[j])
			if !ok || n < 0 {
				c.Error(ErrListCountNeg)
				return
			}
			count = n
		case c.ArgIs(j, "maxlen") && more > 0:
			j++
			n, ok := ParseInt(c.Args[j])
			if !ok || n < 0 {
				c.Error(ErrListMaxlenNeg)
				return
			}
			maxlen = n
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	fromTail := false
	if rank < 0 {
		rank = -rank // MinInt64 stays negative, as in Redis: every match qualifies
		fromTail = true
	}
	l, ok := Get[*List](c, c.Args[1])
	if !ok {
		return
	}
	if l == nil {
		if count != -1 {
			c.W.Array(0)
		} else {
			c.W.Null()
		}
		return
	}
	elem := view(c.Args[2])
	n := int64(l.Len())
	var found []int64
	matches := int64(0)
	matchIndex := int64(-1)
	for index := int64(0); index < n && (maxlen == 0 || index < maxlen); index++ {
		pos := index
		if fromTail {
			pos = n - index - 1
		}
		if string(l.bytesAt(int(pos))) != elem {
			continue
		}
		matches++
		if matches >= rank {
			if count == -1 {
				matchIndex = pos
				break
			}
			found = append(found, pos)
			if count != 0 && matches-rank+1 >= count {
				break
			}
		}
	}
	if count == -1 {
		if matchIndex == -1 {
			c.W.Null()
		} else {
			c.W.Int(matchIndex)
		}
		return
	}
	c.W.Array(len(found))
	for _, p := range found {
		c.W.Int(p)
	}
}

func lmoveCommand(c *Ctx) {
	from, ok := listPosition(c, 3)
	if !ok {
		return
	}
	to, ok := listPosition(c, 4)
	if !ok {
		return
	}
	lmoveGeneric(c, from, to)
}

// lmoveGeneric is LMOVE/RPOPLPUSH on c.Args[1] and c.Args[2]; it reports
// whether an element moved.
func lmoveGeneric(c *Ctx, fromLeft, toLeft bool) bool {
	src, ok := Get[*List](c, c.Args[1])
	if !ok {
		return false
	}
	if src == nil {
		c.W.Null()
		return false
	}
	return lmoveFrom(c, src, fromLeft, toLeft)
}

// lmoveFrom moves one element from the non-empty list src at c.Args[1]
// to c.Args[2], replying with it (or WRONGTYPE for the destination).
func lmoveFrom(c *Ctx, src *List, fromLeft, toLeft bool) bool {
	srcKey, dstKey := c.Args[1], c.Args[2]
	dst, ok := Get[*List](c, dstKey)
	if !ok {
		return false
	}
	s := src.Pop(fromLeft)
	if dst == nil {
		dst = NewList()
		c.Add(dstKey, ObjectValue(dst))
	} else {
		c.Modified(dstKey)
	}
	dst.Push(s, toLeft)
	c.Ready(dstKey)
	c.W.BulkString(s)
	listChanged(c, srcKey, src, 1)
	return true
}

func blmoveCommand(c *Ctx) {
	from, ok := listPosition(c, 3)
	if !ok {
		return
	}
	to, ok := listPosition(c, 4)
	if !ok {
		return
	}
	deadline, ok := c.BlockTimeout(5)
	if !ok {
		return
	}
	blmoveGeneric(c, from, to, deadline, false)
}

func brpoplpushCommand(c *Ctx) {
	deadline, ok := c.BlockTimeout(3)
	if !ok {
		return
	}
	blmoveGeneric(c, false, true, deadline, true)
}

// propagateMove logs a served BLMOVE/BRPOPLPUSH as LMOVE/RPOPLPUSH.
func propagateMove(c *Ctx, fromLeft, toLeft, rpoplpush bool) {
	if rpoplpush {
		c.PropagateStrings("RPOPLPUSH", string(c.Args[1]), string(c.Args[2]))
	} else {
		c.PropagateStrings("LMOVE", string(c.Args[1]), string(c.Args[2]), listPosName(fromLeft), listPosName(toLeft))
	}
}

func blmoveGeneric(c *Ctx, fromLeft, toLeft bool, deadline int64, rpoplpush bool) {
	src, ok := Get[*List](c, c.Args[1])
	if !ok {
		return
	}
	if src != nil {
		if lmoveFrom(c, src, fromLeft, toLeft) {
			propagateMove(c, fromLeft, toLeft, rpoplpush)
		}
		return
	}
	if c.NoBlock {
		c.W.Null()
		return
	}
	wt := &Waiter{Keys: c.Args[1:2], Deadline: deadline, Timeout: listTimeout}
	wt.Serve = func(c *Ctx) bool {
		v, found := c.Lookup(c.Args[1])
		if !found {
			return false
		}
		src, is := v.Obj().(*List)
		if !is || src.Len() == 0 {
			return false
		}
		// A destination of another type answers WRONGTYPE and unblocks
		// the client without popping, as Redis 7.0 does.
		if lmoveFrom(c, src, fromLeft, toLeft) {
			propagateMove(c, fromLeft, toLeft, rpoplpush)
		}
		return true
	}
	c.Block(wt)
}

func listTimeout(w *resp.Writer) { w.NullArray() }

func bpopCommand(c *Ctx, left bool) {
	deadline, ok := c.BlockTimeout(len(c.Args) - 1)
	if !ok {
		return
	}
	listBlockPop(c, c.Args[1:len(c.Args)-1], left, -1, deadline)
}

// lmpopGeneric is LMPOP (numkeys at 1) and BLMPOP (timeout at 1, numkeys at 2).
func lmpopGeneric(c *Ctx, numIdx int, block bool) {
	numkeys, ok := ParseInt(c.Args[numIdx])
	if !ok || numkeys < 1 {
		c.Error(ErrListNumkeys)
		return
	}
	if numkeys >= int64(len(c.Args)) {
		c.Error(ErrSyntax)
		return
	}
	whereIdx := numIdx + int(numkeys) + 1
	if whereIdx >= len(c.Args) {
		c.Error(ErrSyntax)
		return
	}
	left, ok := listPosition(c, whereIdx)
	if !ok {
		return
	}
	count, ok := mpopCount(c, whereIdx+1)
	if !ok {
		return
	}
	keys := c.Args[numIdx+1 : whereIdx]
	if block {
		// Redis 7.0 parses BLMPOP's timeout after the other arguments.
		deadline, ok := c.BlockTimeout(1)
		if !ok {
			return
		}
		listBlockPop(c, keys, left, count, deadline)
		return
	}
	for _, k := range keys {
		l, ok := Get[*List](c, k)
		if !ok {
			return
		}
		if l != nil {
			popWithKey(c, k, l, left, count)
			return
		}
	}
	c.W.NullArray()
}

// popWithKey pops from the non-empty list l at key for BLPOP/BRPOP
// (count -1: reply [key, element]) or [B]LMPOP (reply [key, [elements]]),
// logging the pop as LPOP/RPOP.
func popWithKey(c *Ctx, key []byte, l *List, left bool, count int64) {
	c.W.Array(2)
	c.W.Bulk(key)
	if count < 0 {
		c.W.BulkString(l.Pop(left))
		c.PropagateStrings(listPopName(left), string(key))
		listChanged(c, key, l, 1)
		return
	}
	n := int(min(count, int64(l.Len())))
	c.PropagateStrings(listPopName(left), string(key), strconv.Itoa(n))
	c.W.Array(n)
	for i := 0; i < n; i++ {
		c.W.BulkString(l.Pop(left))
	}
	listChanged(c, key, l, n)
}

// listBlockPop pops from the first non-empty list of keys, or blocks.
func listBlockPop(c *Ctx, keys [][]byte, left bool, count int64, deadline int64) {
	for _, k := range keys {
		l, ok := Get[*List](c, k)
		if !ok {
			return
		}
		if l != nil {
			popWithKey(c, k, l, left, count)
			return
		}
	}
	if c.NoBlock {
		c.W.NullArray()
		return
	}
	wt := &Waiter{Keys: keys, Deadline: deadline, Timeout: listTimeout}
	wt.Serve = func(c *Ctx) bool {
		// Served from the key that received data (Redis 7.0), which
		// need not be the first of the keys.
		key := wt.ReadyKey
		v, found := c.Lookup(key)
		if !found {
			return false
		}
		l, is := v.Obj().(*List)
		if !is || l.Len() == 0 {
			return false
		}
		popWithKey(c, key, l, left, count)
		return true
	}
	c.Block(wt)
}
