package engine_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

// elems returns n distinct element names with a prefix.
func hllElems(prefix string, from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(from+i)
	}
	return out
}

func TestHLLBasics(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("PFCOUNT", "h")
	d.Do("PFADD", "h")
	d.Do("GET", "h") // the empty sparse HLL, cache invalidated
	d.Do("OBJECT", "ENCODING", "h")
	d.Do("TYPE", "h")
	d.Do("PFCOUNT", "h")
	d.Do("GET", "h") // cache stored
	d.Do("PFADD", "h")
	d.Do("PFADD", "h", "a", "b", "c")
	d.Do("GET", "h")
	d.Do("PFADD", "h", "a", "b", "c")
	d.Do("PFCOUNT", "h")
	d.Do("GET", "h")
	d.Do("PFADD", "h", "a")
	d.Do("GET", "h")
	d.Do("PFADD", "h", "", "d", strings.Repeat("x", 1000))
	d.Do("PFCOUNT", "h")
	d.Do("PFDEBUG", "ENCODING", "h")
	d.Do("PFDEBUG", "DECODE", "h")
	d.Do("PFDEBUG", "GETREG", "h") // converts to dense
	d.Do("PFDEBUG", "encoding", "h")
	d.Do("PFDEBUG", "decode", "h")
	d.Do("GET", "h")
	d.Do("PFDEBUG", "TODENSE", "h")
	d.Do("PFADD", "s", "x")
	d.Do("PFDEBUG", "TODENSE", "s")
	d.Do("GET", "s")
	d.Do("PFDEBUG", "FOO", "s")
	d.Do("PFDEBUG", "FOO", "nokey")
	d.Do("PFDEBUG", "GETREG", "nokey")
	d.Do("PFDEBUG", "GETREG", "s", "x")
	d.Do("PFDEBUG", "GETREG")
	d.Do("PFADD")
	d.Do("PFCOUNT")
	d.Do("PFMERGE")
	// TTL kept by writes.
	d.Do("PFADD", "t", "a")
	d.Do("EXPIRE", "t", "100")
	d.Do("PFADD", "t", "b")
	d.Do("PFCOUNT", "t")
	d.Do("PFMERGE", "t", "h")
	d.Do("TTL", "t")
	// Wrong types: another type, and strings that are not HLLs.
	makeList(t, d, "list", "a")
	d.Do("SET", "str", "hello world, not an HLL")
	d.Do("SET", "int", "12345")
	d.Do("SET", "short", "HYLL")
	d.Do("SET", "badenc", "HYLL\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff")
	d.Do("SET", "baddense", "HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff")
	d.Do("SET", "badmagic", "HYLX\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff")
	for _, k := range []string{"list", "str", "int", "short", "badenc", "baddense", "badmagic"} {
		d.Do("PFADD", k, "a")
		d.Do("PFADD", k)
		d.Do("PFCOUNT", k)
		d.Do("PFCOUNT", "h", k)
		d.Do("PFCOUNT", k, "nokey")
		d.Do("PFMERGE", k, "h")
		d.Do("PFMERGE", "dst", "h", k)
		d.Do("PFDEBUG", "ENCODING", k)
		d.Do("PFDEBUG", "FOO", k)
		d.Do("EXISTS", "dst")
		d.Do("GET", k)
	}
	// Multi-key PFCOUNT is the union and stores nothing.
	d.Do("PFADD", "u1", "a", "b", "c")
	d.Do("PFADD", "u2", "c", "d", "e")
	d.Do("PFCOUNT", "u1", "u2", "nokey")
	d.Do("PFCOUNT", "u1", "u1")
	d.Do("PFCOUNT", "nokey", "nokey2")
	d.Do("GET", "u1")
	// PFCOUNT is a read-only command that may store the cache: read-only
	// scripts refuse it (may-replicate), MULTI runs it.
	d.Do("PFADD", "u1", "z")
	d.Do("EVAL_RO", "return redis.call('pfcount', KEYS[1])", "1", "u1")
	d.Do("GET", "u1")
	d.Do("PFADD", "u1", "y")
	d.Do("EVAL", "#!lua flags=no-writes\nreturn redis.call('pfcount', KEYS[1])", "1", "u1")
	d.Do("EVAL", "return redis.call('pfadd', KEYS[1], 'w')", "1", "u1")
	d.Do("EVAL_RO", "return redis.call('pfadd', KEYS[1], 'w')", "1", "u1")
	d.Do("EVAL", "return redis.call('pfcount', KEYS[1])", "1", "u1")
	d.Do("GET", "u1")
	d.Do("MULTI")
	d.Do("PFADD", "u1", "x")
	d.Do("PFCOUNT", "u1")
	d.Do("GET", "u1")
	d.Do("EXEC")
	d.Both("HELLO", "3")
	d.Do("PFADD", "h", "zz")
	d.Do("PFCOUNT", "h")
	d.Do("PFDEBUG", "ENCODING", "h")
	d.Do("PFDEBUG", "DECODE", "s")
	d.Do("PFDEBUG", "DECODE", "u1")
	d.Do("PFCOUNT", "list")
	d.Do("PFCOUNT", "str")
}

// TestHLLPromotion adds elements in batches, with several values of
// hll-sparse-max-bytes, comparing the bytes after every batch across the
// sparse to dense promotion.
func TestHLLPromotion(t *testing.T) {
	d := redistest.NewDiff(t)
	defer d.Both("CONFIG", "SET", "hll-sparse-max-bytes", "3000")
	for _, max := range []string{"3000", "0", "100", "1000", "10000"} {
		d.Do("CONFIG", "SET", "hll-sparse-max-bytes", max)
		d.Do("DEL", "h", "one")
		for i := 0; i < 3000; i += 1 + i/4 {
			d.Do(append([]string{"PFADD", "h"}, hllElems("e", i, 1+i/4)...)...)
			d.Do("PFDEBUG", "ENCODING", "h")
			d.Do("GET", "h")
			d.Do("PFCOUNT", "h")
			d.Do("GET", "h")
		}
		// One element at a time, as PFADD is mostly used.
		for i := 0; i < 700; i++ {
			d.Do("PFADD", "one", "m"+strconv.Itoa(i))
			if i%50 == 0 {
				d.Do("GET", "one")
				d.Do("PFDEBUG", "DECODE", "one")
			}
		}
		d.Do("GET", "one")
		d.Do("PFCOUNT", "one")
	}
	// An element whose run of zeros (33) does not fit a sparse VAL
	// opcode promotes the HLL whatever its size.
	d.Do("DEL", "z", "z2")
	d.Do("PFADD", "z", "a", "b", "c")
	d.Do("PFADD", "z", "1692856687")
	d.Do("PFDEBUG", "ENCODING", "z")
	d.Do("GET", "z")
	d.Do("PFCOUNT", "z")
	d.Do("PFADD", "z2", "1692856687")
	d.Do("GET", "z2")
	d.Do("PFMERGE", "z3", "z2")
	d.Do("GET", "z3")
	// Reserved header bytes and a valid cache written by someone else
	// survive the promotion.
	d.Do("SET", "hdr", "HYLL\x01\x07\x08\x09\x05\x00\x00\x00\x00\x00\x00\x00\x7f\xff")
	d.Do("PFCOUNT", "hdr")
	d.Do("PFADD", "hdr", "1692856687")
	d.Do("GET", "hdr")
	// Large cardinalities, where the estimator's corrections matter.
	d.Do("DEL", "big")
	for i := 0; i < 200; i++ {
		d.Do(append([]string{"PFADD", "big"}, hllElems("big", i*1000, 1000)...)...)
		if i%20 == 0 {
			d.Do("PFCOUNT", "big")
		}
	}
	d.Do("PFCOUNT", "big")
	d.Do("GET", "big")
	d.Do("PFDEBUG", "GETREG", "big")
}

// TestHLLMerge merges every mix of encodings, into a missing, sparse and
// dense destination.
func TestHLLMerge(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("PFADD", "s1", "a", "b", "c", "d")
	d.Do("PFADD", "s2", "c", "d", "e", "f", "g")
	d.Do(append([]string{"PFADD", "d1"}, hllElems("x", 0, 5000)...)...)
	d.Do(append([]string{"PFADD", "d2"}, hllElems("y", 0, 3000)...)...)
	d.Do("PFADD", "small", "q")
	d.Do("PFDEBUG", "TODENSE", "small")
	d.Do("PFADD", "empty")
	srcs := [][]string{{"s1"}, {"s1", "s2"}, {"s1", "d1"}, {"d1", "d2"}, {"small"}, {"s1", "small"}, {"nokey"}, {"empty"}, {"empty", "s2", "nokey"}, {}}
	for _, dst := range []string{"", "s1", "d1", "small"} {
		for _, src := range srcs {
			d.Do("DEL", "dst")
			if dst != "" {
				d.Do("PFMERGE", "dst", dst)
			}
			d.Do(append([]string{"PFMERGE", "dst"}, src...)...)
			d.Do("GET", "dst")
			d.Do("PFDEBUG", "ENCODING", "dst")
			d.Do("PFCOUNT", "dst")
			d.Do(append([]string{"PFCOUNT", "dst"}, src...)...)
		}
	}
	d.Do("PFMERGE", "s1", "s1")
	d.Do("GET", "s1")
	d.Do("PFMERGE", "s1", "s2")
	d.Do("GET", "s1")
	// A merge into a sparse destination that outgrows hll-sparse-max-bytes.
	defer d.Both("CONFIG", "SET", "hll-sparse-max-bytes", "3000")
	d.Do("CONFIG", "SET", "hll-sparse-max-bytes", "60")
	d.Do(append([]string{"PFADD", "p1"}, hllElems("p", 0, 30)...)...)
	d.Do("PFDEBUG", "ENCODING", "p1")
	d.Do("PFMERGE", "p2", "p1")
	d.Do("GET", "p2")
	d.Do("PFDEBUG", "ENCODING", "p2")
}

// TestHLLForeign stores HLL strings taken from Redis (SET of GET's bytes)
// on both servers and keeps using them; then corrupts them as Redis's
// own tests do, and fuzzes the registers of sparse and dense HLLs.
func TestHLLForeign(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Redis.Do(append([]string{"PFADD", "rs"}, hllElems("r", 0, 100)...)...)
	d.Redis.Do(append([]string{"PFADD", "rd"}, hllElems("r", 0, 5000)...)...)
	sparse := d.Redis.Do("GET", "rs").Str
	dense := d.Redis.Do("GET", "rd").Str
	d.Do("SET", "s", sparse)
	d.Do("SET", "dn", dense)
	d.Do("PFCOUNT", "s")
	d.Do("PFCOUNT", "dn")
	d.Do("PFADD", "s", "more", "elements")
	d.Do("PFADD", "dn", "more", "elements")
	d.Do("GET", "s")
	d.Do("GET", "dn")
	d.Do("PFMERGE", "m", "s", "dn")
	d.Do("GET", "m")
	// A valid cache is trusted, whatever the registers say.
	d.Do("SET", "c", sparse[:8]+"\x2a\x00\x00\x00\x00\x00\x00\x00"+sparse[16:])
	d.Do("PFCOUNT", "c")
	// Corruptions from Redis's hyperloglog.tcl.
	for _, bad := range []string{
		sparse + "\x00",              // additional at tail
		sparse + "\x7f\xff",          // an XZERO past the registers
		sparse[:len(sparse)-1],       // truncated
		sparse[:16],                  // no opcodes
		sparse[:16] + "\x7f",         // XZERO cut in half
		sparse[:16] + "\xff\x7f\xff", // VAL then too many zeros
		sparse[:16] + strings.Repeat("\xff", 4097),
		sparse[:15] + "\x00" + sparse[16:],
		sparse[:4] + "\x00" + sparse[5:], // sparse data claimed dense
		dense[:4] + "\x01" + dense[5:],   // dense data claimed sparse
	} {
		d.Do("SET", "bad", bad)
		d.Do("PFCOUNT", "bad")
		d.Do("PFCOUNT", "bad", "s")
		d.Do("PFMERGE", "dst", "bad")
		d.Do("PFDEBUG", "DECODE", "bad")
		d.Do("PFDEBUG", "GETREG", "bad")
		d.Do("SET", "bad", bad)
		d.Do("PFADD", "bad", "a", "b", "c", strings.Repeat("z", 20))
		d.Do("GET", "bad")
		d.Do("PFDEBUG", "TODENSE", "bad")
		d.Do("EXISTS", "dst")
		d.Do("DEL", "dst")
	}
	// Fuzzing: random bytes written over the registers.
	rng := rand.New(rand.NewPCG(14, 6))
	for i := 0; i < 300; i++ {
		src := sparse
		if i%2 == 1 {
			src = dense
		}
		b := []byte(src)
		for n := 1 + rng.IntN(5); n > 0; n-- {
			b[16+rng.IntN(len(b)-16)] = byte(rng.IntN(256))
		}
		d.Do("SET", "f", string(b))
		switch rng.IntN(3) {
		case 0:
			d.Do("PFCOUNT", "f")
		case 1:
			d.Do("PFADD", "f", "a"+strconv.Itoa(i), "b"+strconv.Itoa(i))
		case 2:
			d.Do("PFMERGE", "f2", "f", "s")
			d.Do("GET", "f2")
			d.Do("DEL", "f2")
		}
		d.Do("GET", "f")
	}
}

// TestHLLRandom runs the same random HLL workload on both servers and
// compares every reply, the stored bytes included.
func TestHLLRandom(t *testing.T) {
	d := redistest.NewDiff(t)
	rng := rand.New(rand.NewPCG(42, 7))
	keys := []string{"a", "b", "c", "d"}
	key := func() string { return keys[rng.IntN(len(keys))] }
	for i := 0; i < 1500; i++ {
		switch rng.IntN(10) {
		case 0, 1, 2, 3:
			args := []string{"PFADD", key()}
			pool := 1 << uint(4+rng.IntN(12))
			for n := rng.IntN(1 << uint(rng.IntN(9))); n > 0; n-- {
				args = append(args, strconv.Itoa(rng.IntN(pool)))
			}
			d.Do(args...)
		case 4:
			d.Do("PFCOUNT", key())
		case 5:
			d.Do("PFCOUNT", key(), key(), key())
		case 6:
			d.Do("PFMERGE", key(), key(), key())
		case 7:
			d.Do("GET", key())
		case 8:
			d.Do("PFDEBUG", "ENCODING", key())
			d.Do("PFDEBUG", "DECODE", key())
		case 9:
			if rng.IntN(10) == 0 {
				d.Do("DEL", key())
			} else {
				d.Do("STRLEN", key())
			}
		}
	}
	for _, k := range keys {
		d.Do("GET", k)
	}
}

func TestHLLSelfTest(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("PFSELFTEST adds ten million elements (ds/hll's TestSelfTest runs the same checks)")
	}
	d := redistest.NewDiff(t)
	d.Do("PFSELFTEST")
	d.Do("PFSELFTEST", "x")
}

// TestHLLPropagation checks what the HLL commands log: PFADD and PFMERGE
// when they write, PFCOUNT when it stores the cached cardinality, PFDEBUG
// when it converts; nothing for writes that change nothing.
func TestHLLPropagation(t *testing.T) {
	redistest.RequireRedis(t)
	o := redistest.StartOrdo(t)
	log := captureProp(o)
	c := redistest.Dial(t, o.Addr)
	c.Do("PFADD", "h", "a")
	c.Do("PFADD", "h", "a") // no change: not logged
	c.Do("PFCOUNT", "h")    // stores the cache
	c.Do("PFCOUNT", "h")    // cached
	c.Do("PFCOUNT", "h", "nokey")
	c.Do("PFMERGE", "m", "h")
	c.Do("PFDEBUG", "ENCODING", "m")
	c.Do("PFDEBUG", "TODENSE", "m")
	c.Do("PFDEBUG", "TODENSE", "m")
	c.Do("PFADD", "x")
	got := log()
	want := []string{"PFADD h a", "PFCOUNT h", "PFMERGE m h", "PFDEBUG TODENSE m", "PFADD x"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("propagated:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestHLLWatch: PFCOUNT that stores the cache aborts a WATCH, as in Redis.
func TestHLLWatch(t *testing.T) {
	k := []string{"h"}
	watchCase(t, nil, k, []string{"PFADD", "h", "a"})
	watchCase(t, nil, k, []string{"PFMERGE", "h", "nokey"})
	watchCase(t, nil, k, []string{"PFADD", "h"}, []string{"PFCOUNT", "h"})
	watchCase(t, nil, k, []string{"PFCOUNT", "h"})
	watchCase(t, nil, k, []string{"PFCOUNT", "h", "h2"})
}

// TestHLLInPlace: the HLL commands write a key's own buffer in place
// (cmd_hll.go), yet every value handed out before a write keeps its bytes,
// as in Redis: a COPY (written on either side afterwards), a value moved by
// RENAME and MOVE, a DUMP restored later, a script's GET held across its
// PFADD, a MULTI's GETs around a PFADD, and strings written by SETBIT and
// APPEND on the HLL.
func TestHLLInPlace(t *testing.T) {
	d := redistest.NewDiff(t)
	add := func(key string, from, n int) {
		d.Do(append([]string{"PFADD", key}, hllElems("e", from, n)...)...)
	}
	add("h", 0, 3000) // dense
	d.Do("PFDEBUG", "ENCODING", "h")
	add("h", 3000, 500) // written in place from here on
	d.Do("OBJECT", "ENCODING", "h")
	d.Do("COPY", "h", "c")
	add("h", 4000, 500)
	d.Do("GET", "c")
	d.Do("GET", "h")
	d.Do("PFCOUNT", "c")
	add("c", 10000, 500)
	d.Do("GET", "h")
	d.Do("GET", "c")
	d.Do("PFCOUNT", "h") // stores the cache in place
	d.Do("GET", "h")
	d.Do("PFMERGE", "h", "c") // in place
	d.Do("GET", "h")
	d.Do("GET", "c")
	d.Do("RENAME", "h", "r")
	add("r", 20000, 300)
	d.Do("GET", "r")
	d.Do("MOVE", "r", "1")
	d.Do("SELECT", "1")
	add("r", 21000, 300)
	d.Do("GET", "r")
	dump := d.Do("DUMP", "r")
	add("r", 22000, 300)
	d.Do("RESTORE", "fromdump", "0", dump.Str)
	d.Do("GET", "fromdump")
	d.Do("PFCOUNT", "fromdump")
	d.Do("GET", "r")
	d.Do("SELECT", "0")
	d.Do("COPY", "c", "c2", "DB", "1")
	add("c", 30000, 300)
	d.Do("SELECT", "1")
	d.Do("GET", "c2")
	d.Do("SELECT", "0")
	// A script holds GET's value across the PFADD that changes the key.
	d.Do("EVAL", `local old = redis.call('GET', KEYS[1])
redis.call('PFADD', KEYS[1], 'x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7', 'x8')
local new = redis.call('GET', KEYS[1])
return {old, new, tostring(old == new)}`, "1", "c")
	d.Do("MULTI")
	d.Do("GET", "c")
	d.Do("PFADD", "c", "y1", "y2", "y3", "y4", "y5", "y6", "y7", "y8", "y9")
	d.Do("GET", "c")
	d.Do("EXEC")
	// Other writes to the HLL's string, then PFADD again.
	d.Do("SETBIT", "c", "200", "1")
	d.Do("SETBIT", "c", "200", "1") // no change
	add("c", 40000, 200)
	d.Do("GET", "c")
	d.Do("COPY", "c", "c3")
	d.Do("APPEND", "c3", "tail")
	d.Do("PFADD", "c3", "z")
	d.Do("PFADD", "c", "z")
	d.Do("GET", "c")
	d.Do("GET", "c3")
	d.Do("SETRANGE", "c", "20", "\x3f\x3f")
	add("c", 50000, 200)
	d.Do("GET", "c")
	d.Do("PFDEBUG", "GETREG", "c")
	// A sparse HLL becomes the key's own too.
	d.Do("PFADD", "s", "a", "b")
	d.Do("COPY", "s", "s2")
	d.Do("PFADD", "s", "c", "d")
	d.Do("PFADD", "s", "e")
	d.Do("GET", "s")
	d.Do("GET", "s2")
	d.Do("PFDEBUG", "TODENSE", "s")
	d.Do("COPY", "s", "s3")
	d.Do("PFADD", "s", "f", "g", "h")
	d.Do("GET", "s3")
	d.Do("GET", "s")
}
