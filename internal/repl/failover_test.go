package repl_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// TestFailoverErrors: FAILOVER's argument errors and refusals, compared
// with redis-server's replies byte for byte.
func TestFailoverErrors(t *testing.T) {
	r := redistest.StartRedis(t)
	o := redistest.StartOrdo(t)
	d := redistest.NewDiffWith(t, r.Addr, o.Addr)
	for _, args := range [][]string{
		{"FAILOVER"},
		{"FAILOVER", "ABORT"},
		{"FAILOVER", "abort", "TIMEOUT", "10"},
		{"FAILOVER", "TIMEOUT", "0"},
		{"FAILOVER", "TIMEOUT", "-5"},
		{"FAILOVER", "TIMEOUT", "x"},
		{"FAILOVER", "TIMEOUT", "10", "TIMEOUT", "20"},
		{"FAILOVER", "TIMEOUT"},
		{"FAILOVER", "TO", "127.0.0.1"},
		{"FAILOVER", "TO", "127.0.0.1", "nope"},
		{"FAILOVER", "TO", "127.0.0.1", "1", "TO", "127.0.0.1", "2"},
		{"FAILOVER", "FORCE", "FORCE"},
		{"FAILOVER", "FORCE"},
		{"FAILOVER", "bogus"},
		{"FAILOVER", "TO", "127.0.0.1", "1", "FORCE", "TIMEOUT", "100"},
	} {
		d.Do(args...)
	}
	for _, c := range []*redistest.Conn{d.Redis, d.Ordo} {
		if got := info(c, "master_failover_state"); got != "no-failover" {
			t.Errorf("master_failover_state %q", got)
		}
	}
}

// silentReplica attaches to master as a replica announcing listening port
// port, takes the full sync (disk form) and never acknowledges: a
// failover to it waits until aborted or forced.
func silentReplica(t *testing.T, master string, port int) {
	t.Helper()
	c, err := net.Dial("tcp", master)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	br := bufio.NewReader(c)
	for _, args := range [][]string{{"REPLCONF", "listening-port", strconv.Itoa(port)}, {"REPLCONF", "capa", "psync2"}} {
		c.Write(resp.AppendCommand(nil, args...))
		if v, err := resp.ReadReply(br); err != nil || v.Str != "OK" {
			t.Fatalf("%v: %v %v", args, v, err)
		}
	}
	c.Write(resp.AppendCommand(nil, "PSYNC", "?", "-1"))
	line := ""
	for line == "" {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimSpace(l)
	}
	if !strings.HasPrefix(line, "+FULLRESYNC") {
		t.Fatalf("PSYNC: %q", line)
	}
	line = ""
	for line == "" {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimSpace(l)
	}
	n, err := strconv.Atoi(strings.TrimPrefix(line, "$"))
	if err != nil {
		t.Fatalf("RDB length line %q", line)
	}
	if _, err := io.CopyN(io.Discard, br, int64(n)); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, br)
}

// fakeTarget listens where the fake replica announced itself and answers
// the handshake of a master failing over to it; it sends the PSYNC it
// gets on psync and answers it with reply.
func fakeTarget(t *testing.T, reply string) (port int, psync chan []string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	psync = make(chan []string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				rd := resp.NewReader(c)
				for {
					args, err := rd.ReadCommand()
					if err != nil {
						return
					}
					var s []string
					for _, a := range args {
						s = append(s, string(a))
					}
					switch strings.ToUpper(s[0]) {
					case "PING":
						c.Write([]byte("+PONG\r\n"))
					case "PSYNC":
						psync <- s
						c.Write([]byte(reply))
						if strings.HasPrefix(reply, "-") {
							return
						}
					default:
						c.Write([]byte("+OK\r\n"))
					}
				}
			}(c)
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, psync
}

func waitFailoverState(t *testing.T, c *redistest.Conn, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for info(c, "master_failover_state") != want {
		if time.Now().After(deadline) {
			t.Fatalf("master_failover_state is %q, want %q", info(c, "master_failover_state"), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFailoverProtocol runs the same FAILOVER steps against a
// redis-server and an ordo-server master whose one replica never
// acknowledges (a fake): the wait for sync holds writes until ABORT; a
// TIMEOUT aborts; FORCE with a TIMEOUT hands over anyway, with PSYNC
// <replid> <offset> FAILOVER to the target, and the master stays a
// replica when the target answers +CONTINUE, or becomes a master again
// when it refuses. Both servers must answer and behave alike.
func TestFailoverProtocol(t *testing.T) {
	type outcome struct{ lines []string }
	run := func(kind string) outcome {
		var out outcome
		note := func(f string, a ...any) { out.lines = append(out.lines, fmt.Sprintf(f, a...)) }
		var addr string
		if kind == "redis" {
			addr = redistest.StartRedis(t, "--repl-diskless-sync", "no").Addr
		} else {
			addr = redistest.StartOrdo(t, "repl-diskless-sync", "no").Addr
		}
		m := redistest.Dial(t, addr)
		m.Do("SET", "k", "1")
		port, psync := fakeTarget(t, "-ERR refused\r\n")
		silentReplica(t, addr, port)
		for deadline := time.Now().Add(20 * time.Second); !strings.Contains(m.Do("INFO", "replication").Str, "state=online"); {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the fake replica is not online", kind)
			}
			time.Sleep(10 * time.Millisecond)
		}
		m.Do("SET", "k", "2") // the replica's acknowledged offset stays behind
		target := []string{"TO", "127.0.0.1", strconv.Itoa(port)}

		// Wait for sync, writes held, ABORT.
		note("FAILOVER TO: %v", m.Do(append([]string{"FAILOVER"}, target...)...))
		note("again: %v", m.Do("FAILOVER"))
		note("REPLICAOF during it: %v", m.Do("REPLICAOF", "NO", "ONE"))
		note("state: %s", info(m, "master_failover_state"))
		w := redistest.Dial(t, addr)
		w.Send("INCR", "held")
		note("GET while paused: %v", m.Do("GET", "k"))
		note("ABORT: %v", m.Do("FAILOVER", "ABORT"))
		note("held write: %s", w.ReadRaw())
		note("state: %s role %s", info(m, "master_failover_state"), info(m, "role"))

		// A TIMEOUT aborts.
		note("FAILOVER TIMEOUT: %v", m.Do("FAILOVER", "TIMEOUT", "50"))
		waitFailoverState(t, m, "no-failover")
		note("after the timeout: role %s", info(m, "role"))

		// FORCE: the handover, refused by the target.
		replid, off := info(m, "master_replid"), info(m, "master_repl_offset")
		note("FORCE: %v", m.Do(append(append([]string{"FAILOVER"}, target...), "FORCE", "TIMEOUT", "50")...))
		select {
		case p := <-psync:
			want := []string{"PSYNC", replid, "", "FAILOVER"}
			if n, _ := strconv.ParseInt(off, 10, 64); true {
				want[2] = strconv.FormatInt(n+1, 10)
			}
			note("PSYNC ok: %v", fmt.Sprint(p) == fmt.Sprint(want))
			if fmt.Sprint(p) != fmt.Sprint(want) {
				t.Errorf("%s: the target got %v, want %v", kind, p, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: no PSYNC FAILOVER reached the target", kind)
		}
		waitFailoverState(t, m, "no-failover")
		for deadline := time.Now().Add(20 * time.Second); info(m, "role") != "master"; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: role %s after the refused failover", kind, info(m, "role"))
			}
		}
		note("after the refusal: role %s, write %v", info(m, "role"), m.Do("SET", "k", "3"))
		return out
	}
	want, got := run("redis"), run("ordo")
	for i := range max(len(want.lines), len(got.lines)) {
		var w, g string
		if i < len(want.lines) {
			w = want.lines[i]
		}
		if i < len(got.lines) {
			g = got.lines[i]
		}
		if w != g {
			t.Errorf("step %d:\n redis: %s\n  ordo: %s", i, w, g)
		}
	}
}

// TestFailoverHandover: a master with two replicas hands over to one of
// them with FAILOVER TO, as redis-server does: the target becomes the
// master (continuing the history, no full sync), the old master its
// replica, the other replica stays with the old master; then writes on
// the new master reach both. Redis and Ordo groups, same outcome.
func TestFailoverHandover(t *testing.T) {
	run := func(kind string) []string {
		start := func() string {
			if kind == "redis" {
				return redistest.StartRedis(t, "--repl-diskless-sync-delay", "0").Addr
			}
			return redistest.StartOrdo(t, "repl-diskless-sync-delay", "0").Addr
		}
		ma, r1a, r2a := start(), start(), start()
		m, r1, r2 := redistest.Dial(t, ma), redistest.Dial(t, r1a), redistest.Dial(t, r2a)
		writeAll(t, m, "pre:")
		replicaOf(t, r1, ma)
		replicaOf(t, r2, ma)
		waitSynced(t, m, r1)
		waitSynced(t, m, r2)
		if v := m.Do("FAILOVER", "TO", "127.0.0.1", port(r1a)); v.Str != "OK" {
			t.Fatalf("%s: FAILOVER TO: %v", kind, v)
		}
		waitFailoverState(t, m, "no-failover")
		waitSynced(t, r1, m)
		r1.Do("SET", "after", "failover")
		waitSynced(t, r1, m)
		var out []string
		out = append(out, "old master: "+info(m, "role")+" of "+info(m, "master_port"))
		out = append(out, "target: "+info(r1, "role"))
		out = append(out, "other: "+info(r2, "role")+" of "+info(r2, "master_port"))
		out = append(out, fmt.Sprint("write on the old master: ", m.Do("SET", "x", "y")))
		out = append(out, fmt.Sprint("target full syncs: ", infoInt(t, r1, "stats", "sync_full")))
		for i, s := range out {
			out[i] = strings.ReplaceAll(strings.ReplaceAll(s, port(r1a), "R1"), port(ma), "M")
		}
		compare(t, r1, m)
		for deadline := time.Now().Add(20 * time.Second); m.Do("DBSIZE").Int != r2.Do("DBSIZE").Int || r2.Do("GET", "after").Str != "failover"; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the other replica did not follow", kind)
			}
		}
		compare(t, r1, r2)
		return out
	}
	want, got := run("redis"), run("ordo")
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Errorf("after FAILOVER TO:\n redis: %q\n  ordo: %q", want, got)
	}
}
