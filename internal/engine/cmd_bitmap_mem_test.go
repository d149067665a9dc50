package engine

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ordo-db/ordo/internal/resp"
)

// TestBitmapMemoryAccounting checks that the database's running memory
// total follows the bit and HyperLogLog commands: after random SETBIT,
// BITFIELD, BITOP, PFADD, PFMERGE, PFCOUNT and PFDEBUG writes (growing,
// unsharing, promoting and replacing strings) it equals the sum of
// the keys' sizes measured afresh, and deleting everything returns it to
// where it started.
func TestBitmapMemoryAccounting(t *testing.T) {
	e := New(nil)
	defer e.Close()
	cl := e.NewClient("embedded")
	w := &resp.Writer{Proto: 2}
	do := func(args ...string) {
		b := make([][]byte, len(args))
		for i, a := range args {
			b[i] = []byte(a)
		}
		w.Reset()
		e.Lock()
		e.Call(cl, b, w)
		e.Unlock()
	}
	db := e.dbs[0]
	recount := func() int64 {
		var n int64
		db.keys.Each(func(k string, v Value) bool {
			n += keyMemoryUsage(k, v)
			return true
		})
		return n
	}
	start := db.used
	rng := rand.New(rand.NewPCG(1, 2))
	keys := []string{"a", "b", "c"}
	for i := 0; i < 2000; i++ {
		k := keys[rng.IntN(3)]
		off := strconv.Itoa(rng.IntN(1 << uint(rng.IntN(17))))
		h := []string{"h1", "h2"}[rng.IntN(2)]
		switch rng.IntN(9) {
		case 0:
			do("SETBIT", k, off, strconv.Itoa(rng.IntN(2)))
		case 1:
			do("BITFIELD", k, "OVERFLOW", "FAIL", "INCRBY", "u8", off, strconv.Itoa(rng.IntN(300)))
		case 2:
			do("BITOP", []string{"AND", "OR", "XOR"}[rng.IntN(3)], k, keys[rng.IntN(3)], keys[rng.IntN(3)])
		case 3:
			do("SET", k, strconv.Itoa(rng.IntN(100)))
		case 4:
			if rng.IntN(10) == 0 {
				do("DEL", k, h)
			}
		case 5:
			args := []string{"PFADD", h}
			for n := rng.IntN(1 << uint(rng.IntN(8))); n > 0; n-- {
				args = append(args, strconv.Itoa(rng.IntN(100000)))
			}
			do(args...)
		case 6:
			do("PFCOUNT", h)
		case 7:
			do("PFMERGE", h, "h1", "h2")
		case 8:
			do("PFDEBUG", "TODENSE", h)
		}
		if got, want := db.used, recount(); got != want {
			t.Fatalf("step %d: running total %d, recounted %d", i, got, want)
		}
	}
	do("SETBIT", "a", "8000000", "1")
	if db.used-start < 1_000_000 {
		t.Errorf("a 1 MB bitmap counts %d bytes", db.used-start)
	}
	do("DEL", "a", "b", "c", "h1", "h2")
	if db.used != start {
		t.Errorf("after DEL: %d, want %d", db.used, start)
	}
}
