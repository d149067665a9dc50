package engine

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// DEBUG, OBJECT and MEMORY: introspection of values and of memory use.

func registerDebug(t *Table) {
	t.register("debug", debugCommand)

	t.registerContainer("object")
	t.register("object|encoding", func(c *Ctx) {
		v, ok := c.LookupNoTouch(c.Args[2])
		if !ok {
			c.W.Null()
			return
		}
		c.W.BulkString(valueEncoding(v))
	})
	t.register("object|refcount", func(c *Ctx) {
		v, ok := c.LookupNoTouch(c.Args[2])
		if !ok {
			c.W.Null()
			return
		}
		c.W.Int(c.E.refcount(v))
	})
	t.register("object|idletime", func(c *Ctx) {
		if _, ok := c.LookupNoTouch(c.Args[2]); !ok {
			c.W.Null()
			return
		}
		if c.E.Config.LFU() {
			c.W.Error(ErrLRUNotSelected)
			return
		}
		c.W.Int(c.idleMs(c.DB.keyMeta(view(c.Args[2]))) / 1000)
	})
	t.register("object|freq", func(c *Ctx) {
		if _, ok := c.LookupNoTouch(c.Args[2]); !ok {
			c.W.Null()
			return
		}
		if !c.E.Config.LFU() {
			c.W.Error(ErrLFUNotSelected)
			return
		}
		c.W.Int(int64(c.lfuDecr(c.DB.keyMeta(view(c.Args[2])))))
	})
	t.register("object|help", func(c *Ctx) {
		helpReply(c, "OBJECT",
			"ENCODING <key>",
			"    Return the kind of internal representation used in order to store the value",
			"    associated with a <key>.",
			"FREQ <key>",
			"    Return the access frequency index of the <key>. The returned integer is",
			"    proportional to the logarithm of the recent access frequency of the key.",
			"IDLETIME <key>",
			"    Return the idle time of the <key>, that is the approximated number of",
			"    seconds elapsed since the last access to the key.",
			"REFCOUNT <key>",
			"    Return the number of references of the value associated with the specified",
			"    <key>.")
	})

	t.registerContainer("memory")
	t.register("memory|usage", memoryUsageCommand)
	t.register("memory|stats", memoryStatsCommand)
	t.register("memory|doctor", func(c *Ctx) {
		c.W.Verbatim("txt", "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.")
	})
	t.register("memory|malloc-stats", func(c *Ctx) {
		c.W.Verbatim("txt", "Stats not supported for the current allocator")
	})
	t.register("memory|purge", func(c *Ctx) {
		debug.FreeOSMemory()
		c.W.OK()
	})
	t.register("memory|help", func(c *Ctx) {
		helpReply(c, "MEMORY",
			"DOCTOR",
			"    Return memory problems reports.",
			"MALLOC-STATS",
			"    Return internal statistics report from the memory allocator.",
			"PURGE",
			"    Attempt to purge dirty pages for reclamation by the allocator.",
			"STATS",
			"    Return information about the memory usage of the server.",
			"USAGE <key> [SAMPLES <count>]",
			"    Return memory in bytes used by <key> and its value. Nested values are",
			"    sampled up to <count> times (default: 5, 0 means sample all).")
	})
}

// ActiveExpireEnabled reports whether the active expiry cycle runs
// (DEBUG SET-ACTIVE-EXPIRE).
func (e *Engine) ActiveExpireEnabled() bool { return !e.activeExpireOff.Load() }

// valueEncoding is OBJECT ENCODING's reply for v.
func valueEncoding(v Value) string {
	if v.isString() {
		return valueStringEncoding(v)
	}
	if t, ok := v.o.(Typed); ok {
		return t.Encoding()
	}
	return "unknown"
}

// sharedInt reports whether s is one of the integers 0..9999, which Redis
// stores as shared objects.
func sharedInt(s string) bool {
	if stringEncoding(s) != "int" {
		return false
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n >= 0 && n < 10000
}

// refcount is OBJECT REFCOUNT of the value v: Redis shares the integers
// 0..9999 (with refcount INT_MAX) unless an LRU/LFU policy needs per-key
// metadata, and except where the value is a copy (rawString).
func (e *Engine) refcount(v Value) int64 {
	if v.o == nil && sharedInt(v.s) {
		policy := e.Config.Get("maxmemory-policy")
		shareable := e.Config.Int("maxmemory") == 0 || !(strings.HasSuffix(policy, "-lru") || strings.HasSuffix(policy, "-lfu"))
		if shareable {
			return 2147483647
		}
	}
	return 1
}

// jemallocSize rounds n up to jemalloc's size classes, so that MEMORY
// USAGE of strings comes out as Redis's.
func jemallocSize(n int64) int64 {
	if n <= 8 {
		return 8
	}
	if n <= 128 {
		return (n + 15) / 16 * 16
	}
	// Four classes per doubling above 128.
	p := int64(128)
	for p*2 < n {
		p *= 2
	}
	step := p / 4
	return (n + step - 1) / step * step
}

// keyMemoryUsage is MEMORY USAGE's estimate for key holding v.
func keyMemoryUsage(key string, v Value) int64 {
	var size int64
	if v.isString() {
		switch valueStringEncoding(v) {
		case "int":
			size = 16
		case "embstr":
			size = jemallocSize(16 + 3 + int64(len(v.s)) + 1)
		default:
			size = 16 + jemallocSize(sdsHeader(len(v.s))+int64(len(v.s))+1)
		}
	} else if t, ok := v.o.(Typed); ok {
		size = t.MemoryUsage()
	}
	return size + jemallocSize(sdsHeader(len(key))+int64(len(key))+1) + 24
}

func sdsHeader(n int) int64 {
	switch {
	case n < 1<<5:
		return 1
	case n < 1<<8:
		return 3
	case n < 1<<16:
		return 5
	case int64(n) < 1<<32:
		return 9
	}
	return 17
}

func memoryUsageCommand(c *Ctx) {
	for i := 3; i < len(c.Args); i++ {
		if c.ArgIs(i, "samples") && i+1 < len(c.Args) {
			n, ok := ParseInt(c.Args[i+1])
			if !ok {
				c.W.Error(ErrNotInteger)
				return
			}
			if n < 0 {
				c.W.Error(ErrSyntax)
				return
			}
			i++
			continue
		}
		c.W.Error(ErrSyntax)
		return
	}
	v, ok := c.LookupNoTouch(c.Args[2])
	if !ok {
		c.W.Null()
		return
	}
	c.W.Int(keyMemoryUsage(string(c.Args[2]), v))
}

func memoryStatsCommand(c *Ctx) {
	e := c.E
	used := e.UsedMemory()
	peak := e.peakMemory(used)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss := int64(ms.Sys - ms.HeapReleased)
	keys := 0
	var dbs []*DB
	for _, db := range c.E.dbs {
		if db.Len() > 0 {
			keys += db.Len()
			dbs = append(dbs, db)
		}
	}
	w := c.W
	pair := func(k string, v int64) {
		w.BulkString(k)
		w.Int(v)
	}
	ratio := func(k string, v float64) {
		w.BulkString(k)
		w.Double(v)
	}
	w.Map(27 + len(dbs))
	pair("peak.allocated", peak)
	pair("total.allocated", used)
	pair("startup.allocated", 0)
	pair("replication.backlog", 0)
	pair("clients.slaves", 0)
	pair("clients.normal", 0)
	pair("cluster.links", 0)
	pair("aof.buffer", 0)
	pair("lua.caches", 0)
	pair("functions.caches", 0)
	var overhead int64
	for _, db := range dbs {
		w.BulkString(fmt.Sprintf("db.%d", db.ID))
		w.Map(3)
		main, exp := db.keys.Overhead(), db.expires.Overhead()
		overhead += main + exp
		pair("overhead.hashtable.main", main)
		pair("overhead.hashtable.expires", exp)
		pair("overhead.hashtable.slot-to-keys", 0)
	}
	pair("overhead.total", overhead)
	pair("keys.count", int64(keys))
	if keys > 0 {
		pair("keys.bytes-per-key", used/int64(keys))
	} else {
		pair("keys.bytes-per-key", 0)
	}
	pair("dataset.bytes", used-overhead)
	ratio("dataset.percentage", float64(used-overhead)*100/float64(max(used, 1)))
	ratio("peak.percentage", float64(used)*100/float64(max(peak, 1)))
	pair("allocator.allocated", used)
	pair("allocator.active", int64(ms.HeapInuse))
	pair("allocator.resident", rss)
	ratio("allocator-fragmentation.ratio", float64(ms.HeapInuse)/float64(max(used, 1)))
	pair("allocator-fragmentation.bytes", int64(ms.HeapInuse)-used)
	ratio("allocator-rss.ratio", float64(rss)/float64(max(int64(ms.HeapInuse), 1)))
	pair("allocator-rss.bytes", rss-int64(ms.HeapInuse))
	ratio("rss-overhead.ratio", 1)
	pair("rss-overhead.bytes", 0)
	ratio("fragmentation", float64(rss)/float64(max(used, 1)))
	pair("fragmentation.bytes", rss-used)
}

func debugAllowed(c *Ctx) bool {
	switch c.E.Config.Get("enable-debug-command") {
	case "yes":
		return true
	case "local":
		return isLocalClient(c.Client)
	}
	return false
}

func debugCommand(c *Ctx) {
	if !debugAllowed(c) {
		c.W.Error(ErrDebugNotAllowed)
		return
	}
	sub := strings.ToLower(string(c.Args[1]))
	n := len(c.Args)
	switch {
	case sub == "help" && n == 2:
		helpReply(c, "DEBUG",
			"DIGEST",
			"    Output a hex signature representing the current DB content.",
			"DIGEST-VALUE <key> [<key> ...]",
			"    Output a hex signature of the values of all the specified keys.",
			"OBJECT <key>",
			"    Show low level info about the <key> and associated value.",
			"RELOAD [MERGE] [NOFLUSH] [NOSAVE]",
			"    Save the dataset and reload it from disk.",
			"SET-ACTIVE-EXPIRE <0|1>",
			"    Setting it to 0 disables expiring keys in background when they are not",
			"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
			"    default.",
			"SLEEP <seconds>",
			"    Stop the server for <seconds>. Decimals allowed.")
	case sub == "digest" && n == 2:
		c.W.Simple(c.E.datasetDigest())
	case sub == "digest-value" && n >= 2:
		c.W.Array(n - 2)
		for _, k := range c.Args[2:] {
			c.W.Simple(c.DB.digestValue(view(k)))
		}
	case sub == "sleep" && n == 3:
		f, ok := parseFloatArg(c.Args[2])
		if !ok {
			f = 0 // Redis uses atof: garbage sleeps 0 seconds
		}
		if f > 0 {
			time.Sleep(time.Duration(f * float64(time.Second)))
		}
		c.W.OK()
	case sub == "object" && n == 3:
		v, ok := c.LookupNoTouch(c.Args[2])
		if !ok {
			c.W.Error(ErrNoSuchKey)
			return
		}
		extra := ""
		if v.o != nil {
			if t, ok := v.o.(Typed); ok && t.Encoding() == "quicklist" {
				extra = fmt.Sprintf(" ql_nodes:1 ql_avg_node:%.2f ql_listpack_max:%s ql_compressed:0 ql_uncompressed_size:%d",
					float64(t.Len()), c.E.Config.Get("list-max-listpack-size"), t.MemoryUsage())
			}
		}
		meta := c.DB.keyMeta(view(c.Args[2]))
		c.W.Simple(fmt.Sprintf("Value at:0x%x refcount:%d encoding:%s serializedlength:%d lru:%d lru_seconds_idle:%d%s",
			0xc000000000+int64(len(c.Args[2]))*64, c.E.refcount(v), valueEncoding(v), serializedLength(v),
			meta&lruClockMax, c.idleMs(meta)/1000, extra))
	case sub == "set-active-expire" && n == 3:
		v, ok := ParseInt(c.Args[2])
		if !ok {
			v = 0
		}
		c.E.activeExpireOff.Store(v == 0)
		c.W.OK()
	case sub == "reload":
		for _, a := range c.Args[2:] {
			switch strings.ToLower(string(a)) {
			case "merge", "noflush", "nosave":
			default:
				c.W.Error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.")
				return
			}
		}
		p := c.E.Persistence
		if p == nil {
			c.W.Error("ERR DEBUG RELOAD is not available: persistence is not configured")
			return
		}
		if err := p.Reload(); err != nil {
			c.W.Error("ERR Error trying to load the RDB dump: " + err.Error())
			return
		}
		c.W.OK()
	default:
		c.W.Error(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%s'. Try DEBUG HELP.", truncate(string(c.Args[1]), 128)))
	}
}

// serializedLength approximates DEBUG OBJECT's serializedlength.
func serializedLength(v Value) int64 {
	if v.isString() {
		if valueStringEncoding(v) == "int" {
			n, _ := strconv.ParseInt(v.s, 10, 64)
			switch {
			case n >= -(1<<7) && n < 1<<7:
				return 2
			case n >= -(1<<15) && n < 1<<15:
				return 3
			case n >= -(1<<31) && n < 1<<31:
				return 5
			}
		}
		l := int64(len(v.s))
		switch {
		case l < 1<<6:
			return l + 1
		case l < 1<<14:
			return l + 2
		}
		return l + 5
	}
	if t, ok := v.o.(Typed); ok {
		return t.MemoryUsage()
	}
	return 0
}
