package engine

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/ordo-db/ordo/internal/resp"
)

// panicEngine is an engine with two commands that panic: BOOM at once,
// HALFBOOM after writing a key and part of a reply.
func panicEngine(t *testing.T) (*Engine, *bytes.Buffer) {
	t.Helper()
	e := New(nil, func(t *Table) {
		spec := Spec{Arity: 1, Flags: []string{"write"}, Categories: []string{"@keyspace"}}
		t.RegisterSpec("boom", func(c *Ctx) { panic("kaboom") }, spec)
		t.RegisterSpec("halfboom", func(c *Ctx) {
			c.Add([]byte("half"), StringValue("v"))
			c.W.Array(2)
			c.W.Int(1)
			var none []int
			_ = none[len(c.Args)] // a runtime error, not a panic call
		}, spec)
	})
	t.Cleanup(e.Close)
	var log bytes.Buffer
	e.Log = slog.New(slog.NewTextHandler(&log, nil))
	return e, &log
}

func do(e *Engine, cl *Client, args ...string) string {
	w := &resp.Writer{Proto: 2}
	bs := make([][]byte, len(args))
	for i, a := range args {
		bs[i] = []byte(a)
	}
	e.Lock()
	e.Call(cl, bs, w)
	e.Unlock()
	return string(w.Buf)
}

// TestHandlerPanicContained: a handler that panics is answered with an
// error naming the command, logged with its name, counted, not
// propagated; the engine lock is released and everyone keeps being
// served, inside MULTI/EXEC too.
func TestHandlerPanicContained(t *testing.T) {
	e, log := panicEngine(t)
	var mu sync.Mutex
	var propagated []string
	e.Lock()
	e.Propagate = func(db int, args [][]byte) {
		mu.Lock()
		propagated = append(propagated, string(bytes.Join(args, []byte(" "))))
		mu.Unlock()
	}
	e.Unlock()
	cl := e.NewClient("embedded")
	if got := do(e, cl, "BOOM"); got != "-ERR internal error executing 'boom'\r\n" {
		t.Fatalf("BOOM: %q", got)
	}
	if got := do(e, cl, "HALFBOOM"); got != "-ERR internal error executing 'halfboom'\r\n" {
		t.Fatalf("HALFBOOM (part of a reply written): %q", got)
	}
	if n := e.Stats.CommandPanics.Load(); n != 2 {
		t.Errorf("CommandPanics = %d", n)
	}
	for _, want := range []string{"command=boom", "kaboom", "command=halfboom", "index out of range"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	// Served afterwards, from other goroutines too (the lock was released).
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c2 := e.NewClient("embedded")
			if got := do(e, c2, "BOOM"); !strings.HasPrefix(got, "-ERR internal error") {
				t.Errorf("BOOM: %q", got)
			}
			if got := do(e, c2, "INCR", "n"); !strings.HasPrefix(got, ":") {
				t.Errorf("INCR: %q", got)
			}
		}()
	}
	wg.Wait()
	if got := do(e, cl, "GET", "n"); got != "$1\r\n4\r\n" {
		t.Errorf("GET n: %q", got)
	}
	// Inside MULTI/EXEC: the panicking command's slot holds the error,
	// the others run.
	do(e, cl, "MULTI")
	do(e, cl, "INCR", "n")
	do(e, cl, "BOOM")
	do(e, cl, "INCR", "n")
	if got := do(e, cl, "EXEC"); got != "*3\r\n:5\r\n-ERR internal error executing 'boom'\r\n:6\r\n" {
		t.Errorf("EXEC: %q", got)
	}
	if got := do(e, cl, "INFO", "stats"); !strings.Contains(got, "ordo_command_panics:7\r\n") {
		t.Errorf("INFO stats lacks ordo_command_panics:7")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range propagated {
		if strings.Contains(p, "boom") {
			t.Errorf("propagated %q", p)
		}
	}
}

// TestZSetMemberBytesLimit: a write that would take one sorted set past
// its member-byte limit is refused before any change, with an error
// reply (the sorted-set package would panic past it).
func TestZSetMemberBytesLimit(t *testing.T) {
	e := New(nil)
	defer e.Close()
	e.zsetMaxBytes = 10
	cl := e.NewClient("embedded")
	const tooLarge = "-" + ErrZSetTooLarge + "\r\n"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ZADD", "z", "1", "aaaa", "2", "bbbb", "3", "cccc"}, tooLarge},
		{[]string{"EXISTS", "z"}, ":0\r\n"},
		{[]string{"ZADD", "z", "1", "aaaa", "2", "bbbb"}, ":2\r\n"},
		{[]string{"ZADD", "z", "3", "ccc"}, tooLarge},
		{[]string{"ZINCRBY", "z", "3", "ccc"}, tooLarge},
		{[]string{"ZADD", "z", "XX", "3", "ccc"}, ":0\r\n"},
		{[]string{"ZADD", "z", "5", "aaaa"}, ":0\r\n"},
		{[]string{"ZADD", "z2", "1", "xxxxxx"}, ":1\r\n"},
		{[]string{"ZUNIONSTORE", "u", "2", "z", "z2"}, tooLarge},
		{[]string{"EXISTS", "u"}, ":0\r\n"},
		{[]string{"ZINTERSTORE", "u", "2", "z", "z"}, ":2\r\n"},
		{[]string{"ZRANGE", "z", "0", "-1", "WITHSCORES"}, "*4\r\n$4\r\nbbbb\r\n$1\r\n2\r\n$4\r\naaaa\r\n$1\r\n5\r\n"},
	} {
		if got := do(e, cl, c.args...); got != c.want {
			t.Errorf("%q: %q, want %q", c.args, got, c.want)
		}
	}
}
