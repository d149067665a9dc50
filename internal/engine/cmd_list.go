package engine

// Lists: LPUSH, RPUSH, LPUSHX, RPUSHX, LPOP, RPOP, LLEN, LRANGE, LINDEX,
// LSET, LINSERT, LREM, LTRIM, LPOS, RPOPLPUSH, LMOVE, LMPOP and the
// blocking forms BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, with Redis
// 7.0's replies, errors and argument-checking order (t_list.c).

import (
	"strconv"
	"unsafe"

	"github.com/ordo-db/ordo/internal/ds/quicklist"
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

// listRewriteMax is the number of elements per RPUSH in Rewrite (Redis's
// AOF_REWRITE_ITEMS_PER_CMD).
const listRewriteMax = 64

// List is the value of a list key: a quicklist.List (chunked deque of
// packed strings) with the engine's memory accounting.
type List struct {
	sized
	quicklist.List
}

// NewList returns an empty list.
func NewList() *List { return &List{} }

// TypeName implements Typed.
func (l *List) TypeName() string { return "list" }

// Encoding implements Typed: Redis 7.0 reports quicklist for every list.
func (l *List) Encoding() string { return "quicklist" }

// Len implements Typed.
func (l *List) Len() int { return l.List.Len() }

// Copy implements Typed.
func (l *List) Copy() Typed { return &List{List: *l.List.Copy()} }

// Rewrite implements Typed: RPUSH commands of at most 64 elements.
func (l *List) Rewrite(key string, emit func(args [][]byte)) {
	n := l.Len()
	for i := 0; i < n; i += listRewriteMax {
		m := min(listRewriteMax, n-i)
		args := make([][]byte, 0, 2+m)
		args = append(args, []byte("RPUSH"), []byte(key))
		for j := i; j < i+m; j++ {
			args = append(args, append([]byte(nil), l.BytesAt(j)...))
		}
		emit(args)
	}
}

// MemoryUsage implements Typed (an estimate in bytes).
func (l *List) MemoryUsage() int64 {
	return int64(unsafe.Sizeof(sized{})) + l.List.MemoryUsage()
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
	t.register("lmpop", func(c *Ctx) { lmpopGeneric(c, 1, false) }).Keys = GenericKeys(0, 1, 2)
	t.register("blpop", func(c *Ctx) { bpopCommand(c, true) })
	t.register("brpop", func(c *Ctx) { bpopCommand(c, false) })
	t.register("blmove", blmoveCommand)
	t.register("brpoplpush", brpoplpushCommand)
	t.register("blmpop", func(c *Ctx) { lmpopGeneric(c, 2, true) }).Keys = GenericKeys(0, 2, 3)
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
		c.W.Bulk(l.BytesAt(i))
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
	c.W.Bulk(l.BytesAt(i))
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
		if string(l.BytesAt(i)) == pivot {
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
			if more() && string(l.BytesAt(r)) == elem {
				removed++
				continue
			}
			if w != r {
				l.Move(w, r, &tmp)
			}
			w++
		}
		l.TruncateBack(n - w)
	} else {
		var tmp []byte
		w := n - 1
		for r := n - 1; r >= 0; r-- {
			if more() && string(l.BytesAt(r)) == elem {
				removed++
				continue
			}
			if w != r {
				l.Move(w, r, &tmp)
			}
			w--
		}
		l.TruncateFront(w + 1)
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
		l.TruncateFront(int(ltrim))
		l.TruncateBack(int(rtrim))
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
		if string(l.BytesAt(int(pos))) != elem {
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
