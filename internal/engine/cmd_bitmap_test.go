package engine_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

func TestBitmapSetbitGetbit(t *testing.T) {
	d := redistest.NewDiff(t)
	for _, off := range []string{"0", "1", "7", "8", "100", "4294967295"} {
		d.Do("GETBIT", "k", off)
	}
	d.Do("SETBIT", "k", "0", "1")
	d.Do("GET", "k")
	d.Do("OBJECT", "ENCODING", "k")
	d.Do("SETBIT", "k", "0", "1") // unchanged
	d.Do("SETBIT", "k", "7", "1")
	d.Do("SETBIT", "k", "0", "0")
	d.Do("SETBIT", "k", "100", "1")
	d.Do("GET", "k")
	d.Do("STRLEN", "k")
	for _, off := range []string{"0", "7", "100", "101", "103", "104", "1000"} {
		d.Do("GETBIT", "k", off)
	}
	// Errors: offsets, bit values, arity, types.
	for _, off := range []string{"-1", "x", "", "1.5", "+1", "01", " 1", "4294967296", "9223372036854775807", "-9223372036854775808", "99999999999999999999", "#1"} {
		d.Do("SETBIT", "k", off, "1")
		d.Do("GETBIT", "k", off)
	}
	for _, bit := range []string{"2", "-1", "x", "", "1.0", "01", "9223372036854775807"} {
		d.Do("SETBIT", "k", "1", bit)
	}
	d.Do("SETBIT", "k", "1")
	d.Do("SETBIT", "k", "1", "1", "1")
	d.Do("GETBIT", "k")
	d.Do("GETBIT", "k", "1", "2")
	makeList(t, d, "list", "a")
	d.Do("SETBIT", "list", "0", "1")
	d.Do("SETBIT", "list", "x", "1")
	d.Do("GETBIT", "list", "0")
	d.Do("GETBIT", "list", "x")
	// Integer-encoded and embstr values read as their text; a bit
	// command makes them raw even when it changes nothing.
	d.Do("SET", "n", "12")
	d.Do("GETBIT", "n", "2")
	d.Do("OBJECT", "ENCODING", "n")
	d.Do("SETBIT", "n", "2", "1")
	d.Do("OBJECT", "ENCODING", "n")
	d.Do("SET", "n", "12")
	d.Do("SETBIT", "n", "2", "1") // unchanged: still unshared
	d.Do("OBJECT", "ENCODING", "n")
	d.Do("GET", "n")
	d.Do("SET", "e", "hello")
	d.Do("SETBIT", "e", "1", "1")
	d.Do("OBJECT", "ENCODING", "e")
	d.Do("COPY", "e", "e2")
	d.Do("OBJECT", "ENCODING", "e2")
	d.Do("SET", "e", "hello")
	d.Do("OBJECT", "ENCODING", "e")
	d.Do("SETBIT", "long", "400", "1")
	d.Do("OBJECT", "ENCODING", "long")
	// TTL kept.
	d.Do("SET", "t", "a", "EX", "100")
	d.Do("SETBIT", "t", "100", "1")
	d.Do("TTL", "t")
	// Edge offsets: the last bit of 512 MB, and beyond.
	d.Do("SETBIT", "big", "4294967295", "1")
	d.Do("STRLEN", "big")
	d.Do("GETBIT", "big", "4294967295")
	d.Do("GETBIT", "big", "4294967294")
	d.Do("BITCOUNT", "big")
	d.Do("BITPOS", "big", "1")
	d.Do("BITPOS", "big", "1", "-1")
	d.Do("BITPOS", "big", "0", "-1")
	d.Do("SETBIT", "big", "4294967296", "1")
	d.Do("DEL", "big")
	d.Do("SETBIT", "big2", "4294967296", "1")
	d.Do("EXISTS", "big2")
	// proto-max-bulk-len bounds the offsets.
	d.Do("CONFIG", "SET", "proto-max-bulk-len", "1048576")
	d.Do("SETBIT", "p", "8388607", "1")
	d.Do("SETBIT", "p", "8388608", "1")
	d.Do("GETBIT", "p", "8388608")
	d.Do("BITFIELD", "p", "SET", "u8", "8388600", "1")
	d.Do("BITFIELD", "p", "SET", "u8", "8388601", "1")
	d.Do("STRLEN", "p")
	d.Do("BITFIELD", "p", "GET", "u8", "#1048576")
	d.Do("BITFIELD", "p", "GET", "u8", "#1048575")
	d.Both("CONFIG", "SET", "proto-max-bulk-len", "536870912")
	d.Both("HELLO", "3")
	d.Do("SETBIT", "k", "3", "1")
	d.Do("GETBIT", "k", "3")
	d.Do("SETBIT", "k", "x", "1")
}

func TestBitmapBitcount(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("BITCOUNT", "nokey")
	d.Do("BITCOUNT", "nokey", "a", "b") // Redis 7.0 looks the key up first
	d.Do("BITCOUNT", "nokey", "0", "1", "FOO")
	d.Do("SET", "s", "foobar")
	d.Do("BITCOUNT", "s")
	d.Do("SET", "empty", "")
	d.Do("BITCOUNT", "empty")
	d.Do("BITCOUNT", "empty", "0", "-1")
	d.Do("BITCOUNT", "empty", "0", "-1", "BIT")
	vals := []string{"0", "1", "2", "3", "5", "6", "7", "8", "9", "40", "47", "48", "100", "-1", "-2", "-5", "-6", "-7", "-8", "-9", "-40", "-48", "-49", "-100"}
	for _, a := range vals {
		for _, b := range vals {
			d.Do("BITCOUNT", "s", a, b)
			d.Do("BITCOUNT", "s", a, b, "BIT")
			d.Do("BITCOUNT", "s", a, b, "byte")
		}
	}
	d.Do("BITCOUNT", "s", "0", "-1", "bit")
	d.Do("BITCOUNT", "s", "0", "-1", "FOO")
	d.Do("BITCOUNT", "s", "-1", "-5", "FOO") // empty negative range wins
	d.Do("BITCOUNT", "s", "0")
	d.Do("BITCOUNT", "s", "0", "1", "BIT", "x")
	d.Do("BITCOUNT", "s", "x", "1")
	d.Do("BITCOUNT", "s", "1", "x")
	d.Do("BITCOUNT", "s", "9223372036854775807", "-9223372036854775808")
	d.Do("BITCOUNT", "s", "-9223372036854775808", "9223372036854775807", "BIT")
	d.Do("BITCOUNT")
	d.Do("SET", "n", "-1234567")
	d.Do("BITCOUNT", "n")
	d.Do("BITCOUNT", "n", "1", "3", "BIT")
	makeList(t, d, "list", "a")
	d.Do("BITCOUNT", "list")
	d.Do("BITCOUNT", "list", "x", "y")
	long := strings.Repeat("\xff\x01\x80\x00ab", 300)
	d.Do("SET", "long", long)
	for _, r := range [][2]string{{"0", "-1"}, {"3", "1000"}, {"17", "14000"}, {"-900", "-3"}} {
		d.Do("BITCOUNT", "long", r[0], r[1])
		d.Do("BITCOUNT", "long", r[0], r[1], "BIT")
	}
	d.Both("HELLO", "3")
	d.Do("BITCOUNT", "s", "1", "3", "BIT")
}

func TestBitmapBitpos(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("BITPOS", "nokey", "1")
	d.Do("BITPOS", "nokey", "0")
	d.Do("BITPOS", "nokey", "0", "x") // Redis 7.0 looks the key up first
	d.Do("BITPOS", "nokey", "2")
	d.Do("BITPOS", "nokey", "x")
	d.Do("BITPOS", "nokey", "-1")
	for _, v := range []string{"", "\x00", "\xff", "\x00\x00\x00", "\xff\xff\xff", "\xff\xf0\x00", "\x00\x0f\xff", "\x00\xff\xf0", "\xff\x00\xff\x00\xff\x00\xff\x00\xff\xff", "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01", "\x81"} {
		d.Do("SET", "s", v)
		for _, bit := range []string{"0", "1"} {
			d.Do("BITPOS", "s", bit)
			for _, a := range []string{"0", "1", "2", "3", "7", "8", "9", "15", "16", "23", "24", "-1", "-2", "-8", "-9", "-100"} {
				d.Do("BITPOS", "s", bit, a)
				d.Do("BITPOS", "s", bit, a, "-1")
				for _, b := range []string{"0", "1", "2", "7", "8", "15", "16", "17", "100", "-1", "-3", "-8", "-9", "-17", "-100"} {
					d.Do("BITPOS", "s", bit, a, b)
					d.Do("BITPOS", "s", bit, a, b, "BIT")
					d.Do("BITPOS", "s", bit, a, b, "BYTE")
				}
			}
		}
	}
	d.Do("SET", "s", "\xff\x00")
	d.Do("BITPOS", "s", "0", "0", "-1", "FOO")
	d.Do("BITPOS", "s", "0", "0", "x")
	d.Do("BITPOS", "s", "0", "x")
	d.Do("BITPOS", "s", "0", "x", "1", "FOO")
	d.Do("BITPOS", "s", "0", "0", "x", "FOO")
	d.Do("BITPOS", "s", "0", "0", "1", "BIT", "x")
	d.Do("BITPOS", "s", "2", "0")
	d.Do("BITPOS", "s")
	d.Do("SET", "n", "1234")
	d.Do("BITPOS", "n", "0")
	d.Do("BITPOS", "n", "1", "2")
	makeList(t, d, "list", "a")
	d.Do("BITPOS", "list", "1")
	d.Do("BITPOS", "list", "5")
	d.Do("SET", "long", strings.Repeat("\x00", 100)+"\x10"+strings.Repeat("\xff", 100))
	d.Do("BITPOS", "long", "1")
	d.Do("BITPOS", "long", "1", "-150")
	d.Do("BITPOS", "long", "0", "101")
	d.Do("BITPOS", "long", "0", "101", "-1")
	d.Do("BITPOS", "long", "1", "803", "810", "BIT")
	d.Both("HELLO", "3")
	d.Do("BITPOS", "long", "1")
}

func TestBitmapBitop(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SET", "a", "foobar")
	d.Do("SET", "b", "abcdef")
	d.Do("SET", "c", "\xff\x00\xaa\x55"+strings.Repeat("\x0f", 70))
	d.Do("SET", "n", "123")
	for _, op := range []string{"AND", "or", "Xor"} {
		d.Do("BITOP", op, "dest", "a", "b")
		d.Do("GET", "dest")
		d.Do("BITOP", op, "dest", "a", "b", "c", "nokey")
		d.Do("GET", "dest")
		d.Do("BITOP", op, "dest", "c", "a")
		d.Do("GET", "dest")
		d.Do("BITOP", op, "dest", "c", "c", "c", "c", "c", "c", "c", "c", "c", "c", "c", "c", "c", "c", "c", "c", "c", "a")
		d.Do("GET", "dest")
		d.Do("BITOP", op, "dest", "a")
		d.Do("GET", "dest")
		d.Do("BITOP", op, "dest", "nokey", "a", "n")
		d.Do("GET", "dest")
	}
	d.Do("BITOP", "NOT", "dest", "a")
	d.Do("GET", "dest")
	d.Do("OBJECT", "ENCODING", "dest")
	d.Do("BITOP", "NOT", "dest", "c")
	d.Do("GET", "dest")
	d.Do("BITOP", "NOT", "dest", "a", "b")
	d.Do("BITOP", "NOT", "dest")
	d.Do("BITOP", "NOT", "dest", "nokey")
	d.Do("EXISTS", "dest")
	d.Do("BITOP", "FOO", "dest", "a")
	d.Do("BITOP", "AND", "dest")
	d.Do("BITOP", "AND")
	// An empty result deletes the destination, whatever it held, and
	// a result replaces it and its TTL.
	d.Do("SET", "dest", "x", "EX", "100")
	d.Do("BITOP", "OR", "dest", "a")
	d.Do("TTL", "dest")
	d.Do("SET", "empty", "")
	d.Do("BITOP", "OR", "dest", "nokey", "empty")
	d.Do("EXISTS", "dest")
	makeList(t, d, "list", "a")
	d.Do("BITOP", "OR", "list", "a")
	d.Do("TYPE", "list")
	makeList(t, d, "list2", "a")
	d.Do("BITOP", "OR", "dest", "a", "list2")
	d.Do("BITOP", "NOT", "dest", "list2")
	d.Do("BITOP", "XOR", "list2", "nokey")
	d.Do("EXISTS", "list2")
	d.Both("HELLO", "3")
	d.Do("BITOP", "AND", "dest", "a", "b")
}

func TestBitmapBitfield(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("BITFIELD", "k")
	d.Do("EXISTS", "k")
	d.Do("BITFIELD", "k", "GET", "u8", "0")
	d.Do("EXISTS", "k")
	d.Do("BITFIELD", "k", "SET", "i8", "0", "-100", "GET", "u4", "0", "GET", "i4", "4", "INCRBY", "u2", "100", "1", "GET", "u8", "#12")
	d.Do("GET", "k")
	d.Do("OBJECT", "ENCODING", "k")
	d.Do("BITFIELD", "k", "set", "u8", "#1", "255", "get", "u8", "#1", "incrby", "i16", "#1", "-3")
	d.Do("BITFIELD", "k", "GET", "i64", "3", "GET", "u63", "1", "GET", "i1", "0", "GET", "u1", "0", "GET", "i64", "#100")
	d.Do("BITFIELD", "k", "SET", "i64", "0", "-9223372036854775808", "GET", "i64", "0", "SET", "u63", "1", "9223372036854775807")
	// Every error, in argument order.
	for _, bad := range [][]string{
		{"GET", "u8"}, {"GET"}, {"SET", "u8", "0"}, {"INCRBY", "u8", "0"}, {"OVERFLOW"}, {"FOO", "u8", "0"},
		{"OVERFLOW", "FOO"}, {"OVERFLOW", "FOO", "GET", "x", "0"}, {"GET", "x", "0"}, {"GET", "u64", "0"}, {"GET", "i65", "0"},
		{"GET", "u0", "0"}, {"GET", "i0", "0"}, {"GET", "u", "0"}, {"GET", "", "0"}, {"GET", "I8", "0"}, {"GET", "u08", "0"},
		{"GET", "u-1", "0"}, {"GET", "u8", "-1"}, {"GET", "u8", "x"}, {"GET", "u8", "#-1"}, {"GET", "u8", "##1"},
		{"GET", "u8", "#"}, {"GET", "u8", "4294967296"}, {"GET", "u8", "#536870912"}, {"GET", "u8", "#536870911"},
		{"GET", "i64", "#67108864"}, {"GET", "i64", "#2305843009213693952"}, {"GET", "u8", "#9223372036854775807"},
		{"SET", "u8", "0", "x"}, {"SET", "u8", "0", "1.5"}, {"INCRBY", "u8", "0", "99999999999999999999"},
		{"GET", "u8", "0", "SET", "x", "0", "1"}, {"SET", "u8", "x", "1", "GET", "x", "0"}, {"GET", "u8", "0", "GET"},
	} {
		d.Do(append([]string{"BITFIELD", "k"}, bad...)...)
		d.Do(append([]string{"BITFIELD_RO", "k"}, bad...)...)
	}
	d.Do("GET", "k")
	d.Do("BITFIELD_RO", "k", "GET", "u8", "0", "GET", "i8", "#1")
	d.Do("BITFIELD_RO", "k", "GET", "u8", "0", "SET", "u8", "0", "1")
	d.Do("BITFIELD_RO", "k", "INCRBY", "u8", "0", "1")
	d.Do("BITFIELD_RO", "k", "OVERFLOW", "SAT")
	d.Do("BITFIELD_RO", "nokey", "GET", "u8", "0")
	d.Do("BITFIELD_RO", "k")
	makeList(t, d, "list", "a")
	d.Do("BITFIELD", "list", "GET", "u8", "0")
	d.Do("BITFIELD", "list", "SET", "u8", "0", "1")
	d.Do("BITFIELD", "list")
	d.Do("BITFIELD_RO", "list", "GET", "u8", "0")
	d.Do("BITFIELD_RO", "list", "SET", "u8", "0", "1")
	d.Do("BITFIELD", "list", "GET", "x", "0")
	// OVERFLOW FAIL on a new key creates it padded; nothing changed
	// leaves an existing value as it was (but raw).
	d.Do("BITFIELD", "new", "OVERFLOW", "FAIL", "SET", "u2", "20", "5")
	d.Do("GET", "new")
	d.Do("SET", "s", "ab")
	d.Do("BITFIELD", "s", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "200", "SET", "u8", "8", "98")
	d.Do("GET", "s")
	d.Do("OBJECT", "ENCODING", "s")
	d.Do("BITFIELD", "s", "OVERFLOW", "FAIL", "INCRBY", "u8", "100", "1000")
	d.Do("STRLEN", "s")
	// TTL kept; integers read as text.
	d.Do("SET", "t", "12", "EX", "100")
	d.Do("BITFIELD", "t", "GET", "u8", "0", "INCRBY", "u8", "8", "1")
	d.Do("TTL", "t")
	d.Do("GET", "t")
	// (The 512 MB edge itself is exercised by SETBIT; one such string
	// per test keeps the race detector's run within the read timeout.)
	d.Do("BITFIELD", "big", "GET", "u8", "4294967288", "GET", "i64", "4294967295")
	d.Do("BITFIELD", "big", "SET", "u8", "4294967296", "1")
	d.Do("BITFIELD", "big", "SET", "u8", "#536870912", "1")
	d.Do("EXISTS", "big")
	d.Both("HELLO", "3")
	d.Do("BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "1000", "GET", "u8", "0")
}

// TestBitmapBitfieldOverflow checks SET and INCRBY at every width, around
// each width's limits, under WRAP, SAT and FAIL.
func TestBitmapBitfieldOverflow(t *testing.T) {
	d := redistest.NewDiff(t)
	vals := []int64{0, 1, -1, 2, -2, 1<<62 - 1, 1 << 62, -1 << 62, 1<<63 - 1, -1 << 63}
	for w := 1; w <= 64; w++ {
		var fields []string
		for _, signed := range []bool{true, false} {
			if !signed && w == 64 {
				continue
			}
			typ := "u" + strconv.Itoa(w)
			lo, hi := int64(0), int64(uint64(1)<<w-1)
			if signed {
				typ = "i" + strconv.Itoa(w)
				lo, hi = -1<<(w-1), 1<<(w-1)-1
			}
			bounds := append([]int64{lo, hi, lo + 1, hi - 1, lo - 1, hi + 1}, vals...)
			for _, ow := range []string{"WRAP", "SAT", "FAIL"} {
				for _, v := range bounds {
					vs := strconv.FormatInt(v, 10)
					fields = append(fields, "OVERFLOW", ow, "SET", typ, "3", vs, "GET", typ, "3")
				}
				for _, start := range []int64{lo, hi, 0} {
					for _, inc := range []int64{1, -1, 2, -2, hi, -hi, hi + 1, lo, 1<<63 - 1, -1 << 63} {
						fields = append(fields, "OVERFLOW", "WRAP", "SET", typ, "3", strconv.FormatInt(start, 10),
							"OVERFLOW", ow, "INCRBY", typ, "3", strconv.FormatInt(inc, 10), "GET", typ, "3")
					}
				}
			}
		}
		d.Do(append([]string{"BITFIELD", "w"}, fields...)...)
		d.Do("GET", "w")
	}
}

// TestBitmapRandom runs the same random sequences of bit commands on both
// servers: a few keys, offsets around byte and word boundaries.
func TestBitmapRandom(t *testing.T) {
	d := redistest.NewDiff(t)
	rng := rand.New(rand.NewPCG(7, 11))
	keys := []string{"a", "b", "c"}
	key := func() string { return keys[rng.IntN(len(keys))] }
	num := func(n int) string { return strconv.Itoa(rng.IntN(2*n+1) - n) }
	off := func() string { return strconv.Itoa(rng.IntN(300)) }
	typ := func() string {
		if rng.IntN(2) == 0 {
			return "i" + strconv.Itoa(1+rng.IntN(64))
		}
		return "u" + strconv.Itoa(1+rng.IntN(63))
	}
	unit := func() []string {
		switch rng.IntN(3) {
		case 0:
			return nil
		case 1:
			return []string{"BIT"}
		}
		return []string{"BYTE"}
	}
	for i := 0; i < 3000; i++ {
		switch rng.IntN(9) {
		case 0, 1:
			d.Do("SETBIT", key(), off(), strconv.Itoa(rng.IntN(2)))
		case 2:
			d.Do("GETBIT", key(), off())
		case 3:
			args := []string{"BITFIELD", key()}
			for n := rng.IntN(4); n >= 0; n-- {
				switch rng.IntN(4) {
				case 0:
					args = append(args, "GET", typ(), off())
				case 1:
					args = append(args, "SET", typ(), off(), num(1<<20))
				case 2:
					args = append(args, "INCRBY", typ(), "#"+strconv.Itoa(rng.IntN(20)), num(300))
				case 3:
					args = append(args, "OVERFLOW", []string{"WRAP", "SAT", "FAIL"}[rng.IntN(3)])
				}
			}
			d.Do(args...)
		case 4:
			op := []string{"AND", "OR", "XOR", "NOT"}[rng.IntN(4)]
			args := []string{"BITOP", op, key(), key()}
			if op != "NOT" {
				for n := rng.IntN(3); n > 0; n-- {
					args = append(args, key())
				}
			}
			d.Do(args...)
		case 5:
			if rng.IntN(3) == 0 {
				d.Do("BITCOUNT", key())
			} else {
				d.Do(append([]string{"BITCOUNT", key(), num(50), num(50)}, unit()...)...)
			}
		case 6:
			args := []string{"BITPOS", key(), strconv.Itoa(rng.IntN(2))}
			switch rng.IntN(4) {
			case 1:
				args = append(args, num(50))
			case 2:
				args = append(args, num(50), num(50))
			case 3:
				args = append(append(args, num(50), num(50)), unit()...)
			}
			d.Do(args...)
		case 7:
			d.Do("GET", key())
		case 8:
			if rng.IntN(20) == 0 {
				d.Do("DEL", key())
			} else {
				d.Do("STRLEN", key())
			}
		}
	}
}

// TestBitmapPropagation checks that the bit commands log effects that
// replay to the same data: every logged command is run again on a fresh
// server, and the values must match. Commands that change nothing (a
// SETBIT to the same value, BITFIELD with only failed writes, GETs) log
// nothing.
func TestBitmapPropagation(t *testing.T) {
	redistest.RequireRedis(t)
	o := redistest.StartOrdo(t)
	log := captureProp(o)
	c := redistest.Dial(t, o.Addr)
	c.Do("SETBIT", "k", "10", "1")
	c.Do("SETBIT", "k", "10", "1") // unchanged: not logged
	c.Do("GETBIT", "k", "10")
	c.Do("BITFIELD", "k", "GET", "u8", "0")
	c.Do("BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "9") // nothing written
	c.Do("BITFIELD", "k", "INCRBY", "u8", "0", "3")
	c.Do("BITFIELD", "new", "OVERFLOW", "FAIL", "SET", "u2", "40", "9") // creates "new"
	c.Do("BITFIELD_RO", "k", "GET", "u8", "0")
	c.Do("BITOP", "NOT", "d", "k")
	c.Do("BITOP", "AND", "d", "nokey") // deletes d
	c.Do("BITOP", "AND", "d", "nokey") // nothing to delete
	got := log()
	want := []string{
		"SETBIT k 10 1", "BITFIELD k INCRBY u8 0 3", "BITFIELD new OVERFLOW FAIL SET u2 40 9",
		"BITOP NOT d k", "BITOP AND d nokey",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("propagated:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A random workload, replayed from its log on a second server.
	rng := rand.New(rand.NewPCG(3, 5))
	keys := []string{"a", "b", "c"}
	for i := 0; i < 500; i++ {
		k := keys[rng.IntN(3)]
		switch rng.IntN(4) {
		case 0:
			c.Do("SETBIT", k, strconv.Itoa(rng.IntN(200)), strconv.Itoa(rng.IntN(2)))
		case 1:
			c.Do("BITFIELD", k, "OVERFLOW", []string{"WRAP", "SAT", "FAIL"}[rng.IntN(3)],
				"INCRBY", "i"+strconv.Itoa(1+rng.IntN(64)), strconv.Itoa(rng.IntN(200)), strconv.Itoa(rng.IntN(2001)-1000))
		case 2:
			c.Do("BITOP", []string{"AND", "OR", "XOR"}[rng.IntN(3)], k, keys[rng.IntN(3)], keys[rng.IntN(3)])
		case 3:
			c.Do("BITOP", "NOT", k, keys[rng.IntN(3)])
		}
	}
	replay := redistest.StartOrdo(t)
	rc := redistest.Dial(t, replay.Addr)
	for _, line := range append(want, log()...) {
		rc.Do(strings.Fields(line)...)
	}
	for _, k := range append(keys, "k", "new", "d") {
		if g, w := rc.Do("GET", k), c.Do("GET", k); g.Str != w.Str || g.Kind != w.Kind {
			t.Errorf("replayed %s = %q, want %q", k, g.Str, w.Str)
		}
	}
}

// TestBitmapWatch checks which bit commands abort a WATCHing transaction:
// only those that change the value ("v" is 0x76: bit 0 is 0).
func TestBitmapWatch(t *testing.T) {
	kv := []string{"k", "v"}
	k := []string{"k"}
	watchCase(t, kv, k, []string{"SETBIT", "k", "0", "1"})
	watchCase(t, kv, k, []string{"SETBIT", "k", "100", "0"}) // grows the string
	watchCase(t, kv, k, []string{"BITFIELD", "k", "SET", "u8", "0", "1"})
	watchCase(t, kv, k, []string{"BITFIELD", "k", "INCRBY", "u8", "0", "1"})
	watchCase(t, kv, k, []string{"BITOP", "NOT", "k", "k"})
	watchCase(t, kv, k, []string{"BITOP", "AND", "k", "nokey"})
	watchCase(t, nil, k, []string{"SETBIT", "k", "0", "0"})
	// No change: the transaction runs.
	watchCase(t, kv, k, []string{"SETBIT", "k", "0", "0"})
	watchCase(t, kv, k, []string{"GETBIT", "k", "0"})
	watchCase(t, kv, k, []string{"BITFIELD", "k", "SET", "u8", "0", "118"})
	watchCase(t, kv, k, []string{"BITFIELD", "k", "GET", "u8", "0"})
	watchCase(t, kv, k, []string{"BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "1000"})
	watchCase(t, kv, k, []string{"BITCOUNT", "k"})
	watchCase(t, kv, k, []string{"BITOP", "AND", "other", "k"})
	watchCase(t, nil, k, []string{"BITOP", "AND", "k", "nokey"})
}
