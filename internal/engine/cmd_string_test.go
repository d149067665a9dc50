package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
)

func TestStringSetGet(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("GET", "k")
	d.Do("SET", "k", "v")
	d.Do("GET", "k")
	d.Do("SET", "k", "")
	d.Do("GET", "k")
	d.Do("SET", "bin", "a\x00b\xff\r\n")
	d.Do("GET", "bin")
	d.Do("SET", "k")
	d.Do("GET")
	d.Do("GET", "a", "b")
	// NX / XX / GET and their combinations.
	d.Do("SET", "k", "1", "NX")
	d.Do("SET", "new", "1", "nx")
	d.Do("SET", "k", "2", "XX")
	d.Do("SET", "absent", "2", "XX")
	d.Do("EXISTS", "absent")
	d.Do("SET", "k", "3", "GET")
	d.Do("SET", "k", "4", "GET", "GET")
	d.Do("SET", "k", "5", "NX", "GET")
	d.Do("SET", "nx2", "5", "NX", "GET")
	d.Do("GET", "nx2")
	d.Do("SET", "k", "6", "XX", "GET")
	d.Do("SET", "absent", "6", "XX", "GET")
	d.Do("SET", "k", "7", "NX", "XX")
	d.Do("SET", "k", "7", "XX", "NX")
	d.Do("SET", "k", "7", "NX", "NX")
	d.Do("SET", "k", "7", "FOO")
	d.Do("SET", "k", "7", "EX")
	d.Do("SET", "k", "7", "PX")
	d.Do("GET", "k")
	// Expiry options and their conflicts.
	d.Do("SET", "k", "v", "EX", "100")
	d.Do("TTL", "k")
	d.Do("SET", "k", "v", "EX", "10", "EX", "100")
	d.Do("TTL", "k")
	d.Do("SET", "k", "v", "PX", "100000")
	d.Do("TTL", "k")
	d.Do("SET", "k", "v2", "KEEPTTL")
	d.Do("TTL", "k")
	d.Do("GET", "k")
	d.Do("SET", "k", "v3")
	d.Do("TTL", "k")
	for _, bad := range [][]string{
		{"EX", "10", "PX", "10"}, {"EX", "10", "KEEPTTL"}, {"KEEPTTL", "EX", "10"},
		{"PX", "1", "EXAT", "1"}, {"EXAT", "1", "PXAT", "1"}, {"PXAT", "1", "EX", "1"},
		{"PERSIST"}, {"KEEPTTL", "PXAT", "5"},
	} {
		d.Do(append([]string{"SET", "k", "v"}, bad...)...)
	}
	for _, v := range []string{"0", "-1", "x", "1.5", "", " 1", "9223372036854775", "9223372036854775807", "-9223372036854775808", "99999999999999999999"} {
		d.Do("SET", "k", "v", "EX", v)
		d.Do("SET", "k", "v", "PX", v)
		d.Do("SET", "k", "v", "EXAT", v)
		d.Do("SET", "k", "v", "PXAT", v)
	}
	d.Do("SET", "k", "v", "PX", "9223372036854775000") // now + px overflows
	d.Do("SET", "k", "v", "ex", "100", "get")
	d.Do("SET", "k", "v", "EXAT", "1")
	d.Do("GET", "k")
	d.Do("EXISTS", "k")
	d.Do("SET", "k", "v", "PXAT", "1", "GET")
	future := strconv.FormatInt(time.Now().Unix()+1000, 10)
	d.Do("SET", "k", "v", "EXAT", future)
	d.Do("EXPIRETIME", "k")
	d.Do("SET", "k", "v", "PXAT", future+"123")
	d.Do("PEXPIRETIME", "k")
	// Against other types: SET overwrites, SET GET refuses.
	makeList(t, d, "list", "a")
	d.Do("SET", "list", "v", "GET")
	d.Do("TYPE", "list")
	d.Do("GET", "list")
	d.Do("SET", "list", "v", "NX")
	d.Do("SET", "list", "v")
	d.Do("TYPE", "list")
	d.Do("GET", "list")
	// RESP3.
	d.Both("HELLO", "3")
	d.Do("GET", "nothing")
	d.Do("SET", "k", "v", "XX", "GET")
	d.Do("SET", "zz", "v", "XX")
	d.Do("SET", "zz", "v", "NX", "GET")
}

func TestStringSetnxSetexPsetex(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SETNX", "k", "1")
	d.Do("SETNX", "k", "2")
	d.Do("GET", "k")
	d.Do("SETNX", "k")
	d.Do("SETEX", "k", "100", "v")
	d.Do("TTL", "k")
	d.Do("GET", "k")
	d.Do("PSETEX", "k", "100000", "v2")
	d.Do("TTL", "k")
	d.Do("GET", "k")
	for _, v := range []string{"0", "-5", "x", "", "9223372036854775807", "9223372036854775"} {
		d.Do("SETEX", "k", v, "v")
		d.Do("PSETEX", "k", v, "v")
	}
	d.Do("SETEX", "k", "10")
	d.Do("PSETEX", "k", "10", "v", "x")
	makeList(t, d, "list", "a")
	d.Do("SETNX", "list", "x")
	d.Do("SETEX", "list", "100", "x")
	d.Do("TYPE", "list")
	d.Both("HELLO", "3")
	d.Do("SETNX", "k", "x")
}

func TestStringGetsetGetdelGetex(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("GETSET", "k", "1")
	d.Do("GETSET", "k", "2")
	d.Do("SET", "t", "v", "EX", "100")
	d.Do("GETSET", "t", "w")
	d.Do("TTL", "t") // GETSET drops the TTL
	d.Do("GETDEL", "k")
	d.Do("GETDEL", "k")
	d.Do("EXISTS", "k")
	d.Do("GETSET", "k")
	d.Do("GETDEL", "k", "x")
	makeList(t, d, "list", "a")
	d.Do("GETSET", "list", "x")
	d.Do("GETDEL", "list")
	d.Do("GETEX", "list")
	d.Do("TYPE", "list")

	d.Do("SET", "k", "v")
	d.Do("GETEX", "k")
	d.Do("TTL", "k")
	d.Do("GETEX", "k", "EX", "100")
	d.Do("TTL", "k")
	d.Do("GETEX", "k", "PX", "200000")
	d.Do("TTL", "k")
	d.Do("GETEX", "k", "PERSIST")
	d.Do("TTL", "k")
	d.Do("GETEX", "k", "PERSIST")
	future := strconv.FormatInt(time.Now().Unix()+1000, 10)
	d.Do("GETEX", "k", "EXAT", future)
	d.Do("EXPIRETIME", "k")
	d.Do("GETEX", "k", "PXAT", future+"500")
	d.Do("PEXPIRETIME", "k")
	for _, bad := range [][]string{
		{"EX"}, {"EX", "10", "PX", "10"}, {"PERSIST", "EX", "10"}, {"EX", "10", "PERSIST"},
		{"KEEPTTL"}, {"NX"}, {"GET"}, {"FOO"}, {"EX", "0"}, {"EX", "-1"}, {"EX", "x"},
		{"PX", "0"}, {"EXAT", "0"}, {"PXAT", "-3"}, {"EX", "9223372036854775807"},
	} {
		d.Do(append([]string{"GETEX", "k"}, bad...)...)
	}
	// Options are checked before the key; the expire value only after it.
	d.Do("GETEX", "missing", "FOO")
	d.Do("GETEX", "missing", "EX", "x")
	d.Do("GETEX", "missing", "EX", "0")
	// An absolute time in the past deletes the key.
	d.Do("GETEX", "k", "EXAT", "1")
	d.Do("EXISTS", "k")
	d.Do("SET", "k", "v")
	d.Do("GETEX", "k", "PXAT", "1")
	d.Do("GET", "k")
	d.Do("GETEX")
	d.Both("HELLO", "3")
	d.Do("GETEX", "missing")
	d.Do("GETDEL", "missing")
}

func TestStringMgetMset(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("MSET", "a", "1", "b", "2", "c", "3")
	d.Do("MGET", "a", "b", "c", "d", "a")
	d.Do("MSET", "a")
	d.Do("MSET", "a", "1", "b")
	d.Do("MSETNX", "a", "1", "b")
	d.Do("MSETNX", "x", "1", "y", "2")
	d.Do("MSETNX", "y", "3", "z", "4")
	d.Do("MGET", "x", "y", "z")
	d.Do("MSET", "a", "first", "a", "second")
	d.Do("GET", "a")
	d.Do("SET", "t", "v", "EX", "100")
	d.Do("MSET", "t", "w")
	d.Do("TTL", "t")
	makeList(t, d, "list", "a")
	d.Do("MGET", "a", "list", "nokey")
	d.Do("MSETNX", "list", "x")
	d.Do("MSET", "list", "x")
	d.Do("TYPE", "list")
	d.Do("MGET")
	d.Both("HELLO", "3")
	d.Do("MGET", "a", "nokey")
}

func TestStringCounters(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("INCR", "n")
	d.Do("INCR", "n")
	d.Do("DECR", "n")
	d.Do("DECR", "m")
	d.Do("INCRBY", "n", "100")
	d.Do("INCRBY", "n", "-1000")
	d.Do("DECRBY", "n", "5")
	d.Do("DECRBY", "n", "-5")
	d.Do("GET", "n")
	for _, v := range []string{"x", "", "1.5", " 1", "1 ", "+1", "01", "-0", "99999999999999999999", "9223372036854775808"} {
		d.Do("INCRBY", "n", v)
		d.Do("DECRBY", "n", v)
		d.Do("SET", "bad", v)
		d.Do("INCR", "bad")
		d.Do("DECRBY", "bad", "1")
	}
	d.Do("SET", "n", "9223372036854775807")
	d.Do("INCR", "n")
	d.Do("INCRBY", "n", "0")
	d.Do("DECRBY", "n", "-1")
	d.Do("SET", "n", "-9223372036854775808")
	d.Do("DECR", "n")
	d.Do("INCRBY", "n", "-1")
	d.Do("INCRBY", "n", "9223372036854775807")
	d.Do("DECRBY", "x", "-9223372036854775808")
	d.Do("DECRBY", "x", "9223372036854775807")
	d.Do("INCRBY", "x", "-9223372036854775808")
	d.Do("SET", "t", "5", "EX", "100")
	d.Do("INCR", "t")
	d.Do("TTL", "t") // counters keep the TTL
	d.Do("INCRBYFLOAT", "t", "1.5")
	d.Do("TTL", "t")
	makeList(t, d, "list", "a")
	d.Do("INCR", "list")
	d.Do("INCRBY", "list", "x") // the increment is parsed first
	d.Do("INCRBYFLOAT", "list", "1")
	d.Do("INCR")
	d.Do("INCRBY", "n")
	d.Do("INCRBYFLOAT", "n")

	d.Do("INCRBYFLOAT", "f", "10.5")
	d.Do("INCRBYFLOAT", "f", "0.1")
	d.Do("INCRBYFLOAT", "f", "-5")
	d.Do("INCRBYFLOAT", "f", "5.0e3")
	d.Do("INCRBYFLOAT", "f", "1e-10")
	d.Do("INCRBYFLOAT", "g", "3")
	d.Do("INCRBYFLOAT", "g", "-3")
	d.Do("GET", "g")
	for _, v := range []string{"x", "", "nan", "inf", "-inf", "1e400", " 1", "1 ", "1_0"} {
		d.Do("INCRBYFLOAT", "f", v)
	}
	d.Do("SET", "bad", "")
	d.Do("INCRBYFLOAT", "bad", "1")
	d.Do("SET", "bad", "abc")
	d.Do("INCRBYFLOAT", "bad", "1")
	d.Do("SET", "big", "1.7e308")
	d.Do("INCRBYFLOAT", "big", "1.7e308")
	d.Do("SET", "i", "100")
	d.Do("INCRBYFLOAT", "i", "0.25")
	d.Do("INCR", "i")
	d.Both("HELLO", "3")
	d.Do("INCRBYFLOAT", "i", "1")
	d.Do("INCR", "i2")
}

func TestStringAppendStrlenRanges(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("APPEND", "s", "Hello")
	d.Do("APPEND", "s", " World")
	d.Do("STRLEN", "s")
	d.Do("STRLEN", "nokey")
	d.Do("SET", "t", "v", "EX", "100")
	d.Do("APPEND", "t", "w")
	d.Do("TTL", "t")
	d.Do("APPEND", "s", "")
	d.Do("APPEND", "e", "")
	d.Do("EXISTS", "e")
	for _, r := range [][2]string{
		{"0", "3"}, {"-3", "-1"}, {"0", "-1"}, {"0", "100"}, {"5", "3"}, {"-100", "-50"},
		{"-1", "-5"}, {"-100", "2"}, {"100", "200"}, {"10", "10"}, {"-1", "0"},
		{"9223372036854775807", "9223372036854775807"}, {"-9223372036854775808", "-9223372036854775808"},
	} {
		d.Do("GETRANGE", "s", r[0], r[1])
		d.Do("SUBSTR", "s", r[0], r[1])
		d.Do("GETRANGE", "nokey", r[0], r[1])
	}
	d.Do("SET", "empty", "")
	d.Do("GETRANGE", "empty", "0", "-1")
	d.Do("GETRANGE", "s", "x", "1")
	d.Do("GETRANGE", "s", "0", "1.5")
	d.Do("GETRANGE", "s", "0")
	d.Do("SET", "num", "12345")
	d.Do("GETRANGE", "num", "1", "2")

	d.Do("SETRANGE", "s", "6", "Redis")
	d.Do("GET", "s")
	d.Do("SETRANGE", "s", "20", "!")
	d.Do("GET", "s")
	d.Do("SETRANGE", "s", "0", "")
	d.Do("SETRANGE", "new", "3", "abc")
	d.Do("GET", "new")
	d.Do("SETRANGE", "new2", "3", "")
	d.Do("EXISTS", "new2")
	d.Do("SETRANGE", "new2", "0", "")
	d.Do("SETRANGE", "s", "-1", "x")
	d.Do("SETRANGE", "s", "x", "x")
	d.Do("SETRANGE", "s", "536870911", "xx")
	d.Do("SETRANGE", "s", "536870912", "x")
	d.Do("SETRANGE", "s", "536870911", "")
	d.Do("SETRANGE", "s", "9223372036854775807", "x")
	d.Do("SETRANGE", "nokey", "536870912", "x")
	d.Do("SETRANGE", "t", "0", "W")
	d.Do("TTL", "t")
	d.Do("GET", "t")
	makeList(t, d, "list", "a")
	d.Do("APPEND", "list", "x")
	d.Do("STRLEN", "list")
	d.Do("GETRANGE", "list", "0", "1")
	d.Do("SETRANGE", "list", "0", "x")
	d.Do("SETRANGE", "list", "0", "")
	d.Do("SETRANGE", "list", "-1", "x")
	d.Do("APPEND", "s")
	d.Do("STRLEN")
}

// TestStringAppendGrowth builds long strings by many APPENDs (the path
// that reuses spare buffer room) and checks that values sharing a buffer
// (copies, GETSET, RENAME) never see each other's later appends.
func TestStringAppendGrowth(t *testing.T) {
	d := redistest.NewDiff(t)
	chunk := strings.Repeat("x", 100)
	for i := 0; i < 200; i++ {
		d.Both("APPEND", "a", chunk+strconv.Itoa(i))
	}
	d.Do("STRLEN", "a")
	d.Do("GET", "a")
	d.Do("COPY", "a", "b")
	d.Do("APPEND", "a", "left")
	d.Do("APPEND", "b", "right")
	d.Do("APPEND", "a", "more")
	d.Do("GET", "a")
	d.Do("GET", "b")
	d.Do("GETRANGE", "a", "-20", "-1")
	d.Do("GETRANGE", "b", "-20", "-1")
	d.Do("SET", "c", strings.Repeat("y", 300))
	d.Do("APPEND", "c", "1")
	d.Do("GETSET", "c", "short")
	d.Do("APPEND", "c", strings.Repeat("z", 300))
	d.Do("GET", "c")
	d.Do("SETRANGE", "a", "5", "MID")
	d.Do("APPEND", "a", "end")
	d.Do("GET", "a")
	d.Do("RENAME", "a", "r")
	d.Do("APPEND", "r", "after-rename")
	d.Do("GET", "r")
	d.Do("GET", "b")

	// Timing bound: 20000 appends to one key must stay linear. With a
	// copy per append this moves ~4 GB and takes seconds.
	_, o := redistest.Shared(t)
	c := redistest.Dial(t, o.Addr)
	start := time.Now()
	piece := strings.Repeat("p", 20)
	const n = 20000
	for i := 0; i < n; i++ {
		c.Send("APPEND", "big", piece)
	}
	for i := 0; i < n; i++ {
		c.ReadRaw()
	}
	if got := c.Do("STRLEN", "big").Int; got != n*20 {
		t.Fatalf("STRLEN big = %d, want %d", got, n*20)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("%d appends took %v", n, el)
	}
}

func TestStringLCS(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("MSET", "key1", "ohmytext", "key2", "mynewtext")
	d.Do("LCS", "key1", "key2")
	d.Do("LCS", "key1", "key2", "LEN")
	d.Do("LCS", "key1", "key2", "IDX")
	d.Do("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4")
	d.Do("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN")
	d.Do("LCS", "key1", "key2", "IDX", "WITHMATCHLEN")
	d.Do("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "-4")
	d.Do("LCS", "key1", "key2", "IDX", "LEN")
	d.Do("LCS", "key1", "key2", "IDX", "MINMATCHLEN")
	d.Do("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "x")
	d.Do("LCS", "key1", "key2", "FOO")
	d.Do("LCS", "key1", "nokey")
	d.Do("LCS", "nokey", "nokey2", "IDX")
	d.Do("LCS", "key1")
	makeList(t, d, "list", "a")
	d.Do("LCS", "key1", "list")
	d.Do("LCS", "list", "nokey", "LEN")
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func() string {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = "abcd"[rng.IntN(4)]
		}
		return string(b)
	}
	for i := 0; i < 50; i++ {
		d.Both("MSET", "x", gen(), "y", gen())
		d.Do("LCS", "x", "y")
		d.Do("LCS", "x", "y", "IDX", "WITHMATCHLEN")
		d.Do("LCS", "x", "y", "IDX", "MINMATCHLEN", "2")
	}
	d.Both("HELLO", "3")
	d.Do("LCS", "key1", "key2", "IDX", "WITHMATCHLEN")
}

// TestStringPropagation checks what the string commands log to the AOF
// hook: effects with absolute times, not the requests.
func TestStringPropagation(t *testing.T) {
	redistest.RequireRedis(t)
	o := redistest.StartOrdo(t)
	log := captureProp(o)
	c := redistest.Dial(t, o.Addr)
	now := time.Now().UnixMilli()
	c.Do("SET", "k", "v", "EX", "100")
	c.Do("SET", "k", "v", "PX", "100000", "GET")
	c.Do("SET", "k", "v", "NX") // not performed: not logged
	c.Do("SET", "k", "w", "GET")
	c.Do("SET", "k", "v", "PXAT", "99999999999999")
	c.Do("SETEX", "k", "100", "v")
	c.Do("PSETEX", "k", "100000", "v")
	c.Do("GETEX", "k", "EX", "100")
	c.Do("GETEX", "k", "PERSIST")
	c.Do("GETEX", "k", "PERSIST") // no TTL to remove: not logged
	c.Do("GETEX", "k")            // read only: not logged
	c.Do("GETEX", "k", "EXAT", "1")
	c.Do("SET", "f", "1.5")
	c.Do("INCRBYFLOAT", "f", "1")
	c.Do("GETSET", "f", "x")
	c.Do("GETDEL", "f")
	c.Do("GETDEL", "f") // nothing deleted: not logged
	got := log()
	want := []string{
		"SET k v PXAT ~100000", "SET k v PXAT ~100000", "SET k w", "SET k v PXAT 99999999999999",
		"SET k v PXAT ~100000", "SET k v PXAT ~100000", "PEXPIREAT k ~100000", "PERSIST k", "DEL k",
		"SET f 1.5", "SET f 2.5 KEEPTTL", "SET f x", "DEL f",
	}
	checkProp(t, got, want, now)
}

// captureProp records the engine's propagated commands; the returned
// function takes the log so far.
func captureProp(o *redistest.Ordo) func() []string {
	var log []string
	o.Engine.Lock()
	o.Engine.Propagate = func(db int, args [][]byte) {
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = string(a)
		}
		log = append(log, strings.Join(parts, " "))
	}
	o.Engine.Unlock()
	return func() []string {
		o.Engine.Lock()
		defer o.Engine.Unlock()
		out := log
		log = nil
		return out
	}
}

// checkProp compares logged commands with want, where "~N" stands for an
// absolute time about N ms after now.
func checkProp(t *testing.T, got, want []string, now int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("propagated %d commands, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		g, w := strings.Fields(got[i]), strings.Fields(want[i])
		ok := len(g) == len(w)
		for j := 0; ok && j < len(w); j++ {
			if strings.HasPrefix(w[j], "~") {
				rel, _ := strconv.ParseInt(w[j][1:], 10, 64)
				abs, err := strconv.ParseInt(g[j], 10, 64)
				ok = err == nil && abs >= now+rel && abs <= now+rel+5000
			} else {
				ok = g[j] == w[j]
			}
		}
		if !ok {
			t.Errorf("propagated #%d: %q, want %q", i, got[i], want[i])
		}
	}
}

// makeList creates a non-string key on both servers: a real list when
// Ordo has RPUSH, otherwise a stand-in value of type "list" injected in
// the engine, so that WRONGTYPE paths are exercised either way.
func makeList(t *testing.T, d *redistest.Diff, key string, elems ...string) {
	t.Helper()
	d.Redis.Do(append([]string{"RPUSH", key}, elems...)...)
	r := d.Ordo.Do(append([]string{"RPUSH", key}, elems...)...)
	if r.Kind == '-' && strings.HasPrefix(r.Str, "ERR unknown command") {
		injectFakeList(t, key, len(elems))
	} else if r.Kind == '-' {
		t.Fatalf("RPUSH %s: %s", key, r.Str)
	}
}

var _ = fmt.Sprint
