package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

func TestHashBasics(t *testing.T) {
	d := redistest.NewDiff(t)
	// The transcript of the data-modeling seed: small hashes keep the
	// insertion order.
	d.Do("HMSET", "user:1000", "username", "antirez", "password", "P1pp0", "age", "34")
	d.Do("HGETALL", "user:1000")
	d.Do("HSET", "user:1000", "password", "12345")
	d.Do("HGETALL", "user:1000")
	d.Do("HSET", "h", "a", "1", "b", "2", "a", "3")
	d.Do("HSET", "h", "c", "x", "b", "y")
	d.Do("HGETALL", "h")
	d.Do("HKEYS", "h")
	d.Do("HVALS", "h")
	d.Do("HGET", "h", "a")
	d.Do("HGET", "h", "nope")
	d.Do("HGET", "nokey", "a")
	d.Do("HMGET", "h", "a", "nope", "c")
	d.Do("HMGET", "nokey", "a", "b")
	d.Do("HLEN", "h")
	d.Do("HLEN", "nokey")
	d.Do("HEXISTS", "h", "a")
	d.Do("HEXISTS", "h", "z")
	d.Do("HEXISTS", "nokey", "z")
	d.Do("HSTRLEN", "h", "c")
	d.Do("HSTRLEN", "h", "z")
	d.Do("HSTRLEN", "nokey", "z")
	d.Do("HSETNX", "h", "a", "new")
	d.Do("HSETNX", "h", "d", "new")
	d.Do("HSETNX", "h2", "d", "new")
	d.Do("HGETALL", "h")
	d.Do("HDEL", "h", "a", "a", "zz", "c")
	d.Do("HGETALL", "h")
	d.Do("HDEL", "h", "b", "d")
	d.Do("EXISTS", "h")
	d.Do("HDEL", "nokey", "a")
	d.Do("HGETALL", "nokey")
	d.Do("HKEYS", "nokey")
	d.Do("HVALS", "nokey")
	// Empty strings and binary data.
	d.Do("HSET", "b", "", "", "k\x00\xff", "v\r\n")
	d.Do("HGETALL", "b")
	d.Do("HGET", "b", "")
	d.Do("HSTRLEN", "b", "k\x00\xff")
	// Updating a value in place with shorter and longer ones keeps order.
	d.Do("HSET", "o", "f1", "aaaa", "f2", "b", "f3", "c")
	d.Do("HSET", "o", "f1", "x")
	d.Do("HSET", "o", "f2", strings.Repeat("z", 60))
	d.Do("HGETALL", "o")
	d.Do("HDEL", "o", "f2")
	d.Do("HSET", "o", "f2", "again")
	d.Do("HGETALL", "o")
}

func TestHashErrors(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SET", "s", "x")
	for _, cmd := range [][]string{
		{"HSET", "s", "a", "1"}, {"HMSET", "s", "a", "1"}, {"HSETNX", "s", "a", "1"},
		{"HGET", "s", "a"}, {"HMGET", "s", "a"}, {"HGETALL", "s"}, {"HKEYS", "s"},
		{"HVALS", "s"}, {"HDEL", "s", "a"}, {"HEXISTS", "s", "a"}, {"HLEN", "s"},
		{"HSTRLEN", "s", "a"}, {"HINCRBY", "s", "a", "1"}, {"HINCRBYFLOAT", "s", "a", "1"},
		{"HRANDFIELD", "s"}, {"HRANDFIELD", "s", "2"}, {"HRANDFIELD", "s", "0"},
		{"HRANDFIELD", "s", "-2", "WITHVALUES"}, {"HSCAN", "s", "0"},
	} {
		d.Do(cmd...)
	}
	// Wrong arity.
	for _, cmd := range [][]string{
		{"HSET", "h"}, {"HSET", "h", "a"}, {"HSET", "h", "a", "1", "b"}, {"HMSET", "h", "a"},
		{"HMSET", "h", "a", "1", "b"}, {"HSETNX", "h", "a"}, {"HGET", "h"}, {"HMGET", "h"},
		{"HGETALL"}, {"HGETALL", "h", "x"}, {"HDEL", "h"}, {"HEXISTS", "h"}, {"HLEN"},
		{"HSTRLEN", "h"}, {"HINCRBY", "h", "a"}, {"HINCRBYFLOAT", "h", "a"}, {"HRANDFIELD"},
		{"HSCAN", "h"}, {"HKEYS"}, {"HVALS", "a", "b"},
	} {
		d.Do(cmd...)
	}
	d.Do("EXISTS", "h")
}

func TestHashIncr(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("HINCRBY", "h", "n", "5")
	d.Do("HINCRBY", "h", "n", "-7")
	d.Do("HINCRBY", "h", "n", "x")
	d.Do("HINCRBY", "h", "n", "1.5")
	d.Do("HINCRBY", "h", "n", "")
	d.Do("HINCRBY", "h", "n", "99999999999999999999")
	d.Do("HSET", "h", "s", "abc", "e", "", "sp", " 1", "big", "9223372036854775807", "small", "-9223372036854775808")
	d.Do("HINCRBY", "h", "s", "1")
	d.Do("HINCRBY", "h", "e", "1")
	d.Do("HINCRBY", "h", "sp", "1")
	d.Do("HINCRBY", "h", "big", "1")
	d.Do("HINCRBY", "h", "big", "0")
	d.Do("HINCRBY", "h", "big", "-1")
	d.Do("HINCRBY", "h", "small", "-1")
	d.Do("HINCRBY", "h", "small", "1")
	d.Do("HGETALL", "h")
	// HINCRBY on a missing key leaves no key behind when the increment is bad.
	d.Do("HINCRBY", "nokey", "f", "x")
	d.Do("EXISTS", "nokey")

	d.Do("HINCRBYFLOAT", "f", "x", "10.5")
	d.Do("HINCRBYFLOAT", "f", "x", "0.1")
	d.Do("HINCRBYFLOAT", "f", "x", "-5.0e3")
	d.Do("HINCRBYFLOAT", "f", "x", "abc")
	d.Do("HINCRBYFLOAT", "f", "x", "")
	d.Do("HINCRBYFLOAT", "f", "x", "inf")
	d.Do("HINCRBYFLOAT", "f", "x", "-inf")
	d.Do("HINCRBYFLOAT", "f", "x", "nan")
	d.Do("HINCRBYFLOAT", "f", "y", "3")
	d.Do("HINCRBYFLOAT", "f", "y", "3.0")
	d.Do("HSET", "f", "s", "abc", "e", "", "i", "17", "inf", "inf", "huge", "1e308", "exp", "1.5e3")
	d.Do("HINCRBYFLOAT", "f", "s", "1")
	d.Do("HINCRBYFLOAT", "f", "e", "1")
	d.Do("HINCRBYFLOAT", "f", "i", "0.25")
	d.Do("HINCRBYFLOAT", "f", "inf", "1")
	d.Do("HINCRBYFLOAT", "f", "huge", "1e308")
	d.Do("HINCRBYFLOAT", "f", "exp", "1")
	d.DoPairs("HGETALL", "f") // the 309-byte value made it a hashtable
	d.Do("HINCRBYFLOAT", "nokey", "f", "x")
	d.Do("EXISTS", "nokey")
}

// TestHashIncrByFloatPropagation checks that HINCRBYFLOAT is logged as
// an HSET of the result.
func TestHashIncrByFloatPropagation(t *testing.T) {
	o := redistest.StartOrdo(t)
	var logged [][]string
	o.Engine.Lock()
	o.Engine.Propagate = func(db int, args [][]byte) {
		s := make([]string, len(args))
		for i, a := range args {
			s[i] = string(a)
		}
		logged = append(logged, s)
	}
	o.Engine.Unlock()
	c := redistest.Dial(t, o.Addr)
	c.Do("HINCRBYFLOAT", "h", "f", "1.5")
	c.Do("HINCRBYFLOAT", "h", "f", "x")
	o.Engine.Lock()
	defer o.Engine.Unlock()
	if len(logged) != 1 || strings.Join(logged[0], " ") != "HSET h f 1.5" {
		t.Fatalf("logged %q, want [HSET h f 1.5]", logged)
	}
}

func TestHashRESP3(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Both("HELLO", "3")
	d.Do("HSET", "h", "a", "1", "b", "2")
	d.Do("HGETALL", "h")
	d.Do("HGETALL", "nokey")
	d.Do("HKEYS", "h")
	d.Do("HVALS", "h")
	d.Do("HGET", "h", "zz")
	d.Do("HMGET", "h", "a", "zz")
	d.Do("HRANDFIELD", "nokey")
	d.Do("HRANDFIELD", "h", "5", "WITHVALUES")
	d.Do("HRANDFIELD", "h", "5")
	d.Do("HRANDFIELD", "nokey", "5", "WITHVALUES")
	d.DoShape("HRANDFIELD", "h", "-5", "WITHVALUES")
	d.Do("HSCAN", "h", "0")
	d.Do("HINCRBYFLOAT", "h", "a", "1.5")
	d.Do("HEXISTS", "h", "a")
}

// bigHash fills key with n fields on both servers (one HSET per 100).
func bigHash(d *redistest.Diff, key string, n int) {
	for i := 0; i < n; i += 100 {
		args := []string{"HSET", key}
		for j := i; j < i+100 && j < n; j++ {
			args = append(args, "f"+strconv.Itoa(j), "v"+strconv.Itoa(j))
		}
		d.Do(args...)
	}
}

// TestHashEncodingThresholds checks where a hash stops keeping insertion
// order (the listpack) for the hashtable, using an order in which a hash
// table would almost surely differ.
func TestHashEncodingThresholds(t *testing.T) {
	d := redistest.NewDiff(t)
	entries := d.Do("CONFIG", "GET", "hash-max-listpack-entries").Elems[1].Str
	max, _ := strconv.Atoi(entries)
	// Exactly at the limit: still ordered.
	bigHash(d, "at", max)
	d.Do("HGETALL", "at")
	d.Do("HKEYS", "at")
	d.Do("HSCAN", "at", "0")
	// One more: a hashtable (compare unordered).
	bigHash(d, "over", max+1)
	d.DoSorted("HGETALL", "over")
	d.DoPairs("HGETALL", "over")
	d.Do("HLEN", "over")
	// Removing fields never converts back; values stay right.
	for i := 0; i < max; i += 2 {
		d.Do("HDEL", "over", "f"+strconv.Itoa(i))
	}
	d.DoPairs("HGETALL", "over")
	d.Do("HGET", "over", "f1")
	d.Do("HGET", "over", "f0")

	// A value or a field longer than hash-max-listpack-value (64).
	long := strings.Repeat("x", 65)
	d.Do("HSET", "lv", "a", "1", "b", "2", "c", "3")
	d.Do("HSET", "lv", "b", strings.Repeat("y", 64))
	d.Do("HGETALL", "lv") // 64 bytes: still a listpack
	d.Do("HSET", "lv", "d", long)
	d.DoPairs("HGETALL", "lv")
	d.Do("HSET", "lf", "a", "1", long, "2")
	d.DoPairs("HGETALL", "lf")
	// HSETNX, HINCRBY and HINCRBYFLOAT convert on long fields too.
	d.Do("HSETNX", "nx", "a", "1")
	d.Do("HSETNX", "nx", long, "2")
	d.DoPairs("HGETALL", "nx")
	d.Do("HSET", "ib", "a", "1")
	d.Do("HINCRBY", "ib", long, "2")
	d.DoPairs("HGETALL", "ib")
	d.Do("HSET", "if", "a", "1")
	d.Do("HINCRBYFLOAT", "if", long, "2.5")
	d.DoPairs("HGETALL", "if")
	d.Do("OBJECT", "ENCODING", "lv")
	d.Do("OBJECT", "ENCODING", "at")
}

func TestHashEncodingConfig(t *testing.T) {
	r := redistest.StartRedis(t, "--hash-max-listpack-entries", "4", "--hash-max-listpack-value", "8")
	o := redistest.StartOrdo(t, "hash-max-listpack-entries", "4", "hash-max-listpack-value", "8")
	d := redistest.NewDiffWith(t, r.Addr, o.Addr)
	d.Do("HSET", "h", "d", "1", "c", "2", "b", "3", "a", "4")
	d.Do("HGETALL", "h")
	d.Do("HSET", "h", "e", "5")
	d.DoPairs("HGETALL", "h")
	d.Do("HSET", "v", "z", "12345678", "y", "1")
	d.Do("HGETALL", "v")
	d.Do("HSET", "v", "x", "123456789")
	d.DoPairs("HGETALL", "v")
	d.Do("CONFIG", "SET", "hash-max-listpack-entries", "0")
	d.Do("HSET", "z", "a", "1")
	d.Do("HGETALL", "z")
}

func TestHashRandField(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("HRANDFIELD", "nokey")
	d.Do("HRANDFIELD", "nokey", "3")
	d.Do("HRANDFIELD", "nokey", "-3", "WITHVALUES")
	d.Do("HRANDFIELD", "nokey", "x")
	d.Do("HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5")
	d.Do("HRANDFIELD", "h", "0")
	d.Do("HRANDFIELD", "h", "0", "WITHVALUES")
	d.Do("HRANDFIELD", "h", "5")
	d.Do("HRANDFIELD", "h", "100", "WITHVALUES")
	d.Do("HRANDFIELD", "h", "x")
	d.Do("HRANDFIELD", "h", "1", "WITHVALUE")
	d.Do("HRANDFIELD", "h", "1", "WITHVALUES", "x")
	d.Do("HRANDFIELD", "h", "-9223372036854775808")
	d.Do("HRANDFIELD", "h", "9223372036854775807", "WITHVALUES")
	d.Do("HRANDFIELD", "h", "-9223372036854775807", "WITHVALUES")
	d.Do("HRANDFIELD", "h", "4611686018427387904", "WITHVALUES")
	d.Do("HRANDFIELD", "nokey", "4611686018427387904", "WITHVALUES")

	values := map[string]string{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5"}
	checkPairs := func(v resp.Value, n int, distinct bool) {
		t.Helper()
		if len(v.Elems) != 2*n {
			t.Fatalf("got %d elements, want %d", len(v.Elems), 2*n)
		}
		seen := map[string]bool{}
		for i := 0; i < len(v.Elems); i += 2 {
			f, val := v.Elems[i].Str, v.Elems[i+1].Str
			if values[f] != val {
				t.Fatalf("pair %s=%s is not in the hash", f, val)
			}
			if distinct && seen[f] {
				t.Fatalf("field %s returned twice", f)
			}
			seen[f] = true
		}
	}
	for _, n := range []int{1, 2, 3, 4} {
		_, o := d.DoShape("HRANDFIELD", "h", strconv.Itoa(n), "WITHVALUES")
		checkPairs(o, n, true)
	}
	_, o := d.DoShape("HRANDFIELD", "h", "-20", "WITHVALUES")
	checkPairs(o, 20, false)
	_, one := d.DoShape("HRANDFIELD", "h")
	if _, ok := values[one.Str]; !ok {
		t.Fatalf("HRANDFIELD returned %q", one.Str)
	}

	// A hashtable-encoded hash: distinct fields for positive counts (both
	// sampling strategies), repeats for negative counts.
	bigHash(d, "big", 300)
	for _, n := range []int{5, 50, 150, 299} {
		_, o := d.DoShape("HRANDFIELD", "big", strconv.Itoa(n))
		seen := map[string]bool{}
		for _, e := range o.Elems {
			if seen[e.Str] || !strings.HasPrefix(e.Str, "f") {
				t.Fatalf("HRANDFIELD big %d: bad or repeated field %q", n, e.Str)
			}
			seen[e.Str] = true
		}
	}
	_, o = d.DoShape("HRANDFIELD", "big", "-1000", "WITHVALUES")
	seen := map[string]bool{}
	for i := 0; i < len(o.Elems); i += 2 {
		f, v := o.Elems[i].Str, o.Elems[i+1].Str
		if "v"+f[1:] != v {
			t.Fatalf("pair %s=%s", f, v)
		}
		seen[f] = true
	}
	if len(seen) == 1000 || len(seen) < 100 {
		t.Fatalf("HRANDFIELD big -1000 gave %d distinct fields", len(seen))
	}
	d.DoSorted("HRANDFIELD", "big", "300")
	d.DoSorted("HRANDFIELD", "big", "1000", "WITHVALUES")
}

func TestHashScan(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("HSCAN", "nokey", "0")
	d.Do("HSCAN", "nokey", "0", "COUNT", "0") // options are not even parsed
	d.Do("HSCAN", "nokey", "x")
	d.Do("HSET", "h", "a", "1", "b", "2", "ab", "3")
	d.Do("HSCAN", "h", "0")
	d.Do("HSCAN", "h", "123") // a listpack ignores the cursor
	d.Do("HSCAN", "h", "")
	d.Do("HSCAN", "h", "-1")
	d.Do("HSCAN", "h", "+0")
	d.Do("HSCAN", "h", " 1")
	d.Do("HSCAN", "h", "1x")
	d.Do("HSCAN", "h", "-")
	d.Do("HSCAN", "h", "18446744073709551615")
	d.Do("HSCAN", "h", "18446744073709551616")
	d.Do("HSCAN", "h", "0", "MATCH", "a*")
	d.Do("HSCAN", "h", "0", "match", "*", "count", "1")
	d.Do("HSCAN", "h", "0", "COUNT", "0")
	d.Do("HSCAN", "h", "0", "COUNT", "-1")
	d.Do("HSCAN", "h", "0", "COUNT", "x")
	d.Do("HSCAN", "h", "0", "COUNT")
	d.Do("HSCAN", "h", "0", "MATCH")
	d.Do("HSCAN", "h", "0", "TYPE", "string")
	d.Do("HSCAN", "h", "0", "NOVALUES")

	// A hashtable: every field comes back exactly with its value, and
	// MATCH filters fields.
	bigHash(d, "big", 1000)
	got := map[string]string{}
	cursor := "0"
	for i := 0; i < 10000; i++ {
		v := d.Ordo.Do("HSCAN", "big", cursor, "COUNT", "50", "MATCH", "f1*")
		for j := 0; j < len(v.Elems[1].Elems); j += 2 {
			got[v.Elems[1].Elems[j].Str] = v.Elems[1].Elems[j+1].Str
		}
		cursor = v.Elems[0].Str
		if cursor == "0" {
			break
		}
	}
	want := 0
	for i := 0; i < 1000; i++ {
		f := "f" + strconv.Itoa(i)
		if !strings.HasPrefix(f, "f1") {
			continue
		}
		want++
		if got[f] != "v"+strconv.Itoa(i) {
			t.Fatalf("HSCAN missed %s (got %q)", f, got[f])
		}
	}
	if len(got) != want {
		t.Fatalf("HSCAN returned %d fields, want %d", len(got), want)
	}
}

// TestHashScanGuarantee: fields present for the whole scan are returned,
// while others are added and removed between calls (growing and
// shrinking the table).
func TestHashScanGuarantee(t *testing.T) {
	o := redistest.StartOrdo(t)
	c := redistest.Dial(t, o.Addr)
	for i := 0; i < 2000; i += 100 {
		args := []string{"HSET", "h"}
		for j := i; j < i+100; j++ {
			args = append(args, fmt.Sprintf("keep%d", j), "v")
		}
		c.Do(args...)
	}
	seen := map[string]bool{}
	cursor, step := "0", 0
	for ; step < 100000; step++ {
		v := c.Do("HSCAN", "h", cursor, "COUNT", "20")
		for j := 0; j < len(v.Elems[1].Elems); j += 2 {
			seen[v.Elems[1].Elems[j].Str] = true
		}
		cursor = v.Elems[0].Str
		if cursor == "0" {
			break
		}
		// Grow a lot for a while, then shrink below the start.
		if step < 30 {
			args := []string{"HSET", "h"}
			for j := 0; j < 300; j++ {
				args = append(args, fmt.Sprintf("tmp%d_%d", step, j), "v")
			}
			c.Do(args...)
		} else if step < 60 {
			args := []string{"HDEL", "h"}
			for j := 0; j < 300; j++ {
				args = append(args, fmt.Sprintf("tmp%d_%d", step-30, j))
			}
			c.Do(args...)
		}
	}
	for i := 0; i < 2000; i++ {
		if !seen[fmt.Sprintf("keep%d", i)] {
			t.Fatalf("HSCAN never returned keep%d (after %d calls)", i, step)
		}
	}
}

// TestHashTransactionsAndWatch: writes to a hash invalidate WATCH, reads do not.
func TestHashWatch(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("HSET", "h", "a", "1")
	d.Do("WATCH", "h")
	d.Do("HGET", "h", "a")
	d.Do("MULTI")
	d.Do("HGET", "h", "a")
	d.Do("EXEC")
	d.Do("WATCH", "h")
	d.Both("HSET", "h", "a", "2")
	d.Do("MULTI")
	d.Do("HGET", "h", "a")
	d.Do("EXEC")
	d.Do("WATCH", "h")
	d.Both("HINCRBY", "h", "n", "2")
	d.Do("MULTI")
	d.Do("HGET", "h", "n")
	d.Do("EXEC")
	d.Do("WATCH", "h")
	d.Both("HDEL", "h", "nope")
	d.Do("MULTI")
	d.Do("HGET", "h", "n")
	d.Do("EXEC")
}

// TestHashTTL: changing a hash keeps its TTL; deleting the last field
// removes the key.
func TestHashTTL(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("HSET", "h", "a", "1", "b", "2")
	d.Do("EXPIRE", "h", "100")
	d.Do("HSET", "h", "c", "3")
	d.Do("HINCRBY", "h", "a", "1")
	d.Do("HDEL", "h", "c")
	d.Do("TTL", "h")
	d.Do("HDEL", "h", "a", "b")
	d.Do("TTL", "h")
	d.Do("TYPE", "h")
	d.Do("HSET", "h", "a", "1")
	d.Do("TYPE", "h")
	d.Do("TTL", "h")
}

// TestHashRandomOps runs random writes on a few hashes, with values
// around the listpack size limit, and compares every reply; HGETALL is
// compared in order while Redis keeps the hash as a listpack.
func TestHashRandomOps(t *testing.T) {
	d := redistest.NewDiff(t)
	rng := rand.New(rand.NewPCG(1, 2))
	keys := []string{"h0", "h1", "h2"}
	field := func() string { return "f" + strconv.Itoa(rng.IntN(40)) }
	value := func() string {
		n := rng.IntN(20)
		if rng.IntN(30) == 0 {
			n = 60 + rng.IntN(8)
		}
		return strings.Repeat(string(rune('a'+rng.IntN(26))), n)
	}
	for i := 0; i < 3000; i++ {
		k := keys[rng.IntN(len(keys))]
		switch rng.IntN(8) {
		case 0, 1:
			d.Do("HSET", k, field(), value(), field(), value())
		case 2:
			d.Do("HDEL", k, field(), field())
		case 3:
			d.Do("HINCRBY", k, field(), strconv.Itoa(rng.IntN(100)-50))
		case 4:
			d.Do("HSETNX", k, field(), value())
		case 5:
			d.Do("HMGET", k, field(), field())
		case 6:
			d.Do("HINCRBYFLOAT", k, field(), "1.5")
		case 7:
			d.Do("HSTRLEN", k, field())
		}
		if i%50 == 0 {
			if d.Redis.Do("OBJECT", "ENCODING", k).Str == "hashtable" {
				d.DoPairs("HGETALL", k)
			} else {
				d.Do("HGETALL", k)
			}
			d.Do("HLEN", k)
			d.Do("OBJECT", "ENCODING", k)
		}
	}
}

// TestHashSetRewrite replays what Rewrite emits for hashes and sets into
// a fresh engine (as an AOF rewrite or snapshot load does) and checks
// the contents, and the order of listpacks and intsets, survive; and
// that Copy is deep.
func TestHashSetRewrite(t *testing.T) {
	src, dst := engine.New(nil), engine.New(nil)
	defer src.Close()
	defer dst.Close()
	call := func(e *engine.Engine, args ...string) string {
		b := make([][]byte, len(args))
		for i, a := range args {
			b[i] = []byte(a)
		}
		w := &resp.Writer{Proto: 2}
		e.Lock()
		e.Call(e.NewClient("embedded"), b, w)
		e.Unlock()
		return string(w.Buf)
	}
	call(src, "HSET", "small", "z", "1", "a", "", "m", "3")
	args := []string{"HSET", "big"}
	for i := 0; i < 1000; i++ {
		args = append(args, "f"+strconv.Itoa(i), "v"+strconv.Itoa(i))
	}
	call(src, args...)
	call(src, "SADD", "iset", "9", "-3", "100")
	args = []string{"SADD", "hset"}
	for i := 0; i < 1000; i++ {
		args = append(args, "m"+strconv.Itoa(i))
	}
	call(src, args...)

	copies := map[string]engine.Typed{}
	src.Lock()
	src.DBs()[0].Each(engine.NowMs(), func(key string, v engine.Value, _ int64) bool {
		typed := v.Obj().(engine.Typed)
		copies[key] = typed.Copy()
		typed.Rewrite(key, func(a [][]byte) {
			if len(a) > 2+2*64 {
				t.Errorf("rewrite of %s: command of %d arguments", key, len(a))
			}
			s := make([]string, len(a))
			for i, x := range a {
				s[i] = string(x)
			}
			call(dst, s...)
		})
		return true
	})
	src.Unlock()
	if len(copies) != 4 {
		t.Fatalf("%d keys", len(copies))
	}
	if got := call(dst, "HGETALL", "small"); got != call(src, "HGETALL", "small") {
		t.Errorf("HGETALL small after rewrite: %q", got)
	}
	if got := call(dst, "SMEMBERS", "iset"); got != "*3\r\n$2\r\n-3\r\n$1\r\n9\r\n$3\r\n100\r\n" {
		t.Errorf("SMEMBERS iset after rewrite: %q", got)
	}
	for _, k := range []string{"big", "hset"} {
		for _, e := range []*engine.Engine{src, dst} {
			cmd := "HLEN"
			if k == "hset" {
				cmd = "SCARD"
			}
			if got := call(e, cmd, k); got != ":1000\r\n" {
				t.Errorf("%s %s: %q", cmd, k, got)
			}
		}
	}
	for i := 0; i < 1000; i += 97 {
		if got := call(dst, "HGET", "big", "f"+strconv.Itoa(i)); got != call(src, "HGET", "big", "f"+strconv.Itoa(i)) {
			t.Errorf("HGET big f%d after rewrite: %q", i, got)
		}
		if got := call(dst, "SISMEMBER", "hset", "m"+strconv.Itoa(i)); got != ":1\r\n" {
			t.Errorf("SISMEMBER hset m%d after rewrite: %q", i, got)
		}
	}
	// Copies do not change with the originals.
	call(src, "HSET", "small", "z", "changed")
	call(src, "SADD", "iset", "5")
	call(src, "HDEL", "big", "f1")
	call(src, "SREM", "hset", "m1")
	small, big := copies["small"].(*engine.Hash), copies["big"].(*engine.Hash)
	iset, hset := copies["iset"].(*engine.Set), copies["hset"].(*engine.Set)
	if v, _ := small.Get("z"); v != "1" || small.Len() != 3 {
		t.Errorf("copy of small changed: z=%q", v)
	}
	if _, ok := big.Get("f1"); !ok || big.Len() != 1000 {
		t.Errorf("copy of big lost f1")
	}
	if iset.Len() != 3 || iset.Contains("5") || iset.Encoding() != "intset" {
		t.Errorf("copy of iset changed")
	}
	if !hset.Contains("m1") || hset.Len() != 1000 || hset.Encoding() != "hashtable" {
		t.Errorf("copy of hset lost m1")
	}
}
