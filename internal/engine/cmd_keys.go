package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ordo-db/ordo/internal/ds/dict"
	"github.com/ordo-db/ordo/internal/ds/glob"
)

// Keyspace commands: DEL, UNLINK, EXISTS, TYPE, the EXPIRE family, TTL
// and friends, PERSIST, RENAME, COPY, MOVE, KEYS, SCAN, RANDOMKEY, TOUCH,
// DBSIZE, FLUSHDB, FLUSHALL and SWAPDB, as Redis 7.0's db.c and expire.c.

const (
	ErrExpireNXCombo   = "ERR NX and XX, GT or LT options at the same time are not compatible"
	ErrExpireGTLT      = "ERR GT and LT options at the same time are not compatible"
	ErrInvalidCursor   = "ERR invalid cursor"
	ErrIntRange        = "ERR value is out of range, value must between -2147483648 and 2147483647"
	ErrSwapFirstIndex  = "ERR invalid first DB index"
	ErrSwapSecondIndex = "ERR invalid second DB index"
)

func registerKeys(t *Table) {
	t.register("del", delCommand)
	t.register("unlink", delCommand)
	t.register("exists", existsCommand)
	t.register("touch", existsCommand) // Lookup touches; EXISTS does not
	t.register("type", typeCommand)
	t.register("expire", func(c *Ctx) { expireGeneric(c, c.Now, true) })
	t.register("pexpire", func(c *Ctx) { expireGeneric(c, c.Now, false) })
	t.register("expireat", func(c *Ctx) { expireGeneric(c, 0, true) })
	t.register("pexpireat", func(c *Ctx) { expireGeneric(c, 0, false) })
	t.register("ttl", func(c *Ctx) { ttlGeneric(c, false, false) })
	t.register("pttl", func(c *Ctx) { ttlGeneric(c, true, false) })
	t.register("expiretime", func(c *Ctx) { ttlGeneric(c, false, true) })
	t.register("pexpiretime", func(c *Ctx) { ttlGeneric(c, true, true) })
	t.register("persist", persistCommand)
	t.register("rename", func(c *Ctx) { renameGeneric(c, false) })
	t.register("renamenx", func(c *Ctx) { renameGeneric(c, true) })
	t.register("copy", copyCommand)
	t.register("move", moveCommand)
	t.register("keys", keysCommand)
	t.register("scan", scanCommand)
	t.register("randomkey", randomkeyCommand)
	t.register("dbsize", func(c *Ctx) { c.W.Int(int64(c.DB.Len())) })
	t.register("flushdb", flushdbCommand)
	t.register("flushall", flushallCommand)
	t.register("swapdb", swapdbCommand)
}

// bview returns the bytes of s without copying; they must not be changed.
func bview(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

func delCommand(c *Ctx) {
	n := 0
	for _, k := range c.Args[1:] {
		if c.Delete(k) {
			n++
		}
	}
	c.Dirty(n)
	c.W.Int(int64(n))
}

// existsCommand serves EXISTS and TOUCH: both count the live keys among
// the arguments, repeats included.
func existsCommand(c *Ctx) {
	touch := c.Cmd != nil && c.Cmd.Name == "touch"
	n := 0
	for _, k := range c.Args[1:] {
		var ok bool
		if touch {
			ok = c.Exists(k)
		} else {
			_, ok = c.LookupNoTouch(k)
		}
		if ok {
			n++
		}
	}
	c.W.Int(int64(n))
}

func typeCommand(c *Ctx) {
	v, ok := c.LookupNoTouch(c.Args[1])
	if !ok {
		c.W.Simple("none")
		return
	}
	c.W.Simple(v.TypeName())
}

// Flags of the EXPIRE family.
const (
	expireNX = 1 << iota
	expireXX
	expireGT
	expireLT
)

// expireGeneric is Redis's expireGenericCommand: base is added to the
// time argument (now for EXPIRE/PEXPIRE, 0 for the AT forms).
func expireGeneric(c *Ctx, base int64, seconds bool) {
	flags := 0
	for j := 3; j < len(c.Args); j++ {
		switch {
		case c.ArgIs(j, "nx"):
			flags |= expireNX
		case c.ArgIs(j, "xx"):
			flags |= expireXX
		case c.ArgIs(j, "gt"):
			flags |= expireGT
		case c.ArgIs(j, "lt"):
			flags |= expireLT
		default:
			c.W.Error("ERR Unsupported option " + string(cString(c.Args[j]))) // %s
			return
		}
	}
	if flags&expireNX != 0 && flags&(expireXX|expireGT|expireLT) != 0 {
		c.W.Error(ErrExpireNXCombo)
		return
	}
	if flags&expireGT != 0 && flags&expireLT != 0 {
		c.W.Error(ErrExpireGTLT)
		return
	}
	when, ok := c.IntArg(2)
	if !ok {
		return
	}
	invalid := fmt.Sprintf(ErrInvalidExpire, c.Cmd.Name)
	if seconds {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			c.W.Error(invalid)
			return
		}
		when *= 1000
	}
	if when > math.MaxInt64-base {
		c.W.Error(invalid)
		return
	}
	when += base
	key := c.Args[1]
	if !c.Exists(key) {
		c.W.Int(0)
		return
	}
	if flags != 0 {
		cur := c.TTL(key)
		if (flags&expireNX != 0 && cur != -1) ||
			(flags&expireXX != 0 && cur == -1) ||
			(flags&expireGT != 0 && (cur == -1 || when <= cur)) ||
			(flags&expireLT != 0 && cur != -1 && when >= cur) {
			c.W.Int(0)
			return
		}
	}
	c.Dirty(1)
	if when <= c.Now {
		c.Delete(key)
		c.Propagate([]byte("DEL"), key)
	} else {
		c.SetExpire(key, when)
		c.Propagate([]byte("PEXPIREAT"), key, strconv.AppendInt(nil, when, 10))
	}
	c.W.Int(1)
}

// ttlGeneric serves TTL, PTTL, EXPIRETIME and PEXPIRETIME.
func ttlGeneric(c *Ctx, ms, abs bool) {
	key := c.Args[1]
	if _, ok := c.LookupNoTouch(key); !ok {
		c.W.Int(-2)
		return
	}
	at := c.TTL(key)
	if at == -1 {
		c.W.Int(-1)
		return
	}
	t := at
	if !abs {
		t = at - c.Now
	}
	t = max(t, 0)
	if !ms {
		// (t+500)/1000, without overflowing for t near 2^63 (Redis's C
		// arithmetic does not wrap there: EXPIRETIME 9223372036854776).
		t = t/1000 + (t%1000+500)/1000
	}
	c.W.Int(t)
}

func persistCommand(c *Ctx) {
	key := c.Args[1]
	if c.Exists(key) && c.Persist(key) {
		c.Dirty(1)
		c.W.Int(1)
		return
	}
	c.W.Int(0)
}

// signalIfBlockable wakes clients blocked on key when a value that can
// serve them arrives by other means than a push (RENAME, COPY, MOVE):
// Redis's dbAdd does the same.
func signalIfBlockable(c *Ctx, key []byte, v Value) {
	switch v.TypeName() {
	case "list", "zset", "stream":
		c.Ready(key)
	}
}

func renameGeneric(c *Ctx, nx bool) {
	src, dst := c.Args[1], c.Args[2]
	v, ok := c.Lookup(src)
	if !ok {
		c.W.Error(ErrNoSuchKey)
		return
	}
	if string(src) == string(dst) {
		if nx {
			c.W.Int(0)
		} else {
			c.W.OK()
		}
		return
	}
	at := c.TTL(src)
	meta := c.DB.keyMeta(view(src)) // the value keeps its clock
	if c.Exists(dst) {
		if nx {
			c.W.Int(0)
			return
		}
		c.quietly(func() { c.Delete(dst) })
	}
	c.quietly(func() {
		c.Add(dst, v)
		c.DB.setMeta(view(dst), meta)
		if at != -1 {
			c.SetExpire(dst, at)
		}
		c.Delete(src)
	})
	c.Notify(src, "rename_from")
	c.Notify(dst, "rename_to")
	signalIfBlockable(c, dst, v)
	c.Dirty(1)
	if nx {
		c.W.Int(1)
	} else {
		c.W.OK()
	}
}

// dbIndexArg parses a database index as Redis's getIntFromObjectOrReply
// followed by selectDb; msg replaces the parse errors when not empty.
func dbIndexArg(c *Ctx, i int, msg string) (int, bool) {
	n, ok := ParseInt(c.Args[i])
	if !ok || n < math.MinInt32 || n > math.MaxInt32 {
		switch {
		case msg != "":
			c.W.Error(msg)
		case !ok:
			c.W.Error(ErrNotInteger)
		default:
			c.W.Error(ErrIntRange)
		}
		return 0, false
	}
	return int(n), true
}

func (c *Ctx) validDB(n int) bool { return n >= 0 && n < len(c.E.dbs) }

// inDB runs fn with c.DB switched to db.
func (c *Ctx) inDB(db *DB, fn func()) {
	saved := c.DB
	c.DB = db
	defer func() { c.DB = saved }()
	fn()
}

// copyValue duplicates a value for COPY: strings are immutable and are
// shared; other types are deep-copied.
func copyValue(v Value) (Value, bool) {
	if v.isString() {
		if v.o == nil && sharedInt(v.s) {
			// A copy of a shared integer is an integer of its own, as
			// Redis's dupStringObject makes it.
			return Value{s: v.s, o: rawString{encIntUnshared}}, true
		}
		if r, ok := v.o.(rawString); ok && r.enc == encOwned {
			// Written in place by its key's HLL commands: the copy
			// gets bytes of its own (raw, as dupStringObject makes it).
			return rawStringValue(strings.Clone(v.s)), true
		}
		return v, true // keeping its encoding, as dupStringObject
	}
	t, ok := v.o.(Typed)
	if !ok {
		return Value{}, false
	}
	return ObjectValue(t.Copy()), true
}

func copyCommand(c *Ctx) {
	dst := c.DB
	replace := false
	for j := 3; j < len(c.Args); j++ {
		more := len(c.Args) - j - 1
		switch {
		case c.ArgIs(j, "replace"):
			replace = true
		case c.ArgIs(j, "db") && more >= 1:
			n, ok := dbIndexArg(c, j+1, "")
			if !ok {
				return
			}
			if !c.validDB(n) {
				c.W.Error(ErrDBIndex)
				return
			}
			dst = c.E.dbs[n]
			j++
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	key, newkey := c.Args[1], c.Args[2]
	if dst == c.DB && string(key) == string(newkey) {
		c.W.Error(ErrSameObject)
		return
	}
	v, ok := c.Lookup(key)
	if !ok {
		c.W.Int(0)
		return
	}
	at := c.TTL(key)
	c.inDB(dst, func() {
		if c.Exists(newkey) {
			if !replace {
				c.W.Int(0)
				return
			}
			c.quietly(func() { c.Delete(newkey) })
		}
		nv, ok := copyValue(v)
		if !ok {
			c.W.Error(ErrWrongType)
			return
		}
		c.quietly(func() {
			c.Add(newkey, nv)
			if at != -1 {
				c.SetExpire(newkey, at)
			}
		})
		c.Notify(newkey, "copy_to")
		signalIfBlockable(c, newkey, nv)
		c.Dirty(1)
		c.W.Int(1)
	})
}

func moveCommand(c *Ctx) {
	n, ok := dbIndexArg(c, 2, "")
	if !ok {
		return
	}
	if !c.validDB(n) {
		c.W.Error(ErrDBIndex)
		return
	}
	dst := c.E.dbs[n]
	if dst == c.DB {
		c.W.Error(ErrSameObject)
		return
	}
	key := c.Args[1]
	v, ok := c.Lookup(key)
	if !ok {
		c.W.Int(0)
		return
	}
	at := c.TTL(key)
	meta := c.DB.keyMeta(view(key))
	moved := false
	c.inDB(dst, func() {
		if c.Exists(key) {
			return
		}
		c.quietly(func() {
			c.Add(key, v)
			c.DB.setMeta(view(key), meta)
			if at != -1 {
				c.SetExpire(key, at)
			}
		})
		signalIfBlockable(c, key, v)
		moved = true
	})
	if !moved {
		c.W.Int(0)
		return
	}
	c.quietly(func() { c.Delete(key) })
	c.Notify(key, "move_from")
	c.inDB(dst, func() { c.Notify(key, "move_to") })
	c.Dirty(1)
	c.W.Int(1)
}

// expiredNow reports whether key of db has an expiry in the past (without
// deleting it, for iterations that must not change the dict).
func (db *DB) expiredNow(key string, now int64) bool {
	if db.expires.Len() == 0 {
		return false
	}
	at, ok := db.expires.Get(key)
	return ok && at < now // as lookup
}

func keysCommand(c *Ctx) {
	pat := c.Args[1]
	all := len(pat) == 1 && pat[0] == '*'
	var out []string
	db := c.DB
	db.keys.Each(func(k string, _ Value) bool {
		if (all || glob.Match(pat, bview(k), false)) && !db.expiredNow(k, c.Now) {
			out = append(out, k)
		}
		return true
	})
	c.W.Array(len(out))
	for _, k := range out {
		c.W.BulkString(k)
	}
}

// parseCursor parses a SCAN cursor as Redis does with strtoul: an
// optional sign (a minus negates modulo 2^64), decimal digits, nothing
// else; an empty string is cursor 0.
func parseCursor(b []byte) (uint64, bool) {
	if len(b) > 0 && isSpaceByte(b[0]) {
		return 0, false
	}
	neg := false
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i == len(b) {
		// strtoul consumed nothing: the end pointer is the start, which
		// is the terminator only for an empty string.
		return 0, len(b) == 0
	}
	var n uint64
	for ; i < len(b); i++ {
		d := b[i]
		if d < '0' || d > '9' {
			return 0, false
		}
		if n > (math.MaxUint64-uint64(d-'0'))/10 {
			return 0, false
		}
		n = n*10 + uint64(d-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// ScanOptions are SCAN's MATCH/COUNT/TYPE, shared with the SCAN family.
type scanOptions struct {
	count   int64
	pattern []byte // nil matches everything
	typ     []byte // nil for any type
}

// parseScanOptions parses the options of SCAN from args[start:]; withType
// accepts TYPE (only SCAN itself has it).
func parseScanOptions(c *Ctx, start int, withType bool) (scanOptions, bool) {
	o := scanOptions{count: 10}
	for i := start; i < len(c.Args); {
		left := len(c.Args) - i
		switch {
		case c.ArgIs(i, "count") && left >= 2:
			n, ok := c.IntArg(i + 1)
			if !ok {
				return o, false
			}
			if n < 1 {
				c.W.Error(ErrSyntax)
				return o, false
			}
			o.count = n
		case c.ArgIs(i, "match") && left >= 2:
			p := c.Args[i+1]
			if len(p) == 1 && p[0] == '*' {
				o.pattern = nil
			} else {
				o.pattern = p
			}
		case c.ArgIs(i, "type") && withType && left >= 2:
			o.typ = c.Args[i+1]
		default:
			c.W.Error(ErrSyntax)
			return o, false
		}
		i += 2
	}
	return o, true
}

// scanDict scans d from cursor as Redis's scanGenericCommand does: bucket
// after bucket until count elements were gathered (before any MATCH
// filtering) or count*10 further buckets were visited. As there, count*10
// wraps for a huge count (to a negative number, which the loop counts
// down from without reaching 0 in practice: the scan runs to the end).
func scanDict[V any](d *dict.Dict[V], cursor uint64, count int64, fn func(k string, v V)) uint64 {
	maxIter := count * 10
	got := int64(0)
	for {
		cursor = d.Scan(cursor, func(k string, v V) {
			got++
			fn(k, v)
		})
		if cursor == 0 || maxIter == 0 || got >= count {
			return cursor
		}
		maxIter--
	}
}

func scanCommand(c *Ctx) {
	cursor, ok := parseCursor(c.Args[1])
	if !ok {
		c.W.Error(ErrInvalidCursor)
		return
	}
	o, ok := parseScanOptions(c, 2, true)
	if !ok {
		return
	}
	var found []string
	db := c.DB
	if db.keys.Len() > 0 {
		cursor = scanDict(db.keys, cursor, o.count, func(k string, _ Value) { found = append(found, k) })
	} else {
		cursor = 0
	}
	out := found[:0]
	for _, k := range found {
		if o.pattern != nil && !glob.Match(o.pattern, bview(k), false) {
			continue
		}
		v, live := db.lookup(c, k, false) // deletes the key if it expired; no access
		if !live {
			continue
		}
		if o.typ != nil && !EqualFold(o.typ, v.TypeName()) {
			continue
		}
		out = append(out, k)
	}
	c.W.Array(2)
	c.W.BulkString(strconv.FormatUint(cursor, 10))
	c.W.Array(len(out))
	for _, k := range out {
		c.W.BulkString(k)
	}
}

func randomkeyCommand(c *Ctx) {
	db := c.DB
	for {
		k, _, ok := db.keys.Random()
		if !ok {
			c.W.Null()
			return
		}
		if db.expiredNow(k, c.Now) {
			db.expireKey(c.E, k) // each round removes a key: bounded
			continue
		}
		c.W.BulkString(k)
		return
	}
}

// flushArgs parses FLUSHDB/FLUSHALL's optional ASYNC|SYNC. Go's collector
// frees the old tables either way, so both behave the same.
func flushArgs(c *Ctx) bool {
	if len(c.Args) == 1 || (len(c.Args) == 2 && (c.ArgIs(1, "async") || c.ArgIs(1, "sync"))) {
		return true
	}
	c.W.Error(ErrSyntax)
	return false
}

// touchWatchedExisting invalidates the WATCHes on keys of db that exist
// in db or in other (Redis 7.0's touchAllWatchedKeysInDb, db being
// emptied or swapped with other): watching a key that a flush or swap
// leaves absent is not a change, nor is deleting or swapping in a key
// that was already expired when WATCHed.
func (db *DB) touchWatchedExisting(other *DB, now int64) {
	for k, list := range db.watched {
		_, inDB := db.keys.Get(k)
		inOther := false
		if other != nil {
			_, inOther = other.keys.Get(k)
		}
		if !inDB && !inOther {
			continue
		}
		for _, wk := range list {
			if wk.expired {
				if !inOther {
					wk.expired = false // an expired key deleted: no change
					continue
				} else if other.expiredNow(k, now) {
					continue // an expired key stays expired
				}
			} else if !inDB && other.expiredNow(k, now) {
				wk.expired = true // an absent key replaced by an expired one
				continue
			}
			wk.cl.dirtyCAS = true
		}
	}
}

// flushOne empties db and returns how many keys it held.
func flushOne(db *DB) int {
	db.touchWatchedExisting(nil, NowMs())
	n := db.keys.Len()
	db.clearDicts()
	db.expireCursor = 0
	db.used = 0
	return n
}

func flushdbCommand(c *Ctx) {
	if !flushArgs(c) {
		return
	}
	c.E.signalDeletedStreams(c.DB, nil)
	n := flushOne(c.DB)
	if len(c.E.observers) > 0 {
		c.E.notify(KeyEvent{DB: c.DB.ID, Event: "flushdb"})
	}
	c.Dirty(max(n, 1)) // always logged, even when already empty
	c.W.OK()
}

func flushallCommand(c *Ctx) {
	if !flushArgs(c) {
		return
	}
	n := 0
	for _, db := range c.E.dbs {
		c.E.signalDeletedStreams(db, nil)
		n += flushOne(db)
		if len(c.E.observers) > 0 {
			c.E.notify(KeyEvent{DB: db.ID, Event: "flushdb"})
		}
	}
	c.Dirty(max(n, 1))
	c.W.OK()
}

func swapdbCommand(c *Ctx) {
	id1, ok := dbIndexArg(c, 1, ErrSwapFirstIndex)
	if !ok {
		return
	}
	id2, ok := dbIndexArg(c, 2, ErrSwapSecondIndex)
	if !ok {
		return
	}
	if !c.validDB(id1) || !c.validDB(id2) {
		c.W.Error(ErrDBIndex)
		return
	}
	if id1 != id2 {
		e := c.E
		a, b := e.dbs[id1], e.dbs[id2]
		e.signalDeletedStreams(a, b)
		e.signalDeletedStreams(b, a)
		a.touchWatchedExisting(b, c.Now)
		b.touchWatchedExisting(a, c.Now)
		a.keys, b.keys = b.keys, a.keys
		a.expires, b.expires = b.expires, a.expires
		a.expireCursor, b.expireCursor = b.expireCursor, a.expireCursor
		a.used, b.used = b.used, a.used
		if len(e.observers) > 0 {
			e.notify(KeyEvent{DB: id1, Other: id2, Event: "swapdb"})
		}
		// Clients blocked on a key that the swap brought in can now be served.
		for bk := range e.blocked {
			if bk.db != id1 && bk.db != id2 || e.readySet[bk] {
				continue
			}
			db := e.dbs[bk.db]
			if v, ok := db.keys.Get(bk.key); ok && !db.expiredNow(bk.key, c.Now) {
				switch v.TypeName() {
				case "list", "zset", "stream":
					e.readySet[bk] = true
					e.readyKeys = append(e.readyKeys, bk)
				}
			}
		}
	}
	c.Dirty(1)
	c.W.OK()
}
