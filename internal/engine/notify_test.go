package engine

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

type recorder struct{ got []string }

func (r *recorder) KeyChanged(ev KeyEvent) {
	s := fmt.Sprintf("%d:%s:%s", ev.DB, ev.Event, ev.Key)
	if ev.Event == "swapdb" {
		s += fmt.Sprintf(":%d", ev.Other)
	}
	r.got = append(r.got, s)
}

// The keyspace-change hook reports one event per changed key, from
// commands, transactions, expiry and whole-database operations, and
// nothing for reads or for writes that change nothing.
func TestKeyObserver(t *testing.T) {
	e := New(nil)
	defer e.Close()
	rec := &recorder{}
	e.Observe(rec)
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
	expect := func(what string, want ...string) {
		t.Helper()
		if !slices.Equal(rec.got, want) {
			t.Errorf("%s: events %q, want %q", what, rec.got, want)
		}
		rec.got = nil
	}
	do("SET", "a", "1")
	expect("SET", "0:new:a", "0:set:a")
	do("GET", "a")
	do("EXISTS", "a")
	expect("reads")
	do("HSET", "h", "f", "v", "g", "w")
	expect("HSET", "0:new:h", "0:hset:h")
	do("HDEL", "h", "nosuch")
	expect("HDEL of nothing")
	do("DEL", "a", "h", "nosuch")
	expect("DEL", "0:del:a", "0:del:h")
	do("MULTI")
	do("RPUSH", "l", "x")
	do("INCR", "n")
	do("EXEC")
	expect("MULTI/EXEC", "0:new:l", "0:rpush:l", "0:new:n", "0:incrby:n")
	do("SET", "t", "x", "PX", "1")
	expect("SET PX", "0:new:t", "0:set:t", "0:expire:t")
	time.Sleep(5 * time.Millisecond)
	do("GET", "t") // lazy expiry
	expect("expiry", "0:expired:t")
	do("SWAPDB", "0", "1")
	expect("SWAPDB", "0:swapdb::1")
	do("FLUSHALL")
	want := make([]string, 16)
	for i := range want {
		want[i] = fmt.Sprintf("%d:flushdb:", i)
	}
	expect("FLUSHALL", want...)
}
