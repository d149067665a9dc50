package engine_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// scanAll runs a SCAN-family command (its cursor argument "C") from
// cursor 0 to the end, bounded, and returns the elements it returned,
// sorted, or the first error reply.
func scanAll(t *testing.T, c *redistest.Conn, tpl []string) string {
	t.Helper()
	cursor := "0"
	var all []resp.Value
	for i := 0; i < 1000; i++ {
		args := make([]string, len(tpl))
		for j, a := range tpl {
			if a == "C" {
				a = cursor
			}
			args[j] = a
		}
		r := c.Do(args...)
		if r.Kind != resp.KindArray || len(r.Elems) != 2 {
			return redistest.Canonical(r, false)
		}
		all = append(all, r.Elems[1].Elems...)
		if cursor = r.Elems[0].Str; cursor == "0" {
			return redistest.Canonical(resp.Value{Kind: resp.KindArray, Elems: all}, true)
		}
	}
	t.Fatalf("%q: no end after 1000 calls", tpl)
	return ""
}

// edgeInts are the integers that break numkeys/count arithmetic done
// carelessly: zero, negatives, values past int32 and uint32, and the
// ends of int64 (numkeys+offset overflows for the largest ones).
var edgeInts = []string{"0", "-1", "1", "2", "3", "2147483647", "2147483648", "4294967296",
	"9223372036854775807", "9223372036854775806", "-9223372036854775808", "-9223372036854775807",
	"9223372036854775808", "-9223372036854775809", "4294967297", "-4294967295"}

// TestNumkeysAndCountEdges: every command taking a numkeys or a count
// answers edge integers as Redis does (no hang, no crash: the server
// answers PING after each one).
func TestNumkeysAndCountEdges(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("ZADD", "z", "1", "a", "2", "b", "3", "c")
	d.Do("ZADD", "z2", "1", "a", "5", "d")
	d.Do("RPUSH", "l", "a", "b", "c", "a")
	d.Do("SADD", "s", "a", "b", "c")
	d.Do("SADD", "s2", "a", "c", "d")
	d.Do("HSET", "h", "f", "v")
	d.Do("SET", "str", "hello")
	d.Do("SET", "num", "10")
	d.Do("HSET", "h", "n", "5")
	d.Do("GEOADD", "g", "0", "0", "p", "0.001", "0.001", "p2")
	templates := [][]string{
		// numkeys
		{"ZMPOP", "N", "z", "min"},
		{"ZMPOP", "N", "z", "max", "COUNT", "1"},
		{"BZMPOP", "0.01", "N", "nokey", "min"},
		{"BZMPOP", "0.01", "N", "z", "z2", "min"},
		{"LMPOP", "N", "nokey", "left"},
		{"LMPOP", "N", "nokey", "l", "right"},
		{"BLMPOP", "0.01", "N", "nokey", "left"},
		{"SINTERCARD", "N", "s", "s2"},
		{"ZUNION", "N", "z", "z2"},
		{"ZINTER", "N", "z", "z2", "WITHSCORES"},
		{"ZDIFF", "N", "z", "z2"},
		{"ZINTERCARD", "N", "z", "z2"},
		{"ZUNIONSTORE", "dst", "N", "z", "z2"},
		{"ZINTERSTORE", "dst", "N", "z", "z2", "WEIGHTS", "1", "2"},
		{"ZDIFFSTORE", "dst", "N", "z", "z2"},
		{"EVAL", "return #KEYS", "N", "a", "b"},
		{"EVAL_RO", "return #ARGV", "N", "a", "b"},
		{"EVALSHA", "0000000000000000000000000000000000000000", "N", "a"},
		{"COMMAND", "GETKEYS", "ZMPOP", "N", "a", "min"},
		{"COMMAND", "GETKEYS", "BZMPOP", "0", "N", "a", "min"},
		{"COMMAND", "GETKEYS", "LMPOP", "N", "a", "left"},
		{"COMMAND", "GETKEYS", "SINTERCARD", "N", "a"},
		{"COMMAND", "GETKEYS", "ZUNIONSTORE", "d", "N", "a", "b"},
		{"COMMAND", "GETKEYS", "EVAL", "return 1", "N", "a"},
		// counts and limits
		{"ZMPOP", "1", "z2", "min", "COUNT", "N"},
		{"BZMPOP", "0.01", "1", "nokey", "min", "COUNT", "N"},
		{"LMPOP", "1", "nokey", "left", "COUNT", "N"},
		{"SINTERCARD", "2", "s", "s2", "LIMIT", "N"},
		{"ZINTERCARD", "2", "z", "z2", "LIMIT", "N"},
		{"LPOP", "nokey", "N"},
		{"RPOP", "nokey", "N"},
		{"SPOP", "nokey", "N"},
		{"ZPOPMIN", "nokey", "N"},
		{"ZPOPMAX", "nokey", "N"},
		{"LPOS", "l", "a", "RANK", "N"},
		{"LPOS", "l", "a", "COUNT", "N"},
		{"LPOS", "l", "a", "MAXLEN", "N"},
		{"LRANGE", "l", "N", "N"},
		{"LRANGE", "l", "0", "N"},
		{"LRANGE", "l", "N", "-1"},
		{"LINDEX", "l", "N"},
		{"LSET", "nokey", "N", "x"},
		{"ZRANGE", "z", "N", "N"},
		{"ZRANGE", "z", "0", "N", "WITHSCORES"},
		{"ZRANGE", "z", "N", "-1"},
		{"ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "N", "N"},
		{"ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "0", "N"},
		{"ZRANGE", "z", "-", "+", "BYLEX", "LIMIT", "N", "1"},
		{"ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "N", "N"},
		{"ZREVRANGEBYSCORE", "z", "+inf", "-inf", "LIMIT", "1", "N"},
		{"ZRANGESTORE", "dst", "z", "N", "N"},
		{"ZREVRANGE", "z", "N", "N"},
		{"GETRANGE", "str", "N", "N"},
		{"GETRANGE", "str", "0", "N"},
		{"GEOSEARCH", "nokey", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "COUNT", "N"},
		{"GEORADIUS", "nokey", "0", "0", "1", "km", "COUNT", "N"},
		{"LCS", "str", "str", "IDX", "MINMATCHLEN", "N"},
		{"SELECT", "N"},
		{"EXPIRE", "nokey", "N"},
		{"PEXPIRE", "nokey", "N"},
		{"EXPIREAT", "nokey", "N"},
		{"OBJECT", "FREQ", "nokey"},
		{"SLOWLOG", "GET", "N"},
		{"WAIT", "0", "N"},
		{"INCRBY", "nokey", "N"},
		{"DECRBY", "nokey", "N"},
		{"HINCRBY", "nokey", "f", "N"},
		{"ZRANDMEMBER", "nokey", "N"},
		{"SRANDMEMBER", "nokey", "N"},
		{"HRANDFIELD", "nokey", "N"},
		{"ZRANDMEMBER", "nokey", "N", "WITHSCORES"},
		{"HRANDFIELD", "nokey", "N", "WITHVALUES"},
		// timeouts (on keys that have data: nothing blocks)
		{"BLPOP", "l", "N"},
		{"BRPOP", "l", "N"},
		{"BLMOVE", "l", "l2", "LEFT", "RIGHT", "N"},
		{"BRPOPLPUSH", "l", "l2", "N"},
		{"BZPOPMIN", "z", "N"},
		{"BZPOPMAX", "z", "N"},
		{"BLMPOP", "N", "1", "l", "LEFT"},
		{"BZMPOP", "N", "1", "z", "MIN"},
		// more ranges, offsets and counts
		{"LPOS", "l", "a", "RANK", "N", "COUNT", "N", "MAXLEN", "N"},
		{"LTRIM", "l", "N", "N"},
		{"LTRIM", "l", "0", "N"},
		{"LREM", "l", "N", "a"},
		{"LINSERT", "l", "BEFORE", "N", "x"},
		{"ZREMRANGEBYRANK", "z", "N", "N"},
		{"ZREMRANGEBYRANK", "z", "0", "N"},
		{"ZRANGE", "z", "(1", "+inf", "BYSCORE", "LIMIT", "N", "-1"},
		{"ZRANGE", "z", "+", "-", "BYLEX", "REV", "LIMIT", "1", "N"},
		{"ZRANGEBYLEX", "z", "-", "+", "LIMIT", "N", "N"},
		{"ZREVRANGEBYLEX", "z", "+", "-", "LIMIT", "N", "2"},
		{"ZRANGESTORE", "dst", "z", "0", "-1", "BYSCORE", "LIMIT", "N", "N"},
		{"ZADD", "z", "N", "q"},
		{"ZINCRBY", "z", "N", "a"},
		{"ZCOUNT", "z", "N", "N"},
		{"SUBSTR", "str", "N", "N"},
		{"SETRANGE", "str2", "N", "x"},
		{"SETRANGE", "str2", "N", ""},
		{"SET", "k", "v", "EX", "N"},
		{"SET", "k", "v", "PX", "N"},
		{"SET", "k", "v", "EXAT", "N"},
		{"SET", "k", "v", "PXAT", "N"},
		{"GETEX", "str", "EX", "N"},
		{"GETEX", "str", "PX", "N"},
		{"GETEX", "str", "PXAT", "N"},
		{"SETEX", "k", "N", "v"},
		{"PSETEX", "k", "N", "v"},
		{"EXPIRE", "str", "N"},
		{"PEXPIRE", "str", "N"},
		{"EXPIREAT", "str", "N"},
		{"PEXPIREAT", "str", "N"},
		{"EXPIRE", "str", "N", "GT"},
		{"INCRBY", "str", "N"},
		{"INCRBY", "num", "N"},
		{"DECRBY", "num", "N"},
		{"INCRBYFLOAT", "num", "N"},
		{"HINCRBY", "h", "n", "N"},
		{"HINCRBYFLOAT", "h", "n", "N"},
		{"SINTERCARD", "N", "s", "LIMIT", "1"},
		{"ZINTERCARD", "1", "z", "LIMIT", "N"},
		{"ZUNION", "2", "z", "z2", "WEIGHTS", "N", "N", "WITHSCORES"},
		{"ZUNIONSTORE", "dst", "2", "z", "z2", "WEIGHTS", "1", "N"},
		{"LCS", "str", "str", "IDX", "MINMATCHLEN", "N", "WITHMATCHLEN"},
		{"GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "N", "km", "COUNT", "N", "ANY"},
		{"GEOSEARCH", "g", "FROMMEMBER", "p", "BYBOX", "N", "N", "m", "COUNT", "N"},
		{"GEOSEARCHSTORE", "dst", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "100", "km", "COUNT", "N"},
		{"GEORADIUSBYMEMBER", "g", "p", "N", "m", "COUNT", "N", "DESC"},
		{"GEOADD", "g", "N", "N", "q"},
		{"GEODIST", "g", "p", "p2", "km"},
		{"OBJECT", "FREQ", "str"},
		{"CLIENT", "KILL", "ID", "N"},
		{"CLIENT", "REPLY", "ON"},
		{"DEBUG", "SLEEP", "0"},
		{"SLOWLOG", "GET", "N"},
		{"LATENCY", "HISTORY", "N"},
		{"CONFIG", "SET", "slowlog-max-len", "N"},
		{"CONFIG", "SET", "zset-max-listpack-entries", "N"},
		{"CONFIG", "SET", "zset-max-listpack-entries", "128"},
		{"CONFIG", "SET", "maxmemory-samples", "N"},
		{"CONFIG", "SET", "maxmemory-samples", "5"},
		{"CONFIG", "SET", "busy-reply-threshold", "N"},
		{"CONFIG", "SET", "busy-reply-threshold", "5000"},
		{"CONFIG", "SET", "slowlog-max-len", "128"},
		{"SWAPDB", "0", "N"},
		{"MOVE", "str", "N"},
		{"COPY", "str", "k2", "DB", "N"},
	}
	// The SCAN family: the elements a whole scan returns (the order and
	// the cursors depend on hashing); errors compared exactly.
	for _, tpl := range [][]string{{"SCAN", "C", "COUNT", "N"}, {"SSCAN", "s", "C", "COUNT", "N"},
		{"HSCAN", "h", "C", "COUNT", "N"}, {"ZSCAN", "z", "C", "COUNT", "N"}} {
		for _, n := range edgeInts {
			args := make([]string, len(tpl))
			for i, a := range tpl {
				if a == "N" {
					a = n
				}
				args[i] = a
			}
			want, got := scanAll(t, d.Redis, args), scanAll(t, d.Ordo, args)
			if n == "1" && !strings.Contains(want, "$") {
				t.Fatalf("%q: scanned %s", args, want)
			}
			if want != got {
				t.Errorf("%q:\n redis: %s\n  ordo: %s", args, want, got)
			}
		}
	}
	for _, tpl := range templates {
		for _, n := range edgeInts {
			args := make([]string, len(tpl))
			for i, a := range tpl {
				if a == "N" {
					a = n
				}
				args[i] = a
			}
			d.Do(args...)
			d.Do("PING")
			// Restore what a pop, a store or a write changed (not compared:
			// a key given a TTL of 1 ms may or may not be there).
			d.Both("DEL", "dst", "k", "k2", "str2", "l2", "num", "l")
			d.Both("SET", "str", "hello")
			d.Both("SET", "num", "10")
			d.Both("HSET", "h", "f", "v", "n", "5")
			d.Both("GEOADD", "g", "0", "0", "p", "0.001", "0.001", "p2")
			d.Both("ZADD", "z", "1", "a", "2", "b", "3", "c")
			d.Both("ZADD", "z2", "1", "a", "5", "d")
			d.Both("RPUSH", "l", "a", "b", "c", "a")
		}
	}
	// Counts on existing keys, where Redis replies with all there is
	// (a huge negative count would make Redis itself reply forever).
	for _, n := range []string{"0", "-1", "-3", "2147483648", "9223372036854775807"} {
		for _, args := range [][]string{{"ZRANDMEMBER", "z", n}, {"SRANDMEMBER", "s", n}, {"HRANDFIELD", "h", n}} {
			d.DoShape(args...)
		}
		d.DoShape("SPOP", "s", n)
		d.Do("SADD", "s", "a", "b", "c")
		d.Do("ZPOPMIN", "z", n)
		d.Do("ZADD", "z", "1", "a", "2", "b", "3", "c")
		d.Do("LPOP", "l", n)
		d.Do("DEL", "l")
		d.Do("RPUSH", "l", "a", "b", "c", "a")
	}
	d.Do("ZRANDMEMBER", "z", "-9223372036854775808")
	d.Do("ZRANDMEMBER", "z", "-9223372036854775808", "WITHSCORES")
	d.Do("ZRANDMEMBER", "z", "9223372036854775807", "WITHSCORES")
	d.Do("HRANDFIELD", "h", "-9223372036854775808", "WITHVALUES")
	d.Do("HRANDFIELD", "h", "9223372036854775807", "WITHVALUES")
}

// TestZMPOPHugeNumkeysDoesNotWedge is the reported wedge: after ZMPOP and
// BZMPOP with numkeys near 2^63 the server still answers everyone.
func TestZMPOPHugeNumkeysDoesNotWedge(t *testing.T) {
	d := redistest.NewDiff(t)
	for _, n := range []string{"9223372036854775807", "9223372036854775806"} {
		d.Do("ZMPOP", n, "a", "min")
		d.Do("BZMPOP", "0.1", n, "a", "min")
		d.Do("LMPOP", n, "a", "left")
		d.Do("BLMPOP", "0.1", n, "a", "left")
	}
	_, o := redistest.Shared(t)
	other := redistest.Dial(t, o.Addr)
	if r := other.Do("PING"); r.Str != "PONG" {
		t.Fatalf("PING on another connection: %v", r)
	}
}

// TestZInterSetWithItself: ZINTER of a set with itself looks members up
// in the set it iterates; that must not rehash it under the walk.
func TestZInterSetWithItself(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SADD", "a", "x", "y", "z", "w", "v")
	for i := 0; i < 5; i++ {
		d.DoSorted("ZINTER", "2", "a", "a")
		d.DoSorted("ZUNION", "2", "a", "a", "WITHSCORES")
		d.Do("ZINTERCARD", "2", "a", "a")
		d.DoSorted("SINTER", "a", "a")
	}
	// A set in the middle of a rehash at every size.
	for i := 0; i < 100; i++ {
		d.Do("SADD", "b", "m"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26)))
		d.Do("ZINTERCARD", "3", "b", "b", "b")
		d.Do("SINTERCARD", "2", "b", "b")
	}
}

// TestWatchExpiredKey follows Redis 7.0's multi.c: a key already expired
// (but not yet deleted) when WATCHed does not fail EXEC by expiring, nor
// by being deleted; a key that expires after WATCH does.
func TestWatchExpiredKey(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	defer d.Do("DEBUG", "SET-ACTIVE-EXPIRE", "1")
	tx := func() {
		t.Helper()
		d.Do("MULTI")
		d.Do("PING")
		d.Do("EXEC")
	}
	d.Do("SET", "s0", "v", "EXAT", "100")
	d.Do("WATCH", "s0")
	tx()
	// Deleted by a lookup meanwhile: still no change.
	d.Do("SET", "s1", "v", "EXAT", "100")
	d.Do("WATCH", "s1")
	d.Do("GET", "s1")
	tx()
	// Written meanwhile: a change.
	d.Do("SET", "s2", "v", "EXAT", "100")
	d.Do("WATCH", "s2")
	d.Do("SET", "s2", "w")
	tx()
	// DEL of an expired key, FLUSHDB over it, SWAPDB bringing one in.
	d.Do("SET", "s3", "v", "EXAT", "100")
	d.Do("WATCH", "s3")
	d.Do("DEL", "s3")
	tx()
	d.Do("SET", "s4", "v", "EXAT", "100")
	d.Do("WATCH", "s4")
	d.Do("FLUSHDB")
	tx()
	d.Do("SET", "s5", "v", "EXAT", "100")
	d.Do("SELECT", "1")
	d.Do("SET", "s5", "v", "EXAT", "100")
	d.Do("SELECT", "0")
	d.Do("WATCH", "s5")
	d.Do("SWAPDB", "0", "1")
	tx()
	d.Do("SELECT", "1")
	d.Do("SET", "s6", "v", "EXAT", "100")
	d.Do("SELECT", "0")
	d.Do("WATCH", "s6")
	d.Do("SWAPDB", "0", "1")
	tx()
	d.Do("WATCH", "s6")
	d.Do("SWAPDB", "0", "1")
	tx()
	// Expiring after WATCH: a change. The key must still be live when
	// WATCHed (checked, with a longer TTL on a retry) and expired at EXEC
	// (polled on another connection through a key with the same expiry).
	r, o := redistest.Shared(t)
	probes := []*redistest.Conn{redistest.Dial(t, r.Addr), redistest.Dial(t, o.Addr)}
	for ttl := int64(200); ; ttl *= 4 {
		at := strconv.FormatInt(time.Now().UnixMilli()+ttl, 10)
		d.Both("SET", "s7", "v", "PXAT", at)
		d.Both("SET", "probe", "v", "PXAT", at)
		d.Both("WATCH", "s7")
		if d.Redis.Do("PTTL", "s7").Int > 0 && d.Ordo.Do("PTTL", "s7").Int > 0 {
			break
		}
		if ttl > 60000 {
			t.Fatal("could not WATCH a key before it expired")
		}
		d.Both("UNWATCH")
	}
	d.Do("MULTI")
	d.Do("PING")
	for _, p := range probes {
		for i := 0; p.Do("EXISTS", "probe").Int != 0; i++ {
			if i > 100000 {
				t.Fatal("probe key never expired")
			}
			time.Sleep(time.Millisecond) // polling the clock, not ordering
		}
	}
	d.Do("EXEC")
	// A dirty client stays dirty until EXEC or UNWATCH; WATCH adds nothing.
	d.Do("SET", "w1", "v")
	d.Do("WATCH", "w1")
	d.Do("SET", "w1", "x")
	d.Do("WATCH", "w2")
	tx()
	d.Do("WATCH", "w1")
	d.Do("SET", "w1", "y")
	d.Do("UNWATCH")
	tx()
	d.Do("FLUSHALL")
}

// TestGlobEmptyString: stringmatchlen never matches an empty string
// against a non-empty pattern, "**" included; only a lone "*" (which KEYS
// and SCAN special-case) returns the empty key.
func TestGlobEmptyString(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SET", "", "x")
	for _, pat := range []string{"*", "**", "***", "?*", "*?", "[a]*", "\\*"} {
		d.DoSorted("KEYS", pat)
		d.DoSorted("SCAN", "0", "MATCH", pat, "COUNT", "100")
	}
	d.Do("SADD", "s", "", "a")
	d.Do("HSET", "h", "", "1", "a", "2")
	d.Do("ZADD", "z", "1", "", "2", "a")
	for _, pat := range []string{"*", "**", "*a*", "?"} {
		d.DoSorted("SSCAN", "s", "0", "MATCH", pat)
		d.DoSorted("HSCAN", "h", "0", "MATCH", pat)
		d.DoSorted("ZSCAN", "z", "0", "MATCH", pat)
	}
	d.Do("KEYS", strings.Repeat("a*", 40)+"b")
}

// TestSignedZeroScores: Redis's listpack stores a -0 score as the integer
// 0 and its skiplist keeps -0; replies computed from scores (ZINCRBY,
// ZUNION ...) show -0 as computed.
func TestSignedZeroScores(t *testing.T) {
	d := redistest.NewDiff(t)
	long := strings.Repeat("m", 70)
	d.Do("ZADD", "z", "-0", "a", "1", long) // created as a listpack, converted
	d.Do("ZSCORE", "z", "a")
	d.Do("ZADD", "z2", "1", long, "-0", "a") // created as a skiplist
	d.Do("ZSCORE", "z2", "a")
	d.Do("ZINCRBY", "z2", "-0", "a")
	d.Do("ZINCRBY", "z", "-0", "a")
	d.Do("ZINCRBY", "n1", "-0", "a")
	d.Do("ZSCORE", "n1", "a")
	d.Do("ZADD", "n2", "INCR", "-0", "a")
	d.Do("ZADD", "z2", "INCR", "-0", "b")
	d.Do("ZSCORE", "z2", "b")
	d.Do("ZADD", "small", "-0", "q")
	d.Do("ZSCORE", "small", "q")
	for _, key := range []string{"z", "z2", "small"} {
		d.Do("ZRANGE", key, "0", "-1", "WITHSCORES")
		d.Do("ZDIFF", "1", key, "WITHSCORES")
		d.Do("ZUNION", "1", key, "WITHSCORES")
		d.Do("ZUNION", "1", key, "WEIGHTS", "-1", "WITHSCORES")
		d.Do("ZINTER", "2", key, key, "WEIGHTS", "-1", "1", "AGGREGATE", "MIN", "WITHSCORES")
		d.Do("ZUNIONSTORE", "dst", "1", key, "WEIGHTS", "-1")
		d.Do("ZRANGE", "dst", "0", "-1", "WITHSCORES")
		d.Do("ZRANGESTORE", "dst2", key, "0", "-1")
		d.Do("ZRANGE", "dst2", "0", "-1", "WITHSCORES")
		d.Do("ZPOPMIN", key)
	}
	d.Both("HELLO", "3")
	d.Do("ZADD", "r3", "1", long, "-0", "a")
	d.Do("ZUNION", "1", "r3", "WITHSCORES")
	d.Do("ZSCORE", "r3", "a")
	d.Both("HELLO", "2")
}

// TestEmptyKeyQueued: the empty key is a key in commands run from the
// MULTI queue and from a blocked client's saved arguments too (their
// copies made "" a nil argument, which SDIFFSTORE read as "no
// destination").
func TestEmptyKeyQueued(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SADD", "s", "a")
	d.Do("MULTI")
	d.Do("SDIFFSTORE", "", "s", "nokey")
	d.Do("SINTERSTORE", "", "s", "s")
	d.Do("SUNIONSTORE", "", "s")
	d.Do("EXEC")
	d.DoSorted("SMEMBERS", "")
	d.Do("DEL", "")
	// A blocked BLMOVE into "".
	r, o := redistest.Shared(t)
	for _, addr := range []string{r.Addr, o.Addr} {
		a, b := redistest.Dial(t, addr), redistest.Dial(t, addr)
		a.Send("BLMOVE", "src", "", "LEFT", "RIGHT", "0")
		for i := 0; !strings.Contains(b.Do("INFO", "clients").Str, "blocked_clients:1\r\n"); i++ {
			if i > 10000 {
				t.Fatal("BLMOVE never blocked")
			}
			time.Sleep(time.Millisecond) // polling, not ordering
		}
		b.Do("RPUSH", "src", "x")
		if got := a.ReadRaw(); string(got) != "$1\r\nx\r\n" {
			t.Errorf("%s: BLMOVE: %q", addr, got)
		}
	}
	d.Do("LRANGE", "", "0", "-1")
}
