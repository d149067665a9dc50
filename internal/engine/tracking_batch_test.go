package engine_test

import (
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// BCAST invalidations go out when the batch of commands that changed the
// keys is done (Redis: in beforeSleep, once per event-loop turn), so a
// client sees them after the replies of the commands that caused them:
// a pipeline written at once gets all its replies, then one message per
// prefix with every key it changed; a blocked pop served by another
// client's push gets its reply before the invalidation of the list it
// emptied.
func TestTrackingBcastBatches(t *testing.T) {
	r, o := redistest.Shared(t)
	tw := newTwin(t, r.Addr, o.Addr)
	other := newTwin(t, r.Addr, o.Addr)
	other.do(1, "DEL", "bb:a", "bb:b", "bb:l", "bb:l2")
	tw.hello("3")
	tw.do(1, "CLIENT", "TRACKING", "on", "bcast", "prefix", "bb:")

	var p []byte
	for _, c := range [][]string{{"SET", "bb:b", "1"}, {"GET", "bb:b"}, {"SET", "bb:a", "2"}, {"INCR", "bb:b"}, {"PING"}} {
		p = resp.AppendCommand(p, c...)
	}
	tw.r.Write(p)
	tw.o.Write(p)
	tw.read("pipelined writes: replies, then one invalidation", 6)

	// A blocked pop, served by another client's push.
	tw.send("BLPOP", "bb:l", "0")
	for _, c := range []*redistest.Conn{other.r, other.o} {
		for clientCount(t, c, "cmd=blpop") == 0 {
		}
	}
	other.do(1, "RPUSH", "bb:l", "x")
	tw.read("BLPOP served, then the invalidation", 2)

	// The same in one pipeline of the client's own: its write, then
	// BLMOVE from a list it just filled (served at once).
	p = resp.AppendCommand(nil, "RPUSH", "bb:l2", "y")
	p = resp.AppendCommand(p, "BLMOVE", "bb:l2", "bb:l", "LEFT", "LEFT", "0")
	tw.r.Write(p)
	tw.o.Write(p)
	tw.read("own pipeline with a blocking command", 3)
	tw.do(2, "DEL", "bb:l")
}

// A client's write followed in the same pipeline by a command that
// blocks: the write's invalidation comes after its reply, before the
// blocked command's eventual reply.
func TestTrackingBcastBeforeBlocking(t *testing.T) {
	r, o := redistest.Shared(t)
	tw := newTwin(t, r.Addr, o.Addr)
	other := newTwin(t, r.Addr, o.Addr)
	other.do(1, "DEL", "bq:a", "bq:l")
	tw.hello("3")
	tw.do(1, "CLIENT", "TRACKING", "on", "bcast", "prefix", "bq:")
	p := resp.AppendCommand(nil, "SET", "bq:a", "1")
	p = resp.AppendCommand(p, "BLPOP", "bq:l", "0")
	tw.r.Write(p)
	tw.o.Write(p)
	tw.read("the write's reply and invalidation", 2)
	for _, c := range []*redistest.Conn{other.r, other.o} {
		for clientCount(t, c, "cmd=blpop") == 0 {
		}
	}
	other.do(1, "LPUSH", "bq:l", "v")
	tw.read("BLPOP's reply, then the list's invalidation", 2)
}
