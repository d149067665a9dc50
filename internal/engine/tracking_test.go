package engine_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// Client-side caching (CLIENT TRACKING), compared with redis-server frame
// by frame: replies, errors and invalidation pushes.

// ids returns the CLIENT ID of each side of a twin.
func (tw *twin) ids() (r, o string) {
	tw.t.Helper()
	return strconv.FormatInt(tw.r.Do("CLIENT", "ID").Int, 10), strconv.FormatInt(tw.o.Do("CLIENT", "ID").Int, 10)
}

// hello switches both connections' protocol (the replies carry
// different client IDs).
func (tw *twin) hello(proto string) {
	tw.r.DoRaw("HELLO", proto)
	tw.o.DoRaw("HELLO", proto)
}

// doEach sends a command whose arguments differ between the two sides
// (client IDs) and compares n frames.
func (tw *twin) doEach(n int, rargs, oargs []string) {
	tw.t.Helper()
	tw.r.Send(rargs...)
	tw.o.Send(oargs...)
	tw.read(strings.Join(rargs, " "), n)
}

func TestTrackingErrors(t *testing.T) {
	r, o := redistest.Shared(t)
	for _, proto := range []string{"2", "3"} {
		tw := newTwin(t, r.Addr, o.Addr)
		tw.hello(proto)
		for _, c := range [][]string{
			{"CLIENT", "CACHING", "yes"},
			{"CLIENT", "GETREDIR"},
			{"CLIENT", "TRACKINGINFO"},
			{"CLIENT", "TRACKING", "maybe"},
			{"CLIENT", "TRACKING", "on", "nosuch"},
			{"CLIENT", "TRACKING", "on", "redirect"},
			{"CLIENT", "TRACKING", "on", "redirect", "x"},
			{"CLIENT", "TRACKING", "on", "redirect", "99999999"},
			{"CLIENT", "TRACKING", "on", "prefix", "foo"},
			{"CLIENT", "TRACKING", "on", "bcast", "optin"},
			{"CLIENT", "TRACKING", "on", "bcast", "optout"},
			{"CLIENT", "TRACKING", "on", "optin", "optout"},
			{"CLIENT", "TRACKING", "on", "bcast", "prefix", "fo", "prefix", "foo"},
			{"CLIENT", "TRACKING", "on", "bcast", "prefix", "foo", "prefix", "fo"},
			{"CLIENT", "TRACKING", "on", "bcast", "prefix", "a", "prefix", ""},
			{"CLIENT", "TRACKING", "on", "optin"},
			{"CLIENT", "TRACKINGINFO"},
			{"CLIENT", "CACHING", "no"},
			{"CLIENT", "CACHING", "maybe"},
			{"CLIENT", "CACHING", "yes"},
			{"CLIENT", "TRACKINGINFO"},
			{"CLIENT", "TRACKING", "on", "optout"},
			{"CLIENT", "TRACKING", "on", "bcast"},
			{"CLIENT", "TRACKING", "on", "optin", "noloop"},
			{"CLIENT", "TRACKINGINFO"},
			{"CLIENT", "GETREDIR"},
			{"CLIENT", "TRACKING", "off"},
			{"CLIENT", "TRACKING", "on", "optout"},
			{"CLIENT", "CACHING", "yes"},
			{"CLIENT", "CACHING", "no"},
			{"CLIENT", "TRACKINGINFO"},
			{"CLIENT", "TRACKING", "off"},
			{"CLIENT", "TRACKING", "on", "bcast", "prefix", "foo", "prefix", "bar"},
			{"CLIENT", "TRACKINGINFO"},
			{"CLIENT", "TRACKING", "on", "bcast", "prefix", "fooz"},
			{"CLIENT", "TRACKING", "on", "bcast", "prefix", "ba"},
			{"CLIENT", "TRACKING", "on", "bcast", "prefix", "baz"},
			{"CLIENT", "TRACKINGINFO"},
			{"CLIENT", "TRACKING", "on"},
			{"CLIENT", "TRACKING", "off"},
			{"CLIENT", "TRACKINGINFO"},
			{"CLIENT", "GETREDIR"},
			{"CLIENT", "TRACKING", "on", "optin", "noloop"},
			{"CLIENT", "CACHING", "yes"},
			{"CLIENT", "TRACKINGINFO"},
			{"RESET"},
			{"CLIENT", "TRACKINGINFO"},
		} {
			tw.do(1, c...)
		}
	}
}

// RESP3: a tracked key changed by another client is invalidated with a
// push; a client's own change comes after its reply; NOLOOP skips it;
// a key is invalidated once until read again.
func TestTrackingRESP3Invalidation(t *testing.T) {
	r, o := redistest.Shared(t)
	tw := newTwin(t, r.Addr, o.Addr)
	other := newTwin(t, r.Addr, o.Addr)
	tw.hello("3")
	tw.do(1, "CLIENT", "TRACKING", "on")
	other.do(1, "DEL", "trk:a", "trk:b", "trk:h")
	tw.do(1, "GET", "trk:a")
	tw.do(1, "MGET", "trk:b", "trk:a")
	other.do(1, "SET", "trk:a", "1")
	tw.read("invalidate trk:a", 1)
	other.do(1, "SET", "trk:a", "2") // not read since: no message
	other.do(1, "SET", "trk:b", "1")
	tw.read("invalidate trk:b", 1)
	// Own change: the reply, then the invalidation.
	tw.do(1, "GET", "trk:a")
	tw.do(2, "SET", "trk:a", "3")
	// Other types and commands.
	tw.do(1, "HGETALL", "trk:h")
	other.do(1, "HSET", "trk:h", "f", "v")
	tw.read("invalidate trk:h", 1)
	tw.do(1, "STRLEN", "trk:a")
	other.do(1, "DEL", "trk:a")
	tw.read("invalidate del", 1)
	// NOLOOP: own changes are not announced, others' are.
	tw.do(1, "CLIENT", "TRACKING", "on", "noloop")
	tw.do(1, "GET", "trk:a")
	tw.do(1, "SET", "trk:a", "4")
	tw.do(1, "GET", "trk:a")
	other.do(1, "APPEND", "trk:a", "x")
	tw.read("invalidate after noloop", 1)
	tw.do(1, "PING")
	for _, c := range []*redistest.Conn{tw.r, tw.o} {
		line := c.Do("CLIENT", "INFO").Str
		if f, rd := clientInfoField(line, "flags"), clientInfoField(line, "redir"); f != "t" || rd != "0" {
			t.Errorf("CLIENT INFO flags=%s redir=%s, want t and 0", f, rd)
		}
	}
}

func clientInfoField(line, name string) string {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			return v
		}
	}
	return ""
}

// Invalidations from MULTI/EXEC, scripts and functions, expiry, and
// FLUSHALL/FLUSHDB (a null: every key).
func TestTrackingWritePaths(t *testing.T) {
	r, o := redistest.Shared(t)
	tw := newTwin(t, r.Addr, o.Addr)
	other := newTwin(t, r.Addr, o.Addr)
	tw.hello("3")
	tw.do(1, "CLIENT", "TRACKING", "on")
	other.do(1, "DEL", "trk:m", "trk:l", "trk:e")

	tw.do(1, "GET", "trk:m")
	other.do(1, "MULTI")
	other.do(1, "SET", "trk:m", "1")
	other.do(1, "INCR", "trk:n")
	other.do(1, "EXEC")
	tw.read("invalidate from EXEC", 1)

	// Own transaction: reads inside it are tracked; the EXEC reply comes
	// before the invalidations.
	tw.do(1, "MULTI")
	tw.do(1, "GET", "trk:m")
	tw.do(1, "EXEC")
	tw.do(1, "MULTI")
	tw.do(1, "SET", "trk:m", "2")
	tw.do(1, "EXEC")
	tw.read("own EXEC invalidation", 1)

	// Scripts: keys read by a script's commands are tracked; its writes
	// invalidate.
	tw.do(1, "EVAL", "return redis.call('get', KEYS[1])", "1", "trk:l")
	other.do(1, "EVAL", "return redis.call('set', KEYS[1], 'x')", "1", "trk:l")
	tw.read("invalidate from EVAL", 1)
	tw.do(1, "EVAL_RO", "return redis.call('get', KEYS[1])", "1", "trk:l")
	other.do(1, "FUNCTION", "LOAD", "REPLACE", "#!lua name=trklib\nredis.register_function('trkset', function(k, a) return redis.call('set', k[1], a[1]) end)")
	other.do(1, "FCALL", "trkset", "1", "trk:l", "y")
	tw.read("invalidate from FCALL", 1)
	tw.do(1, "GET", "trk:l")
	tw.do(2, "EVAL", "return redis.call('set', KEYS[1], 'z')", "1", "trk:l")

	// Expiry (active or lazy: the server deletes the key on its own).
	other.do(1, "SET", "trk:e", "v", "PX", "30")
	tw.do(1, "GET", "trk:e")
	tw.read("invalidate on expiry", 1)

	// Flushes: a null for every tracking client, after the reply for the
	// flushing client itself.
	tw.do(1, "GET", "trk:m")
	other.do(1, "FLUSHDB")
	tw.read("flushdb null", 1)
	other.do(1, "FLUSHALL")
	tw.read("flushall null", 1)
	tw.do(2, "FLUSHALL")
	tw.do(1, "PING")
}

// RESP2 clients redirect invalidations to a client subscribed to
// __redis__:invalidate; once it is gone the redirection is broken
// (flag R, and a tracking-redir-broken push for a RESP3 client).
func TestTrackingRedirect(t *testing.T) {
	r, o := redistest.Shared(t)
	sub := newTwin(t, r.Addr, o.Addr)
	tw := newTwin(t, r.Addr, o.Addr)
	other := newTwin(t, r.Addr, o.Addr)
	other.do(1, "DEL", "trk:r")
	rid, oid := sub.ids()
	sub.do(1, "SUBSCRIBE", "__redis__:invalidate")
	tw.doEach(1, []string{"CLIENT", "TRACKING", "on", "redirect", rid}, []string{"CLIENT", "TRACKING", "on", "redirect", oid})
	if a, b := tw.r.Do("CLIENT", "GETREDIR").Int, tw.o.Do("CLIENT", "GETREDIR").Int; strconv.FormatInt(a, 10) != rid || strconv.FormatInt(b, 10) != oid {
		t.Errorf("GETREDIR: redis %d (want %s), ordo %d (want %s)", a, rid, b, oid)
	}
	tw.do(1, "GET", "trk:r")
	other.do(1, "SET", "trk:r", "1")
	sub.read("message on __redis__:invalidate", 1)
	other.do(1, "FLUSHALL")
	sub.read("null on __redis__:invalidate", 1)
	for _, c := range []*redistest.Conn{tw.r, tw.o} {
		flags := clientInfoField(c.Do("CLIENT", "INFO").Str, "flags")
		if flags != "t" {
			t.Errorf("flags %q, want t", flags)
		}
	}
	// The redirect target disconnects.
	sub.r.Close()
	sub.o.Close()
	for _, c := range []*redistest.Conn{other.r, other.o} {
		for clientCount(t, c, "sub=1") > 0 {
		}
	}
	tw.do(1, "GET", "trk:r")
	other.do(1, "SET", "trk:r", "2")
	for i, c := range []*redistest.Conn{tw.r, tw.o} {
		got := redistest.Canonical(c.Do("CLIENT", "TRACKINGINFO"), false)
		want := `*[$"flags" *[$"on" $"broken_redirect"] $"redirect" :` + []string{rid, oid}[i] + ` $"prefixes" *[]]`
		if got != want {
			t.Errorf("server %d: TRACKINGINFO %s, want %s", i, got, want)
		}
	}
	tw.do(1, "PING")
	for _, c := range []*redistest.Conn{tw.r, tw.o} {
		flags := clientInfoField(c.Do("CLIENT", "INFO").Str, "flags")
		if flags != "tR" {
			t.Errorf("flags %q, want tR", flags)
		}
	}
	// RESP3 with a broken redirection: a push naming the lost client.
	tw.hello("3")
	tw.do(1, "GET", "trk:r")
	other.do(1, "SET", "trk:r", "3")
	for i, c := range []*redistest.Conn{tw.r, tw.o} {
		v, _, _ := resp.ParseReply(c.ReadRaw())
		want := []string{rid, oid}[i]
		if v.Kind != resp.KindPush || len(v.Elems) != 2 || v.Elems[0].Str != "tracking-redir-broken" || strconv.FormatInt(v.Elems[1].Int, 10) != want {
			t.Errorf("server %d: %s, want tracking-redir-broken %s", i, redistest.Canonical(v, false), want)
		}
	}
}

// clientCount counts the CLIENT LIST lines containing s.
func clientCount(t *testing.T, c *redistest.Conn, s string) int {
	return strings.Count(c.Do("CLIENT", "LIST").Str, s)
}

// BCAST: every change under a registered prefix, one message per prefix
// with its keys in order, sent once per batch; NOLOOP leaves out the
// client's own changes.
func TestTrackingBcast(t *testing.T) {
	r, o := redistest.Shared(t)
	tw := newTwin(t, r.Addr, o.Addr)
	other := newTwin(t, r.Addr, o.Addr)
	tw.hello("3")
	tw.do(1, "CLIENT", "TRACKING", "on", "bcast", "prefix", "bc:a:", "prefix", "bc:b:")
	tw.do(1, "CLIENT", "TRACKINGINFO")
	other.do(1, "SET", "bc:a:1", "x")
	tw.read("bcast a", 1)
	other.do(1, "SET", "bc:c:1", "x") // no prefix: nothing
	other.do(1, "MSET", "bc:b:2", "x", "bc:b:1", "y", "bc:a:3", "z")
	tw.read("bcast two prefixes", 2)
	other.do(1, "EVAL", "redis.call('set', 'bc:a:9', 1) redis.call('del', 'bc:a:0', 'bc:a:9') return 1", "0")
	tw.read("bcast from a script", 1)
	for _, c := range []*redistest.Conn{tw.r, tw.o} {
		if f := clientInfoField(c.Do("CLIENT", "INFO").Str, "flags"); f != "tB" {
			t.Errorf("flags %q, want tB", f)
		}
	}
	// NOLOOP in BCAST mode.
	tw.do(1, "CLIENT", "TRACKING", "off")
	tw.do(1, "CLIENT", "TRACKING", "on", "bcast", "noloop")
	tw.do(1, "SET", "bc:own", "1")
	tw.do(1, "PING")
	other.do(1, "SET", "bc:other", "1")
	tw.read("bcast noloop", 1)
	// Without NOLOOP the client's own change comes after its reply.
	tw.do(1, "CLIENT", "TRACKING", "off")
	tw.do(1, "CLIENT", "TRACKING", "on", "bcast")
	tw.do(2, "SET", "bc:own", "2")
}

// OPTIN caches only after CLIENT CACHING yes, OPTOUT all but after
// CLIENT CACHING no; either lasts one command or one transaction.
func TestTrackingOptInOut(t *testing.T) {
	r, o := redistest.Shared(t)
	tw := newTwin(t, r.Addr, o.Addr)
	other := newTwin(t, r.Addr, o.Addr)
	tw.hello("3")
	tw.do(1, "CLIENT", "TRACKING", "on", "optin")
	tw.do(1, "GET", "oi:1")
	tw.do(1, "CLIENT", "CACHING", "yes")
	tw.do(1, "CLIENT", "TRACKINGINFO")
	tw.do(1, "GET", "oi:2")
	tw.do(1, "CLIENT", "TRACKINGINFO")
	tw.do(1, "GET", "oi:3")
	tw.do(1, "CLIENT", "CACHING", "yes")
	tw.do(1, "MULTI")
	tw.do(1, "GET", "oi:4")
	tw.do(1, "GET", "oi:5")
	tw.do(1, "EXEC")
	other.do(1, "MSET", "oi:1", "a", "oi:2", "b", "oi:3", "c", "oi:4", "d", "oi:5", "e")
	tw.read("optin invalidations", 3)
	tw.do(1, "CLIENT", "TRACKING", "off")
	tw.do(1, "CLIENT", "TRACKING", "on", "optout")
	tw.do(1, "GET", "oo:1")
	tw.do(1, "CLIENT", "CACHING", "no")
	tw.do(1, "GET", "oo:2")
	tw.do(1, "GET", "oo:3")
	other.do(1, "MSET", "oo:1", "a", "oo:2", "b", "oo:3", "c")
	tw.read("optout invalidations", 2)
	tw.do(1, "PING")
}

// tracking-table-max-keys: past it, entries are dropped and their clients
// told as if the keys changed.
func TestTrackingTableLimit(t *testing.T) {
	r, o := startPair(t)
	tw := newTwin(t, r.Addr, o.Addr)
	tw.do(1, "CONFIG", "SET", "tracking-table-max-keys", "2")
	tw.hello("3")
	tw.do(1, "CLIENT", "TRACKING", "on")
	tw.do(1, "MGET", "l:1", "l:2", "l:3")
	// Before the next command the table is brought back under the limit:
	// one invalidation, for a random key, then the reply.
	tw.send("PING")
	for i, c := range []*redistest.Conn{tw.r, tw.o} {
		v, _, _ := resp.ParseReply(c.ReadRaw())
		if v.Kind != resp.KindPush || len(v.Elems) != 2 || v.Elems[0].Str != "invalidate" || len(v.Elems[1].Elems) != 1 {
			t.Errorf("server %d: %s, want one invalidation", i, redistest.Canonical(v, false))
		}
		if p := c.ReadRaw(); string(p) != "+PONG\r\n" {
			t.Errorf("server %d: %q, want PONG", i, p)
		}
	}
	for i, c := range []*redistest.Conn{tw.r, tw.o} {
		info := c.Do("INFO", "stats").Str
		if !strings.Contains(info, "tracking_total_keys:2\r\n") || !strings.Contains(info, "tracking_total_items:2\r\n") {
			t.Errorf("server %d: INFO stats tracking fields wrong", i)
		}
	}
}

// Eviction invalidates like any other deletion; a read of a key that
// expired meanwhile announces it after the reply.
func TestTrackingEvictionAndLazyExpiry(t *testing.T) {
	r, o := startPair(t, "maxmemory-policy", "allkeys-lru")
	tw := newTwin(t, r.Addr, o.Addr)
	other := newTwin(t, r.Addr, o.Addr)
	tw.hello("3")
	tw.do(1, "CLIENT", "TRACKING", "on")
	other.do(1, "SET", "ev", "v")
	tw.do(1, "GET", "ev")
	other.do(1, "CONFIG", "SET", "maxmemory", "1")
	tw.read("invalidate on eviction", 1)
	other.do(1, "CONFIG", "SET", "maxmemory", "0")
	other.do(1, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	other.do(1, "SET", "lz", "v", "PX", "50")
	tw.do(1, "GET", "lz")
	for _, c := range []*redistest.Conn{other.r, other.o} {
		for i := 0; i < 2000 && c.Do("PTTL", "lz").Int != -2; i++ {
			c.Do("DEBUG", "SLEEP", "0.005")
		}
	}
	// PTTL above was another client's lookup: it deleted the key and the
	// tracking client was told.
	tw.read("invalidate on lazy expiry by another client", 1)
	// The tracking client's own read of an expired key: the reply, then
	// the invalidation.
	other.do(1, "SET", "lz2", "v", "PX", "50")
	tw.do(1, "GET", "lz2")
	tw.do(1, "DEBUG", "SLEEP", "0.1")
	tw.do(2, "GET", "lz2")
	other.do(1, "DEBUG", "SET-ACTIVE-EXPIRE", "1")
}
