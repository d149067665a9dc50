package engine

// DUMP and RESTORE, with Redis 7.0's payloads: the value serialized as
// in an RDB file (internal/rdb), the RDB version (10) and a CRC64. A
// payload dumped by redis-server restores here and one dumped here
// restores into redis-server; small strings, intsets and listpacks
// match Redis's bytes exactly.
//
// ReJSON-RL values are refused by DUMP: RedisJSON serializes them with
// its own module encoding, which Ordo does not write. Payloads holding
// module values are refused by RESTORE ("Bad data format"). Streams
// travel as Redis's RDB_TYPE_STREAM_LISTPACKS_2 (version 1 is read too).
// IDLETIME and FREQ set the key's access clock or LFU counter (lru.go),
// as Redis's objectSetLRUOrLFU.

import (
	"math"
	"strconv"

	"github.com/ordo-db/ordo/internal/rdb"
)

// DUMP/RESTORE error replies, exactly as Redis 7.0 writes them.
const (
	ErrDumpPayload     = "ERR DUMP payload version or checksum are wrong"
	ErrBadDataFormat   = "ERR Bad data format"
	ErrBusyKey         = "BUSYKEY Target key name already exists."
	ErrInvalidTTL      = "ERR Invalid TTL value, must be >= 0"
	ErrInvalidIdletime = "ERR Invalid IDLETIME value, must be >= 0"
	ErrInvalidFreq     = "ERR Invalid FREQ value, must be >= 0 and <= 255"
	ErrDumpUnsupported = "ERR DUMP is not supported for ReJSON-RL values"
)

func registerDump(t *Table) {
	t.register("dump", dumpCommand)
	t.register("restore", restoreCommand)
}

func dumpCommand(c *Ctx) {
	v, ok := c.Lookup(c.Args[1])
	if !ok {
		c.W.Null()
		return
	}
	rv, ok := toRDB(v)
	if !ok {
		c.W.Error(ErrDumpUnsupported)
		return
	}
	c.W.Bulk(rdb.Dump(rv, c.E.Config.Bool("rdbcompression")))
}

func restoreCommand(c *Ctx) {
	replace, absttl := false, false
	idle, freq := int64(-1), int64(-1)
	for j := 4; j < len(c.Args); j++ {
		more := len(c.Args) - j - 1
		switch {
		case c.ArgIs(j, "replace"):
			replace = true
		case c.ArgIs(j, "absttl"):
			absttl = true
		case c.ArgIs(j, "idletime") && more >= 1 && freq == -1:
			n, ok := c.IntArg(j + 1)
			if !ok {
				return
			}
			if n < 0 {
				c.W.Error(ErrInvalidIdletime)
				return
			}
			idle = n
			j++
		case c.ArgIs(j, "freq") && more >= 1 && idle == -1:
			n, ok := c.IntArg(j + 1)
			if !ok {
				return
			}
			if n < 0 || n > 255 {
				c.W.Error(ErrInvalidFreq)
				return
			}
			freq = n
			j++
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	key := c.Args[1]
	if !replace && c.Exists(key) {
		c.W.Error(ErrBusyKey)
		return
	}
	ttl, ok := c.IntArg(2)
	if !ok {
		return
	}
	if ttl < 0 {
		c.W.Error(ErrInvalidTTL)
		return
	}
	if !rdb.VerifyPayload(c.Args[3]) {
		c.W.Error(ErrDumpPayload)
		return
	}
	rv, err := rdb.DecodeValue(c.Args[3])
	if err != nil {
		c.W.Error(ErrBadDataFormat)
		return
	}
	v := fromRDB(c.E, rv)
	deleted := replace && c.Delete(key)
	if ttl != 0 && !absttl {
		ttl += c.Now
	}
	if ttl != 0 && ttl <= c.Now {
		// Already expired: the key is not created (and an old one,
		// replaced, is gone).
		if deleted {
			c.Propagate([]byte("DEL"), key)
			c.Dirty(1)
		}
		c.W.OK()
		return
	}
	c.Add(key, v)
	c.restoreMeta(key, freq, idle)
	if ttl != 0 {
		// As Redis's setExpire: no "expire" event, only "restore".
		c.DB.expires.Set(view(key), ttl)
		if !absttl {
			// Propagated with the absolute expiry, as Redis does.
			args := append([][]byte{}, c.Args...)
			args[2] = strconv.AppendInt(nil, ttl, 10)
			c.Propagate(append(args, []byte("ABSTTL"))...)
		}
	}
	c.Dirty(1)
	c.W.OK()
}

// toRDB converts an engine value for serialization; ok is false for
// values Ordo cannot serialize (JSON).
func toRDB(v Value) (*rdb.Value, bool) {
	if v.isString() { // raw-encoded strings (bitmaps, appended) too
		return &rdb.Value{Kind: rdb.KindString, Str: []byte(v.s)}, true
	}
	switch o := v.o.(type) {
	case *Hash:
		rv := &rdb.Value{Kind: rdb.KindHash, Compact: o.ht == nil, Elems: make([][]byte, 0, 2*o.Len())}
		o.each(func(f, val string) bool {
			rv.Elems = append(rv.Elems, []byte(f), []byte(val))
			return true
		})
		return rv, true
	case *Set:
		rv := &rdb.Value{Kind: rdb.KindSet, Compact: o.ht == nil, Elems: make([][]byte, 0, o.Len())}
		o.each(func(m string) bool {
			rv.Elems = append(rv.Elems, []byte(m))
			return true
		})
		return rv, true
	case *ZSet:
		n := o.Len()
		rv := &rdb.Value{Kind: rdb.KindZSet, Compact: !o.s.Indexed(), Elems: make([][]byte, 0, n), Scores: make([]float64, 0, n)}
		o.s.Range(0, false, func(m []byte, score float64) bool {
			rv.Elems = append(rv.Elems, append([]byte(nil), m...))
			rv.Scores = append(rv.Scores, score)
			return true
		})
		return rv, true
	case *List:
		n := o.Len()
		rv := &rdb.Value{Kind: rdb.KindList, Elems: make([][]byte, n)}
		for i := 0; i < n; i++ {
			rv.Elems[i] = append([]byte(nil), o.BytesAt(i)...)
		}
		return rv, true
	case *Stream:
		return streamToRDB(o), true
	}
	return nil, false
}

// fromRDB builds the engine value of a decoded one (non-empty, with
// unique members: the decoder checks both), choosing the encodings Redis
// 7.0's rdbLoadObject chooses with the current configuration: a compact
// hash or sorted set stays a listpack unless it has more entries than
// the *-max-listpack-entries limit; a hashtable hash becomes a listpack
// when its size and values allow; a skiplist sorted set likewise; a set
// is an intset while its members are integers within
// set-max-intset-entries.
func fromRDB(e *Engine, rv *rdb.Value) Value {
	switch rv.Kind {
	case rdb.KindString:
		return StringValue(string(rv.Str))
	case rdb.KindList:
		l := NewList()
		for _, el := range rv.Elems {
			l.PushBack(string(el))
		}
		return ObjectValue(l)
	case rdb.KindSet:
		s := &Set{}
		max := e.Config.Int("set-max-intset-entries")
		if int64(len(rv.Elems)) > max {
			s.convert()
		}
		for _, m := range rv.Elems {
			s.add(string(m), max)
		}
		return ObjectValue(s)
	case rdb.KindHash:
		h := &Hash{}
		lim := hsLimits{e.Config.Int("hash-max-listpack-entries"), e.Config.Int("hash-max-listpack-value")}
		if rv.Compact {
			lim.value = math.MaxInt64
		}
		if int64(len(rv.Elems)/2) > lim.entries {
			h.convert()
		}
		for i := 0; i+1 < len(rv.Elems); i += 2 {
			h.set(lim, rv.Elems[i], rv.Elems[i+1])
		}
		return ObjectValue(h)
	case rdb.KindZSet:
		lim := zsetLimits{int(e.Config.Int("zset-max-listpack-entries")), int(e.Config.Int("zset-max-listpack-value")), e.acct}
		maxLen := 0
		if rv.Compact {
			lim.value = math.MaxInt
		} else {
			for _, m := range rv.Elems {
				maxLen = max(maxLen, len(m))
			}
		}
		if len(rv.Elems) > lim.entries || maxLen > lim.value {
			// The large form, built whole when the payload lists the
			// members in order (as every RDB writer does).
			z := &ZSet{}
			if z.s.LoadSorted(lim.acct, len(rv.Elems), func(i int) []byte { return rv.Elems[i] },
				func(i int) float64 { return rv.Scores[i] }) {
				return ObjectValue(z)
			}
		}
		z := newZSet(lim, len(rv.Elems), maxLen)
		for i, m := range rv.Elems {
			z.insert(lim, m, rv.Scores[i])
		}
		return ObjectValue(z)
	case rdb.KindStream:
		return ObjectValue(streamFromRDB(e, rv.Stream))
	}
	return Value{}
}
