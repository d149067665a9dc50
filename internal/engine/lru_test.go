package engine_test

import (
	"testing"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/redistest"
)

// TestLFUCounts: under an LFU policy with lfu-log-factor 0 (every access
// counts) and no decay, OBJECT FREQ counts exactly the accesses Redis
// counts: reads and writes touch a key, TYPE, EXISTS, TTL, OBJECT, SCAN
// and KEYS do not, TOUCH does; an overwritten value keeps the counter,
// RENAME and MOVE carry it, a copy starts afresh. (String values, not
// the integers 0..9999, which Redis shares along with their counter.)
func TestLFUCounts(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
	d.Do("CONFIG", "SET", "lfu-log-factor", "0")
	d.Do("CONFIG", "SET", "lfu-decay-time", "0")
	defer func() {
		d.Do("CONFIG", "SET", "maxmemory-policy", "noeviction")
		d.Do("CONFIG", "SET", "lfu-log-factor", "10")
		d.Do("CONFIG", "SET", "lfu-decay-time", "1")
	}()
	freq := func(keys ...string) {
		t.Helper()
		for _, k := range keys {
			d.Do("OBJECT", "FREQ", k)
		}
	}
	d.Do("SET", "a", "v")
	freq("a")
	d.Do("GET", "a")
	d.Do("GET", "a")
	freq("a")
	for _, args := range [][]string{
		{"EXISTS", "a"}, {"TYPE", "a"}, {"TTL", "a"}, {"PTTL", "a"}, {"EXPIRETIME", "a"},
		{"OBJECT", "ENCODING", "a"}, {"OBJECT", "REFCOUNT", "a"}, {"SCAN", "0"}, {"KEYS", "*"},
		{"DBSIZE"}, {"RANDOMKEY"},
	} {
		d.Do(args...)
		freq("a")
	}
	for _, args := range [][]string{
		{"TOUCH", "a", "a"}, {"APPEND", "a", "x"}, {"SET", "a", "w"}, {"SET", "a", "w", "NX"},
		{"SET", "a", "w2", "GET"}, {"STRLEN", "a"}, {"GETRANGE", "a", "0", "1"}, {"MGET", "a", "a", "nokey"},
		{"EXPIRE", "a", "100"}, {"PERSIST", "a"}, {"GETEX", "a"}, {"SETRANGE", "a", "1", "z"},
		{"MSET", "a", "m", "b", "m"}, {"MSETNX", "a", "m", "c", "m"}, {"LCS", "a", "b"},
		{"GETSET", "a", "gs"}, {"SETEX", "a", "100", "x"}, {"SETNX", "a", "y"}, {"INCRBYFLOAT", "b", "1.5"},
	} {
		d.Do(args...)
		freq("a", "b")
	}
	d.Do("RENAME", "a", "r")
	freq("r")
	d.Do("COPY", "r", "c2")
	freq("r", "c2")
	d.Do("MOVE", "r", "1")
	d.Do("SELECT", "1")
	freq("r")
	d.Do("RENAMENX", "r", "r2")
	freq("r2")
	d.Do("SELECT", "0")
	// Collections: created, written, read.
	d.Do("HSET", "h", "f", "v")
	d.Do("HSET", "h", "f", "v2")
	d.Do("HGET", "h", "f")
	d.Do("HGETALL", "h")
	d.Do("HLEN", "h")
	d.Do("HDEL", "h", "nofield")
	freq("h")
	d.Do("RPUSH", "l", "x", "y")
	d.Do("LRANGE", "l", "0", "-1")
	d.Do("LPOP", "l")
	freq("l")
	d.Do("SADD", "s", "m1", "m2")
	d.Do("SISMEMBER", "s", "m1")
	d.Do("SINTERSTORE", "s2", "s", "s")
	freq("s", "s2")
	d.Do("SINTERSTORE", "s2", "s", "s")
	freq("s", "s2")
	d.Do("ZADD", "z", "1", "m")
	d.Do("ZSCORE", "z", "m")
	d.Do("ZUNIONSTORE", "z2", "1", "z")
	d.Do("ZRANGESTORE", "z2", "z", "0", "-1")
	freq("z", "z2")
	d.Do("GEOADD", "g", "13.361389", "38.115556", "p")
	d.Do("GEOSEARCHSTORE", "g2", "g", "FROMMEMBER", "p", "BYRADIUS", "10", "km")
	d.Do("GEOSEARCHSTORE", "g2", "g", "FROMMEMBER", "p", "BYRADIUS", "10", "km")
	freq("g", "g2")
	// SORT reads the sorted key and every weight and GET key.
	d.Do("RPUSH", "sl", "x", "y")
	d.Do("MSET", "w_x", "wx", "w_y", "wy", "g_x", "gx")
	d.Do("SORT", "sl", "BY", "w_*", "ALPHA", "GET", "g_*", "GET", "#")
	freq("sl", "w_x", "w_y", "g_x")
	d.Do("SET", "dst", "old")
	d.Do("SORT", "sl", "ALPHA", "STORE", "dst")
	freq("dst", "sl")
	// In a transaction and a script.
	d.Do("MULTI")
	d.Do("GET", "c2")
	d.Do("GET", "c2")
	d.Do("EXEC")
	d.Do("EVAL", "redis.call('GET', KEYS[1]); return redis.call('OBJECT', 'FREQ', KEYS[1])", "1", "c2")
	freq("c2")
	d.Do("DEBUG", "DIGEST-VALUE", "c2")
	d.Do("MEMORY", "USAGE", "c2")
	freq("c2")
	// Keys written before the policy changed: their clock is read as a
	// counter in both, which Redis warns about; only a fresh key compares.
	d.Do("SET", "fresh", "v")
	d.DoShape("OBJECT", "IDLETIME", "fresh")
	freq("fresh")
}

// TestLRUIdle: under other policies OBJECT IDLETIME counts seconds since
// the last access, 0 right after one; OBJECT FREQ is refused.
func TestLRUIdle(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SET", "a", "v")
	d.DoShape("OBJECT", "IDLETIME", "a")
	d.Do("OBJECT", "FREQ", "a")
	d.Do("OBJECT", "IDLETIME", "nokey")
	d.Do("DEBUG", "SLEEP", "0")
	d.DoShape("DEBUG", "OBJECT", "a")
}

// TestNoTouchClient: a client in CLIENT NO-TOUCH mode (Redis 7.2) reads
// without counting an access, except with TOUCH.
func TestNoTouchClient(t *testing.T) {
	e := engine.New(nil)
	defer e.Close()
	cl := e.NewClient("embedded")
	do := func(args ...string) string { return callRaw(e, cl, args...) }
	do("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
	do("CONFIG", "SET", "lfu-log-factor", "0")
	do("CONFIG", "SET", "lfu-decay-time", "0")
	do("SET", "k", "v")
	do("GET", "k")
	if got := do("OBJECT", "FREQ", "k"); got != ":6\r\n" {
		t.Fatalf("FREQ after one GET: %q", got)
	}
	do("CLIENT", "NO-TOUCH", "ON")
	do("GET", "k")
	do("HGET", "k", "f") // WRONGTYPE, but a lookup all the same
	if got := do("OBJECT", "FREQ", "k"); got != ":6\r\n" {
		t.Fatalf("FREQ after reads in NO-TOUCH mode: %q", got)
	}
	do("TOUCH", "k")
	if got := do("OBJECT", "FREQ", "k"); got != ":7\r\n" {
		t.Fatalf("FREQ after TOUCH in NO-TOUCH mode: %q", got)
	}
	do("CLIENT", "NO-TOUCH", "OFF")
	do("GET", "k")
	if got := do("OBJECT", "FREQ", "k"); got != ":8\r\n" {
		t.Fatalf("FREQ after GET: %q", got)
	}
}

// TestRestoreIdleFreq: RESTORE's IDLETIME sets what OBJECT IDLETIME
// reports, FREQ (under an LFU policy) what OBJECT FREQ reports.
func TestRestoreIdleFreq(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SET", "src", "value")
	payload := d.Do("DUMP", "src").Str
	d.Do("RESTORE", "k", "0", payload, "IDLETIME", "1000")
	// Whole seconds: a second may tick between RESTORE and the reply.
	for name, c := range map[string]*redistest.Conn{"redis": d.Redis, "ordo": d.Ordo} {
		if n := c.Do("OBJECT", "IDLETIME", "k").Int; n < 1000 || n > 1001 {
			t.Errorf("%s: IDLETIME %d after RESTORE ... IDLETIME 1000", name, n)
		}
	}
	d.Do("RESTORE", "k2", "0", payload, "FREQ", "7") // no effect without LFU
	d.DoShape("OBJECT", "IDLETIME", "k2")
	d.Do("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
	d.Do("CONFIG", "SET", "lfu-decay-time", "0")
	defer func() {
		d.Do("CONFIG", "SET", "maxmemory-policy", "noeviction")
		d.Do("CONFIG", "SET", "lfu-decay-time", "1")
	}()
	d.Do("RESTORE", "k3", "0", payload, "FREQ", "100")
	d.Do("OBJECT", "FREQ", "k3")
	d.Do("RESTORE", "k4", "0", payload, "FREQ", "0")
	d.Do("OBJECT", "FREQ", "k4")
	d.Do("RESTORE", "k5", "0", payload, "IDLETIME", "5") // no effect with LFU
	d.Do("OBJECT", "FREQ", "k5")
	d.Do("RESTORE", "k3", "0", payload, "FREQ", "255", "REPLACE")
	d.Do("OBJECT", "FREQ", "k3")
}
