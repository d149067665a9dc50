package engine_test

import (
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

// CLIENT PAUSE WRITE holds writes (and what may replicate: PUBLISH, EVAL,
// a transaction with a write, MULTI queueing of a write) until UNPAUSE,
// while reads are served; compared with redis-server.
func TestClientPauseWrite(t *testing.T) {
	r, o := startPair(t)
	ctl := newTwin(t, r.Addr, o.Addr)
	ctl.do(1, "SET", "k", "0")
	for _, c := range [][]string{{"CLIENT", "PAUSE"}, {"CLIENT", "PAUSE", "x"}, {"CLIENT", "PAUSE", "-1"},
		{"CLIENT", "PAUSE", "10", "some"}, {"CLIENT", "PAUSE", "1.5"}, {"CLIENT", "UNPAUSE", "x"}, {"CLIENT", "UNPAUSE"}} {
		ctl.do(1, c...)
	}
	ctl.do(1, "CLIENT", "PAUSE", "100000", "WRITE")
	reader := newTwin(t, r.Addr, o.Addr)
	reader.do(1, "GET", "k")
	reader.do(1, "EVAL_RO", "return redis.call('get', KEYS[1])", "1", "k")
	held := []*twin{}
	for _, c := range [][]string{
		{"SET", "k", "1"},
		{"PUBLISH", "ch", "m"},
		{"EVAL", "return redis.call('incr', KEYS[1])", "1", "k"},
		{"INCR", "k"},
	} {
		w := newTwin(t, r.Addr, o.Addr)
		w.send(c...)
		held = append(held, w)
	}
	tx := newTwin(t, r.Addr, o.Addr)
	tx.do(1, "MULTI")
	tx.do(1, "GET", "k")
	tx.send("INCR", "k") // queueing a write waits too
	rtx := newTwin(t, r.Addr, o.Addr)
	rtx.do(1, "MULTI")
	rtx.do(1, "GET", "k")
	rtx.do(1, "EXEC") // reads only: not held
	// Nothing held has run; the held clients show flag b.
	reader.do(1, "GET", "k")
	for i, c := range []*redistest.Conn{ctl.r, ctl.o} {
		n := 0
		for _, line := range strings.Split(c.Do("CLIENT", "LIST").Str, "\n") {
			if strings.Contains(clientInfoField(line, "flags"), "b") {
				n++
			}
		}
		if n != 5 {
			t.Errorf("server %d: %d clients with flags=b, want 5", i, n)
		}
	}
	ctl.do(1, "CLIENT", "UNPAUSE")
	for i, w := range held {
		w.read("held command "+[]string{"SET", "PUBLISH", "EVAL", "INCR"}[i], 1)
	}
	tx.read("queued INCR", 1)
	tx.do(1, "EXEC")
	reader.do(1, "GET", "k")
}

// A pause ends by itself at its timeout; ALL holds every command.
func TestClientPauseTimeoutAll(t *testing.T) {
	r, o := startPair(t)
	ctl := newTwin(t, r.Addr, o.Addr)
	ctl.do(1, "CLIENT", "PAUSE", "50", "ALL")
	other := newTwin(t, r.Addr, o.Addr)
	other.do(1, "PING")
	other.do(1, "SET", "k", "v")
	ctl.do(1, "CLIENT", "PAUSE", "50", "WRITE")
	other.do(1, "GET", "k")
	other.do(1, "DEL", "k")
}

// During a pause the dataset stays still: an expired key reads as missing
// but is not deleted until the pause ends.
func TestClientPauseKeepsExpiredKeys(t *testing.T) {
	r, o := startPair(t)
	tw := newTwin(t, r.Addr, o.Addr)
	tw.do(1, "SET", "e", "v", "PX", "20")
	tw.do(1, "CLIENT", "PAUSE", "100000", "WRITE")
	for _, c := range []*redistest.Conn{tw.r, tw.o} {
		for i := 0; i < 2000 && c.Do("PTTL", "e").Int != -2; i++ {
			c.Do("DEBUG", "SLEEP", "0.005")
		}
	}
	tw.do(1, "GET", "e")
	tw.do(1, "EXISTS", "e")
	tw.do(1, "DBSIZE") // still stored
	tw.do(1, "CLIENT", "UNPAUSE")
	tw.do(1, "GET", "e")
	tw.do(1, "DBSIZE")
}

// Held commands run in the order they arrived once the pause ends.
func TestClientPauseOrder(t *testing.T) {
	r, o := startPair(t)
	ctl := newTwin(t, r.Addr, o.Addr)
	ctl.do(1, "CLIENT", "PAUSE", "100000", "WRITE")
	blocked := func(c *redistest.Conn) int {
		n := 0
		for _, line := range strings.Split(c.Do("CLIENT", "LIST").Str, "\n") {
			if strings.Contains(clientInfoField(line, "flags"), "b") {
				n++
			}
		}
		return n
	}
	var held []*twin
	for i, part := range []string{"a", "b", "c", "d"} {
		w := newTwin(t, r.Addr, o.Addr)
		w.send("APPEND", "ord", part)
		for _, c := range []*redistest.Conn{ctl.r, ctl.o} {
			for j := 0; j < 1000 && blocked(c) < i+1; j++ {
			}
		}
		held = append(held, w)
	}
	ctl.do(1, "CLIENT", "UNPAUSE")
	for _, w := range held {
		w.read("held APPEND", 1)
	}
	ctl.do(1, "GET", "ord")
}

// Under CLIENT PAUSE WRITE a script's declared flags decide, as Redis's
// getCommandFlags: EVAL/FCALL of a no-writes script or function and the
// _RO forms run at once; a script with a shebang and no no-writes flag,
// or a function without it, waits (even through EVAL_RO/FCALL_RO, which
// then refuse it), as does EVAL without a shebang. Compared with
// redis-server.
func TestClientPauseWriteScriptFlags(t *testing.T) {
	r, o := startPair(t)
	ctl := newTwin(t, r.Addr, o.Addr)
	ctl.do(1, "SET", "k", "0")
	ctl.do(1, "FUNCTION", "LOAD", "#!lua name=plib\n"+
		"redis.register_function{function_name='ro', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}}\n"+
		"redis.register_function('rw', function(keys) return redis.call('incr', keys[1]) end)")
	noWrites := "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])"
	ctl.do(1, "SCRIPT", "LOAD", noWrites)
	ctl.do(1, "CLIENT", "PAUSE", "100000", "WRITE")
	reader := newTwin(t, r.Addr, o.Addr)
	reader.do(1, "EVAL", noWrites, "1", "k")
	reader.do(1, "EVAL", "#!lua flags=no-writes\nreturn 2", "0") // not cached yet
	reader.do(1, "EVALSHA", "8822dee64c14b51d475f4b45eb44843318ccc8e1", "1", "k")
	reader.do(1, "EVAL_RO", "return redis.call('get', KEYS[1])", "1", "k")
	reader.do(1, "FCALL", "ro", "1", "k")
	reader.do(1, "FCALL_RO", "ro", "1", "k")
	held := [][]string{
		{"EVAL", "#!lua\nreturn redis.call('incr', KEYS[1])", "1", "k"},
		{"EVAL_RO", "#!lua\nreturn 1", "0"},
		{"FCALL", "rw", "1", "k"},
		{"FCALL_RO", "rw", "1", "k"},
		{"EVAL", "return 1", "0"},
		{"EVALSHA", "5ee0ff5c6ad3a1d0f4e4ef6e1f8c5a1d0ea9de5e", "0"}, // unknown: EVALSHA's own flags
	}
	var waiting []*twin
	for _, c := range held {
		w := newTwin(t, r.Addr, o.Addr)
		w.send(c...)
		waiting = append(waiting, w)
	}
	reader.do(1, "GET", "k")
	for i, c := range []*redistest.Conn{ctl.r, ctl.o} {
		n := 0
		for _, line := range strings.Split(c.Do("CLIENT", "LIST").Str, "\n") {
			if strings.Contains(clientInfoField(line, "flags"), "b") {
				n++
			}
		}
		if n != len(held) {
			t.Errorf("server %d: %d clients with flags=b, want %d", i, n, len(held))
		}
	}
	ctl.do(1, "CLIENT", "UNPAUSE")
	for i, w := range waiting {
		w.read(strings.Join(held[i], " "), 1)
	}
	reader.do(1, "GET", "k")
}
