package engine_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

// TestKeysCopyAllTypes copies every type and encoding, within a database
// and across databases, with and without REPLACE: the copy's type,
// encoding and contents, and the options' errors.
func TestKeysCopyAllTypes(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SET", "s", "hello")
	d.Do("SET", "i", "12345")
	d.Do("SET", "r", strings.Repeat("x", 50))
	d.Do("RPUSH", "l", "a", "b", "1")
	d.Do("HSET", "h", "f", "v", "g", "1")
	bigh := []string{"HSET", "bh"}
	for i := 0; i < 200; i++ {
		bigh = append(bigh, "f"+strconv.Itoa(i), "v")
	}
	d.Do(bigh...)
	d.Do("SADD", "is", "1", "2", "3")
	d.Do("SADD", "hs", "a", "b")
	d.Do("ZADD", "z", "1", "a", "2", "b")
	bigz := []string{"ZADD", "bz"}
	for i := 0; i < 200; i++ {
		bigz = append(bigz, strconv.Itoa(i), "m"+strconv.Itoa(i))
	}
	d.Do(bigz...)
	d.Do("ZADD", "lz", "1", strings.Repeat("y", 70))
	for _, k := range []string{"s", "i", "r", "l", "h", "bh", "is", "hs", "z", "bz", "lz"} {
		d.Do("COPY", k, k+"_c")
		d.Do("OBJECT", "ENCODING", k+"_c")
		d.Do("TYPE", k+"_c")
		d.Do("COPY", k, k+"_d", "DB", "5")
		d.Do("COPY", k, k, "DB", "5")
		d.Do("COPY", k, k, "DB", "5", "REPLACE")
		d.Do("COPY", k, "s_c", "REPLACE")
		d.Do("TYPE", "s_c")
		d.Do("OBJECT", "ENCODING", "s_c")
	}
	d.Do("SELECT", "5")
	for _, k := range []string{"s", "i", "r", "l", "h", "bh", "is", "hs", "z", "bz", "lz"} {
		d.Do("OBJECT", "ENCODING", k+"_d")
		d.Do("OBJECT", "ENCODING", k)
		d.Do("TYPE", k)
	}
	d.Do("SELECT", "0")
	d.Do("ZADD", "z", "3", "c")
	d.Do("ZRANGE", "z_c", "0", "-1", "WITHSCORES")
	d.Do("SADD", "is", "x")
	d.Do("SMEMBERS", "is_c")
	d.Do("COPY", "s", "x", "REPLACE", "DB")
	d.Do("COPY", "s", "x", "DB", "0", "REPLACE", "x")
	d.Do("COPY", "s", "x", "db", "1.0")
	d.Do("COPY", "s", "s", "DB", "00")
	d.Do("COPY", "s", "s", "DB", "+0")
	d.Do("COPY", "s", "x", "DB", " 1")
	d.Do("COPY", "s", "x", "DB", "2147483648")
	d.Do("COPY", "s", "x", "DB", "-2147483649")
	d.Do("COPY", "s", "x", "replace", "db", "7")
	d.Do("MULTI")
	d.Do("COPY", "s", "m1")
	d.Do("COPY", "s", "m1")
	d.Do("EXEC")
	// TTL on the destination: replaced with none.
	d.Do("SET", "t", "1", "EX", "100")
	d.Do("COPY", "s", "t", "REPLACE")
	d.Do("TTL", "t")
	// An absolute deadline, so the two servers' clocks cannot differ by a ms.
	d.Do("SET", "pt", "1", "PXAT", "4102444800123")
	d.Do("COPY", "pt", "pt2")
	d.Do("PEXPIRETIME", "pt")
	d.Do("PEXPIRETIME", "pt2")
}

// TestKeysObject checks OBJECT's subcommands on values of every kind.
func TestKeysObject(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SET", "s", "hello")
	d.Do("SET", "i", "12345")
	d.Do("SET", "bi", "123456789012345678901")
	d.Do("SET", "neg", "-9223372036854775808")
	d.Do("SET", "f", "1.5")
	d.Do("SET", "e44", strings.Repeat("x", 44))
	d.Do("SET", "e45", strings.Repeat("x", 45))
	d.Do("SET", "z0", "0123")
	d.Do("SET", "sp", " 1")
	d.Do("APPEND", "ap", "1")
	d.Do("SET", "ap2", "1")
	d.Do("APPEND", "ap2", "2")
	d.Do("SETRANGE", "sr", "0", "1")
	d.Do("INCR", "inc")
	d.Do("INCRBYFLOAT", "incf", "1.5")
	d.Do("INCRBYFLOAT", "incf2", "2")
	d.Do("SET", "zero", "0")
	d.Do("SET", "big", "9999")
	d.Do("SET", "big2", "10000")
	d.Do("GETSET", "gs", "5")
	d.Do("MSET", "ms", "7", "ms2", "abc")
	d.Do("SETEX", "sx", "100", "7")
	for _, k := range []string{"s", "i", "bi", "neg", "f", "e44", "e45", "z0", "sp", "ap", "ap2", "sr", "inc", "incf", "incf2", "zero", "big", "big2", "gs", "ms", "ms2", "sx", "nokey"} {
		d.Do("OBJECT", "ENCODING", k)
		d.Do("OBJECT", "REFCOUNT", k)
		d.Do("OBJECT", "FREQ", k)
		// Whole seconds since the last access, and the shared integers'
		// clock is the server's: only the shape compares.
		d.DoShape("OBJECT", "IDLETIME", k)
	}
	d.Do("RPUSH", "l", "a")
	d.Do("HSET", "h", "f", strings.Repeat("v", 65))
	d.Do("HSET", "h2", "f", strings.Repeat("v", 64))
	d.Do("SADD", "s1", "-1", "9223372036854775807")
	d.Do("SADD", "s2", "9223372036854775808")
	d.Do("SADD", "s3", "01")
	d.Do("ZADD", "zz", "1", strings.Repeat("m", 65))
	for _, k := range []string{"l", "h", "h2", "s1", "s2", "s3", "zz"} {
		d.Do("OBJECT", "ENCODING", k)
		d.Do("OBJECT", "REFCOUNT", k)
	}
	d.Do("OBJECT", "HELP")
	d.Do("OBJECT", "help")
	d.Do("OBJECT", "HELP", "x")
	d.Do("OBJECT")
	d.Do("OBJECT", "FOO")
	d.Do("OBJECT", "FOO", "k")
	d.Do("OBJECT", "ENCODING")
	d.Do("OBJECT", "ENCODING", "s", "x")
	d.Do("OBJECT", "freq")
	d.Do("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
	d.Do("SET", "lf", "1")
	d.DoShape("OBJECT", "IDLETIME", "lf")
	d.Do("OBJECT", "FREQ", "nokey")
	d.Do("CONFIG", "SET", "maxmemory-policy", "noeviction")
	d.Do("OBJECT", "IDLETIME", "nokey")
}

// TestKeysMisc: TOUCH and UNLINK (duplicates count twice), RENAMENX onto
// itself, EXPIRETIME/PEXPIRETIME, GETEX's options, GETDEL, SMISMEMBER.
func TestKeysMisc(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("MSET", "a", "1", "b", "2")
	d.Do("TOUCH", "a", "a", "b", "c")
	d.Do("TOUCH")
	d.Do("UNLINK", "a", "a", "c")
	d.Do("UNLINK")
	d.Do("EXISTS", "a", "b")
	d.Do("RENAMENX", "b", "b")
	d.Do("RENAMENX", "nokey", "nokey")
	d.Do("SET", "x", "1", "EX", "100")
	d.Do("EXPIRETIME", "b")
	d.Do("EXPIRETIME", "nokey")
	d.Do("PEXPIRETIME", "b")
	d.Do("PEXPIRETIME", "nokey")
	d.Do("EXPIREAT", "x", "4000000000")
	d.Do("EXPIRETIME", "x")
	d.Do("PEXPIREAT", "x", "4000000000123")
	d.Do("EXPIRETIME", "x")
	d.Do("PEXPIRETIME", "x")
	d.Do("PEXPIREAT", "x", "4000000000999")
	d.Do("EXPIRETIME", "x")
	d.Do("EXPIRETIME")
	d.Do("EXPIRETIME", "a", "b")
	// GETEX / GETDEL
	d.Do("SET", "g", "v")
	for _, args := range [][]string{
		{"GETEX", "g"}, {"GETEX", "g", "EX", "100"}, {"TTL", "g"}, {"GETEX", "g", "PERSIST"}, {"TTL", "g"},
		{"GETEX", "g", "PX", "100000"}, {"GETEX", "g", "EXAT", "4000000000"}, {"EXPIRETIME", "g"},
		{"GETEX", "g", "PXAT", "4000000000000"}, {"GETEX", "g", "EX", "0"}, {"GETEX", "g", "EX", "-1"},
		{"GETEX", "g", "PX", "0"}, {"GETEX", "g", "EXAT", "0"}, {"GETEX", "g", "PXAT", "-5"},
		{"GETEX", "g", "EX", "x"}, {"GETEX", "g", "EX"}, {"GETEX", "g", "EX", "1", "PX", "1"},
		{"GETEX", "g", "PERSIST", "EX", "1"}, {"GETEX", "g", "EX", "1", "PERSIST"}, {"GETEX", "g", "FOO"},
		{"GETEX", "g", "EX", "9223372036854775807"}, {"GETEX", "g", "PX", "9223372036854775807"},
		{"GETEX", "g", "EX", "9223372036854775"}, {"GETEX", "g", "EXAT", "9223372036854775"},
		{"GETEX", "g", "EX", "1.5"}, {"GETEX", "g", "ex", "100", "ex", "200"}, {"TTL", "g"},
		{"GETEX", "g", "PERSIST", "PERSIST"}, {"GETEX", "nokey", "EX", "10"}, {"GETEX", "nokey", "EX", "x"},
		{"GETEX"}, {"GETDEL"}, {"GETDEL", "g", "x"}, {"GETDEL", "g"}, {"GETDEL", "g"},
	} {
		d.Do(args...)
	}
	d.Do("RPUSH", "lst", "x")
	d.Do("GETEX", "lst")
	d.Do("GETEX", "lst", "EX", "10")
	d.Do("GETEX", "lst", "EX", "x")
	d.Do("GETDEL", "lst")
	d.Do("SET", "g2", "v")
	d.Do("GETEX", "g2", "EX", "0")
	d.Do("EXISTS", "g2")
	// SMISMEMBER
	d.Do("SADD", "s", "a", "b", "1")
	d.Do("SMISMEMBER", "s", "a", "c", "1", "a")
	d.Do("SMISMEMBER", "nokey", "a", "b")
	d.Do("SMISMEMBER", "s")
	d.Do("SMISMEMBER", "lst", "a")
	d.Do("SADD", "is", "1", "2")
	d.Do("SMISMEMBER", "is", "1", "01", "x", "2")
	d.Both("HELLO", "3")
	d.Do("SMISMEMBER", "s", "a", "c")
	d.Both("HELLO", "2")
}

// TestKeysZrangestoreLmove: ZRANGESTORE's forms and errors, LMOVE and
// BLMOVE (directions, timeouts, inside MULTI).
func TestKeysZrangestoreLmove(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d")
	for _, args := range [][]string{
		{"ZRANGESTORE", "d", "z", "0", "-1"}, {"ZRANGE", "d", "0", "-1", "WITHSCORES"}, {"OBJECT", "ENCODING", "d"},
		{"ZRANGESTORE", "d", "z", "1", "2", "REV"}, {"ZRANGE", "d", "0", "-1", "WITHSCORES"},
		{"ZRANGESTORE", "d", "z", "(1", "+inf", "BYSCORE", "LIMIT", "1", "1"}, {"ZRANGE", "d", "0", "-1"},
		{"ZRANGESTORE", "d", "z", "[b", "+", "BYLEX", "REV"}, {"ZRANGESTORE", "d", "z", "+", "[b", "BYLEX", "REV"},
		{"ZRANGE", "d", "0", "-1"}, {"ZRANGESTORE", "d", "z", "5", "6"}, {"EXISTS", "d"},
		{"ZRANGESTORE", "d", "z", "0", "-1", "WITHSCORES"}, {"ZRANGESTORE", "d", "z", "0", "-1", "LIMIT", "0", "1"},
		{"ZRANGESTORE", "d", "nokey", "0", "-1"}, {"ZRANGESTORE", "d", "z"}, {"ZRANGESTORE", "d", "z", "a", "b"},
		{"ZRANGESTORE", "d", "z", "a", "b", "BYSCORE"}, {"ZRANGESTORE", "d", "z", "a", "b", "BYLEX"},
		{"ZRANGESTORE", "d", "z", "0", "-1", "BYSCORE", "BYLEX"}, {"ZRANGESTORE", "z", "z", "0", "1"},
		{"ZRANGE", "z", "0", "-1"},
	} {
		d.Do(args...)
	}
	d.Do("SET", "str", "x")
	d.Do("ZRANGESTORE", "d", "str", "0", "-1")
	d.Do("ZADD", "z", "1", "a", "2", "b")
	d.Do("ZRANGESTORE", "str", "z", "0", "-1")
	d.Do("TYPE", "str")
	// LMOVE
	d.Do("RPUSH", "l", "1", "2", "3")
	for _, args := range [][]string{
		{"LMOVE", "l", "l", "LEFT", "RIGHT"}, {"LRANGE", "l", "0", "-1"}, {"LMOVE", "l", "l", "right", "left"},
		{"LMOVE", "l", "m", "LEFT", "LEFT"}, {"LMOVE", "l", "m", "RIGHT", "RIGHT"}, {"LRANGE", "m", "0", "-1"},
		{"LMOVE", "l", "m", "UP", "LEFT"}, {"LMOVE", "l", "m", "LEFT"}, {"LMOVE", "nokey", "m", "LEFT", "LEFT"},
		{"LMOVE", "nokey", "m", "X", "LEFT"}, {"LMOVE", "l", "str", "LEFT", "LEFT"}, {"LMOVE", "str", "l", "LEFT", "LEFT"},
		{"LMOVE", "l", "m", "LEFT", "RIGHT"}, {"EXISTS", "l"}, {"LMOVE", "nokey", "str", "LEFT", "LEFT"},
		{"BLMOVE", "m", "n", "LEFT", "RIGHT", "0"}, {"BLMOVE", "m", "n", "LEFT", "RIGHT", "-1"},
		{"BLMOVE", "m", "n", "LEFT", "RIGHT", "x"}, {"BLMOVE", "m", "n", "LEFT", "RIGHT", "0.01"},
		{"BLMOVE", "m", "n", "LEFT", "UP", "0"}, {"BLMOVE", "m", "n", "LEFT", "RIGHT"},
		{"BLMOVE", "m", "n", "LEFT", "RIGHT", "inf"}, {"BLMOVE", "m", "n", "LEFT", "RIGHT", "1e400"},
		{"BLMOVE", "m", "n", "LEFT", "RIGHT", "nan"}, {"BLMOVE", "str", "n", "LEFT", "RIGHT", "0"},
		{"LRANGE", "n", "0", "-1"},
	} {
		d.Do(args...)
	}
	d.Do("MULTI")
	d.Do("BLMOVE", "empty", "n", "LEFT", "RIGHT", "0")
	d.Do("BLMOVE", "m", "n", "LEFT", "RIGHT", "0")
	d.Do("EXEC")
	d.Do("BLMOVE", "empty", "n", "LEFT", "RIGHT", "0.01")
}

// TestKeysHrandfieldLcs: HRANDFIELD's counts and WITHVALUES (RESP2 and
// RESP3), LCS's options and errors.
func TestKeysHrandfieldLcs(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("HSET", "h", "a", "1", "b", "2", "c", "3")
	for _, args := range [][]string{
		{"HRANDFIELD", "nokey"}, {"HRANDFIELD", "nokey", "3"}, {"HRANDFIELD", "nokey", "3", "WITHVALUES"},
		{"HRANDFIELD", "nokey", "-3", "WITHVALUES"}, {"HRANDFIELD", "h", "0"}, {"HRANDFIELD", "h", "0", "WITHVALUES"},
		{"HRANDFIELD", "h", "x"}, {"HRANDFIELD", "h", "1", "FOO"}, {"HRANDFIELD", "h", "1", "WITHVALUES", "x"},
		{"HRANDFIELD", "h", "-9223372036854775808"}, {"HRANDFIELD", "h", "-9223372036854775808", "WITHVALUES"},
		{"HRANDFIELD", "h", "-4611686018427387904", "WITHVALUES"},
		{"HRANDFIELD", "nokey", "-9223372036854775808", "WITHVALUES"}, {"HRANDFIELD", "h", "withvalues"},
		{"HRANDFIELD"}, {"HRANDFIELD", "str"},
	} {
		d.Do(args...)
	}
	d.Do("SET", "str", "x")
	d.Do("HRANDFIELD", "str")
	d.Do("HRANDFIELD", "str", "1")
	d.DoPairs("HRANDFIELD", "h", "3", "WITHVALUES")
	d.DoPairs("HRANDFIELD", "h", "10", "WITHVALUES")
	d.DoShape("HRANDFIELD", "h", "-5", "WITHVALUES")
	d.DoShape("HRANDFIELD", "h", "-5")
	d.DoShape("HRANDFIELD", "h", "2")
	d.DoShape("HRANDFIELD", "h")
	d.Both("HELLO", "3")
	d.DoShape("HRANDFIELD", "h", "-5", "WITHVALUES")
	d.DoShape("HRANDFIELD", "h", "2", "WITHVALUES")
	d.Do("HRANDFIELD", "h", "0", "WITHVALUES")
	d.Do("HRANDFIELD", "nokey", "2", "WITHVALUES")
	d.Do("HRANDFIELD", "nokey")
	d.Both("HELLO", "2")
	// LCS
	d.Do("MSET", "k1", "ohmytext", "k2", "mynewtext")
	for _, args := range [][]string{
		{"LCS", "k1", "k2"}, {"LCS", "k1", "k2", "LEN"}, {"LCS", "k1", "k2", "IDX"},
		{"LCS", "k1", "k2", "IDX", "MINMATCHLEN", "4"}, {"LCS", "k1", "k2", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"},
		{"LCS", "k1", "k2", "IDX", "WITHMATCHLEN"}, {"LCS", "k1", "k2", "LEN", "IDX"}, {"LCS", "k1", "nokey"},
		{"LCS", "nokey", "nokey2", "IDX"}, {"LCS", "k1", "k2", "MINMATCHLEN", "x"}, {"LCS", "k1", "k2", "MINMATCHLEN"},
		{"LCS", "k1", "k2", "MINMATCHLEN", "-1", "IDX"}, {"LCS", "k1", "k2", "FOO"}, {"LCS", "k1"}, {"LCS", "k1", "lst"},
		{"LCS", "k1", "k2", "WITHMATCHLEN"}, {"LCS", "k1", "k2", "LEN", "WITHMATCHLEN"},
	} {
		d.Do(args...)
	}
	d.Do("RPUSH", "lst", "x")
	d.Do("LCS", "k1", "lst")
	d.Do("LCS", "lst", "k1", "LEN")
	d.Both("HELLO", "3")
	d.Do("LCS", "k1", "k2", "IDX", "WITHMATCHLEN")
	d.Both("HELLO", "2")
}

// TestKeysStringEncodingHistory: a string's encoding in Redis depends on
// how it was written, not only on its content: APPEND and SETRANGE leave a
// raw string, INCRBYFLOAT an embstr even for an integer, COPY an integer
// of its own (refcount 1); RENAME, MOVE, COPY and SWAPDB keep the
// encoding, any new value or INCR resets it.
func TestKeysStringEncodingHistory(t *testing.T) {
	d := redistest.NewDiff(t)
	check := func(keys ...string) {
		t.Helper()
		for _, k := range keys {
			d.Do("OBJECT", "ENCODING", k)
			d.Do("OBJECT", "REFCOUNT", k)
		}
	}
	d.Do("SET", "a", "1")
	d.Do("APPEND", "a", "2")
	d.Do("SET", "e", "")
	d.Do("APPEND", "e", "")
	d.Do("SET", "w", "word")
	d.Do("APPEND", "w", "s")
	d.Do("APPEND", "new", "7") // a new key: encoded by its content
	d.Do("SET", "long", strings.Repeat("x", 40))
	d.Do("APPEND", "long", "12345")
	d.Do("SETRANGE", "r", "0", "12")
	d.Do("SET", "r2", "hello")
	d.Do("SETRANGE", "r2", "0", "")
	d.Do("SET", "r3", "100")
	d.Do("SETRANGE", "r3", "0", "2")
	d.Do("INCRBYFLOAT", "f", "3")
	d.Do("INCRBYFLOAT", "f2", "2.5")
	d.Do("SET", "f3", "7")
	d.Do("INCRBYFLOAT", "f3", "1e30")
	d.Do("SET", "s", "5")
	d.Do("COPY", "s", "s2")
	d.Do("SET", "big", "123456")
	d.Do("COPY", "big", "big2")
	d.Do("COPY", "a", "a2")
	d.Do("COPY", "f", "f4", "DB", "1")
	check("a", "e", "w", "new", "long", "r", "r2", "r3", "f", "f2", "f3", "s", "s2", "big2", "a2")
	d.Do("MEMORY", "USAGE", "a")
	d.Do("MEMORY", "USAGE", "f")
	d.Do("MEMORY", "USAGE", "s2")
	d.Do("RENAME", "a", "a3")
	d.Do("RENAMENX", "r", "r4")
	d.Do("MOVE", "f", "2")
	check("a", "a3", "r", "r4", "f")
	d.Do("SELECT", "2")
	check("f")
	d.Do("SELECT", "1")
	check("f4")
	d.Do("SELECT", "0")
	d.Do("SWAPDB", "0", "1")
	check("f4", "a3")
	d.Do("SWAPDB", "0", "1")
	check("f4", "a3")
	// A new value, INCR or a deletion resets the encoding.
	d.Do("SET", "a3", "9")
	d.Do("INCR", "r4")
	d.Do("DEL", "s2")
	d.Do("SET", "s2", "5")
	d.Do("GETEX", "a2", "PERSIST")
	d.Do("EXPIRE", "big2", "100")
	d.Do("GETDEL", "w")
	d.Do("SET", "w", "1")
	check("a3", "r4", "s2", "a2", "big2", "w")
	d.Do("COPY", "a2", "w", "REPLACE")
	check("w")
	d.Do("FLUSHALL")
	d.Do("SET", "a", "1")
	check("a")
	// Serialized as strings whatever their encoding.
	d.Do("SET", "ap", "1")
	d.Do("APPEND", "ap", "2")
	d.Do("DUMP", "ap")
	d.Do("SETBIT", "bits", "9", "1")
	d.Do("DUMP", "bits")
	d.Do("INCRBYFLOAT", "fl", "4")
	d.Do("DUMP", "fl")
	d.Do("COPY", "fl", "fl2")
	d.Do("SET", "n", "7")
	d.Do("COPY", "n", "n2")
	d.Do("DUMP", "n2")
	d.Do("DEBUG", "DIGEST-VALUE", "ap", "bits", "fl", "fl2", "n", "n2")
	d.Do("SORT", "nokey", "BY", "ap") // BY reads a raw string's value
	d.Do("RPUSH", "sl", "p", "q")
	d.Do("SET", "w_p", "2")
	d.Do("APPEND", "w_p", "0")
	d.Do("SET", "w_q", "3")
	d.Do("SORT", "sl", "BY", "w_*", "GET", "w_*")
	check("ap", "bits", "fl", "fl2", "n", "n2", "w_p")
	// In a script and in a transaction.
	d.Do("EVAL", "redis.call('SET', KEYS[1], '5'); redis.call('APPEND', KEYS[1], '5'); return redis.call('OBJECT', 'ENCODING', KEYS[1])", "1", "sc")
	d.Do("MULTI")
	d.Do("INCRBYFLOAT", "m", "1")
	d.Do("OBJECT", "ENCODING", "m")
	d.Do("EXEC")
}

// TestKeysCopyKeepsEncoding: COPY and MOVE keep an encoding that a value
// keeps after shrinking (a hash or set table, a sorted set's skiplist,
// including one SORT converted), as Redis's *Dup functions do.
func TestKeysCopyKeepsEncoding(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("ZADD", "z", "1", "a", "2", "b")
	d.Do("SORT", "z", "BY", "nosort")
	d.Do("COPY", "z", "z2")
	d.Do("OBJECT", "ENCODING", "z2")
	bigh := []string{"HSET", "h"}
	for i := 0; i < 200; i++ {
		bigh = append(bigh, "f"+strconv.Itoa(i), "v")
	}
	d.Do(bigh...)
	for i := 2; i < 200; i++ {
		d.Do("HDEL", "h", "f"+strconv.Itoa(i))
	}
	d.Do("OBJECT", "ENCODING", "h")
	d.Do("COPY", "h", "h2")
	d.Do("OBJECT", "ENCODING", "h2")
	d.Do("SADD", "s", "a", "1", "2")
	d.Do("SREM", "s", "a")
	d.Do("OBJECT", "ENCODING", "s")
	d.Do("COPY", "s", "s2")
	d.Do("OBJECT", "ENCODING", "s2")
	d.Do("SORT", "s2", "ALPHA")
	bigz := []string{"ZADD", "bz"}
	for i := 0; i < 200; i++ {
		bigz = append(bigz, strconv.Itoa(i), "m"+strconv.Itoa(i))
	}
	d.Do(bigz...)
	d.Do("ZREMRANGEBYRANK", "bz", "2", "-1")
	d.Do("COPY", "bz", "bz2")
	d.Do("OBJECT", "ENCODING", "bz2")
	d.Do("ZRANGESTORE", "bz3", "bz", "0", "-1")
	d.Do("OBJECT", "ENCODING", "bz3")
	d.Do("SORT", "bz", "STORE", "bz4", "ALPHA")
	d.Do("OBJECT", "ENCODING", "bz4")
	d.Do("LMOVE", "bz4", "nl", "LEFT", "LEFT")
	d.Do("OBJECT", "ENCODING", "nl")
	d.DoPairs("HRANDFIELD", "h", "5", "WITHVALUES")
	d.Do("SMISMEMBER", "s", "1", "2", "3")
	d.Do("LCS", "z", "s")
	d.Do("SET", "n1", "12345")
	d.Do("SET", "n2", "12")
	d.Do("LCS", "n1", "n2", "IDX", "WITHMATCHLEN")
	d.Do("TOUCH", "z", "h", "nokey")
	d.Do("MOVE", "h", "1")
	d.Do("SELECT", "1")
	d.Do("OBJECT", "ENCODING", "h")
	d.Do("SELECT", "0")
}

// TestDebugDigest: DEBUG DIGEST and DIGEST-VALUE give Redis's digests for
// every type and encoding, with expiries and in several databases, so
// that copies (COPY, SORT ... STORE, MOVE) can be checked equal.
func TestDebugDigest(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("DEBUG", "DIGEST")
	d.Do("DEBUG", "DIGEST-VALUE")
	d.Do("DEBUG", "DIGEST-VALUE", "nokey")
	d.Do("SET", "s", "hello")
	d.Do("SET", "i", "-123")
	d.Do("SET", "r", strings.Repeat("r", 100))
	d.Do("SET", "e", "")
	d.Do("RPUSH", "l", "a", "1", "b", "")
	d.Do("SADD", "is", "1", "2", "-3")
	d.Do("SADD", "hs", "a", "b", "c", "1")
	d.Do("ZADD", "z", "0.1", "a", "1e300", "b", "-inf", "c", "+inf", "d", "2.5", "e", "-0", "f", "123456789012", "g")
	d.Do("HSET", "h", "f", "v", "g", "1", "", "x")
	big := []string{"HSET", "bh"}
	bz := []string{"ZADD", "bz"}
	bs := []string{"SADD", "bs"}
	for i := 0; i < 300; i++ {
		big = append(big, "f"+strconv.Itoa(i), strconv.Itoa(i*i))
		bz = append(bz, strconv.Itoa(i)+".25", "m"+strconv.Itoa(i))
		bs = append(bs, strconv.Itoa(i*7))
	}
	d.Do(big...)
	d.Do(bz...)
	d.Do(bs...)
	d.Do("SET", "t", "v", "EX", "1000")
	keys := []string{"s", "i", "r", "e", "l", "is", "hs", "z", "h", "bh", "bz", "bs", "t", "nokey"}
	d.Do(append([]string{"DEBUG", "DIGEST-VALUE"}, keys...)...)
	d.Do("DEBUG", "DIGEST")
	d.Do("SELECT", "3")
	d.Do("SET", "s", "hello")
	d.Do("DEBUG", "DIGEST")
	d.Do("DEBUG", "DIGEST-VALUE", "s")
	d.Do("SELECT", "0")
	// Copies have the same value digest.
	d.Do("COPY", "bz", "bz2")
	d.Do("SORT", "l", "BY", "nosort", "STORE", "l2")
	d.Do("DEBUG", "DIGEST-VALUE", "bz", "bz2", "l", "l2")
	d.Do("debug", "digest", "x")
}
