package engine

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ordo-db/ordo/internal/ds/dict"
	"github.com/ordo-db/ordo/internal/ds/glob"
	"github.com/ordo-db/ordo/internal/ds/longdouble"
	"github.com/ordo-db/ordo/internal/resp"
)

// Hash commands: HSET, HMSET, HSETNX, HGET, HMGET, HGETALL, HKEYS, HVALS,
// HDEL, HEXISTS, HLEN, HSTRLEN, HINCRBY, HINCRBYFLOAT, HRANDFIELD, HSCAN.

// Error replies of the hash and set families not shared with others.
const (
	ErrHSIncrNaN         = "ERR value is NaN or Infinity"
	ErrHSValueOutOfRange = "ERR value is out of range"
	ErrHSRandCountRange  = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	ErrHSNumkeysPositive = "ERR numkeys should be greater than 0"
	ErrHSNumkeysTooMany  = "ERR Number of keys can't be greater than number of args"
	ErrHSLimitNegative   = "ERR LIMIT can't be negative"
)

// Hash is the value of a hash key.
//
// A small hash is a listpack as in Redis 7.0: one byte slice holding
// field, value, field, value ... each prefixed by its length as a
// uvarint, in insertion order (so HGETALL of a small hash comes out in
// the order the fields were first set, exactly as in Redis). No heap
// object per entry. Past hash-max-listpack-entries fields, or as soon as
// a field or value longer than hash-max-listpack-value is stored, the
// hash becomes a Dict ("hashtable") and never goes back.
type Hash struct {
	sized
	lp []byte             // listpack form, while ht == nil
	n  int                // number of fields in lp
	ht *dict.Dict[string] // hashtable form
}

// TypeName implements Typed.
func (h *Hash) TypeName() string { return "hash" }

// Encoding implements Typed.
func (h *Hash) Encoding() string {
	if h.ht != nil {
		return "hashtable"
	}
	return "listpack"
}

// Len implements Typed: the number of fields.
func (h *Hash) Len() int {
	if h.ht != nil {
		return h.ht.Len()
	}
	return h.n
}

// Copy implements Typed.
func (h *Hash) Copy() Typed {
	if h.ht == nil {
		return &Hash{lp: append([]byte(nil), h.lp...), n: h.n}
	}
	return &Hash{ht: h.ht.Clone()}
}

// hsRewriteBatch is the number of elements per rewritten command, as
// Redis's AOF_REWRITE_ITEMS_PER_CMD.
const hsRewriteBatch = 64

// Rewrite implements Typed: HSET commands of up to 64 pairs, in the
// hash's order (so a small hash keeps its field order).
func (h *Hash) Rewrite(key string, emit func(args [][]byte)) {
	var args [][]byte
	h.each(func(f, v string) bool {
		if args == nil {
			args = append(make([][]byte, 0, 2+2*hsRewriteBatch), []byte("HSET"), []byte(key))
		}
		args = append(args, []byte(f), []byte(v))
		if len(args) == 2+2*hsRewriteBatch {
			emit(args)
			args = nil
		}
		return true
	})
	if args != nil {
		emit(args)
	}
}

// MemoryUsage implements Typed (an estimate in bytes).
func (h *Hash) MemoryUsage() int64 {
	const header = int64(unsafe.Sizeof(Hash{}))
	if h.ht == nil {
		return header + int64(cap(h.lp))
	}
	return header + h.ht.Bytes()
}

// Get returns the value of field (a copy, safe to keep).
func (h *Hash) Get(field string) (string, bool) {
	v, ok := h.get(field)
	if !ok {
		return "", false
	}
	return string(append([]byte(nil), v...)), true
}

// Each calls fn for every field and value, in the hash's order, until fn
// returns false. The strings may alias the hash's storage: they must not
// be kept past the call, and fn must not change the hash.
func (h *Hash) Each(fn func(field, value string) bool) { h.each(fn) }

// ---- listpack ----

func hsAppendEntry(lp []byte, s []byte) []byte {
	lp = binary.AppendUvarint(lp, uint64(len(s)))
	return append(lp, s...)
}

// hsEntry returns the entry at offset i and the offset of the next one.
func hsEntry(lp []byte, i int) ([]byte, int) {
	n, w := binary.Uvarint(lp[i:])
	i += w
	end := i + int(n)
	return lp[i:end], end
}

// lpFind returns the offsets of field's entry, of its value's entry and
// of the end of the value, or fi = -1.
func (h *Hash) lpFind(field string) (fi, vi, end int) {
	lp := h.lp
	for i := 0; i < len(lp); {
		f, next := hsEntry(lp, i)
		_, e := hsEntry(lp, next)
		if string(f) == field {
			return i, next, e
		}
		i = e
	}
	return -1, 0, 0
}

// get returns the value of field; in the listpack form it aliases the
// hash's storage and is valid only until the next change.
func (h *Hash) get(field string) (string, bool) {
	if h.ht != nil {
		return h.ht.Get(field)
	}
	fi, vi, _ := h.lpFind(field)
	if fi < 0 {
		return "", false
	}
	v, _ := hsEntry(h.lp, vi)
	return view(v), true
}

func (h *Hash) each(fn func(f, v string) bool) {
	if h.ht != nil {
		h.ht.Each(fn)
		return
	}
	lp := h.lp
	for i := 0; i < len(lp); {
		f, next := hsEntry(lp, i)
		v, e := hsEntry(lp, next)
		if !fn(view(f), view(v)) {
			return
		}
		i = e
	}
}

// convert turns the listpack into a hashtable.
func (h *Hash) convert() {
	if h.ht != nil {
		return
	}
	d := dict.New[string](nil)
	h.each(func(f, v string) bool {
		if len(v) >= dict.BigValue {
			v = strings.Clone(v) // short values are copied by the Dict
		}
		d.Set(f, v)
		return true
	})
	h.ht, h.lp, h.n = d, nil, 0
}

// hsLimits are the listpack thresholds, read from the configuration when
// a command may grow a listpack hash.
type hsLimits struct{ entries, value int64 }

func (h *Hash) limits(c *Ctx) hsLimits {
	if h.ht != nil {
		return hsLimits{}
	}
	hs := c.E.Config.hot()
	return hsLimits{hs.hashMaxEntries, hs.hashMaxValue}
}

// set stores value at field and reports whether the field is new. field
// and value may alias request buffers.
func (h *Hash) set(lim hsLimits, field, value []byte) bool {
	if h.ht == nil && (int64(len(field)) > lim.value || int64(len(value)) > lim.value) {
		h.convert()
	}
	if h.ht != nil {
		// Short values are copied into the Dict's arena; only long ones
		// need a string of their own.
		if len(value) < dict.BigValue {
			return h.ht.Set(view(field), view(value))
		}
		return h.ht.Set(view(field), string(value))
	}
	fi, vi, end := h.lpFind(view(field))
	if fi >= 0 {
		h.lpReplace(vi, end, value)
		return false
	}
	h.lp = hsAppendEntry(hsAppendEntry(h.lp, field), value)
	h.n++
	if int64(h.n) > lim.entries {
		h.convert()
	}
	return true
}

// presize gives an empty listpack hash the room the field-value pairs
// of one HSET take, when they fit the listpack's limits: one allocation
// of the final size rather than a doubling per append, whose garbage and
// spare capacity a hash made by one HSET (the usual object write) kept.
func (h *Hash) presize(lim hsLimits, pairs [][]byte) {
	if int64(len(pairs)/2) > lim.entries {
		return
	}
	need := 0
	for _, a := range pairs {
		if int64(len(a)) > lim.value {
			return
		}
		need += (bits.Len64(uint64(len(a))|1)+6)/7 + len(a) // uvarint length, bytes
	}
	h.lp = make([]byte, 0, need)
}

// lpReplace replaces the entry lp[from:to] by an entry holding v.
func (h *Hash) lpReplace(from, to int, v []byte) {
	var hdr [binary.MaxVarintLen64]byte
	hl := binary.PutUvarint(hdr[:], uint64(len(v)))
	need := hl + len(v)
	old := to - from
	switch {
	case need < old:
		copy(h.lp[from+need:], h.lp[to:])
		h.lp = h.lp[:len(h.lp)-(old-need)]
	case need > old:
		n := len(h.lp)
		h.lp = append(h.lp, make([]byte, need-old)...)
		copy(h.lp[from+need:], h.lp[to:n])
	}
	copy(h.lp[from:], hdr[:hl])
	copy(h.lp[from+hl:], v)
}

// del removes field and reports whether it was there.
func (h *Hash) del(field []byte) bool {
	if h.ht != nil {
		_, ok := h.ht.Delete(view(field))
		if ok {
			h.ht.ShrinkIfNeeded()
		}
		return ok
	}
	fi, _, end := h.lpFind(view(field))
	if fi < 0 {
		return false
	}
	h.lp = append(h.lp[:fi], h.lp[end:]...)
	h.n--
	return true
}

// pairOffsets returns the offset of every field of the listpack.
func (h *Hash) pairOffsets() []int {
	offs := make([]int, 0, h.n)
	for i := 0; i < len(h.lp); {
		offs = append(offs, i)
		_, next := hsEntry(h.lp, i)
		_, i = hsEntry(h.lp, next)
	}
	return offs
}

func (h *Hash) pairAt(off int) (string, string) {
	f, next := hsEntry(h.lp, off)
	v, _ := hsEntry(h.lp, next)
	return view(f), view(v)
}

// ---- commands ----

func registerHashes(t *Table) {
	t.register("hset", hsetCommand)
	t.register("hmset", hsetCommand)
	t.register("hsetnx", hsetnxCommand)
	t.register("hget", hgetCommand)
	t.register("hmget", hmgetCommand)
	t.register("hgetall", func(c *Ctx) { hgetallGeneric(c, true, true) })
	t.register("hkeys", func(c *Ctx) { hgetallGeneric(c, true, false) })
	t.register("hvals", func(c *Ctx) { hgetallGeneric(c, false, true) })
	t.register("hdel", hdelCommand)
	t.register("hexists", hexistsCommand)
	t.register("hlen", hlenCommand)
	t.register("hstrlen", hstrlenCommand)
	t.register("hincrby", hincrbyCommand)
	t.register("hincrbyfloat", hincrbyfloatCommand)
	t.register("hrandfield", hrandfieldCommand)
	t.register("hscan", hscanCommand)
}

// hashForWrite returns the hash at key, creating an empty one (added to
// the keyspace) when the key is missing; ok is false after WRONGTYPE.
func hashForWrite(c *Ctx, key []byte) (*Hash, bool) {
	h, ok := Get[*Hash](c, key)
	if !ok {
		return nil, false
	}
	if h == nil {
		h = &Hash{}
		c.Add(key, ObjectValue(h))
	}
	return h, true
}

func hsetCommand(c *Ctx) {
	if len(c.Args)%2 == 1 {
		c.Error("ERR wrong number of arguments for '" + c.Cmd.Name + "' command")
		return
	}
	h, ok := hashForWrite(c, c.Args[1])
	if !ok {
		return
	}
	lim := h.limits(c)
	if h.ht == nil && cap(h.lp) == 0 {
		h.presize(lim, c.Args[2:])
	}
	added := 0
	for i := 2; i < len(c.Args); i += 2 {
		if h.set(lim, c.Args[i], c.Args[i+1]) {
			added++
		}
	}
	c.Modified(c.Args[1])
	c.Dirty((len(c.Args) - 2) / 2)
	if c.Cmd.Name == "hmset" {
		c.W.OK()
		return
	}
	c.W.Int(int64(added))
}

func hsetnxCommand(c *Ctx) {
	h, ok := hashForWrite(c, c.Args[1])
	if !ok {
		return
	}
	if _, exists := h.get(view(c.Args[2])); exists {
		c.W.Int(0)
		return
	}
	h.set(h.limits(c), c.Args[2], c.Args[3])
	c.Modified(c.Args[1])
	c.Dirty(1)
	c.W.Int(1)
}

func hgetCommand(c *Ctx) {
	h, ok := Get[*Hash](c, c.Args[1])
	if !ok {
		return
	}
	if h != nil {
		if v, found := h.get(view(c.Args[2])); found {
			c.W.BulkString(v)
			return
		}
	}
	c.W.Null()
}

func hmgetCommand(c *Ctx) {
	h, ok := Get[*Hash](c, c.Args[1])
	if !ok {
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, f := range c.Args[2:] {
		if h != nil {
			if v, found := h.get(view(f)); found {
				c.W.BulkString(v)
				continue
			}
		}
		c.W.Null()
	}
}

func hgetallGeneric(c *Ctx, fields, values bool) {
	h, ok := Get[*Hash](c, c.Args[1])
	if !ok {
		return
	}
	n := 0
	if h != nil {
		n = h.Len()
	}
	if fields && values {
		c.W.Map(n)
	} else {
		c.W.Array(n)
	}
	if h == nil {
		return
	}
	h.each(func(f, v string) bool {
		if fields {
			c.W.BulkString(f)
		}
		if values {
			c.W.BulkString(v)
		}
		return true
	})
}

func hdelCommand(c *Ctx) {
	h, ok := Get[*Hash](c, c.Args[1])
	if !ok {
		return
	}
	deleted := 0
	if h != nil {
		for _, f := range c.Args[2:] {
			if h.del(f) {
				deleted++
				if h.Len() == 0 {
					break
				}
			}
		}
	}
	if deleted > 0 {
		c.Removed(c.Args[1], deleted, h.Len())
	}
	c.W.Int(int64(deleted))
}

func hexistsCommand(c *Ctx) {
	h, ok := Get[*Hash](c, c.Args[1])
	if !ok {
		return
	}
	found := false
	if h != nil {
		_, found = h.get(view(c.Args[2]))
	}
	if found {
		c.W.Int(1)
	} else {
		c.W.Int(0)
	}
}

func hlenCommand(c *Ctx) {
	h, ok := Get[*Hash](c, c.Args[1])
	if !ok {
		return
	}
	if h == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(h.Len()))
}

func hstrlenCommand(c *Ctx) {
	h, ok := Get[*Hash](c, c.Args[1])
	if !ok {
		return
	}
	n := 0
	if h != nil {
		v, _ := h.get(view(c.Args[2]))
		n = len(v)
	}
	c.W.Int(int64(n))
}

func hincrbyCommand(c *Ctx) {
	incr, ok := c.IntArg(3)
	if !ok {
		return
	}
	h, ok := hashForWrite(c, c.Args[1])
	if !ok {
		return
	}
	var cur int64
	if v, found := h.get(view(c.Args[2])); found {
		n, isInt := ParseInt(hsBytes(v))
		if !isInt {
			c.Error(ErrHashValueNotInt)
			return
		}
		cur = n
	}
	if (incr < 0 && cur < 0 && incr < math.MinInt64-cur) ||
		(incr > 0 && cur > 0 && incr > math.MaxInt64-cur) {
		c.Error(ErrOverflow)
		return
	}
	cur += incr
	var buf [24]byte
	h.set(h.limits(c), c.Args[2], strconv.AppendInt(buf[:0], cur, 10))
	c.Modified(c.Args[1])
	c.Dirty(1)
	c.W.Int(cur)
}

func hincrbyfloatCommand(c *Ctx) {
	incr, ok := longdouble.Parse(c.Args[3])
	if !ok {
		c.Error(ErrNotFloat)
		return
	}
	if incr.IsInf() {
		c.Error(ErrHSIncrNaN)
		return
	}
	h, ok := hashForWrite(c, c.Args[1])
	if !ok {
		return
	}
	cur := "0"
	if v, found := h.get(view(c.Args[2])); found {
		if v == "" {
			c.Error(ErrHashValueNotFlt)
			return
		}
		cur = v
	}
	res, errMsg := IncrLongDouble(cur, c.Args[3], ErrHashValueNotFlt)
	if errMsg != "" {
		c.Error(errMsg)
		return
	}
	h.set(h.limits(c), c.Args[2], []byte(res))
	c.Modified(c.Args[1])
	c.Dirty(1)
	c.W.BulkString(res)
	c.Propagate([]byte("HSET"), append([]byte(nil), c.Args[1]...), append([]byte(nil), c.Args[2]...), []byte(res))
}

// hsRandCount parses the count of HRANDFIELD, SRANDMEMBER (and
// ZRANDMEMBER): an integer in [-LONG_MAX, LONG_MAX].
func hsRandCount(c *Ctx, i int) (int64, bool) {
	n, ok := ParseInt(c.Args[i])
	if !ok {
		c.Error(ErrNotInteger)
		return 0, false
	}
	if n == math.MinInt64 {
		c.Error(ErrHSRandCountRange)
		return 0, false
	}
	return n, true
}

func hrandfieldCommand(c *Ctx) {
	if len(c.Args) >= 3 {
		l, ok := hsRandCount(c, 2)
		if !ok {
			return
		}
		withValues := false
		if len(c.Args) > 4 || (len(c.Args) == 4 && !c.ArgIs(3, "withvalues")) {
			c.Error(ErrSyntax)
			return
		} else if len(c.Args) == 4 {
			withValues = true
			if l < -math.MaxInt64/2 || l > math.MaxInt64/2 {
				c.Error(ErrHSValueOutOfRange)
				return
			}
		}
		hrandfieldWithCount(c, l, withValues)
		return
	}
	h, ok := Get[*Hash](c, c.Args[1])
	if !ok {
		return
	}
	if h == nil {
		c.W.Null()
		return
	}
	f, _ := h.random(nil)
	c.W.BulkString(f)
}

// random returns a random field and value; offs, when not nil, are the
// listpack's pair offsets (to pick many without rescanning).
func (h *Hash) random(offs []int) (string, string) {
	if h.ht != nil {
		k, v, _ := h.ht.Random()
		return k, v
	}
	if offs == nil {
		offs = h.pairOffsets()
	}
	return h.pairAt(offs[randInt(len(offs))])
}

func hrandfieldWithCount(c *Ctx, l int64, withValues bool) {
	h, ok := Get[*Hash](c, c.Args[1])
	if !ok {
		return
	}
	if h == nil || l == 0 {
		c.W.Array(0)
		return
	}
	w := c.W
	emit := func(f, v string) {
		if withValues && w.Proto > 2 {
			w.Array(2)
		}
		w.BulkString(f)
		if withValues {
			w.BulkString(v)
		}
	}
	header := func(n int64) {
		if withValues && w.Proto == 2 {
			w.Array(int(2 * n))
		} else {
			w.Array(int(n))
		}
	}
	size := int64(h.Len())
	var offs []int
	if h.ht == nil {
		offs = h.pairOffsets()
	}
	// Negative count (or 1): independent picks, repeats allowed.
	if l < 0 || l == 1 {
		count := l
		if count < 0 {
			count = -count
		}
		header(count)
		for ; count > 0; count-- {
			emit(h.random(offs))
		}
		return
	}
	// The whole hash, in its order.
	if l >= size {
		header(size)
		h.each(func(f, v string) bool {
			emit(f, v)
			return true
		})
		return
	}
	header(l)
	hsDistinctSample(int(size), int(l), func(all bool) ([][2]string, func() (string, string)) {
		if all {
			pairs := make([][2]string, 0, size)
			h.each(func(f, v string) bool {
				pairs = append(pairs, [2]string{f, v})
				return true
			})
			return pairs, nil
		}
		return nil, func() (string, string) { return h.random(offs) }
	}, emit)
}

// hsDistinctSample emits count distinct random elements out of size
// (count < size). source(true) returns every element; source(false)
// returns a function that picks one at random. When count is a large
// part of size, a partial shuffle of all elements is cheaper than
// rejecting repeats (Redis's CASE 3 and CASE 4).
func hsDistinctSample(size, count int, source func(all bool) ([][2]string, func() (string, string)), emit func(a, b string)) {
	if count*3 > size {
		all, _ := source(true)
		for i := 0; i < count; i++ {
			j := i + randInt(len(all)-i)
			all[i], all[j] = all[j], all[i]
			emit(all[i][0], all[i][1])
		}
		return
	}
	_, pick := source(false)
	seen := make(map[string]struct{}, count)
	for len(seen) < count {
		a, b := pick()
		if _, dup := seen[a]; dup {
			continue
		}
		seen[a] = struct{}{}
		emit(a, b)
	}
}

// ---- SCAN family (HSCAN, SSCAN) ----

// match reports whether an element passes the scan's MATCH pattern.
func (o *scanOptions) match(s string) bool {
	return o.pattern == nil || glob.Match(o.pattern, hsBytes(s), false)
}

// hsBytes views s as bytes without copying; the result must not be changed.
func hsBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// hsScanReply writes [cursor, elements] with the elements already
// written to body (nil: none).
func hsScanReply(w *resp.Writer, cursor uint64, n int, body *resp.Writer) {
	w.Array(2)
	var tmp [20]byte
	w.Bulk(strconv.AppendUint(tmp[:0], cursor, 10))
	w.Array(n)
	if body != nil {
		w.Append(body)
	}
}

func hsEmptyScan(w *resp.Writer) { hsScanReply(w, 0, 0, nil) }

func hscanCommand(c *Ctx) {
	cursor, ok := parseCursor(c.Args[2])
	if !ok {
		c.Error(ErrInvalidCursor)
		return
	}
	h, ok := Get[*Hash](c, c.Args[1])
	if !ok {
		return
	}
	if h == nil {
		hsEmptyScan(c.W)
		return
	}
	o, ok := parseScanOptions(c, 3, false)
	if !ok {
		return
	}
	body := *c.W.Sub()
	n := 0
	add := func(f, v string) {
		if o.match(f) {
			body.BulkString(f)
			body.BulkString(v)
			n += 2
		}
	}
	if h.ht == nil {
		h.each(func(f, v string) bool {
			add(f, v)
			return true
		})
		cursor = 0
	} else {
		cursor = scanDict(h.ht, cursor, o.count, add)
	}
	hsScanReply(c.W, cursor, n, &body)
}
