package engine_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

func TestSortNumeric(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("RPUSH", "l", "3", "1", "2", "10", "-5", "1.5", " 7", "1e3", "inf", "-inf", "+4", "-0", "0", "2", "007",
		"0x10", "0X1p3", "0x.8", "\t\n 6", "", "1\x00abc", "12345678901234567890", "1e-300", "0x1p-1074")
	d.Do("SORT", "l")
	d.Do("SORT", "l", "DESC")
	d.Do("SORT", "l", "ASC")
	d.Do("SORT", "l", "DESC", "ASC")
	d.Do("SORT", "l", "asc", "desc", "LIMIT", "2", "5")
	d.Do("SORT_RO", "l")
	d.Do("SORT_RO", "l", "DESC", "LIMIT", "0", "3")
	// Ties on the score are broken by the element's bytes.
	d.Do("RPUSH", "ties", "1.0", "1", "01", "1e0", "b", "a")
	d.Do("SORT", "ties", "BY", "nosuch_*")
	d.Do("SORT", "ties", "BY", "nosuch_*", "DESC")
	d.Do("SORT", "ties", "BY", "nosuch_*", "LIMIT", "1", "3")
	d.Do("SORT", "ties", "BY", "nosuch_*", "DESC", "LIMIT", "1", "3")
	d.Do("DEL", "ties")
	d.Do("RPUSH", "ties", "1.0", "1", "01", "1e0", "1.00", "+1", " 1", "0x1", "1", "2", "0", "-1", "1")
	d.Do("SORT", "ties")
	d.Do("SORT", "ties", "DESC")
	d.Do("SORT", "ties", "LIMIT", "2", "4")
	// Values that are not numbers.
	for _, bad := range []string{"abc", "1 ", "  ", "nan", "-nan", "NaN", "1e", "0x", "0xg", "1,5", "1_000", "0x1p", ".", "e5", "inf ", "infinit", "--1", "1e5x"} {
		d.Do("DEL", "bad")
		d.Do("RPUSH", "bad", "1", bad, "2")
		d.Do("SORT", "bad")
		d.Do("SORT", "bad", "LIMIT", "0", "1")
		d.Do("SORT", "bad", "ALPHA")
		d.Do("SORT", "bad", "BY", "nosort")
		d.Do("SORT", "bad", "STORE", "dst")
		d.Do("EXISTS", "dst")
	}
	d.Do("SET", "dst", "keep")
	d.Do("SORT", "bad", "STORE", "dst")
	d.Do("GET", "dst")
}

// TestSortRange checks values strtod reports out of range, in their own
// test: glibc's strtod leaves errno at ERANGE and Redis does not reset it,
// so later numeric SORTs on that server could fail too.
func TestSortRange(t *testing.T) {
	d := redistest.NewDiff(t)
	for _, v := range []string{"1e400", "-1e400", "1e-400", "1e-310", "0x1p2000"} {
		d.Do("DEL", "r")
		d.Do("RPUSH", "r", "1", v)
		d.Do("SORT", "r")
	}
}

func TestSortAlpha(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("RPUSH", "l", "b", "a", "B", "ab", "a\x00z", "a\x00b", "", "é", "e", "\xff", "10", "9", "a", "A", "aa")
	d.Do("SORT", "l", "ALPHA")
	d.Do("SORT", "l", "ALPHA", "DESC")
	d.Do("SORT", "l", "ALPHA", "LIMIT", "3", "4")
	d.Do("SORT", "l", "ALPHA", "DESC", "LIMIT", "3", "4")
	d.Do("SORT", "l", "ALPHA", "STORE", "dst")
	d.Do("LRANGE", "dst", "0", "-1")
	d.Do("SORT", "l", "ALPHA", "DESC", "STORE", "dst")
	d.Do("LRANGE", "dst", "0", "-1")
	d.Do("SORT_RO", "l", "ALPHA")
}

func TestSortLimit(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("RPUSH", "l", "5", "3", "9", "1", "7", "2", "8")
	d.Do("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e")
	d.Do("SADD", "s", "5", "3", "9", "1", "7")
	limits := [][2]string{
		{"0", "0"}, {"0", "1"}, {"0", "-1"}, {"0", "-100"}, {"2", "3"}, {"-5", "2"}, {"-1", "-1"},
		{"6", "5"}, {"7", "1"}, {"100", "5"}, {"0", "1000000000000"}, {"3", "9223372036854775807"},
		{"9223372036854775807", "9223372036854775807"}, {"-9223372036854775808", "2"},
		{"2", "-9223372036854775808"}, {"1", "0"},
	}
	for _, lim := range limits {
		for _, key := range []string{"l", "z", "s", "nokey"} {
			d.Do("SORT", key, "LIMIT", lim[0], lim[1])
			d.Do("SORT", key, "LIMIT", lim[0], lim[1], "DESC")
			d.Do("SORT", key, "LIMIT", lim[0], lim[1], "ALPHA")
			d.Do("SORT", key, "LIMIT", lim[0], lim[1], "BY", "w_*")
			d.Do("SORT", key, "BY", "nosort", "LIMIT", lim[0], lim[1])
			d.Do("SORT", key, "BY", "nosort", "LIMIT", lim[0], lim[1], "DESC")
			d.Do("SORT", key, "BY", "nosort", "LIMIT", lim[0], lim[1], "GET", "#", "GET", "x_*")
			d.Do("SORT", key, "LIMIT", lim[0], lim[1], "STORE", "dst")
			d.Do("LRANGE", "dst", "0", "-1")
		}
	}
	// The last LIMIT wins; errors.
	d.Do("SORT", "l", "LIMIT", "0", "2", "LIMIT", "1", "2")
	d.Do("SORT", "l", "LIMIT", "a", "1")
	d.Do("SORT", "l", "LIMIT", "1", "b")
	d.Do("SORT", "l", "LIMIT", "1.5", "1")
	d.Do("SORT", "l", "LIMIT", "9223372036854775808", "1")
	d.Do("SORT", "l", "LIMIT", "1")
	d.Do("SORT", "l", "LIMIT")
	d.Do("SORT", "l", "LIMIT", "0", "1", "x")
}

func TestSortByGet(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("RPUSH", "l", "a", "b", "c", "d", "e")
	d.Do("MSET", "w_a", "3", "w_b", "1", "w_c", "2", "w_e", "-1")
	d.Do("MSET", "x_a", "xa", "x_b", "xb", "x_d", "xd", "wa", "9", "w_a_s", "5")
	d.Do("HSET", "h_a", "f", "30", "g", "ga", "->", "arrow", "f->g", "fg")
	d.Do("HSET", "h_b", "f", "10", "g", "gb")
	d.Do("HSET", "h_c", "f", "20")
	d.Do("RPUSH", "w_d", "not-a-string")
	d.Do("SET", "h_e", "not-a-hash")
	for _, by := range []string{"w_*", "h_*->f", "h_*->g", "nosort", "w_*_s", "*", "x_*", "h_*->", "h_*->f->g", "h->*_f", "w_*\x00x", "#"} {
		d.Do("SORT", "l", "BY", by)
		d.Do("SORT", "l", "BY", by, "DESC")
		d.Do("SORT", "l", "BY", by, "ALPHA")
		d.Do("SORT", "l", "BY", by, "ALPHA", "DESC")
		d.Do("SORT", "l", "BY", by, "LIMIT", "1", "2")
		d.Do("SORT", "l", "BY", by, "ALPHA", "LIMIT", "1", "3")
		d.Do("SORT", "l", "BY", by, "ALPHA", "STORE", "dst")
		d.Do("LRANGE", "dst", "0", "-1")
	}
	for _, get := range []string{"#", "x_*", "w_*", "h_*->f", "h_*->g", "h_*->", "h_*->nofield", "nostar", "#x", "*", "x_*->f", "h_*->->", "h_*->f->g", "##"} {
		d.Do("SORT", "l", "BY", "w_*", "GET", get)
		d.Do("SORT", "l", "ALPHA", "GET", get, "STORE", "dst")
		d.Do("LRANGE", "dst", "0", "-1")
	}
	d.Do("SORT", "l", "ALPHA", "GET", "#", "GET", "x_*", "GET", "h_*->f", "GET", "nostar")
	d.Do("SORT", "l", "ALPHA", "GET", "#", "GET", "x_*", "GET", "h_*->f", "LIMIT", "1", "2", "STORE", "dst")
	d.Do("LRANGE", "dst", "0", "-1")
	// Several BYs: the last pattern is used, but a constant one anywhere
	// means no sorting.
	d.Do("SORT", "l", "BY", "nosort", "BY", "w_*")
	d.Do("SORT", "l", "BY", "w_*", "BY", "x_*", "ALPHA")
	d.Do("SORT", "l", "BY", "w_*", "BY", "nosort")
	// Binary-safe elements and patterns.
	d.Do("RPUSH", "bin", "k\x00a", "k\r\nb", "k c")
	d.Do("MSET", "v_k\x00a", "2", "v_k\r\nb", "1", "v_k c", "3")
	d.Do("SORT", "bin", "BY", "v_*")
	d.Do("SORT", "bin", "BY", "v_*", "GET", "v_*", "GET", "#")
	// RESP3 nulls for missing GETs.
	d.Both("HELLO", "3")
	d.Do("SORT", "l", "BY", "w_*", "GET", "#", "GET", "x_*", "GET", "h_*->f")
	d.Do("SORT", "nokey", "GET", "#")
	d.Both("HELLO", "2")
}

func TestSortErrors(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("RPUSH", "l", "1", "2")
	d.Do("SET", "str", "1")
	d.Do("HSET", "h", "f", "1")
	for _, args := range [][]string{
		{"SORT"}, {"SORT_RO"}, {"SORT", "str"}, {"SORT", "h"}, {"SORT_RO", "str"}, {"SORT", "str", "FOO"},
		{"SORT", "l", "FOO"}, {"SORT", "l", "BY"}, {"SORT", "l", "GET"}, {"SORT", "l", "STORE"},
		{"SORT_RO", "l", "STORE", "dst"}, {"SORT_RO", "l", "STORE"}, {"SORT", "l", "ALPHA", "DESC", "BY"},
		{"SORT", "str", "LIMIT", "x", "1"}, {"SORT", "str", "STORE", "dst"}, {"SORT", "l", "GET", "#", "GET"},
		{"SORT", "l", "nosort"}, {"SORT", "l", "DESCX"},
	} {
		d.Do(args...)
	}
	d.Do("EXISTS", "dst")
}

func TestSortStore(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("RPUSH", "l", "3", "1", "2")
	d.Do("SORT", "l", "STORE", "dst")
	d.Do("LRANGE", "dst", "0", "-1")
	d.Do("TYPE", "dst")
	d.Do("OBJECT", "ENCODING", "dst")
	// Over an existing key of another type, with a TTL.
	d.Do("SET", "str", "v", "EX", "100")
	d.Do("SORT", "l", "DESC", "STORE", "str")
	d.Do("TTL", "str")
	d.Do("LRANGE", "str", "0", "-1")
	d.Do("ZADD", "z", "1", "x")
	d.Do("SORT", "l", "STORE", "z")
	d.Do("TYPE", "z")
	// Onto itself.
	d.Do("SORT", "l", "DESC", "STORE", "l")
	d.Do("LRANGE", "l", "0", "-1")
	// The last STORE wins.
	d.Do("SORT", "l", "STORE", "a", "STORE", "b")
	d.Do("EXISTS", "a", "b")
	// An empty result deletes the destination.
	d.Do("SORT", "nokey", "STORE", "dst")
	d.Do("EXISTS", "dst")
	d.Do("SORT", "nokey", "STORE", "dst")
	d.Do("SORT", "l", "LIMIT", "0", "0", "STORE", "b")
	d.Do("EXISTS", "b")
	// A large result.
	args := []string{"RPUSH", "big"}
	for i := 0; i < 3000; i++ {
		args = append(args, strconv.Itoa((i*7919)%3001))
	}
	d.Do(args...)
	d.Do("SORT", "big", "STORE", "bigdst")
	d.Do("LRANGE", "bigdst", "0", "-1")
	d.Do("SORT", "big", "DESC", "STORE", "bigdst")
	d.Do("LRANGE", "bigdst", "2990", "-1")
	d.Do("LLEN", "bigdst")
	// WATCH sees the store and the deletion.
	d.Do("WATCH", "dst")
	d.Do("SORT", "l", "STORE", "dst")
	d.Do("MULTI")
	d.Do("GET", "x")
	d.Do("EXEC")
	d.Do("WATCH", "dst")
	d.Do("SORT", "nokey", "STORE", "dst")
	d.Do("MULTI")
	d.Do("GET", "x")
	d.Do("EXEC")
	// Inside MULTI.
	d.Do("MULTI")
	d.Do("SORT", "l", "STORE", "m")
	d.Do("SORT", "l", "DESC")
	d.Do("EXEC")
	d.Do("LRANGE", "m", "0", "-1")
}

func TestSortSets(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SADD", "is", "5", "-3", "10", "0", "7", "100")
	d.Do("OBJECT", "ENCODING", "is")
	d.Do("SORT", "is")
	d.Do("SORT", "is", "DESC")
	d.Do("SORT", "is", "ALPHA")
	d.Do("SORT", "is", "LIMIT", "1", "2")
	// An intset's order is sorted: BY nosort returns it, in Redis too.
	d.Do("SORT", "is", "BY", "nosort")
	d.Do("SORT", "is", "BY", "nosort", "DESC")
	d.Do("SORT", "is", "BY", "nosort", "LIMIT", "1", "3")
	d.Do("SORT", "is", "BY", "nosort", "GET", "#", "GET", "g_*")
	// Stored or in a script, an unsorted set is sorted ALPHA.
	d.Do("SORT", "is", "BY", "nosort", "STORE", "dst")
	d.Do("LRANGE", "dst", "0", "-1")
	d.Do("SORT", "is", "BY", "nosort", "DESC", "LIMIT", "1", "3", "STORE", "dst")
	d.Do("LRANGE", "dst", "0", "-1")
	d.Do("EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'nosort')", "1", "is")
	d.Do("EVAL", "return redis.call('SORT_RO', KEYS[1], 'BY', 'nosort', 'DESC')", "1", "is")
	// (No members equal up to a NUL byte: strcoll ties, in hash order.)
	d.Do("SADD", "hs", "b", "a", "c", "10", "9", "B", "a b", "ab")
	d.Do("SORT", "hs", "ALPHA")
	d.Do("SORT", "hs", "ALPHA", "DESC", "LIMIT", "2", "3")
	d.Do("SORT", "hs")
	d.DoSorted("SORT", "hs", "BY", "nosort")
	d.Do("SORT", "hs", "BY", "nosort", "STORE", "dst")
	d.Do("LRANGE", "dst", "0", "-1")
	d.Do("EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'nosort')", "1", "hs")
	d.Do("MSET", "w_b", "2", "w_a", "3", "w_c", "1", "w_10", "0", "w_9", "5", "w_B", "4", "w_a b", "7", "w_ab", "6")
	d.Do("SORT", "hs", "BY", "w_*")
	d.Do("SORT", "hs", "BY", "w_*", "ALPHA", "GET", "#", "GET", "w_*")
	d.Do("SORT", "hs", "BY", "w_*", "DESC", "LIMIT", "1", "4")
	d.Do("SORT", "hs", "BY", "w_*", "ALPHA", "DESC", "LIMIT", "1", "4", "STORE", "dst")
	d.Do("LRANGE", "dst", "0", "-1")
}

func TestSortSortedSets(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("ZADD", "z", "3", "c", "1", "a", "2", "b", "2", "bb", "10", "j", "-1", "z")
	d.Do("OBJECT", "ENCODING", "z")
	// BY a constant: the sorted set's order, LIMIT on its ranks.
	d.Do("SORT", "z", "BY", "nosort")
	d.Do("OBJECT", "ENCODING", "z")
	d.Do("SORT", "z", "BY", "nosort", "DESC")
	d.Do("SORT", "z", "BY", "nosort", "LIMIT", "1", "3")
	d.Do("SORT", "z", "BY", "nosort", "DESC", "LIMIT", "1", "3")
	d.Do("SORT", "z", "BY", "nosort", "DESC", "LIMIT", "5", "10")
	d.Do("SORT", "z", "BY", "nosort", "STORE", "dst")
	d.Do("LRANGE", "dst", "0", "-1")
	d.Do("SORT", "z", "BY", "nosort", "GET", "#", "GET", "w_*")
	d.Do("SORT", "z", "ALPHA")
	d.Do("SORT", "z", "ALPHA", "DESC", "LIMIT", "0", "2")
	d.Do("SORT", "z")
	d.Do("MSET", "w_a", "5", "w_b", "4", "w_bb", "3", "w_c", "2", "w_j", "1", "w_z", "0")
	d.Do("SORT", "z")
	d.Do("SORT", "z", "BY", "w_*")
	d.Do("SORT", "z", "BY", "w_*", "DESC", "LIMIT", "2", "2")
	d.Do("SORT", "z", "BY", "w_*", "ALPHA", "LIMIT", "2", "3", "GET", "#", "GET", "w_*")
	d.Do("ZADD", "zi", "1", "10", "2", "9", "3", "100")
	d.Do("SORT", "zi")
	d.Do("SORT", "zi", "DESC")
	d.Do("SORT", "zi", "BY", "nosort", "DESC")
	d.Do("EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'nosort')", "1", "zi")
	// A sorted set past the listpack limits.
	args := []string{"ZADD", "big"}
	for i := 0; i < 300; i++ {
		args = append(args, strconv.Itoa(i%50), "m"+strconv.Itoa(i))
	}
	d.Do(args...)
	d.Do("SORT", "big", "BY", "nosort", "LIMIT", "100", "5")
	d.Do("SORT", "big", "BY", "nosort", "DESC", "LIMIT", "100", "5")
	d.Do("SORT", "big", "ALPHA", "LIMIT", "100", "5")
}

// TestSortTies checks the order of equal ALPHA weights: the input order
// when Redis sorts with glibc's qsort (stable), pqsort's order when BY
// and a narrowing LIMIT make Redis use its partial quicksort.
func TestSortTies(t *testing.T) {
	d := redistest.NewDiff(t)
	rng := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{3, 6, 7, 8, 12, 40, 41, 100, 500} {
		d.Do("DEL", "l")
		args := []string{"RPUSH", "l"}
		for i := 0; i < n; i++ {
			args = append(args, "e"+strconv.Itoa(i))
			if rng.IntN(4) > 0 {
				d.Do("SET", "w_e"+strconv.Itoa(i), strconv.Itoa(rng.IntN(3)))
			} else {
				d.Do("DEL", "w_e"+strconv.Itoa(i))
			}
		}
		d.Do(args...)
		for _, opts := range [][]string{
			{}, {"DESC"}, {"LIMIT", "0", "5"}, {"LIMIT", "1", strconv.Itoa(n / 2)}, {"DESC", "LIMIT", strconv.Itoa(n / 3), "7"},
			{"LIMIT", "0", strconv.Itoa(n)}, {"LIMIT", strconv.Itoa(n - 1), "1"}, {"STORE", "dst"}, {"LIMIT", "2", "9", "STORE", "dst"},
		} {
			a := append([]string{"SORT", "l", "BY", "w_*", "ALPHA"}, opts...)
			d.Do(a...)
			a = append([]string{"SORT", "l", "BY", "w_*"}, opts...)
			d.Do(a...)
			d.Do("LRANGE", "dst", "0", "-1")
		}
	}
}

func TestSortGetKeys(t *testing.T) {
	d := redistest.NewDiff(t)
	for _, args := range [][]string{
		{"SORT", "k"}, {"SORT", "k", "STORE", "d"}, {"SORT", "k", "STORE", "d", "STORE", "e"},
		{"SORT", "k", "BY", "store", "GET", "store", "LIMIT", "store", "store"}, {"SORT", "k", "STORE"},
		{"SORT", "k", "LIMIT", "0", "1", "STORE", "d", "ALPHA"}, {"SORT", "k", "store", "store", "x"},
		{"SORT", "k", "STORE", "limit", "1", "2", "x"}, {"SORT_RO", "k", "STORE", "d"}, {"SORT_RO", "k"},
		{"SORT", "k", "GET"},
	} {
		d.Do(append([]string{"COMMAND", "GETKEYS"}, args...)...)
	}
	d.Do("COMMAND", "INFO", "SORT", "SORT_RO")
}

// TestSortPropagation checks that SORT ... STORE logs its result, so that
// replaying the log gives the same list whatever the weights became.
func TestSortPropagation(t *testing.T) {
	src := engine.New(nil)
	defer src.Close()
	var log [][][]byte
	src.Propagate = func(db int, args [][]byte) {
		cp := make([][]byte, len(args))
		for i, a := range args {
			cp[i] = append([]byte(nil), a...)
		}
		log = append(log, cp)
	}
	call := callRaw
	cl := src.NewClient("embedded")
	call(src, cl, "RPUSH", "l", "c", "a", "b")
	call(src, cl, "MSET", "w_a", "2", "w_b", "1", "w_c", "3")
	call(src, cl, "SORT", "l", "BY", "w_*", "STORE", "d1")
	call(src, cl, "SET", "d2", "x")
	call(src, cl, "SORT", "l", "ALPHA", "DESC", "GET", "w_*", "STORE", "d2")
	big := []string{"RPUSH", "big"}
	for i := 0; i < 2500; i++ {
		big = append(big, strconv.Itoa(i))
	}
	call(src, cl, big...)
	call(src, cl, "SORT", "big", "DESC", "STORE", "d3")
	call(src, cl, "SORT", "nokey", "STORE", "d1")
	call(src, cl, "SORT", "l", "ALPHA", "STORE", "d4")
	call(src, cl, "SORT", "l") // logs nothing
	// Inside EXEC the records join the transaction's own MULTI/EXEC.
	call(src, cl, "SET", "d5", "x")
	call(src, cl, "MULTI")
	call(src, cl, "SORT", "big", "STORE", "d5")
	call(src, cl, "EXEC")
	call(src, cl, "MSET", "w_a", "9", "w_b", "9", "w_c", "9")

	var got []string
	for _, rec := range log {
		if len(rec) == 1 {
			got = append(got, string(rec[0]))
		} else if s := string(rec[0]); s != "RPUSH" || string(rec[1]) != "big" {
			got = append(got, s+" "+string(rec[1]))
		}
	}
	want := []string{"RPUSH l", "MSET w_a", "RPUSH d1", "SET d2", "MULTI", "DEL d2", "RPUSH d2", "EXEC",
		"MULTI", "RPUSH d3", "RPUSH d3", "RPUSH d3", "EXEC", "DEL d1", "RPUSH d4",
		"SET d5", "MULTI", "DEL d5", "RPUSH d5", "RPUSH d5", "RPUSH d5", "EXEC", "MSET w_a"}
	if !slices.Equal(got, want) {
		t.Fatalf("log:\n got %q\nwant %q", got, want)
	}

	dst := engine.New(nil)
	defer dst.Close()
	dcl := dst.NewClient("embedded")
	for _, rec := range log {
		args := make([]string, len(rec))
		for i, a := range rec {
			args[i] = string(a)
		}
		call(dst, dcl, args...)
	}
	for _, k := range []string{"d1", "d2", "d3", "d4", "d5"} {
		a := call(src, cl, "LRANGE", k, "0", "-1")
		b := call(dst, dcl, "LRANGE", k, "0", "-1")
		if a != b {
			t.Errorf("%s: source %q, replayed %q", k, a, b)
		}
	}
	if a := call(dst, dcl, "LRANGE", "d2", "0", "-1"); a != "*3\r\n$1\r\n3\r\n$1\r\n1\r\n$1\r\n2\r\n" {
		t.Errorf("d2 replayed: %q", a)
	}
}

// TestSortRandomized compares random SORT commands on random data with
// Redis. Where Redis starts from a hash table's order (sets that are not
// intsets, sorted sets), equal ALPHA weights have no defined order, so
// those replies are compared as multisets, without LIMIT.
func TestSortRandomized(t *testing.T) {
	d := redistest.NewDiff(t)
	rng := rand.New(rand.NewPCG(11, 13))
	vals := []string{"0", "1", "2", "-1", "10", "1.5", "-2.25", "1e2", " 3", "007", "+8", "inf", "-inf", "0x1A",
		"a", "b", "B", "ab", "", "z9", "1 ", "nan", "é"}
	numeric := vals[:13]
	pick := func(pool []string) string { return pool[rng.IntN(len(pool))] }
	iters := 400
	if testing.Short() {
		iters = 100
	}
	for it := 0; it < iters; it++ {
		d.Both("FLUSHALL")
		// Elements: a pool of names shared by weights and GET targets.
		n := rng.IntN(60)
		elemPool := numeric
		if rng.IntN(3) == 0 {
			elemPool = vals
		}
		var elems []string
		for i := 0; i < n; i++ {
			if rng.IntN(2) == 0 {
				elems = append(elems, pick(elemPool))
			} else {
				elems = append(elems, strconv.Itoa(rng.IntN(40)))
			}
		}
		kind := rng.IntN(4) // list, intset or set, zset, missing
		switch {
		case kind == 0 && n > 0:
			d.Do(append([]string{"RPUSH", "src"}, elems...)...)
		case kind == 1 && n > 0:
			d.Do(append([]string{"SADD", "src"}, elems...)...)
		case kind == 2 && n > 0:
			args := []string{"ZADD", "src"}
			for _, e := range elems {
				args = append(args, strconv.Itoa(rng.IntN(5)), e)
			}
			d.Do(args...)
		}
		for _, e := range elems {
			switch rng.IntN(4) {
			case 0:
				d.Do("SET", "w_"+e, pick(numeric))
			case 1:
				d.Do("HSET", "h_"+e, "f", pick(vals), "g", strconv.Itoa(rng.IntN(9)))
			case 2:
				d.Do("SET", "w_"+e, pick(vals))
			}
		}
		enc := d.Do("OBJECT", "ENCODING", "src").Str
		for q := 0; q < 8; q++ {
			args := []string{"SORT", "src"}
			if rng.IntN(4) == 0 {
				args[0] = "SORT_RO"
			}
			alpha, by, limit, store := false, "", false, false
			var opts []string
			if rng.IntN(2) == 0 {
				alpha = true
				opts = append(opts, "ALPHA")
			}
			switch rng.IntN(5) {
			case 0:
				by = "w_*"
			case 1:
				by = "h_*->" + []string{"f", "g"}[rng.IntN(2)]
			case 2:
				by = "nosort"
			}
			if by != "" {
				opts = append(opts, "BY", by)
			}
			if rng.IntN(2) == 0 {
				opts = append(opts, []string{"ASC", "DESC"}[rng.IntN(2)])
			}
			if rng.IntN(2) == 0 {
				limit = true
				opts = append(opts, "LIMIT", strconv.Itoa(rng.IntN(n+3)-1), strconv.Itoa(rng.IntN(n+3)-1))
			}
			for g := rng.IntN(3); g > 0; g-- {
				opts = append(opts, "GET", []string{"#", "w_*", "h_*->f", "h_*->g", "x"}[rng.IntN(5)])
			}
			if args[0] == "SORT" && rng.IntN(3) == 0 {
				store = true
				opts = append(opts, "STORE", "dst")
			}
			args = append(args, opts...)
			hashOrder := enc == "hashtable" || enc == "skiplist" || enc == "listpack" && kind == 2
			unordered := false
			if hashOrder {
				tiesPossible := alpha && (by == "w_*" || strings.HasPrefix(by, "h_*"))
				setNoSort := by == "nosort" && kind == 1 && !store
				if tiesPossible || setNoSort {
					if limit {
						continue
					}
					unordered = true
				}
			}
			if unordered && !store {
				d.DoSorted(args...)
				continue
			}
			d.Do(args...)
			if store {
				if unordered {
					d.DoSorted("LRANGE", "dst", "0", "-1")
				} else {
					d.Do("LRANGE", "dst", "0", "-1")
				}
				d.Do("EXISTS", "dst")
			}
		}
	}
}

type sortEvents struct{ got []string }

func (r *sortEvents) KeyChanged(ev engine.KeyEvent) { r.got = append(r.got, ev.Event+":"+ev.Key) }

// TestSortEvents checks the key events of SORT: "sortstore" for a stored
// result (one event, over an existing key too), "del" when an empty result
// deletes the destination, and nothing for a read, even one that converts
// a small sorted set (Redis's zsetConvert changes no value).
func TestSortEvents(t *testing.T) {
	e := engine.New(nil)
	defer e.Close()
	rec := &sortEvents{}
	e.Observe(rec)
	cl := e.NewClient("embedded")
	do := func(args ...string) {
		b := make([][]byte, len(args))
		for i, a := range args {
			b[i] = []byte(a)
		}
		w := &resp.Writer{Proto: 2}
		e.Lock()
		e.Call(cl, b, w)
		e.Unlock()
	}
	do("RPUSH", "l", "2", "1")
	do("ZADD", "z", "1", "a")
	do("SET", "d2", "x")
	rec.got = nil
	do("SORT", "l")
	do("SORT_RO", "z", "BY", "nosort")
	do("SORT", "z", "ALPHA")
	do("SORT", "l", "STORE", "d1")
	do("SORT", "l", "STORE", "d2")
	do("SORT", "nokey", "STORE", "d1")
	do("SORT", "nokey", "STORE", "d1")
	// As Redis: setKey's dbAdd reports "new" for a key that did not exist.
	want := []string{"new:d1", "sortstore:d1", "sortstore:d2", "del:d1"}
	if !slices.Equal(rec.got, want) {
		t.Fatalf("events %q, want %q", rec.got, want)
	}
}

// TestSortScripts: SORT is a write command (refused by EVAL_RO, SORT_RO is
// not), its errors inside scripts, a set sorted when stored from a script,
// and options in any case and order.
func TestSortScripts(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("RPUSH", "l", "3", "1", "2")
	d.Do("EVAL_RO", "return redis.call('SORT', KEYS[1])", "1", "l")
	d.Do("EVAL_RO", "return redis.call('SORT_RO', KEYS[1])", "1", "l")
	d.Do("EVAL_RO", "return redis.call('SORT', KEYS[1], 'STORE', 'x')", "1", "l")
	d.Do("EVAL", "return redis.call('SORT', KEYS[1], 'STORE', KEYS[2])", "2", "l", "x")
	d.Do("EVAL", "return redis.call('SORT_RO', KEYS[1], 'STORE', KEYS[2])", "2", "l", "x")
	d.Do("EVAL", "return redis.pcall('SORT', KEYS[1], 'BY')", "1", "l")
	d.Do("SADD", "s", "b", "a", "c")
	d.Do("EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'nosort', 'STORE', 'y')", "1", "s")
	d.Do("LRANGE", "y", "0", "-1")
	d.Do("SET", "str", "x")
	d.Do("EVAL", "return redis.pcall('SORT', KEYS[1])", "1", "str")
	d.Do("sort", "l", "limit", "0", "1", "desc", "alpha", "get", "#", "by", "x", "store", "z")
	d.Do("LRANGE", "z", "0", "-1")
	d.Do("SORT", "l", "GET", "#", "GET", "#")
}

// TestSortStoreWakesBlocked: a list stored by SORT serves a client
// blocked on its key, alone or inside MULTI; an empty result does not.
func TestSortStoreWakesBlocked(t *testing.T) {
	r, o := redistest.Shared(t)
	cases := [][][]string{
		{{"SORT", "l", "STORE", "q"}},
		{{"SORT", "l", "DESC", "LIMIT", "1", "2", "STORE", "q"}},
		{{"MULTI"}, {"SORT", "l", "ALPHA", "STORE", "q"}, {"EXEC"}},
		{{"SORT", "nokey", "STORE", "q"}, {"RPUSH", "q", "after"}},
	}
	for _, cmds := range cases {
		var replies [2]string
		for i, addr := range []string{r.Addr, o.Addr} {
			a, b := redistest.Dial(t, addr), redistest.Dial(t, addr)
			b.Do("FLUSHALL")
			b.Do("RPUSH", "l", "3", "1", "2")
			a.Send("BLPOP", "q", "5")
			// Wait (bounded) until the server counts the client blocked.
			for n := 0; n < 200 && !strings.Contains(b.Do("INFO", "clients").Str, "blocked_clients:1"); n++ {
				time.Sleep(5 * time.Millisecond)
			}
			for _, cmd := range cmds {
				b.Do(cmd...)
			}
			replies[i] = string(a.ReadRaw())
			a.Close()
			b.Close()
		}
		if replies[0] != replies[1] {
			t.Errorf("%q: BLPOP got %q from redis, %q from ordo", cmds, replies[0], replies[1])
		}
	}
}
