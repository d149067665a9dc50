package repl_test

import (
	"bufio"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// seqWriter appends 1, 2, 3 ... to the list "seq" in MULTI with INCR
// "ctr" (and a key with a TTL) until stopped or the connection fails;
// last is the last number acknowledged.
func seqWriter(addr string, stop <-chan struct{}, last *atomic.Int64) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	for n := int64(1); ; n++ {
		select {
		case <-stop:
			return
		default:
		}
		ns := strconv.FormatInt(n, 10)
		var req []byte
		req = resp.AppendCommand(req, "MULTI")
		req = resp.AppendCommand(req, "RPUSH", "seq", ns)
		req = resp.AppendCommand(req, "INCR", "ctr")
		req = resp.AppendCommand(req, "SET", "k:"+ns, ns, "PX", strconv.Itoa(1000000+int(n)))
		req = resp.AppendCommand(req, "EXEC")
		if _, err := nc.Write(req); err != nil {
			return
		}
		for range 5 {
			v, err := resp.ReadReply(br)
			if err != nil || v.Kind == resp.KindError {
				return
			}
		}
		last.Store(n)
	}
}

// checkSeq checks that the list "seq" is exactly 1..n with ctr = n: no
// command skipped or applied twice, every transaction whole.
func checkSeq(t *testing.T, c *redistest.Conn) int64 {
	t.Helper()
	// One transaction: a replica may still be applying what it received.
	c.Do("MULTI")
	c.Do("LRANGE", "seq", "0", "-1")
	c.Do("GET", "ctr")
	x := c.Do("EXEC")
	if len(x.Elems) != 2 {
		t.Fatalf("MULTI LRANGE GET EXEC: %v", x)
	}
	v, ctr := x.Elems[0], x.Elems[1]
	for i, e := range v.Elems {
		if e.Str != strconv.Itoa(i+1) {
			t.Fatalf("seq[%d] = %s: a command was skipped or repeated", i, e.Str)
		}
	}
	n := int64(len(v.Elems))
	if (n > 0 || !ctr.IsNull()) && ctr.Str != strconv.FormatInt(n, 10) {
		t.Fatalf("ctr = %q with %d elements in seq: a transaction was split", ctr.Str, n)
	}
	return n
}

// TestPartialResyncUnderWrites drops the link again and again while a
// writer runs; each reconnect is a partial resync, and the replica ends
// with exactly the master's sequence.
func TestPartialResyncUnderWrites(t *testing.T) {
	for _, kind := range []string{"redis", "ordo"} {
		t.Run(kind+" master", func(t *testing.T) {
			var addr string
			// A backlog large enough for the replica's lag under this
			// writer (one that is too small makes the reconnect a full
			// sync, as with Redis).
			if kind == "redis" {
				addr = redistest.StartRedis(t, "--repl-diskless-sync-delay", "0", "--repl-backlog-size", "256mb").Addr
			} else {
				addr = redistest.StartOrdo(t, "repl-diskless-sync-delay", "0", "repl-backlog-size", "256mb").Addr
			}
			m := redistest.Dial(t, addr)
			rep := redistest.Dial(t, redistest.StartOrdo(t).Addr)
			replicaOf(t, rep, addr)
			waitSynced(t, m, rep)
			stop := make(chan struct{})
			var last atomic.Int64
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); seqWriter(addr, stop, &last) }()
			partial := infoInt(t, m, "stats", "sync_partial_ok")
			for i := 0; i < 5; i++ {
				for target := last.Load() + 200; last.Load() < target; {
					time.Sleep(time.Millisecond)
				}
				if i%2 == 0 {
					rep.Do("CLIENT", "KILL", "TYPE", "master")
				} else {
					m.Do("CLIENT", "KILL", "TYPE", "replica")
				}
				deadline := time.Now().Add(20 * time.Second)
				for infoInt(t, m, "stats", "sync_partial_ok") < partial+int64(i)+1 {
					if time.Now().After(deadline) {
						t.Fatalf("no partial resync 20s after dropped link %d (full syncs: %d)", i+1, infoInt(t, m, "stats", "sync_full"))
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			close(stop)
			wg.Wait()
			waitSynced(t, m, rep)
			if n := checkSeq(t, rep); n != last.Load() {
				t.Fatalf("the replica has %d of %d acknowledged transactions", n, last.Load())
			}
			compare(t, m, rep)
			if got := infoInt(t, m, "stats", "sync_partial_ok"); got < partial+5 {
				t.Fatalf("sync_partial_ok %d -> %d after 5 dropped links", partial, got)
			}
		})
	}
}

func waitLinkUp(t *testing.T, c *redistest.Conn) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for info(c, "master_link_status") != "up" {
		if time.Now().After(deadline) {
			t.Fatal("the replica's link is not up after 20s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestMasterKilledUnderWrites: redis-server is killed (SIGKILL) while a
// writer runs; the ordo-server replica keeps a consistent prefix of the
// master's history (whole transactions, no gap), serves it, and takes
// writes once promoted.
func TestMasterKilledUnderWrites(t *testing.T) {
	r := redistest.StartRedis(t, "--repl-diskless-sync-delay", "0")
	m := redistest.Dial(t, r.Addr)
	rep := redistest.Dial(t, redistest.StartOrdo(t).Addr)
	replicaOf(t, rep, r.Addr)
	waitSynced(t, m, rep)
	stop := make(chan struct{})
	var last atomic.Int64
	done := make(chan struct{})
	go func() { defer close(done); seqWriter(r.Addr, stop, &last) }()
	// Until the replica streams (a master in diskless mode starts the
	// stream at the replica's next ACK) and has a part of the history.
	for deadline := time.Now().Add(30 * time.Second); last.Load() < 2000 || rep.Do("LLEN", "seq").Int < 1000; {
		if time.Now().After(deadline) {
			t.Fatal("the replica did not receive 1000 transactions in 30s")
		}
		time.Sleep(time.Millisecond)
	}
	r.Stop() // SIGKILL
	close(stop)
	<-done
	n := checkSeq(t, rep)
	if n == 0 || n > last.Load()+1 {
		t.Fatalf("the replica has %d transactions; the master acknowledged %d", n, last.Load())
	}
	t.Logf("master killed after %d acknowledged transactions; the replica has %d", last.Load(), n)
	if v := rep.Do("REPLICAOF", "NO", "ONE"); v.Str != "OK" {
		t.Fatal(v)
	}
	if v := rep.Do("RPUSH", "seq", strconv.FormatInt(n+1, 10)); v.Kind == resp.KindError {
		t.Fatal(v)
	}
}

// TestLiveMigrationRecipe is README's recipe: an ordo-server replica of a
// redis-server taking writes; clients paused, the offsets match; REPLICAOF
// NO ONE; every key (with its TTL) is on the ordo-server, which takes the
// writes from then on.
func TestLiveMigrationRecipe(t *testing.T) {
	r := redistest.StartRedis(t, "--repl-diskless-sync-delay", "0")
	m := redistest.Dial(t, r.Addr)
	writeAll(t, m, "data:")
	for i := 0; i < 20000; i += 500 {
		args := []string{"MSET"}
		for j := i; j < i+500; j++ {
			args = append(args, "bulk:"+strconv.Itoa(j), strconv.Itoa(j))
		}
		m.Do(args...)
	}
	stop := make(chan struct{})
	var last atomic.Int64
	done := make(chan struct{})
	go func() { defer close(done); seqWriter(r.Addr, stop, &last) }()
	o := redistest.StartOrdo(t)
	oc := redistest.Dial(t, o.Addr)
	// 1. Attach.
	replicaOf(t, oc, r.Addr)
	waitLinkUp(t, oc)
	for target := last.Load() + 500; last.Load() < target; {
		time.Sleep(time.Millisecond)
	}
	// 2. Pause the clients (here: stop the writer), wait for the offsets.
	close(stop)
	<-done
	waitSynced(t, m, oc)
	// 3. Promote, and check.
	if v := oc.Do("REPLICAOF", "NO", "ONE"); v.Str != "OK" {
		t.Fatal(v)
	}
	compare(t, m, oc)
	if n := checkSeq(t, oc); n != last.Load() {
		t.Fatalf("ordo-server has %d of %d transactions", n, last.Load())
	}
	// 4. Clients switch to ordo-server.
	if v := oc.Do("SET", "after", "migration"); v.Str != "OK" {
		t.Fatal(v)
	}
}
