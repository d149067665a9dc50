package engine_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

func TestSetBasics(t *testing.T) {
	d := redistest.NewDiff(t)
	// Integers only: an intset, sorted.
	d.Do("SADD", "i", "30", "-5", "7", "7", "0", "-9223372036854775808", "9223372036854775807")
	d.Do("SMEMBERS", "i")
	d.Do("SADD", "i", "7", "8")
	d.Do("SCARD", "i")
	d.Do("SISMEMBER", "i", "7")
	d.Do("SISMEMBER", "i", "07")
	d.Do("SISMEMBER", "i", "x")
	d.Do("SMISMEMBER", "i", "7", "x", "30", "+30")
	d.Do("SREM", "i", "7", "07", "x", "8", "8")
	d.Do("SMEMBERS", "i")
	// Not integers as string2ll reads them: a hashtable.
	d.Do("SADD", "s", "a", "b", "c", "a")
	d.DoSorted("SMEMBERS", "s")
	d.Do("SADD", "nonint", "007", "+1", "-0", "1.0", " 1")
	d.DoSorted("SMEMBERS", "nonint")
	d.Do("SISMEMBER", "s", "a")
	d.Do("SISMEMBER", "s", "z")
	d.Do("SMISMEMBER", "s", "a", "z")
	d.Do("SISMEMBER", "nokey", "a")
	d.Do("SMISMEMBER", "nokey", "a", "b")
	d.Do("SCARD", "nokey")
	d.Do("SMEMBERS", "nokey")
	d.Do("SREM", "nokey", "a")
	d.Do("SREM", "s", "a", "b", "c", "d")
	d.Do("EXISTS", "s")
	d.Do("SADD", "b", "", "x\x00\xff")
	d.DoSorted("SMEMBERS", "b")
	d.Do("SISMEMBER", "b", "")
	// A hashtable set whose members are all integers: SMEMBERS in hash
	// order, but SUNION builds an intset, so it comes out sorted.
	d.Do("SADD", "m", "x", "3", "1", "2", "10")
	d.Do("SREM", "m", "x")
	d.DoSorted("SMEMBERS", "m")
	d.Do("SUNION", "m")
	d.DoSorted("SINTER", "m") // SINTER replies in the first set's order
	d.Do("SDIFF", "m")
}

func TestSetErrors(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SET", "str", "x")
	d.Do("SADD", "s", "a")
	for _, cmd := range [][]string{
		{"SADD", "str", "a"}, {"SREM", "str", "a"}, {"SISMEMBER", "str", "a"},
		{"SMISMEMBER", "str", "a"}, {"SMEMBERS", "str"}, {"SCARD", "str"},
		{"SRANDMEMBER", "str"}, {"SRANDMEMBER", "str", "3"}, {"SRANDMEMBER", "str", "0"},
		{"SPOP", "str"}, {"SPOP", "str", "2"}, {"SPOP", "str", "0"},
		{"SMOVE", "str", "s", "a"}, {"SMOVE", "s", "str", "a"}, {"SMOVE", "s", "str", "zz"},
		{"SMOVE", "nokey", "str", "a"},
		{"SINTER", "s", "str"}, {"SINTER", "nokey", "str"}, {"SINTER", "str", "nokey"},
		{"SINTERSTORE", "d", "s", "str"}, {"SUNION", "s", "str"}, {"SUNIONSTORE", "d", "str"},
		{"SDIFF", "s", "str"}, {"SDIFF", "nokey", "str"}, {"SDIFFSTORE", "d", "s", "str"},
		{"SINTERCARD", "2", "s", "str"}, {"SSCAN", "str", "0"},
	} {
		d.Do(cmd...)
	}
	d.Do("EXISTS", "d")
	for _, cmd := range [][]string{
		{"SADD", "s"}, {"SREM", "s"}, {"SISMEMBER", "s"}, {"SMISMEMBER", "s"}, {"SMEMBERS"},
		{"SMEMBERS", "s", "t"}, {"SCARD"}, {"SRANDMEMBER"}, {"SRANDMEMBER", "s", "1", "2"},
		{"SPOP"}, {"SPOP", "s", "1", "2"}, {"SMOVE", "s", "t"}, {"SINTER"}, {"SINTERSTORE", "d"},
		{"SUNION"}, {"SUNIONSTORE", "d"}, {"SDIFF"}, {"SDIFFSTORE", "d"}, {"SINTERCARD", "1"},
		{"SSCAN", "s"},
	} {
		d.Do(cmd...)
	}
	d.Do("SPOP", "s", "x")
	d.Do("SPOP", "s", "-1")
	d.Do("SPOP", "nokey", "-1")
	d.Do("SRANDMEMBER", "s", "x")
	d.Do("SRANDMEMBER", "nokey", "x")
	d.Do("SRANDMEMBER", "s", "-9223372036854775808")
	d.Do("SRANDMEMBER", "s", "9223372036854775808")
	d.Do("SMEMBERS", "s")
}

func TestSetRESP3(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Both("HELLO", "3")
	d.Do("SADD", "i", "3", "1", "2")
	d.Do("SADD", "s", "a")
	d.Do("SMEMBERS", "i")
	d.Do("SMEMBERS", "s")
	d.Do("SMEMBERS", "nokey")
	d.Do("SINTER", "i", "i")
	d.Do("SINTER", "i", "nokey")
	d.Do("SUNION", "i", "nokey")
	d.Do("SDIFF", "i", "nokey")
	d.Do("SDIFF", "nokey", "i")
	d.Do("SRANDMEMBER", "i", "5")
	d.Do("SRANDMEMBER", "nokey")
	d.Do("SRANDMEMBER", "nokey", "3")
	d.Do("SPOP", "nokey")
	d.Do("SPOP", "nokey", "3")
	d.Do("SPOP", "i", "0")
	d.Do("SMISMEMBER", "i", "1", "9")
	d.Do("SISMEMBER", "i", "1")
	d.Do("SSCAN", "i", "0")
	d.Do("SINTERCARD", "1", "i")
	d.Do("SPOP", "i", "5")
	d.Do("SPOP", "s")
	d.Do("SPOP", "s")
}

func TestSetAlgebra(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SADD", "a", "1", "2", "3", "4", "5")
	d.Do("SADD", "b", "4", "5", "6")
	d.Do("SADD", "c", "5", "x", "4", "y")
	d.Do("SADD", "e", "100")
	d.Do("SINTER", "a", "b")
	d.Do("SINTER", "a", "b", "c")
	d.Do("SINTER", "a", "a")
	d.Do("SINTER", "a", "nokey")
	d.Do("SINTER", "a", "e")
	d.DoSorted("SINTER", "c", "c")
	d.Do("SUNION", "a", "b")
	d.Do("SUNION", "a", "nokey", "b")
	d.DoSorted("SUNION", "a", "c")
	d.Do("SUNION", "nokey")
	d.Do("SDIFF", "a", "b")
	d.Do("SDIFF", "a", "b", "c")
	d.Do("SDIFF", "a", "a")
	d.Do("SDIFF", "a", "nokey")
	d.Do("SDIFF", "nokey", "a")
	d.DoSorted("SDIFF", "c", "a")

	// STORE forms: the result is an intset when it can be (sorted).
	d.Do("SINTERSTORE", "d", "a", "c")
	d.Do("SMEMBERS", "d")
	d.Do("SUNIONSTORE", "d", "a", "b")
	d.Do("SMEMBERS", "d")
	d.Do("SDIFFSTORE", "d", "c", "a")
	d.DoSorted("SMEMBERS", "d")
	d.Do("SDIFFSTORE", "d", "a", "c")
	d.Do("SMEMBERS", "d")
	// Destination overwritten whatever its type, TTL cleared; an empty
	// result deletes it.
	d.Do("SET", "str", "v")
	d.Do("EXPIRE", "str", "100")
	d.Do("SUNIONSTORE", "str", "a")
	d.Do("TYPE", "str")
	d.Do("TTL", "str")
	d.Do("SINTERSTORE", "str", "a", "nokey")
	d.Do("EXISTS", "str")
	d.Do("SET", "str", "v")
	d.Do("SINTERSTORE", "str", "a", "e")
	d.Do("EXISTS", "str")
	d.Do("SET", "str", "v")
	d.Do("SDIFFSTORE", "str", "a", "a")
	d.Do("EXISTS", "str")
	d.Do("SUNIONSTORE", "str", "nokey")
	d.Do("SINTERSTORE", "nokey2", "nokey")
	// Destination equal to a source.
	d.Do("SUNIONSTORE", "a", "a", "b")
	d.Do("SMEMBERS", "a")
	d.Do("SINTERSTORE", "a", "a", "b")
	d.Do("SMEMBERS", "a")
	d.Do("SDIFFSTORE", "b", "b", "a")
	d.Do("SMEMBERS", "b")

	// SINTERCARD.
	d.Do("SADD", "p", "1", "2", "3", "4", "5", "6")
	d.Do("SADD", "q", "2", "3", "4", "5", "6", "7")
	d.Do("SINTERCARD", "2", "p", "q")
	d.Do("SINTERCARD", "2", "p", "q", "LIMIT", "0")
	d.Do("SINTERCARD", "2", "p", "q", "LIMIT", "3")
	d.Do("SINTERCARD", "2", "p", "q", "limit", "100")
	d.Do("SINTERCARD", "2", "p", "q", "LIMIT", "1", "LIMIT", "2")
	d.Do("SINTERCARD", "1", "p")
	d.Do("SINTERCARD", "2", "p", "nokey")
	d.Do("SINTERCARD", "0", "p")
	d.Do("SINTERCARD", "-1", "p")
	d.Do("SINTERCARD", "x", "p")
	d.Do("SINTERCARD", "3", "p", "q")
	d.Do("SINTERCARD", "2", "p", "q", "LIMIT")
	d.Do("SINTERCARD", "2", "p", "q", "LIMIT", "-1")
	d.Do("SINTERCARD", "2", "p", "q", "LIMIT", "x")
	d.Do("SINTERCARD", "2", "p", "q", "FOO", "1")
	d.Do("SINTERCARD", "1", "p", "q")

	// Bigger sets, hashtable-encoded.
	var a, b []string
	for i := 0; i < 1000; i++ {
		a = append(a, "m"+strconv.Itoa(i))
		if i%3 == 0 {
			b = append(b, "m"+strconv.Itoa(i))
		}
	}
	d.Do(append([]string{"SADD", "ba"}, a...)...)
	d.Do(append([]string{"SADD", "bb"}, b...)...)
	d.DoSorted("SINTER", "ba", "bb")
	d.DoSorted("SDIFF", "ba", "bb")
	d.DoSorted("SUNION", "ba", "bb", "p")
	d.Do("SINTERCARD", "2", "ba", "bb")
	d.Do("SINTERCARD", "2", "ba", "bb", "LIMIT", "10")
	d.Do("SDIFFSTORE", "bd", "ba", "bb")
	d.DoSorted("SMEMBERS", "bd")
}

// TestSetEncodingThresholds: an intset keeps its members sorted up to
// set-max-intset-entries; past it (or with a non-integer) it becomes a
// hashtable for good.
func TestSetEncodingThresholds(t *testing.T) {
	d := redistest.NewDiff(t)
	max, _ := strconv.Atoi(d.Do("CONFIG", "GET", "set-max-intset-entries").Elems[1].Str)
	args := []string{"SADD", "at"}
	for i := max; i > 0; i-- {
		args = append(args, strconv.Itoa(i*7))
	}
	d.Do(args...)
	d.Do("SMEMBERS", "at")
	d.Do("SSCAN", "at", "0")
	d.Do("SSCAN", "at", "0", "MATCH", "*7")
	d.Do("SADD", "at", "1")
	d.DoSorted("SMEMBERS", "at")
	d.Do("SREM", "at", "1", "7", "14")
	d.DoSorted("SMEMBERS", "at")
	d.Do("SCARD", "at")
	// A first member that is not an integer makes a hashtable even if
	// the rest are.
	d.Do("SADD", "h", "a", "1", "2")
	d.Do("SREM", "h", "a")
	d.DoSorted("SMEMBERS", "h")
	d.Do("SADD", "i", "5", "a")
	d.Do("SREM", "i", "a")
	d.DoSorted("SMEMBERS", "i")
	d.Do("SINTERSTORE", "back", "i", "i")
	d.Do("SMEMBERS", "back") // a new set: an intset again
	d.Do("OBJECT", "ENCODING", "back")
	d.Do("OBJECT", "ENCODING", "i")
}

func TestSetEncodingConfig(t *testing.T) {
	r := redistest.StartRedis(t, "--set-max-intset-entries", "3")
	o := redistest.StartOrdo(t, "set-max-intset-entries", "3")
	d := redistest.NewDiffWith(t, r.Addr, o.Addr)
	d.Do("SADD", "s", "3", "2", "1")
	d.Do("SMEMBERS", "s")
	d.Do("SADD", "s", "0")
	d.DoSorted("SMEMBERS", "s")
	d.DoSorted("SUNION", "s") // 4 members: too many for an intset
	d.Do("SADD", "t", "9", "8")
	d.Do("SUNION", "t")
}

func TestSetMove(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SADD", "src", "1", "2", "a")
	d.Do("SADD", "dst", "5")
	d.Do("SMOVE", "src", "dst", "1")
	d.Do("SMEMBERS", "dst")
	d.Do("SMOVE", "src", "dst", "1")
	d.Do("SMOVE", "src", "dst", "zz")
	d.Do("SMOVE", "src", "dst", "a")
	d.DoSorted("SMEMBERS", "dst")
	d.Do("SMOVE", "src", "src", "2")
	d.Do("SMOVE", "src", "src", "9")
	d.Do("SMOVE", "src", "new", "2")
	d.Do("EXISTS", "src")
	d.Do("SMEMBERS", "new")
	d.Do("SMOVE", "nokey", "new", "2")
	d.Do("SADD", "x", "7")
	d.Do("SADD", "y", "7")
	d.Do("SMOVE", "x", "y", "7")
	d.Do("EXISTS", "x")
	d.Do("SMEMBERS", "y")
	d.Do("SADD", "z", "q")
	d.Do("SMOVE", "z", "ni", "q")
	d.Do("SMEMBERS", "ni")
}

// members returns the strings of an array or set reply.
func members(v resp.Value) []string {
	out := make([]string, len(v.Elems))
	for i, e := range v.Elems {
		out[i] = e.Str
	}
	return out
}

func TestSetRandMember(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SRANDMEMBER", "nokey")
	d.Do("SRANDMEMBER", "nokey", "5")
	d.Do("SRANDMEMBER", "nokey", "-5")
	d.Do("SRANDMEMBER", "nokey", "0")
	d.Do("SADD", "i", "5", "1", "3", "2", "4")
	d.Do("SRANDMEMBER", "i", "0")
	d.Do("SRANDMEMBER", "i", "5")
	d.Do("SRANDMEMBER", "i", "100")
	d.Do("SADD", "mixed", "x", "1", "2")
	d.DoSorted("SRANDMEMBER", "mixed", "100")

	in := map[string]bool{"1": true, "2": true, "3": true, "4": true, "5": true}
	for _, n := range []int{1, 2, 3, 4} {
		_, o := d.DoShape("SRANDMEMBER", "i", strconv.Itoa(n))
		seen := map[string]bool{}
		for _, m := range members(o) {
			if !in[m] || seen[m] {
				t.Fatalf("SRANDMEMBER i %d: bad or repeated %q in %v", n, m, members(o))
			}
			seen[m] = true
		}
	}
	_, o := d.DoShape("SRANDMEMBER", "i", "-50")
	for _, m := range members(o) {
		if !in[m] {
			t.Fatalf("SRANDMEMBER -50 returned %q", m)
		}
	}
	_, one := d.DoShape("SRANDMEMBER", "i")
	if !in[one.Str] {
		t.Fatalf("SRANDMEMBER returned %q", one.Str)
	}

	args := []string{"SADD", "big"}
	for i := 0; i < 600; i++ {
		args = append(args, "e"+strconv.Itoa(i))
	}
	d.Do(args...)
	for _, n := range []int{2, 10, 100, 250, 599} {
		_, o := d.DoShape("SRANDMEMBER", "big", strconv.Itoa(n))
		seen := map[string]bool{}
		for _, m := range members(o) {
			if seen[m] || !strings.HasPrefix(m, "e") {
				t.Fatalf("SRANDMEMBER big %d: bad or repeated %q", n, m)
			}
			seen[m] = true
		}
	}
	_, o = d.DoShape("SRANDMEMBER", "big", "-3000")
	seen := map[string]int{}
	for _, m := range members(o) {
		seen[m]++
	}
	if len(seen) < 300 || len(seen) == 3000 {
		t.Fatalf("SRANDMEMBER big -3000: %d distinct members", len(seen))
	}
	d.DoSorted("SRANDMEMBER", "big", "600")
}

func TestSetPop(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SPOP", "nokey")
	d.Do("SPOP", "nokey", "3")
	d.Do("SADD", "one", "x")
	d.Do("SPOP", "one")
	d.Do("EXISTS", "one")
	// A count at least the size: the whole set, sorted if integers.
	d.Do("SADD", "i", "5", "1", "3")
	d.Do("EXPIRE", "i", "100")
	d.Do("SPOP", "i", "0")
	d.Do("SPOP", "i", "3")
	d.Do("EXISTS", "i")
	d.Do("SADD", "i", "5", "1", "3")
	d.Do("SPOP", "i", "100")
	d.Do("SADD", "h", "x", "3", "2", "1")
	d.Do("SREM", "h", "x")
	d.Do("SPOP", "h", "10")
	d.Do("SADD", "s", "a", "b", "c")
	d.DoSorted("SPOP", "s", "10")

	// A count smaller than the size, both strategies: distinct popped
	// members, removed, the rest kept.
	for _, tc := range []struct{ size, count int }{{30, 3}, {30, 26}, {30, 29}} {
		for _, prefix := range []string{"", "m"} { // intset and hashtable
			key := fmt.Sprintf("p%s%d_%d", prefix, tc.size, tc.count)
			args := []string{"SADD", key}
			for i := 0; i < tc.size; i++ {
				args = append(args, prefix+strconv.Itoa(i))
			}
			d.Do(args...)
			d.Do("EXPIRE", key, "100")
			r, o := d.DoShape("SPOP", key, strconv.Itoa(tc.count))
			if r.Kind != o.Kind {
				t.Fatalf("kinds differ")
			}
			popped := members(o)
			left := members(d.Ordo.Do("SMEMBERS", key))
			all := map[string]bool{}
			for _, m := range append(append([]string{}, popped...), left...) {
				if all[m] {
					t.Fatalf("SPOP %s: %q both popped and left, or popped twice", key, m)
				}
				all[m] = true
			}
			if len(popped) != tc.count || len(all) != tc.size {
				t.Fatalf("SPOP %s: popped %d, %d in all", key, len(popped), len(all))
			}
			d.Do("SCARD", key)
			d.Do("TTL", key)
		}
	}
	// When few members remain they move to a new set, an intset if they
	// are all integers: SMEMBERS is then sorted (as in Redis).
	args := []string{"SADD", "mv", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}
	for i := 20; i > 10; i-- {
		args = append(args, strconv.Itoa(i))
	}
	d.Do(args...)
	// Pop until only integers are left: remaining 2 of 22.
	sawIntset := false
	for attempt := 0; attempt < 300 && !sawIntset; attempt++ {
		d.Both("DEL", "mv2")
		d.Both(append([]string{"SADD", "mv2"}, args[2:]...)...)
		d.Ordo.Do("SPOP", "mv2", "20")
		left := members(d.Ordo.Do("SMEMBERS", "mv2"))
		if _, err1 := strconv.Atoi(left[0]); err1 == nil {
			if _, err2 := strconv.Atoi(left[1]); err2 == nil {
				a, b := left[0], left[1]
				ia, _ := strconv.Atoi(a)
				ib, _ := strconv.Atoi(b)
				if ia > ib {
					t.Fatalf("remaining integers %v not sorted (should be an intset)", left)
				}
				sawIntset = true
			}
		}
	}
	if !sawIntset {
		t.Fatal("in 300 tries, SPOP never left only integers")
	}
}

// TestSetPopPropagation: SPOP is logged as SREM of what it popped (or
// DEL when it took everything), so that replay is deterministic.
func TestSetPopPropagation(t *testing.T) {
	o := redistest.StartOrdo(t)
	var logged []string
	o.Engine.Lock()
	o.Engine.Propagate = func(db int, args [][]byte) {
		s := make([]string, len(args))
		for i, a := range args {
			s[i] = string(a)
		}
		logged = append(logged, strings.Join(s, " "))
	}
	o.Engine.Unlock()
	c := redistest.Dial(t, o.Addr)
	c.Do("SADD", "s", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10")
	one := c.Do("SPOP", "s").Str
	two := members(c.Do("SPOP", "s", "2"))
	rest := c.Do("SPOP", "s", "100")
	c.Do("SPOP", "s", "1")
	sort.Strings(two)
	o.Engine.Lock()
	defer o.Engine.Unlock()
	want := []string{"SADD s 1 2 3 4 5 6 7 8 9 10", "SREM s " + one}
	if len(logged) != 4 || logged[0] != want[0] || logged[1] != want[1] || logged[3] != "DEL s" {
		t.Fatalf("logged %q", logged)
	}
	got := strings.Fields(logged[2])[2:]
	sort.Strings(got)
	if got[0] != two[0] || got[1] != two[1] || len(got) != 2 {
		t.Fatalf("logged %q for SPOP s 2 -> %v", logged[2], two)
	}
	if len(rest.Elems) != 7 {
		t.Fatalf("SPOP s 100 returned %d", len(rest.Elems))
	}
}

func TestSetScan(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SSCAN", "nokey", "0")
	d.Do("SSCAN", "nokey", "x")
	d.Do("SSCAN", "nokey", "0", "COUNT", "0")
	d.Do("SADD", "i", "3", "1", "2", "10", "-5")
	d.Do("SSCAN", "i", "0")
	d.Do("SSCAN", "i", "99")
	d.Do("SSCAN", "i", "0", "MATCH", "1*")
	d.Do("SSCAN", "i", "0", "MATCH", "-*", "COUNT", "1")
	d.Do("SSCAN", "i", "0", "COUNT", "0")
	d.Do("SSCAN", "i", "0", "COUNT", "x")
	d.Do("SSCAN", "i", "0", "MATCH")
	d.Do("SSCAN", "i", "0", "TYPE", "set")
	d.Do("SSCAN", "i", "x")
	d.Do("SSCAN", "i", "-1")
	d.Do("SADD", "s", "a")
	d.Do("SSCAN", "s", "0", "COUNT", "100")

	args := []string{"SADD", "big"}
	for i := 0; i < 1000; i++ {
		args = append(args, "e"+strconv.Itoa(i))
	}
	d.Do(args...)
	got := map[string]bool{}
	cursor := "0"
	for i := 0; i < 10000; i++ {
		v := d.Ordo.Do("SSCAN", "big", cursor, "MATCH", "e9*", "COUNT", "30")
		for _, m := range members(v.Elems[1]) {
			got[m] = true
		}
		cursor = v.Elems[0].Str
		if cursor == "0" {
			break
		}
	}
	n := 0
	for i := 0; i < 1000; i++ {
		if m := "e" + strconv.Itoa(i); strings.HasPrefix(m, "e9") {
			n++
			if !got[m] {
				t.Fatalf("SSCAN missed %s", m)
			}
		}
	}
	if len(got) != n {
		t.Fatalf("SSCAN returned %d members, want %d", len(got), n)
	}
}

// TestSetScanGuarantee: members present for the whole scan are returned
// while others are added and removed (the table grows then shrinks).
func TestSetScanGuarantee(t *testing.T) {
	o := redistest.StartOrdo(t)
	c := redistest.Dial(t, o.Addr)
	for i := 0; i < 3000; i += 500 {
		args := []string{"SADD", "s"}
		for j := i; j < i+500; j++ {
			args = append(args, fmt.Sprintf("keep%d", j))
		}
		c.Do(args...)
	}
	seen := map[string]bool{}
	cursor, step := "0", 0
	for ; step < 100000; step++ {
		v := c.Do("SSCAN", "s", cursor)
		for _, m := range members(v.Elems[1]) {
			seen[m] = true
		}
		cursor = v.Elems[0].Str
		if cursor == "0" {
			break
		}
		switch {
		case step < 40:
			args := []string{"SADD", "s"}
			for j := 0; j < 400; j++ {
				args = append(args, fmt.Sprintf("tmp%d_%d", step, j))
			}
			c.Do(args...)
		case step < 80:
			args := []string{"SREM", "s"}
			for j := 0; j < 400; j++ {
				args = append(args, fmt.Sprintf("tmp%d_%d", step-40, j))
			}
			c.Do(args...)
		}
	}
	for i := 0; i < 3000; i++ {
		if !seen[fmt.Sprintf("keep%d", i)] {
			t.Fatalf("SSCAN never returned keep%d (after %d calls)", i, step)
		}
	}
}

func TestSetWatchAndTTL(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SADD", "s", "a", "b")
	d.Do("EXPIRE", "s", "100")
	d.Do("WATCH", "s")
	d.Both("SADD", "s", "a") // no change: WATCH still holds
	d.Do("MULTI")
	d.Do("SCARD", "s")
	d.Do("EXEC")
	d.Do("WATCH", "s")
	d.Both("SREM", "s", "a")
	d.Do("MULTI")
	d.Do("SCARD", "s")
	d.Do("EXEC")
	d.Do("WATCH", "s")
	d.Both("SMOVE", "s", "t", "b")
	d.Do("MULTI")
	d.Do("SCARD", "s")
	d.Do("EXEC")
	d.Do("EXISTS", "s")
	d.Do("TTL", "t")
	d.Do("SADD", "u", "1", "2")
	d.Do("EXPIRE", "u", "100")
	d.Do("SADD", "u", "x")
	d.Do("SREM", "u", "1")
	d.Do("TTL", "u")
}

// TestSetRandomOps runs random writes on a few sets mixing integers and
// strings and compares every reply; SMEMBERS is compared in order while
// Redis keeps the set as an intset.
func TestSetRandomOps(t *testing.T) {
	d := redistest.NewDiff(t)
	rng := rand.New(rand.NewPCG(3, 4))
	keys := []string{"s0", "s1", "s2"}
	member := func() string {
		if rng.IntN(25) == 0 {
			return "x" + strconv.Itoa(rng.IntN(5))
		}
		return strconv.Itoa(rng.IntN(60) - 20)
	}
	for i := 0; i < 3000; i++ {
		k, k2 := keys[rng.IntN(len(keys))], keys[rng.IntN(len(keys))]
		switch rng.IntN(7) {
		case 0, 1:
			d.Do("SADD", k, member(), member(), member())
		case 2:
			d.Do("SREM", k, member(), member())
		case 3:
			d.Do("SMOVE", k, k2, member())
		case 4:
			d.Do("SMISMEMBER", k, member(), member())
		case 5:
			d.Do("SINTERCARD", "2", k, k2)
		case 6:
			d.DoSorted("SUNION", k, k2)
		}
		if i%50 == 0 {
			if d.Redis.Do("OBJECT", "ENCODING", k).Str == "intset" {
				d.Do("SMEMBERS", k)
			} else {
				d.DoSorted("SMEMBERS", k)
			}
			d.Do("SCARD", k)
			d.Do("OBJECT", "ENCODING", k)
			d.DoSorted("SDIFF", k, k2)
		}
	}
}

// TestSetAsZsetInput: sorted-set algebra takes plain sets as inputs
// (score 1), through Set's EachMember/Has.
func TestSetAsZsetInput(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SADD", "i", "3", "1", "2")
	d.Do("SADD", "h", "x", "2", "y")
	d.Do("ZADD", "z", "5", "x", "7", "2")
	d.Do("ZUNION", "3", "i", "h", "z", "WITHSCORES")
	d.Do("ZINTER", "2", "h", "z", "WITHSCORES")
	d.Do("ZDIFF", "2", "i", "z", "WITHSCORES")
	d.Do("ZUNIONSTORE", "dst", "2", "i", "h", "WEIGHTS", "2", "3")
	d.Do("ZRANGE", "dst", "0", "-1", "WITHSCORES")
	d.Do("ZINTERCARD", "2", "i", "h")
}
