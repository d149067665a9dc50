package repl_test

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// fakeReplica is a replica link driven by the test: it syncs, then
// acknowledges only what the test says.
type fakeReplica struct {
	c  net.Conn
	br *bufio.Reader
}

func attachFake(t *testing.T, addr string) *fakeReplica { return attachFakeReading(t, addr, true) }

// attachFakeReading attaches a fake replica that reads the stream
// (drain) or leaves it unread.
func attachFakeReading(t *testing.T, addr string, drain bool) *fakeReplica {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	br := bufio.NewReader(c)
	c.Write(resp.AppendCommand(nil, "REPLCONF", "listening-port", "4242"))
	if v, err := resp.ReadReply(br); err != nil || v.Str != "OK" {
		t.Fatalf("REPLCONF: %v %v", v, err)
	}
	c.Write(resp.AppendCommand(nil, "PSYNC", "?", "-1"))
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if strings.HasPrefix(line, "+FULLRESYNC") {
			continue
		}
		if !strings.HasPrefix(line, "$") || strings.HasPrefix(line, "$EOF:") {
			t.Fatalf("fake replica: unexpected %q", line)
		}
		n, _ := strconv.ParseInt(line[1:], 10, 64)
		if _, err := io.CopyN(io.Discard, br, n); err != nil {
			t.Fatal(err)
		}
		break
	}
	// Drain the stream, so that the master never blocks on this link.
	if drain {
		go io.Copy(io.Discard, br)
	}
	return &fakeReplica{c: c, br: br}
}

func (f *fakeReplica) ack(off int64) {
	f.c.Write(resp.AppendCommand(nil, "REPLCONF", "ACK", strconv.FormatInt(off, 10)))
}

// pollUntil sends args to c until the reply starts with want.
func pollUntil(t *testing.T, c *redistest.Conn, want string, args ...string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := string(c.DoRaw(args...))
		if strings.HasPrefix(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v: still %q after 15s, want %q", args, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMinReplicasAndWait compares with redis-server: writes refused with
// NOREPLICAS below min-replicas-to-write (plain, in MULTI, in scripts),
// accepted once a replica acknowledges, refused again when its ACKs are
// older than min-replicas-max-lag; WAIT counts the replicas that
// acknowledged the calling client's last write, answers at once in
// MULTI, and is refused in scripts.
func TestMinReplicasAndWait(t *testing.T) {
	r := redistest.StartRedis(t, "--repl-diskless-sync", "no", "--min-replicas-to-write", "1")
	o := redistest.StartOrdo(t, "min-replicas-to-write", "1")
	d := redistest.NewDiffWith(t, r.Addr, o.Addr)
	d.Do("SET", "k", "v")
	d.Do("GET", "k")
	d.Do("MULTI")
	d.Do("SET", "k", "v")
	d.Do("GET", "k")
	d.Do("EXEC")
	d.Do("MULTI")
	d.Do("GET", "k")
	d.Do("EXEC")
	d.Do("EVAL", "return redis.call('get', 'k')", "0")
	d.Do("WAIT", "0", "0")
	d.Do("WAIT", "1", "10")

	fr, fo := attachFake(t, r.Addr), attachFake(t, o.Addr)
	fr.ack(0)
	fo.ack(0)
	pollUntil(t, d.Redis, "+OK", "SET", "k", "v")
	pollUntil(t, d.Ordo, "+OK", "SET", "k", "v")
	d.Do("SET", "k", "v2")
	d.Do("MULTI")
	d.Do("SET", "k", "v3")
	d.Do("EXEC")
	d.Do("EVAL", "return redis.call('set', 'k', 'v4')", "0")

	// This client wrote, the replica acknowledged offset 0 only.
	d.Do("WAIT", "1", "20")
	d.Do("MULTI")
	d.Do("WAIT", "1", "0")
	d.Do("EXEC")
	d.Do("EVAL", "return redis.call('wait', 1, 0)", "0")
	// A client that never wrote has nothing to wait for.
	fresh := redistest.NewDiffWith(t, r.Addr, o.Addr)
	fresh.Do("WAIT", "1", "0")
	// Once the replica acknowledges everything, WAIT returns at once.
	fr.ack(infoInt(t, d.Redis, "replication", "master_repl_offset"))
	fo.ack(infoInt(t, d.Ordo, "replication", "master_repl_offset"))
	d.Do("WAIT", "1", "0")
	d.Do("WAIT", "2", "10")

	// Without ACKs for longer than min-replicas-max-lag, the replica is
	// no longer good.
	d.Do("CONFIG", "SET", "min-replicas-max-lag", "1")
	pollUntil(t, d.Redis, "-NOREPLICAS", "SET", "k", "v")
	pollUntil(t, d.Ordo, "-NOREPLICAS", "SET", "k", "v")
	d.Do("SET", "k", "v")
	d.Do("CONFIG", "SET", "min-replicas-to-write", "0")
	d.Do("SET", "k", "v")
}

// TestReplicaOutputBufferLimit: a replica that does not read its stream
// is disconnected once its output buffer passes the replica class's hard
// limit of client-output-buffer-limit, by redis-server and by Ordo.
func TestReplicaOutputBufferLimit(t *testing.T) {
	r := redistest.StartRedis(t, "--repl-diskless-sync", "no", "--client-output-buffer-limit", "replica 1mb 0 0")
	o := redistest.StartOrdo(t, "repl-diskless-sync", "no", "client-output-buffer-limit", "replica 1mb 0 0")
	for _, addr := range []string{r.Addr, o.Addr} {
		m := redistest.Dial(t, addr)
		attachFakeReading(t, addr, false)
		if n := info(m, "connected_slaves"); n != "1" {
			t.Fatalf("%s: connected_slaves %s after the fake replica's sync", addr, n)
		}
		value := strings.Repeat("x", 1<<20)
		for i := 0; i < 64 && info(m, "connected_slaves") != "0"; i++ {
			m.Do("SET", "big"+strconv.Itoa(i), value)
		}
		deadline := time.Now().Add(20 * time.Second)
		for info(m, "connected_slaves") != "0" {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the replica that reads nothing is still connected after 64 MB of stream", addr)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestSlowReplicaKeepsItsLink: a replica that reads nothing while the
// master writes 16 MB (1,000 times repl-backlog-size) stays connected
// and then receives every write in order, as with redis-server: the
// stream waits in the link's output buffer, which only
// client-output-buffer-limit bounds (256mb 64mb 60 by default), not in
// the backlog.
func TestSlowReplicaKeepsItsLink(t *testing.T) {
	r := redistest.StartRedis(t, "--repl-diskless-sync", "no", "--repl-backlog-size", "16kb")
	o := redistest.StartOrdo(t, "repl-diskless-sync", "no", "repl-backlog-size", "16kb")
	for _, addr := range []string{r.Addr, o.Addr} {
		m := redistest.Dial(t, addr)
		f := attachFakeReading(t, addr, false)
		value := strings.Repeat("x", 256<<10)
		const n = 64
		for i := 0; i < n; i++ {
			m.Do("SET", "big"+strconv.Itoa(i), value)
		}
		time.Sleep(200 * time.Millisecond) // the master tries to send meanwhile
		if c := info(m, "connected_slaves"); c != "1" {
			t.Fatalf("%s: connected_slaves %s while the replica has not read 16 MB of stream", addr, c)
		}
		f.c.SetReadDeadline(time.Now().Add(20 * time.Second))
		for i := 0; i < n; {
			v, err := resp.ReadReply(f.br)
			if err != nil {
				t.Fatalf("%s: the stream ended after %d of %d SETs: %v", addr, i, n, err)
			}
			if len(v.Elems) == 3 && strings.EqualFold(v.Elems[0].Str, "set") {
				if v.Elems[1].Str != "big"+strconv.Itoa(i) || v.Elems[2].Str != value {
					t.Fatalf("%s: SET %d of the stream is %q", addr, i, v.Elems[1].Str)
				}
				i++
			}
		}
		if c := info(m, "connected_slaves"); c != "1" {
			t.Fatalf("%s: connected_slaves %s after the replica read the stream", addr, c)
		}
	}
}
