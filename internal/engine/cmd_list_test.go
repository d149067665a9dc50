package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo"
	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

func TestListPushPop(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("LPUSH", "l", "a", "b", "c")
	d.Do("RPUSH", "l", "d", "e")
	d.Do("LRANGE", "l", "0", "-1")
	d.Do("LPUSHX", "l", "x", "y")
	d.Do("RPUSHX", "l", "z")
	d.Do("LPUSHX", "nokey", "x")
	d.Do("RPUSHX", "nokey", "x")
	d.Do("EXISTS", "nokey")
	d.Do("LRANGE", "l", "0", "-1")
	d.Do("LPOP", "l")
	d.Do("RPOP", "l")
	d.Do("LPOP", "l", "2")
	d.Do("RPOP", "l", "2")
	d.Do("LPOP", "l", "0")
	d.Do("RPOP", "l", "0")
	d.Do("LPOP", "l", "-1")
	d.Do("RPOP", "l", "x")
	d.Do("LPOP", "l", "1", "2")
	d.Do("RPOP", "l", "1", "2")
	d.Do("LPOP", "nokey")
	d.Do("RPOP", "nokey")
	d.Do("LPOP", "nokey", "0")
	d.Do("LPOP", "nokey", "3")
	d.Do("RPOP", "nokey", "3")
	d.Do("LPOP", "nokey", "-3")
	d.Do("RPOP", "l", "100")
	d.Do("EXISTS", "l")
	d.Do("RPUSH", "l", "only")
	d.Do("LPOP", "l")
	d.Do("EXISTS", "l")
	// arity and types
	d.Do("LPUSH", "l")
	d.Do("RPUSH")
	d.Do("LPUSHX", "l")
	d.Do("LPOP")
	d.Do("SET", "s", "v")
	d.Do("LPUSH", "s", "a")
	d.Do("RPUSH", "s", "a")
	d.Do("LPUSHX", "s", "a")
	d.Do("RPUSHX", "s", "a")
	d.Do("LPOP", "s")
	d.Do("RPOP", "s", "2")
	d.Do("LPOP", "s", "-2")
	d.Do("LLEN", "s")
	d.Do("RPUSH", "bin", "a\x00b", "", "\r\n")
	d.Do("LRANGE", "bin", "0", "-1")
	d.Do("TYPE", "bin")
	d.Do("OBJECT", "ENCODING", "bin")
	// RESP3
	d.Both("HELLO", "3")
	d.Do("LPOP", "nokey")
	d.Do("LPOP", "nokey", "2")
	d.Do("RPOP", "bin", "2")
	d.Do("LPOP", "bin", "0")
	d.Do("LRANGE", "bin", "0", "-1")
}

func TestListRangeIndexSet(t *testing.T) {
	d := redistest.NewDiff(t)
	for i := 0; i < 10; i++ {
		d.Do("RPUSH", "l", strconv.Itoa(i))
	}
	for _, r := range [][2]string{{"0", "-1"}, {"0", "0"}, {"-1", "-1"}, {"-100", "100"}, {"5", "2"},
		{"3", "7"}, {"-3", "-1"}, {"10", "20"}, {"-20", "-11"}, {"-20", "-10"}, {"9", "9"},
		{"-9223372036854775808", "9223372036854775807"}} {
		d.Do("LRANGE", "l", r[0], r[1])
	}
	d.Do("LRANGE", "l", "a", "1")
	d.Do("LRANGE", "l", "1", "1.5")
	d.Do("LRANGE", "nokey", "0", "-1")
	d.Do("LRANGE", "nokey", "x", "-1")
	d.Do("LRANGE", "l", "0")
	d.Do("LLEN", "l")
	d.Do("LLEN", "nokey")
	d.Do("LLEN")
	for _, i := range []string{"0", "9", "10", "-1", "-10", "-11", "x", "01", "9223372036854775808"} {
		d.Do("LINDEX", "l", i)
	}
	d.Do("LINDEX", "nokey", "0")
	d.Do("LINDEX", "nokey", "x")
	d.Do("LSET", "l", "0", "zero")
	d.Do("LSET", "l", "-1", "last")
	d.Do("LSET", "l", "10", "x")
	d.Do("LSET", "l", "-11", "x")
	d.Do("LSET", "l", "x", "x")
	d.Do("LSET", "nokey", "0", "x")
	d.Do("LSET", "nokey", "x", "x")
	d.Do("LRANGE", "l", "0", "-1")
	d.Do("SET", "s", "v")
	d.Do("LRANGE", "s", "0", "-1")
	d.Do("LRANGE", "s", "x", "-1")
	d.Do("LINDEX", "s", "0")
	d.Do("LINDEX", "s", "x")
	d.Do("LSET", "s", "0", "x")
	d.Do("LSET", "l", "0")
	d.Do("LINDEX", "l")
}

func TestListInsertRemTrim(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("RPUSH", "l", "a", "b", "c", "b", "a")
	d.Do("LINSERT", "l", "BEFORE", "b", "x")
	d.Do("LINSERT", "l", "after", "b", "y")
	d.Do("LINSERT", "l", "AFTER", "a", "z")
	d.Do("LINSERT", "l", "before", "nope", "z")
	d.Do("LINSERT", "l", "middle", "a", "z")
	d.Do("LINSERT", "nokey", "before", "a", "z")
	d.Do("LINSERT", "nokey", "middle", "a", "z")
	d.Do("LRANGE", "l", "0", "-1")
	d.Do("LINSERT", "l", "before", "a")
	d.Do("SET", "s", "v")
	d.Do("LINSERT", "s", "before", "a", "b")
	d.Do("LINSERT", "s", "sideways", "a", "b")

	d.Do("DEL", "l")
	d.Do("RPUSH", "l", "a", "b", "a", "c", "a", "b", "a")
	d.Do("LREM", "l", "1", "a")
	d.Do("LRANGE", "l", "0", "-1")
	d.Do("LREM", "l", "-1", "a")
	d.Do("LRANGE", "l", "0", "-1")
	d.Do("LREM", "l", "0", "b")
	d.Do("LRANGE", "l", "0", "-1")
	d.Do("LREM", "l", "5", "nothing")
	d.Do("LREM", "l", "-9223372036854775808", "a")
	d.Do("LRANGE", "l", "0", "-1")
	d.Do("LREM", "l", "0", "c")
	d.Do("EXISTS", "l")
	d.Do("LREM", "nokey", "0", "a")
	d.Do("LREM", "nokey", "x", "a")
	d.Do("LREM", "s", "0", "a")
	d.Do("LREM", "s", "x", "a")
	d.Do("LREM", "l", "0")

	d.Do("RPUSH", "t", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9")
	d.Do("LTRIM", "t", "1", "-2")
	d.Do("LRANGE", "t", "0", "-1")
	d.Do("LTRIM", "t", "-3", "100")
	d.Do("LRANGE", "t", "0", "-1")
	d.Do("LTRIM", "t", "0", "0")
	d.Do("LRANGE", "t", "0", "-1")
	d.Do("LTRIM", "t", "5", "1")
	d.Do("EXISTS", "t")
	d.Do("RPUSH", "t", "a", "b")
	d.Do("LTRIM", "t", "-100", "-3")
	d.Do("EXISTS", "t")
	d.Do("LTRIM", "nokey", "0", "1")
	d.Do("LTRIM", "nokey", "x", "1")
	d.Do("LTRIM", "s", "0", "1")
	d.Do("LTRIM", "s", "0", "x")
	d.Do("LTRIM", "t", "0")
}

func TestListLpos(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("RPUSH", "l", "a", "b", "c", "1", "2", "3", "c", "c")
	for _, args := range [][]string{
		{"c"}, {"x"}, {"c", "RANK", "1"}, {"c", "RANK", "2"}, {"c", "RANK", "-1"}, {"c", "RANK", "-3"},
		{"c", "RANK", "4"}, {"c", "RANK", "-4"}, {"c", "COUNT", "0"}, {"c", "COUNT", "2"},
		{"c", "COUNT", "0", "RANK", "-1"}, {"c", "COUNT", "2", "RANK", "2"}, {"c", "COUNT", "1", "MAXLEN", "3"},
		{"c", "MAXLEN", "2"}, {"c", "MAXLEN", "3"}, {"c", "RANK", "-1", "MAXLEN", "1"},
		{"c", "RANK", "-1", "MAXLEN", "3", "COUNT", "0"}, {"x", "COUNT", "5"},
		{"c", "RANK", "0"}, {"c", "RANK", "x"}, {"c", "COUNT", "-1"}, {"c", "COUNT", "x"},
		{"c", "MAXLEN", "-1"}, {"c", "MAXLEN", "x"}, {"c", "RANK"}, {"c", "COUNT"}, {"c", "FOO", "1"},
		{"c", "rank", "1", "count", "2", "maxlen", "0"}, {"c", "RANK", "-9223372036854775808"},
		{"c", "RANK", "-9223372036854775808", "COUNT", "2"}, {"c", "RANK", "9223372036854775807"},
		{"c", "RANK", "0", "COUNT", "-1"}, {"c", "COUNT", "-1", "RANK", "0"},
	} {
		d.Do(append([]string{"LPOS", "l"}, args...)...)
	}
	d.Do("LPOS", "nokey", "a")
	d.Do("LPOS", "nokey", "a", "COUNT", "3")
	d.Do("LPOS", "nokey", "a", "RANK", "0")
	d.Do("SET", "s", "v")
	d.Do("LPOS", "s", "a")
	d.Do("LPOS", "s", "a", "RANK", "0")
	d.Do("LPOS", "l")
	d.Both("HELLO", "3")
	d.Do("LPOS", "l", "x")
	d.Do("LPOS", "l", "c", "COUNT", "0")
}

func TestListMoveAndMpop(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("RPUSH", "src", "a", "b", "c")
	d.Do("RPOPLPUSH", "src", "dst")
	d.Do("LMOVE", "src", "dst", "LEFT", "RIGHT")
	d.Do("LMOVE", "src", "dst", "right", "left")
	d.Do("LMOVE", "src", "dst", "left", "left")
	d.Do("EXISTS", "src")
	d.Do("LRANGE", "dst", "0", "-1")
	d.Do("RPOPLPUSH", "nokey", "dst")
	d.Do("LMOVE", "nokey", "dst", "left", "left")
	d.Do("LMOVE", "dst", "dst", "up", "left")
	d.Do("LMOVE", "dst", "dst", "left", "down")
	d.Do("LMOVE", "nokey", "dst", "up", "left")
	// rotation: source = destination
	d.Do("RPOPLPUSH", "dst", "dst")
	d.Do("LRANGE", "dst", "0", "-1")
	d.Do("LMOVE", "dst", "dst", "LEFT", "RIGHT")
	d.Do("LRANGE", "dst", "0", "-1")
	d.Do("LMOVE", "dst", "dst", "LEFT", "LEFT")
	d.Do("LMOVE", "dst", "dst", "RIGHT", "RIGHT")
	d.Do("LRANGE", "dst", "0", "-1")
	d.Do("RPUSH", "one", "x")
	d.Do("RPOPLPUSH", "one", "one")
	d.Do("LRANGE", "one", "0", "-1")
	d.Do("SET", "s", "v")
	d.Do("RPOPLPUSH", "s", "dst")
	d.Do("RPOPLPUSH", "dst", "s")
	d.Do("LMOVE", "dst", "s", "left", "left")
	d.Do("LMOVE", "nokey", "s", "left", "left")
	d.Do("LRANGE", "dst", "0", "-1")
	d.Do("RPOPLPUSH", "dst")
	d.Do("LMOVE", "dst", "dst", "left")

	d.Do("DEL", "dst", "one")
	d.Do("RPUSH", "k2", "1", "2", "3", "4", "5")
	d.Do("LMPOP", "2", "k1", "k2", "LEFT")
	d.Do("LMPOP", "2", "k1", "k2", "RIGHT", "COUNT", "2")
	d.Do("LMPOP", "2", "k1", "k2", "left", "count", "10")
	d.Do("EXISTS", "k2")
	d.Do("LMPOP", "2", "k1", "k2", "LEFT")
	for _, args := range [][]string{
		{"0", "k", "LEFT"}, {"-1", "k", "LEFT"}, {"x", "k", "LEFT"}, {"3", "k", "LEFT"}, {"1", "k", "UP"},
		{"1", "k", "LEFT", "COUNT"}, {"1", "k", "LEFT", "COUNT", "0"}, {"1", "k", "LEFT", "COUNT", "-1"},
		{"1", "k", "LEFT", "COUNT", "x"}, {"1", "k", "LEFT", "COUNT", "1", "COUNT", "1"},
		{"1", "k", "LEFT", "FOO"}, {"2", "k"}, {"1", "k"}, {"9223372036854775807", "k", "LEFT"},
	} {
		d.Do(append([]string{"LMPOP"}, args...)...)
	}
	d.Do("RPUSH", "k2", "x")
	d.Do("LMPOP", "3", "k1", "s", "k2", "LEFT")
	d.Do("LMPOP", "2", "k2", "s", "LEFT")
	d.Both("HELLO", "3")
	d.Do("LMPOP", "1", "k1", "LEFT")
	d.Do("RPUSH", "k1", "a", "b")
	d.Do("LMPOP", "1", "k1", "RIGHT", "COUNT", "5")
	d.Do("RPOPLPUSH", "nokey", "x")
}

// TestListBig drives long lists (chunked representation, growth and
// shrinking at both ends, middle inserts and removals) with random
// commands, comparing every reply with Redis.
func TestListBig(t *testing.T) {
	d := redistest.NewDiff(t)
	rng := rand.New(rand.NewPCG(1, 2))
	val := func() string {
		switch rng.IntN(20) {
		case 0:
			return ""
		case 1:
			return strings.Repeat("long", 1+rng.IntN(30))
		}
		return strconv.Itoa(rng.IntN(40))
	}
	var maxLen int64
	bigTrims := 0
	for i := 0; i < 3000; i++ {
		n := 1 + rng.IntN(20)
		if i%500 < 250 {
			n += 60 // mostly growing, then mostly shrinking
		}
		args := []string{"k"}
		for j := 0; j < n; j++ {
			args = append(args, val())
		}
		idx := strconv.Itoa(rng.IntN(600) - 300)
		switch rng.IntN(16) {
		case 0, 1:
			maxLen = max(maxLen, d.Do(append([]string{"LPUSH"}, args...)...).Int)
		case 2, 3:
			maxLen = max(maxLen, d.Do(append([]string{"RPUSH"}, args...)...).Int)
		case 4, 5:
			d.Do("LPOP", "k", strconv.Itoa(rng.IntN(50)))
		case 6, 7:
			d.Do("RPOP", "k", strconv.Itoa(rng.IntN(50)))
		case 8:
			d.Do("LINDEX", "k", idx)
		case 9:
			d.Do("LSET", "k", idx, val())
		case 10:
			d.Do("LINSERT", "k", []string{"BEFORE", "AFTER"}[rng.IntN(2)], val(), val())
		case 11:
			if rng.IntN(4) == 0 {
				d.Do("LREM", "k", strconv.Itoa(rng.IntN(7)-3), val())
			} else {
				d.Do("LRANGE", "k", idx, strconv.Itoa(rng.IntN(600)-300))
			}
		case 12:
			d.Do("LPOS", "k", val(), "RANK", strconv.Itoa(rng.IntN(7)-3+boolInt(rng.IntN(2) == 0)), "COUNT", strconv.Itoa(rng.IntN(4)))
		case 13:
			d.Do("LMOVE", "k", "k", []string{"LEFT", "RIGHT"}[rng.IntN(2)], []string{"LEFT", "RIGHT"}[rng.IntN(2)])
		case 14:
			if rng.IntN(8) == 0 {
				d.Do("LTRIM", "k", strconv.Itoa(rng.IntN(20)), strconv.Itoa(-1-rng.IntN(20)))
			} else {
				d.Do("LLEN", "k")
			}
		case 15:
			d.Do("RPOPLPUSH", "k", "k2")
			d.Do("LMOVE", "k2", "k", "RIGHT", "LEFT")
		}
		if i%100 == 0 {
			d.Do("LRANGE", "k", "0", "-1")
		}
		if i%700 == 699 {
			if d.Do("LLEN", "k").Int > 700 {
				bigTrims++
			}
			d.Do("LTRIM", "k", "150", "-200") // drops whole chunks at both ends
			d.Do("LRANGE", "k", "0", "-1")
		}
	}
	d.Do("LRANGE", "k", "0", "-1")
	d.Do("LRANGE", "k2", "0", "-1")
	if maxLen < 1000 || bigTrims == 0 {
		t.Fatalf("the list reached only %d elements (%d trims of a long list)", maxLen, bigTrims)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestListDequeModel checks the List type alone against a slice.
func TestListDequeModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	l := engine.NewList()
	var model []string
	for i := 0; i < 100000; i++ {
		s := strconv.Itoa(i)
		// phases of growth and shrinking keep the list between empty and
		// a few thousand elements, crossing the small/chunked threshold
		push := 7
		if (i/3000)%2 == 1 {
			push = 3
		}
		op := rng.IntN(10)
		switch {
		case op < push && op%2 == 0:
			l.PushFront(s)
			model = append([]string{s}, model...)
		case op < push:
			l.PushBack(s)
			model = append(model, s)
		case op%2 == 0 && len(model) > 0:
			if got := l.PopFront(); got != model[0] {
				t.Fatalf("op %d: PopFront %q, want %q", i, got, model[0])
			}
			model = model[1:]
		case len(model) > 0:
			if got := l.PopBack(); got != model[len(model)-1] {
				t.Fatalf("op %d: PopBack %q, want %q", i, got, model[len(model)-1])
			}
			model = model[:len(model)-1]
		}
		if i%7 == 0 && len(model) > 0 {
			at := rng.IntN(len(model))
			v := strings.Repeat("v", rng.IntN(40))
			switch rng.IntN(20) {
			case 0:
				v = strings.Repeat("w", 128+rng.IntN(300)) // 2-byte lengths
			case 1:
				v = strings.Repeat("z", 16384+rng.IntN(100)) // 3-byte lengths
			}
			l.SetAt(at, v)
			model[at] = v
		}
		if i%97 == 0 {
			at := rng.IntN(len(model) + 1)
			l.Insert(at, "ins"+s)
			model = append(model[:at], append([]string{"ins" + s}, model[at:]...)...)
		}
		if l.Len() != len(model) {
			t.Fatalf("op %d: Len %d, want %d", i, l.Len(), len(model))
		}
		if i%1013 == 0 {
			for j := range model {
				if l.At(j) != model[j] {
					t.Fatalf("op %d: At(%d) = %q, want %q", i, j, l.At(j), model[j])
				}
			}
			for j := len(model) - 1; j >= 0; j-- {
				if l.At(j) != model[j] {
					t.Fatalf("op %d: backwards At(%d) = %q, want %q", i, j, l.At(j), model[j])
				}
			}
			for k := 0; k < 100 && len(model) > 0; k++ {
				j := rng.IntN(len(model))
				if l.At(j) != model[j] {
					t.Fatalf("op %d: random At(%d) = %q, want %q", i, j, l.At(j), model[j])
				}
			}
			cp := l.Copy().(*engine.List)
			if cp.Len() != l.Len() {
				t.Fatalf("copy has %d elements, want %d", cp.Len(), l.Len())
			}
			for j := range model {
				if cp.At(j) != model[j] {
					t.Fatalf("op %d: copy At(%d) = %q, want %q", i, j, cp.At(j), model[j])
				}
			}
		}
	}
	// garbage from overwrites and pops is reclaimed
	payload := 0
	for _, m := range model {
		payload += len(m) + 8
	}
	if mu := l.MemoryUsage(); mu > int64(2*payload+64*1024) {
		t.Fatalf("MemoryUsage %d for %d elements of %d bytes with overhead", mu, len(model), payload)
	}
	var got []string
	l.Rewrite("k", func(args [][]byte) {
		if string(args[0]) != "RPUSH" || string(args[1]) != "k" || len(args) > 66 {
			t.Fatalf("bad rewrite command %q", args[:2])
		}
		for _, a := range args[2:] {
			got = append(got, string(a))
		}
	})
	if strings.Join(got, ",") != strings.Join(model, ",") {
		t.Fatal("Rewrite does not recreate the list")
	}
}

// ---- blocking ----

// scen runs one blocking scenario against one server and records every
// reply, so that Redis's and Ordo's transcripts can be compared.
type scen struct {
	t     *testing.T
	addr  string
	conns map[string]*redistest.Conn
	out   []string
}

func (s *scen) conn(name string) *redistest.Conn {
	c, ok := s.conns[name]
	if !ok {
		c = redistest.Dial(s.t, s.addr)
		s.conns[name] = c
	}
	return c
}

// do sends a command on the named connection and records the reply.
func (s *scen) do(name string, args ...string) {
	s.t.Helper()
	s.out = append(s.out, fmt.Sprintf("%s %q -> %q", name, args, s.conn(name).DoRaw(args...)))
}

// block sends a blocking command and waits until the server counts n
// blocked clients.
func (s *scen) block(name string, n int, args ...string) {
	s.t.Helper()
	s.conn(name).Send(args...)
	s.waitBlocked(n)
}

// read records the pending reply of the named connection.
func (s *scen) read(name string) {
	s.t.Helper()
	s.out = append(s.out, fmt.Sprintf("%s <- %q", name, s.conn(name).ReadRaw()))
}

// noReply checks that the named connection has no reply pending.
func (s *scen) noReply(name string) {
	s.t.Helper()
	nc := s.conn(name).NetConn()
	nc.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
	var b [1]byte
	if n, _ := nc.Read(b[:]); n > 0 {
		s.t.Fatalf("%s: %s got an unexpected reply", s.addr, name)
	}
	nc.SetReadDeadline(time.Time{})
}

func (s *scen) waitBlocked(n int) {
	s.t.Helper()
	want := fmt.Sprintf("blocked_clients:%d\r\n", n)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if bytes.Contains(s.conn("_ctl").DoRaw("INFO", "clients"), []byte(want)) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	s.t.Fatalf("%s: never reached %d blocked clients", s.addr, n)
}

// diffBlocking runs fn against the shared Redis and Ordo and compares
// the transcripts.
func diffBlocking(t *testing.T, fn func(s *scen)) {
	t.Helper()
	r, o := redistest.Shared(t)
	var outs [2][]string
	for i, addr := range []string{r.Addr, o.Addr} {
		s := &scen{t: t, addr: addr, conns: map[string]*redistest.Conn{}}
		s.conn("_ctl").DoRaw("FLUSHALL")
		fn(s)
		for _, c := range s.conns {
			c.Close()
		}
		outs[i] = s.out
	}
	if strings.Join(outs[0], "\n") != strings.Join(outs[1], "\n") {
		t.Errorf("transcripts differ:\n--- redis\n%s\n--- ordo\n%s", strings.Join(outs[0], "\n"), strings.Join(outs[1], "\n"))
	}
}

func TestListBlockingFIFO(t *testing.T) {
	diffBlocking(t, func(s *scen) {
		s.block("a", 1, "BLPOP", "k", "0")
		s.block("b", 2, "BLPOP", "k", "0")
		s.block("c", 3, "BRPOP", "k", "0")
		s.do("p", "RPUSH", "k", "1") // serves only a
		s.read("a")
		s.noReply("b")
		s.do("p", "RPUSH", "k", "2", "3", "4") // serves b (head) and c (tail)
		s.read("b")
		s.read("c")
		s.do("p", "LRANGE", "k", "0", "-1")
		s.waitBlocked(0)
		// a push of several elements served entirely leaves no key
		s.block("a", 1, "BLPOP", "e", "0")
		s.block("b", 2, "BLPOP", "e", "0")
		s.do("p", "LPUSH", "e", "x", "y")
		s.read("a")
		s.read("b")
		s.do("p", "EXISTS", "e")
	})
}

func TestListBlockingTimeouts(t *testing.T) {
	diffBlocking(t, func(s *scen) {
		for _, args := range [][]string{
			{"BLPOP", "k", "0.1"}, {"BRPOP", "k", "k2", "0.05"}, {"BLMOVE", "k", "d", "LEFT", "RIGHT", "0.05"},
			{"BRPOPLPUSH", "k", "d", "0.05"}, {"BLMPOP", "0.05", "2", "k", "k2", "LEFT", "COUNT", "2"},
			{"BLPOP", "k", "0.0001"},
		} {
			start := time.Now()
			s.do("a", args...)
			if el := time.Since(start); el > 3*time.Second {
				s.t.Errorf("%s: %q took %v", s.addr, args, el)
			}
		}
		start := time.Now()
		s.do("a", "BLPOP", "k", "0.2")
		if el := time.Since(start); el < 150*time.Millisecond {
			s.t.Errorf("%s: BLPOP 0.2 returned after %v", s.addr, el)
		}
		s.conn("a").DoRaw("HELLO", "3")
		s.do("a", "BLPOP", "k", "0.01")
		s.do("a", "BLMOVE", "k", "d", "LEFT", "RIGHT", "0.01")
		s.do("a", "EXISTS", "k", "k2", "d")
	})
}

func TestListBlockingArgs(t *testing.T) {
	d := redistest.NewDiff(t)
	for _, to := range []string{"-1", "x", "1e100", "inf", "-inf", "nan", " 1", "1 ", "", "1e5000",
		"9.3e15", "0x", "--1", "+-1", "1_0", "0b1", "1e400"} {
		d.Do("BLPOP", "k", to)
		d.Do("BRPOP", "k", "k2", to)
		d.Do("BLMOVE", "k", "d", "LEFT", "LEFT", to)
		d.Do("BRPOPLPUSH", "k", "d", to)
		d.Do("BLMPOP", to, "1", "k", "LEFT")
	}
	d.Do("BLPOP", "k")
	d.Do("BLMOVE", "k", "d", "UP", "LEFT", "x")
	d.Do("BLMOVE", "k", "d", "LEFT", "UP", "x")
	d.Do("BLMPOP", "0", "0", "k", "LEFT")
	d.Do("BLMPOP", "x", "0", "k", "LEFT")
	d.Do("BLMPOP", "0", "1", "k", "UP")
	d.Do("BLMPOP", "0", "1", "k", "LEFT", "COUNT", "0")
	d.Do("BLMPOP", "0", "5", "k", "LEFT")
	d.Do("SET", "s", "v")
	d.Do("BLPOP", "s", "0")
	d.Do("BLPOP", "k", "s", "0")
	d.Do("BLMOVE", "s", "d", "LEFT", "LEFT", "0")
	d.Do("BRPOPLPUSH", "s", "d", "0")
	d.Do("BLMPOP", "0", "2", "k", "s", "LEFT")
	// immediate service (the list has data)
	d.Do("RPUSH", "k", "a", "b", "c", "d", "e")
	d.Do("BLPOP", "s0", "k", "s", "0")
	d.Do("BRPOP", "k", "0")
	d.Do("BLMOVE", "k", "d", "LEFT", "RIGHT", "0")
	d.Do("BRPOPLPUSH", "k", "d", "0")
	d.Do("BLMOVE", "k", "s", "LEFT", "RIGHT", "0")
	d.Do("BLMPOP", "0", "2", "k0", "k", "RIGHT", "COUNT", "5")
	d.Do("LRANGE", "d", "0", "-1")
	d.Do("EXISTS", "k")
}

func TestListBlockingKeys(t *testing.T) {
	diffBlocking(t, func(s *scen) {
		// several keys: served from the one that gets data
		s.block("a", 1, "BLPOP", "k1", "k2", "k3", "0")
		s.do("p", "RPUSH", "k3", "v3")
		s.read("a")
		// served from the key made ready first, not the first key listed
		s.block("a", 1, "BLPOP", "k1", "k2", "0")
		s.do("p", "MULTI")
		s.do("p", "RPUSH", "k2", "x")
		s.do("p", "RPUSH", "k1", "y")
		s.do("p", "EXEC")
		s.read("a")
		s.do("p", "LRANGE", "k1", "0", "-1")
		s.do("p", "LRANGE", "k2", "0", "-1")
		// a push inside MULTI serves after EXEC, seeing the final list
		s.block("a", 1, "BLPOP", "m", "0")
		s.do("p", "MULTI")
		s.do("p", "RPUSH", "m", "first")
		s.do("p", "LPOP", "m")
		s.do("p", "RPUSH", "m", "second", "third")
		s.do("p", "EXEC")
		s.read("a")
		s.do("p", "LRANGE", "m", "0", "-1")
		// pushed then emptied inside MULTI: nobody served
		s.block("a", 1, "BRPOP", "n", "0")
		s.do("p", "MULTI")
		s.do("p", "RPUSH", "n", "x")
		s.do("p", "DEL", "n")
		s.do("p", "EXEC")
		s.noReply("a")
		s.do("p", "RPUSH", "n", "y")
		s.read("a")
		// another database
		s.do("a", "SELECT", "1")
		s.block("a", 1, "BLMPOP", "0", "2", "x", "y", "RIGHT", "COUNT", "2")
		s.do("p", "RPUSH", "y", "db0")
		s.noReply("a")
		s.do("p", "SELECT", "1")
		s.do("p", "RPUSH", "y", "1", "2", "3")
		s.read("a")
		s.do("p", "LRANGE", "y", "0", "-1")
		s.do("a", "SELECT", "0")
		s.do("p", "SELECT", "0")
		// a key that becomes another type does not serve
		s.block("a", 1, "BLPOP", "h", "0")
		s.do("p", "HSET", "h", "f", "v")
		s.noReply("a")
		s.do("p", "DEL", "h")
		s.do("p", "LPUSH", "h", "v")
		s.read("a")
		// a push inside a script serves after the script, seeing its end state
		s.block("a", 1, "BLPOP", "sc", "0")
		s.do("p", "EVAL", "redis.call('rpush', KEYS[1], 'a', 'b'); redis.call('lpop', KEYS[1]); return redis.call('lpop', KEYS[1])", "1", "sc")
		s.do("p", "EVAL", "return redis.call('blpop', KEYS[1], 0)", "1", "sc")
		s.noReply("a")
		s.do("p", "EVAL", "redis.call('rpush', KEYS[1], 'c', 'd'); return redis.call('lpop', KEYS[1])", "1", "sc")
		s.read("a")
		// the same key twice
		s.block("a", 1, "BLPOP", "dup", "dup", "0")
		s.block("b", 2, "BLPOP", "dup", "0")
		s.do("p", "RPUSH", "dup", "1", "2", "3")
		s.read("a")
		s.read("b")
		s.do("p", "LRANGE", "dup", "0", "-1")
		// a list created by RENAME serves too
		s.block("a", 1, "BLPOP", "r", "0")
		s.do("p", "RPUSH", "tmp", "renamed")
		s.do("p", "RENAME", "tmp", "r")
		s.read("a")
		s.do("p", "EXISTS", "r")
	})
}

func TestListBlockingMove(t *testing.T) {
	diffBlocking(t, func(s *scen) {
		// a chain: each move wakes the client blocked on its destination
		s.block("a", 1, "BLMOVE", "a", "b", "LEFT", "RIGHT", "0")
		s.block("b", 2, "BRPOPLPUSH", "b", "c", "0")
		s.block("c", 3, "BLPOP", "c", "0")
		s.do("p", "RPUSH", "a", "x")
		s.read("a")
		s.read("b")
		s.read("c")
		s.do("p", "EXISTS", "a", "b", "c")
		// rotation on the same key
		s.block("a", 1, "BLMOVE", "r", "r", "RIGHT", "LEFT", "0")
		s.do("p", "RPUSH", "r", "1", "2", "3")
		s.read("a")
		s.do("p", "LRANGE", "r", "0", "-1")
		// a destination of the wrong type: WRONGTYPE, nothing popped
		s.block("a", 1, "BLMOVE", "w", "str", "LEFT", "LEFT", "0")
		s.do("p", "SET", "str", "v")
		s.do("p", "RPUSH", "w", "kept")
		s.read("a")
		s.do("p", "LRANGE", "w", "0", "-1")
		s.waitBlocked(0)
		// the destination push also wakes a BLPOP on it
		s.block("b", 1, "BLPOP", "dst", "0")
		s.do("p", "LMOVE", "w", "dst", "LEFT", "LEFT")
		s.read("b")
		s.do("p", "EXISTS", "w", "dst")
	})
}

func TestListBlockingDisconnectAndMulti(t *testing.T) {
	diffBlocking(t, func(s *scen) {
		s.block("a", 1, "BLPOP", "k", "0")
		s.block("b", 2, "BLMOVE", "k", "d", "LEFT", "LEFT", "0")
		s.conn("a").Close()
		s.conn("b").Close()
		s.waitBlocked(0)
		s.do("p", "RPUSH", "k", "survivor")
		s.do("p", "LRANGE", "k", "0", "-1")
		s.do("p", "EXISTS", "d")
		s.do("p", "DEL", "k")
		s.do("p", "MULTI")
		s.do("p", "BLPOP", "k", "0")
		s.do("p", "BRPOP", "k", "k2", "0")
		s.do("p", "BLMOVE", "k", "d", "LEFT", "LEFT", "0")
		s.do("p", "BRPOPLPUSH", "k", "d", "0")
		s.do("p", "BLMPOP", "0", "1", "k", "LEFT")
		s.do("p", "RPUSH", "k", "v")
		s.do("p", "BLPOP", "k", "0")
		s.do("p", "EXEC")
		// a pipeline behind a blocked command waits for it
		s.conn("q").Send("BLPOP", "k", "0")
		s.conn("q").Send("PING")
		s.waitBlocked(1)
		s.do("p", "LPUSH", "k", "v2")
		s.read("q")
		s.read("q")
	})
}

// TestListBlockingEmbedded checks BLPOP through the embedded DB: it
// blocks, is served by a push from another goroutine, and a wait cut
// short by its context takes no element.
func TestListBlockingEmbedded(t *testing.T) {
	db, err := ordo.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan *ordo.Reply, 1)
	go func() { done <- db.Do(ctx, "BLPOP", "q", "0") }()
	select {
	case r := <-done:
		t.Fatalf("BLPOP did not block: %v", r)
	case <-time.After(100 * time.Millisecond):
	}
	if n, err := db.Do(ctx, "RPUSH", "q", "job1", "job2").Int(); err != nil || n != 2 {
		t.Fatalf("RPUSH: %d %v", n, err)
	}
	select {
	case r := <-done:
		got, err := r.Strings()
		if err != nil || strings.Join(got, ",") != "q,job1" {
			t.Fatalf("BLPOP: %q %v", got, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("BLPOP not served")
	}
	// timeout
	start := time.Now()
	r := db.Do(ctx, "BLPOP", "empty", "0.05")
	if !r.IsNil() || time.Since(start) > 3*time.Second {
		t.Fatalf("BLPOP timeout: %v %v", r, r.Err())
	}
	// cancelled wait: the element pushed afterwards stays
	short, cancel2 := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel2()
	if err := db.Do(short, "BLMOVE", "empty", "d", "LEFT", "LEFT", "0").Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled BLMOVE: %v", err)
	}
	db.Do(ctx, "RPUSH", "empty", "x")
	if n, _ := db.Do(ctx, "LLEN", "empty").Int(); n != 1 {
		t.Fatalf("LLEN after cancelled wait: %d", n)
	}
	if n, _ := db.Do(ctx, "LLEN", "q").Int(); n != 1 {
		t.Fatalf("LLEN q: %d", n)
	}
}

// TestListPropagation checks what the list commands log: served blocking
// pops as their non-blocking forms, after the push that served them.
func TestListPropagation(t *testing.T) {
	e := engine.New(nil)
	defer e.Close()
	var log []string
	e.Propagate = func(db int, args [][]byte) {
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = string(a)
		}
		log = append(log, strings.Join(parts, " "))
	}
	a, b := e.NewClient("normal"), e.NewClient("normal")
	defer e.RemoveClient(a)
	defer e.RemoveClient(b)
	call := func(cl *engine.Client, args ...string) (*resp.Writer, *engine.Waiter) {
		w := &resp.Writer{Proto: 2}
		argv := make([][]byte, len(args))
		for i, s := range args {
			argv[i] = []byte(s)
		}
		e.Lock()
		wt := e.Call(cl, argv, w)
		e.Unlock()
		return w, wt
	}
	wait := func(w *resp.Writer, wt *engine.Waiter) string {
		if wt == nil {
			t.Fatal("command did not block")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := e.Wait(ctx, wt); err != nil {
			t.Fatal(err)
		}
		return string(w.Buf)
	}
	call(a, "RPUSH", "k", "1", "2", "3")
	call(a, "BLPOP", "k", "0")
	call(a, "BLMPOP", "0", "1", "k", "RIGHT", "COUNT", "5")
	call(a, "LMPOP", "1", "nokey", "LEFT")
	call(a, "RPUSH", "k", "x")
	call(a, "BLMOVE", "k", "d", "LEFT", "RIGHT", "0")
	call(a, "BRPOPLPUSH", "d", "k", "0")
	call(a, "LPOP", "nokey")

	w, wt := call(a, "BLPOP", "j", "0")
	call(b, "RPUSH", "j", "v")
	if got := wait(w, wt); got != "*2\r\n$1\r\nj\r\n$1\r\nv\r\n" {
		t.Fatalf("served BLPOP reply %q", got)
	}
	w, wt = call(a, "BLMOVE", "j", "d2", "RIGHT", "LEFT", "0")
	call(b, "LPUSH", "j", "m")
	if got := wait(w, wt); got != "$1\r\nm\r\n" {
		t.Fatalf("served BLMOVE reply %q", got)
	}
	w, wt = call(a, "BLMPOP", "0", "2", "z1", "z2", "LEFT", "COUNT", "9")
	call(b, "RPUSH", "z2", "p", "q")
	if got := wait(w, wt); got != "*2\r\n$2\r\nz2\r\n*2\r\n$1\r\np\r\n$1\r\nq\r\n" {
		t.Fatalf("served BLMPOP reply %q", got)
	}
	want := []string{
		"RPUSH k 1 2 3", "LPOP k", "RPOP k 2", "RPUSH k x", "LMOVE k d LEFT RIGHT", "RPOPLPUSH d k",
		"RPUSH j v", "LPOP j", "LPUSH j m", "LMOVE j d2 RIGHT LEFT", "RPUSH z2 p q", "LPOP z2 2",
	}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Fatalf("propagated:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
}

// TestListUnblock checks Engine.Unblock (CLIENT UNBLOCK): the timeout
// reply or the UNBLOCKED error, and no element taken.
func TestListUnblock(t *testing.T) {
	e := engine.New(nil)
	defer e.Close()
	a, b := e.NewClient("normal"), e.NewClient("normal")
	defer e.RemoveClient(a)
	defer e.RemoveClient(b)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, withError := range []bool{false, true} {
		w := &resp.Writer{Proto: 2}
		e.Lock()
		wt := e.Call(a, [][]byte{[]byte("BLMOVE"), []byte("k"), []byte("d"), []byte("LEFT"), []byte("LEFT"), []byte("0")}, w)
		e.Unlock()
		if wt == nil || !a.Blocked() {
			t.Fatal("BLMOVE did not block")
		}
		e.Lock()
		if !e.Unblock(a, withError) || e.Unblock(b, withError) {
			t.Fatal("Unblock result")
		}
		e.Unlock()
		if err := e.Wait(ctx, wt); err != nil {
			t.Fatal(err)
		}
		want := "*-1\r\n"
		if withError {
			want = "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n"
		}
		if string(w.Buf) != want || a.Blocked() {
			t.Fatalf("reply %q, want %q (blocked %v)", w.Buf, want, a.Blocked())
		}
	}
	w := &resp.Writer{Proto: 2}
	e.Lock()
	e.Call(b, [][]byte{[]byte("RPUSH"), []byte("k"), []byte("v")}, w)
	w.Reset()
	e.Call(b, [][]byte{[]byte("LLEN"), []byte("k")}, w)
	e.Unlock()
	if string(w.Buf) != ":1\r\n" {
		t.Fatalf("LLEN after unblock: %q", w.Buf)
	}
}

// TestListBlockingStress has consumers pipelining PING and BLPOP over
// TCP and through the embedded DB (some with waits cut short) while
// producers push: every item is received exactly once. Run with -race
// it also checks that serving a waiter does not race with the
// connection flushing the replies written before it blocked.
func TestListBlockingStress(t *testing.T) {
	o := redistest.StartOrdo(t)
	db, err := ordo.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const producers, perProducer = 4, 150
	type result struct {
		items []string
		err   error
	}
	run := func(push func(item string), consumers []func(stop <-chan struct{}) result) map[string]int {
		stop := make(chan struct{})
		results := make(chan result, len(consumers))
		for _, c := range consumers {
			go func() { results <- c(stop) }()
		}
		for p := 0; p < producers; p++ {
			for i := 0; i < perProducer; i++ {
				push(fmt.Sprintf("p%d-%d", p, i))
			}
		}
		time.Sleep(300 * time.Millisecond)
		close(stop)
		seen := map[string]int{}
		for range consumers {
			r := <-results
			if r.err != nil {
				t.Error(r.err)
			}
			for _, it := range r.items {
				seen[it]++
			}
		}
		return seen
	}
	check := func(name string, seen map[string]int, left []string) {
		for _, it := range left {
			seen[it]++
		}
		if len(seen) != producers*perProducer {
			t.Errorf("%s: %d distinct items, want %d", name, len(seen), producers*perProducer)
		}
		for it, n := range seen {
			if n != 1 {
				t.Errorf("%s: %s received %d times", name, it, n)
			}
		}
	}

	// over TCP
	ctl := redistest.Dial(t, o.Addr)
	var tcp []func(stop <-chan struct{}) result
	for i := 0; i < 6; i++ {
		cn := redistest.Dial(t, o.Addr)
		tcp = append(tcp, func(stop <-chan struct{}) (r result) {
			req := append(resp.AppendCommand(nil, "PING"), resp.AppendCommand(nil, "BLPOP", "q", "0.05")...)
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
				select {
				case <-stop:
					return r
				default:
				}
				cn.Write(req)
				if got := string(cn.ReadRaw()); got != "+PONG\r\n" {
					r.err = fmt.Errorf("PING: %q", got)
					return r
				}
				v, _, err := resp.ParseReply(cn.ReadRaw())
				if err != nil {
					r.err = err
					return r
				}
				if v.Kind == resp.KindArray && len(v.Elems) == 2 {
					r.items = append(r.items, v.Elems[1].Str)
				}
			}
			return r
		})
	}
	seen := run(func(item string) { ctl.Do("RPUSH", "q", item) }, tcp)
	left, _, _ := resp.ParseReply(ctl.DoRaw("LRANGE", "q", "0", "-1"))
	var rest []string
	for _, e := range left.Elems {
		rest = append(rest, e.Str)
	}
	check("tcp", seen, rest)

	// embedded, with waits cut short by their context
	ctx := context.Background()
	var emb []func(stop <-chan struct{}) result
	for i := 0; i < 6; i++ {
		emb = append(emb, func(stop <-chan struct{}) (r result) {
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
				select {
				case <-stop:
					return r
				default:
				}
				wctx, cancel := context.WithTimeout(ctx, time.Duration(1+i)*time.Millisecond)
				rep := db.Do(wctx, "BLPOP", "q", "0")
				cancel()
				if rep.Err() != nil {
					if !errors.Is(rep.Err(), context.DeadlineExceeded) {
						r.err = rep.Err()
						return r
					}
					continue
				}
				got, err := rep.Strings()
				if err != nil || len(got) != 2 {
					r.err = fmt.Errorf("BLPOP: %q %v", got, err)
					return r
				}
				r.items = append(r.items, got[1])
			}
			return r
		})
	}
	seen = run(func(item string) { db.Do(ctx, "RPUSH", "q", item) }, emb)
	rest, _ = db.Do(ctx, "LRANGE", "q", "0", "-1").Strings()
	check("embedded", seen, rest)
}

// CLIENT UNBLOCK ends a BLPOP with its timeout reply or with an error, as Redis does.
func TestClientUnblock(t *testing.T) {
	diffBlocking(t, func(s *scen) {
		s.do("p", "CLIENT", "UNBLOCK", "999999")
		s.do("p", "CLIENT", "UNBLOCK", "x")
		s.do("p", "CLIENT", "UNBLOCK", "1", "foo")
		for _, reason := range []string{"TIMEOUT", "ERROR"} {
			id := s.conn("a").Do("CLIENT", "ID").Int
			s.block("a", 1, "BLPOP", "nothing-here", "5")
			// Client ids differ between the servers: record replies only.
			unblock := func() {
				s.out = append(s.out, fmt.Sprintf("UNBLOCK %s -> %q", reason, s.conn("p").DoRaw("CLIENT", "UNBLOCK", fmt.Sprint(id), reason)))
			}
			unblock()
			s.read("a")
			s.waitBlocked(0)
			unblock() // no longer blocked: 0
		}
	})
}
