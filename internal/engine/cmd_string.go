package engine

import (
	"fmt"
	"math"
	"strconv"
	"sync"
	"unsafe"
	"weak"
)

// String commands: SET and its variants, GET and its variants, counters,
// APPEND, GETRANGE/SETRANGE and LCS, with Redis 7.0's replies, errors and
// propagation (relative expiries are logged as absolute times).

const (
	ErrOffsetRange      = "ERR offset is out of range"
	ErrDecrOverflow     = "ERR decrement would overflow"
	ErrIncrNaNInf       = "ERR increment would produce NaN or Infinity"
	ErrLCSNotString     = "ERR The specified keys must contain string values"
	ErrLCSIdxAndLen     = "ERR If you want both the length and indexes, please just use IDX."
	ErrLCSTooLong       = "ERR String too long for LCS"
	ErrLCSMemory        = "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"
	ErrWrongArgsMSet    = "ERR wrong number of arguments for 'mset' command"
	ErrWrongArgsMSetNX  = "ERR wrong number of arguments for 'msetnx' command"
	errInvalidExpireFmt = ErrInvalidExpire
)

func registerStrings(t *Table) {
	// Redis's setGetKeys: with GET the key is read too.
	t.register("set", setCommand).KeyFlags = func(args [][]byte, _ int) []string {
		for _, a := range args[min(3, len(args)):] {
			if EqualFold(cString(a), "get") {
				return []string{"RW", "access", "update"}
			}
		}
		return []string{"OW", "update"}
	}
	t.register("setnx", setnxCommand)
	t.register("setex", func(c *Ctx) { setexGeneric(c, true) })
	t.register("psetex", func(c *Ctx) { setexGeneric(c, false) })
	t.register("get", getCommand)
	t.register("getset", getsetCommand)
	t.register("getdel", getdelCommand)
	t.register("getex", getexCommand)
	t.register("mget", mgetCommand)
	t.register("mset", func(c *Ctx) { msetGeneric(c, false) })
	t.register("msetnx", func(c *Ctx) { msetGeneric(c, true) })
	t.register("append", appendCommand)
	t.register("strlen", strlenCommand)
	t.register("incr", func(c *Ctx) { incrDecr(c, 1) })
	t.register("decr", func(c *Ctx) { incrDecr(c, -1) })
	t.register("incrby", func(c *Ctx) {
		n, ok := c.IntArg(2)
		if ok {
			incrDecr(c, n)
		}
	})
	t.register("decrby", func(c *Ctx) {
		n, ok := c.IntArg(2)
		if !ok {
			return
		}
		if n == math.MinInt64 {
			c.W.Error(ErrDecrOverflow)
			return
		}
		incrDecr(c, -n)
	})
	t.register("incrbyfloat", incrbyfloatCommand)
	t.register("getrange", getrangeCommand)
	t.register("substr", getrangeCommand)
	t.register("setrange", setrangeCommand)
	t.register("lcs", lcsCommand)
}

// stringEncoding is what OBJECT ENCODING reports for a string value, as
// Redis's tryObjectEncoding decides it.
func stringEncoding(s string) string {
	if len(s) <= 20 {
		if _, ok := ParseInt([]byte(s)); ok {
			return "int"
		}
	}
	if len(s) <= 44 {
		return "embstr"
	}
	return "raw"
}

// valueStringEncoding is OBJECT ENCODING for a string value.
func valueStringEncoding(v Value) string {
	if r, ok := v.o.(rawString); ok {
		return r.enc.String()
	}
	return stringEncoding(v.s)
}

// Flags of SET and GETEX options.
const (
	setNX = 1 << iota
	setXX
	setGet
	setKeepTTL
	setPersist
	setEX
	setPX
	setEXAT
	setPXAT
	setAnyExpire = setEX | setPX | setEXAT | setPXAT
)

// parseSetOptions is Redis's parseExtendedStringArgumentsOrReply: forGet
// selects GETEX's options. It returns the flags and the index of the
// expire argument (0 if none).
func parseSetOptions(c *Ctx, start int, forGet bool) (flags int, expIdx int, ok bool) {
	forSet := !forGet
	for j := start; j < len(c.Args); j++ {
		hasNext := j < len(c.Args)-1
		switch {
		case c.ArgIs(j, "nx") && flags&setXX == 0 && forSet:
			flags |= setNX
		case c.ArgIs(j, "xx") && flags&setNX == 0 && forSet:
			flags |= setXX
		case c.ArgIs(j, "get") && forSet:
			flags |= setGet
		case c.ArgIs(j, "keepttl") && flags&(setPersist|setAnyExpire) == 0 && forSet:
			flags |= setKeepTTL
		case c.ArgIs(j, "persist") && forGet && flags&(setAnyExpire|setKeepTTL) == 0:
			flags |= setPersist
		case c.ArgIs(j, "ex") && flags&(setKeepTTL|setPersist|setEXAT|setPX|setPXAT) == 0 && hasNext:
			flags |= setEX
			expIdx = j + 1
			j++
		case c.ArgIs(j, "px") && flags&(setKeepTTL|setPersist|setEX|setEXAT|setPXAT) == 0 && hasNext:
			flags |= setPX
			expIdx = j + 1
			j++
		case c.ArgIs(j, "exat") && flags&(setKeepTTL|setPersist|setEX|setPX|setPXAT) == 0 && hasNext:
			flags |= setEXAT
			expIdx = j + 1
			j++
		case c.ArgIs(j, "pxat") && flags&(setKeepTTL|setPersist|setEX|setEXAT|setPX) == 0 && hasNext:
			flags |= setPXAT
			expIdx = j + 1
			j++
		default:
			c.W.Error(ErrSyntax)
			return 0, 0, false
		}
	}
	return flags, expIdx, true
}

// expireArg is Redis's getExpireMillisecondsOrReply: it parses an expire
// argument of SET/SETEX/PSETEX/GETEX into an absolute unix ms time.
func expireArg(c *Ctx, arg []byte, seconds, relative bool) (int64, bool) {
	ms, ok := ParseInt(arg)
	if !ok {
		c.W.Error(ErrNotInteger)
		return 0, false
	}
	if ms <= 0 || (seconds && ms > math.MaxInt64/1000) {
		c.W.Error(fmt.Sprintf(errInvalidExpireFmt, c.Cmd.Name))
		return 0, false
	}
	if seconds {
		ms *= 1000
	}
	if relative {
		ms += c.Now // wraps on overflow exactly as Redis's C arithmetic does
	}
	if ms <= 0 {
		c.W.Error(fmt.Sprintf(errInvalidExpireFmt, c.Cmd.Name))
		return 0, false
	}
	return ms, true
}

// replyGet writes the GET reply for key; ok is false after WRONGTYPE.
func replyGet(c *Ctx, key []byte) bool {
	s, found, ok := GetString(c, key)
	if !ok {
		return false
	}
	if found {
		c.W.BulkString(s)
	} else {
		c.W.Null()
	}
	return true
}

func getCommand(c *Ctx) { replyGet(c, c.Args[1]) }

// setGeneric is Redis's setGenericCommand. okReply/abortReply select the
// SETNX-style integer replies.
func setGeneric(c *Ctx, flags int, key, val, expire []byte, intReplies bool) {
	var at int64
	if expire != nil {
		var ok bool
		at, ok = expireArg(c, expire, flags&(setEX|setEXAT) != 0, flags&(setEX|setPX) != 0)
		if !ok {
			return
		}
	}
	if flags&setGet != 0 {
		c.readStats = true // SET GET reads as GET does (keyspace_hits/misses)
		ok := replyGet(c, key)
		c.readStats = false
		if !ok {
			return
		}
	}
	// A plain SET needs no lookup first when no key can have expired and
	// accesses are clocked, not counted: the store finds the key itself.
	// Otherwise the lookup deletes an expired key (and logs that) or
	// counts the access under LFU, as Redis's lookupKeyWrite.
	found := false
	if flags&(setNX|setXX) != 0 || c.DB.expires.Len() > 0 || c.E.Config.LFU() {
		found = c.Exists(key)
	}
	if (flags&setNX != 0 && found) || (flags&setXX != 0 && !found) {
		if flags&setGet == 0 {
			if intReplies {
				c.W.Int(0)
			} else {
				c.W.Null()
			}
		}
		return
	}
	c.Set(key, argValue(val), flags&setKeepTTL != 0)
	c.Dirty(1)
	if expire != nil {
		c.SetExpire(key, at)
		if flags&setPXAT == 0 || flags&setGet != 0 {
			c.Propagate([]byte("SET"), key, val, []byte("PXAT"), strconv.AppendInt(nil, at, 10))
		}
	} else if flags&setGet != 0 {
		// Log without the GET arguments.
		args := make([][]byte, 0, len(c.Args))
		for j, a := range c.Args {
			if j >= 3 && EqualFold(a, "get") {
				continue
			}
			args = append(args, a)
		}
		c.Propagate(args...)
	}
	if flags&setGet == 0 {
		if intReplies {
			c.W.Int(1)
		} else {
			c.W.OK()
		}
	}
}

func setCommand(c *Ctx) {
	flags, expIdx, ok := parseSetOptions(c, 3, false)
	if !ok {
		return
	}
	var expire []byte
	if expIdx > 0 {
		expire = c.Args[expIdx]
	}
	setGeneric(c, flags, c.Args[1], c.Args[2], expire, false)
}

func setnxCommand(c *Ctx) { setGeneric(c, setNX, c.Args[1], c.Args[2], nil, true) }

func setexGeneric(c *Ctx, seconds bool) {
	flags := setPX
	if seconds {
		flags = setEX
	}
	setGeneric(c, flags, c.Args[1], c.Args[3], c.Args[2], false)
}

func getsetCommand(c *Ctx) {
	if !replyGet(c, c.Args[1]) {
		return
	}
	c.SetKey(c.Args[1], argValue(c.Args[2]))
	c.Dirty(1)
	c.Propagate([]byte("SET"), c.Args[1], c.Args[2])
}

func getdelCommand(c *Ctx) {
	if !replyGet(c, c.Args[1]) {
		return
	}
	if c.Delete(c.Args[1]) {
		c.Dirty(1)
		c.Propagate([]byte("DEL"), c.Args[1])
	}
}

func getexCommand(c *Ctx) {
	flags, expIdx, ok := parseSetOptions(c, 2, true)
	if !ok {
		return
	}
	key := c.Args[1]
	s, found, ok := GetString(c, key)
	if !ok {
		return
	}
	if !found {
		c.W.Null()
		return
	}
	var at int64
	if expIdx > 0 {
		at, ok = expireArg(c, c.Args[expIdx], flags&(setEX|setEXAT) != 0, flags&(setEX|setPX) != 0)
		if !ok {
			return
		}
	}
	c.W.BulkString(s)
	switch {
	case flags&(setEXAT|setPXAT) != 0 && at <= c.Now:
		c.Delete(key)
		c.Dirty(1)
		c.Propagate([]byte("DEL"), key)
	case expIdx > 0:
		c.SetExpire(key, at)
		c.Dirty(1)
		c.Propagate([]byte("PEXPIREAT"), key, strconv.AppendInt(nil, at, 10))
	case flags&setPersist != 0:
		if c.Persist(key) {
			c.Dirty(1)
			c.Propagate([]byte("PERSIST"), key)
		}
	}
}

func mgetCommand(c *Ctx) {
	c.W.Array(len(c.Args) - 1)
	for _, k := range c.Args[1:] {
		v, found := c.Lookup(k)
		if !found || !v.isString() {
			c.W.Null()
		} else {
			c.W.BulkString(v.s)
		}
	}
}

func msetGeneric(c *Ctx, nx bool) {
	if len(c.Args)%2 == 0 {
		c.W.Error("ERR wrong number of arguments for '" + c.Cmd.Name + "' command")
		return
	}
	if nx {
		for j := 1; j < len(c.Args); j += 2 {
			if c.Exists(c.Args[j]) {
				c.W.Int(0)
				return
			}
		}
	}
	for j := 1; j < len(c.Args); j += 2 {
		c.SetKey(c.Args[j], argValue(c.Args[j+1]))
	}
	c.Dirty((len(c.Args) - 1) / 2)
	if nx {
		c.W.Int(1)
	} else {
		c.W.OK()
	}
}

// checkStringLength is Redis's check against proto-max-bulk-len for a
// string about to grow to size+add bytes.
func checkStringLength(c *Ctx, size, add int64) bool {
	total := size + add
	if total > c.E.Config.hot().protoMaxBulkLen || total < size || total < add {
		c.W.Error(ErrStringTooLong)
		return false
	}
	return true
}

func appendCommand(c *Ctx) {
	key := c.Args[1]
	s, found, ok := GetString(c, key)
	if !ok {
		return
	}
	if !found {
		c.Add(key, argValue(c.Args[2]))
		c.Dirty(1)
		c.W.Int(int64(len(c.Args[2])))
		return
	}
	if !checkStringLength(c, int64(len(s)), int64(len(c.Args[2]))) {
		return
	}
	ns := c.E.appendBuf.append(s, c.Args[2])
	c.Set(key, stringValueAs(ns, encRaw), true) // Redis appends to a raw copy
	c.Dirty(1)
	c.W.Int(int64(len(ns)))
}

func strlenCommand(c *Ctx) {
	s, _, ok := GetString(c, c.Args[1])
	if ok {
		c.W.Int(int64(len(s)))
	}
}

func incrDecr(c *Ctx, incr int64) {
	key := c.Args[1]
	s, found, ok := GetString(c, key)
	if !ok {
		return
	}
	var old int64
	if found {
		if old, ok = ParseInt([]byte(s)); !ok {
			c.W.Error(ErrNotInteger)
			return
		}
	}
	if (incr < 0 && old < 0 && incr < math.MinInt64-old) ||
		(incr > 0 && old > 0 && incr > math.MaxInt64-old) {
		c.W.Error(ErrOverflow)
		return
	}
	n := old + incr
	ns := strconv.FormatInt(n, 10)
	if found {
		c.Set(key, StringValue(ns), true)
	} else {
		c.Add(key, StringValue(ns))
	}
	c.Dirty(1)
	c.W.Int(n)
}

func incrbyfloatCommand(c *Ctx) {
	key := c.Args[1]
	s, found, ok := GetString(c, key)
	if !ok {
		return
	}
	if found && s == "" {
		c.W.Error(ErrNotFloat) // an empty string is not a number
		return
	}
	ns, errMsg := IncrLongDouble(s, c.Args[2], ErrNotFloat)
	if errMsg != "" {
		c.W.Error(errMsg)
		return
	}
	// Redis stores the result as a string, never as an integer.
	if nv := stringValueAs(ns, encEmbstr); found {
		c.Set(key, nv, true)
	} else {
		c.Add(key, nv)
	}
	c.Dirty(1)
	c.W.BulkString(ns)
	c.Propagate([]byte("SET"), key, []byte(ns), []byte("KEEPTTL"))
}

func getrangeCommand(c *Ctx) {
	start, ok := c.IntArg(2)
	if !ok {
		return
	}
	end, ok := c.IntArg(3)
	if !ok {
		return
	}
	s, found, ok := GetString(c, c.Args[1])
	if !ok {
		return
	}
	if !found {
		c.W.BulkString("")
		return
	}
	n := int64(len(s))
	if start < 0 && end < 0 && start > end {
		c.W.BulkString("")
		return
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	if end < 0 {
		end = 0
	}
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		c.W.BulkString("")
		return
	}
	c.W.BulkString(s[start : end+1])
}

func setrangeCommand(c *Ctx) {
	key, val := c.Args[1], c.Args[3]
	offset, ok := c.IntArg(2)
	if !ok {
		return
	}
	if offset < 0 {
		c.W.Error(ErrOffsetRange)
		return
	}
	s, found, ok := GetString(c, key)
	if !ok {
		return
	}
	if len(val) == 0 {
		c.W.Int(int64(len(s)))
		return
	}
	if !checkStringLength(c, offset, int64(len(val))) {
		return
	}
	size := max(int64(len(s)), offset+int64(len(val)))
	buf := make([]byte, size)
	copy(buf, s)
	copy(buf[offset:], val)
	ns := string(buf)
	// Redis writes into a raw string.
	if nv := stringValueAs(ns, encRaw); found {
		c.Set(key, nv, true)
	} else {
		c.Add(key, nv)
	}
	c.Dirty(1)
	c.W.Int(size)
}

// lcsCommand is Redis's LCS: the classic dynamic programming table, then
// a walk back from its corner that rebuilds the subsequence and the
// matching ranges (reported from the end of the strings, as Redis does).
func lcsCommand(c *Ctx) {
	va, fa := c.Lookup(c.Args[1])
	vb, fb := c.Lookup(c.Args[2])
	if (fa && !va.isString()) || (fb && !vb.isString()) {
		c.W.Error(ErrLCSNotString)
		return
	}
	a, b := va.s, vb.s
	var getIdx, getLen, withMatchLen bool
	var minMatchLen int64
	for j := 3; j < len(c.Args); j++ {
		more := len(c.Args) - 1 - j
		switch {
		case c.ArgIs(j, "idx"):
			getIdx = true
		case c.ArgIs(j, "len"):
			getLen = true
		case c.ArgIs(j, "withmatchlen"):
			withMatchLen = true
		case c.ArgIs(j, "minmatchlen") && more > 0:
			n, ok := c.IntArg(j + 1)
			if !ok {
				return
			}
			minMatchLen = max(n, 0)
			j++
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	if getIdx && getLen {
		c.W.Error(ErrLCSIdxAndLen)
		return
	}
	if int64(len(a)) >= math.MaxUint32-1 || int64(len(b)) >= math.MaxUint32-1 {
		c.W.Error(ErrLCSTooLong)
		return
	}
	alen, blen := len(a), len(b)
	cells := uint64(alen+1) * uint64(blen+1)
	if cells*4 > uint64(c.E.Config.Int("proto-max-bulk-len")) {
		c.W.Error(ErrLCSMemory)
		return
	}
	lcs := make([]uint32, cells)
	at := func(i, j int) uint32 { return lcs[j+i*(blen+1)] }
	for i := 1; i <= alen; i++ {
		for j := 1; j <= blen; j++ {
			if a[i-1] == b[j-1] {
				lcs[j+i*(blen+1)] = at(i-1, j-1) + 1
			} else {
				lcs[j+i*(blen+1)] = max(at(i-1, j), at(i, j-1))
			}
		}
	}
	total := at(alen, blen)
	idx := total
	computeLCS := getIdx || !getLen
	var result []byte
	if computeLCS {
		result = make([]byte, idx)
	}
	type match struct{ as, ae, bs, be uint32 }
	var matches []match
	aStart, aEnd, bStart, bEnd := uint32(alen), uint32(0), uint32(0), uint32(0)
	i, j := alen, blen
	for computeLCS && i > 0 && j > 0 {
		emit := false
		if a[i-1] == b[j-1] {
			result[idx-1] = a[i-1]
			if aStart == uint32(alen) {
				aStart, aEnd = uint32(i-1), uint32(i-1)
				bStart, bEnd = uint32(j-1), uint32(j-1)
			} else if aStart == uint32(i) && bStart == uint32(j) {
				aStart--
				bStart--
			} else {
				emit = true
			}
			if aStart == 0 || bStart == 0 {
				emit = true
			}
			idx--
			i--
			j--
		} else {
			if at(i-1, j) > at(i, j-1) {
				i--
			} else {
				j--
			}
			if aStart != uint32(alen) {
				emit = true
			}
		}
		if emit {
			mlen := aEnd - aStart + 1
			if minMatchLen == 0 || int64(mlen) >= minMatchLen {
				matches = append(matches, match{aStart, aEnd, bStart, bEnd})
			}
			aStart = uint32(alen)
		}
	}
	switch {
	case getIdx:
		w := c.W
		w.Map(2)
		w.BulkString("matches")
		w.Array(len(matches))
		for _, m := range matches {
			if withMatchLen {
				w.Array(3)
			} else {
				w.Array(2)
			}
			w.Array(2)
			w.Int(int64(m.as))
			w.Int(int64(m.ae))
			w.Array(2)
			w.Int(int64(m.bs))
			w.Int(int64(m.be))
			if withMatchLen {
				w.Int(int64(m.ae - m.as + 1))
			}
		}
		w.BulkString("len")
		w.Int(int64(total))
	case getLen:
		c.W.Int(int64(total))
	default:
		c.W.Bulk(result)
	}
}

// growBuf gives APPEND the amortised growth of Redis's sds: a string
// built by appends lives in a buffer with spare capacity, and the next
// append to a string that is exactly the buffer's current contents writes
// into the spare room instead of copying. This is safe because Go strings
// only ever see a prefix of the buffer no longer than len: bytes past it
// belong to no string yet. A buffer is remembered through a weak pointer,
// so the cache never keeps a deleted value alive.
type growBuf struct {
	mu sync.Mutex
	m  map[uintptr]growEntry // by address of the buffer's first byte
}

type growEntry struct {
	p   weak.Pointer[byte]
	len int // length of the longest string handed out from the buffer
	cap int
}

// appendMinSize is the size below which plain concatenation is cheaper
// than bookkeeping; appendCacheMax bounds the number of buffers tracked.
const (
	appendMinSize  = 256
	appendCacheMax = 4096
)

// append returns s followed by b in a new string. The buffer gets spare
// room proportional to its size so that the next append can reuse it:
// building a large string by many APPENDs is then amortised linear, as it
// is in Redis with sds preallocation. Each engine has its own growBuf.
func (g *growBuf) append(s string, b []byte) string {
	n := len(s) + len(b)
	if n < appendMinSize || len(b) == 0 {
		return s + string(b)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(s) > 0 {
		ptr := unsafe.StringData(s)
		key := uintptr(unsafe.Pointer(ptr))
		if e, ok := g.m[key]; ok {
			p := e.p.Value()
			if p == ptr && e.len == len(s) && n <= e.cap {
				copy(unsafe.Slice(p, e.cap)[len(s):], b)
				e.len = n
				g.m[key] = e
				return unsafe.String(p, n)
			}
			delete(g.m, key)
		}
	}
	capacity := n * 2
	if n >= 1<<20 {
		capacity = n + 1<<20
	}
	buf := make([]byte, n, capacity)
	copy(buf, s)
	copy(buf[len(s):], b)
	p := &buf[0]
	if len(g.m) >= appendCacheMax {
		for k, e := range g.m {
			if e.p.Value() == nil {
				delete(g.m, k)
			}
		}
		if len(g.m) >= appendCacheMax/2 {
			clear(g.m)
		}
	}
	g.m[uintptr(unsafe.Pointer(p))] = growEntry{p: weak.Make(p), len: n, cap: capacity}
	return unsafe.String(p, n)
}
