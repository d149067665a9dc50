package repl_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo/internal/redistest"
)

// startSentinels starts three redis-sentinels monitoring masterAddr as
// "mymaster" with quorum 2 and short timeouts, and waits until each of
// them knows the replicas and the two other sentinels.
func startSentinels(t *testing.T, masterAddr string, replicas int) []*redistest.Sentinel {
	t.Helper()
	var ss []*redistest.Sentinel
	for range 3 {
		ss = append(ss, redistest.StartSentinel(t,
			"sentinel monitor mymaster 127.0.0.1 "+port(masterAddr)+" 2",
			"sentinel down-after-milliseconds mymaster 1000",
			"sentinel failover-timeout mymaster 4000",
			"sentinel parallel-syncs mymaster 2"))
	}
	t.Cleanup(func() {
		if t.Failed() {
			for i, s := range ss {
				t.Logf("sentinel %d log:\n%s", i, s.Log())
			}
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for _, s := range ss {
		c := redistest.Dial(t, s.Addr)
		for {
			m := sentinelMaster(c)
			if m["num-slaves"] == strconv.Itoa(replicas) && m["num-other-sentinels"] == "2" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("sentinel %s does not see the group within 30s: %v", s.Addr, m)
			}
			time.Sleep(50 * time.Millisecond)
		}
		c.Close()
	}
	return ss
}

// sentinelMaster is SENTINEL MASTER mymaster as a map.
func sentinelMaster(c *redistest.Conn) map[string]string {
	v := c.Do("SENTINEL", "MASTER", "mymaster")
	m := map[string]string{}
	for i := 0; i+1 < len(v.Elems); i += 2 {
		m[v.Elems[i].Str] = v.Elems[i+1].Str
	}
	return m
}

// waitFailover waits until every sentinel names a master other than old,
// and returns its address.
func waitFailover(t *testing.T, ss []*redistest.Sentinel, old string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var addrs []string
		for _, s := range ss {
			c := redistest.Dial(t, s.Addr)
			v := c.Do("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster")
			c.Close()
			if len(v.Elems) == 2 {
				addrs = append(addrs, v.Elems[0].Str+":"+v.Elems[1].Str)
			}
		}
		if len(addrs) == 3 && addrs[0] != old && addrs[0] == addrs[1] && addrs[1] == addrs[2] {
			return addrs[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no failover within 60s: sentinels name %v (old master %s)", addrs, old)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitRole waits until the server at addr is a replica of master with
// its link up, or a master (master == "").
func waitRole(t *testing.T, addr, master string) {
	t.Helper()
	c := redistest.Dial(t, addr)
	defer c.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		role := info(c, "role")
		if master == "" && role == "master" {
			return
		}
		if master != "" && role == "slave" && "127.0.0.1:"+info(c, "master_port") == master &&
			info(c, "master_link_status") == "up" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: role %s, master port %s, link %s; want a replica of %q", addr, role,
				info(c, "master_port"), info(c, "master_link_status"), master)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// writer writes RPUSH log <n> through a go-redis failover client, n
// counting up, until stop is closed; every write the client saw
// acknowledged is recorded, and those also confirmed by WAIT on every
// replica as durable.
type writer struct {
	durable  []int // acknowledged, then confirmed by WAIT
	acked    []int // acknowledged, not confirmed
	pending  []int // acknowledged, WAIT to come
	errs     atomic.Int64
	replicas atomic.Int64 // how many replicas WAIT waits for
}

func (w *writer) run(ctx context.Context, sentinels []string, stop <-chan struct{}) {
	c := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName:    "mymaster",
		SentinelAddrs: sentinels,
		DialTimeout:   time.Second,
		ReadTimeout:   2 * time.Second,
		WriteTimeout:  2 * time.Second,
		MaxRetries:    -1,
		// WAIT counts the replicas that have this connection's writes:
		// one connection for both.
		PoolSize: 1,
	})
	defer c.Close()
	for n := 1; ; n++ {
		select {
		case <-stop:
			return
		default:
		}
		if err := c.RPush(ctx, "log", n).Err(); err != nil {
			// The next WAIT may run on another connection, to another
			// server: it cannot confirm the writes before the error.
			w.acked = append(w.acked, w.pending...)
			w.pending = w.pending[:0]
			w.errs.Add(1)
			time.Sleep(20 * time.Millisecond)
			continue
		}
		w.pending = append(w.pending, n)
		if n%10 == 0 {
			want := w.replicas.Load()
			if got, err := c.Do(ctx, "WAIT", want, 200).Int64(); err == nil && got >= want {
				w.durable = append(w.durable, w.pending...)
			} else {
				w.acked = append(w.acked, w.pending...)
			}
			w.pending = w.pending[:0]
		}
	}
}

// checkLog compares the new master's log with what the writer saw
// acknowledged: every durable write (confirmed by WAIT) is there, and
// the writes acknowledged by the old master but not yet replicated when
// it died are the only ones that may be missing (Redis's asynchronous
// replication allows losing them).
func checkLog(t *testing.T, master *redistest.Conn, w *writer) {
	t.Helper()
	v := master.Do("LRANGE", "log", "0", "-1")
	have := map[int]int{}
	for _, e := range v.Elems {
		n, _ := strconv.Atoi(e.Str)
		have[n]++
	}
	for n, k := range have {
		if k > 1 {
			t.Errorf("write %d applied %d times", n, k)
		}
	}
	for _, n := range w.durable {
		if have[n] == 0 {
			var near []string
			for _, e := range v.Elems {
				if m, _ := strconv.Atoi(e.Str); m > n-20 && m < n+20 {
					near = append(near, e.Str)
				}
			}
			t.Fatalf("write %d was confirmed by WAIT on every replica but is lost (near: %v; durable %v)", n, near, w.durable[max(0, len(w.durable)-60):])
		}
	}
	lost := 0
	for _, n := range append(w.acked, w.pending...) {
		if have[n] == 0 {
			lost++
		}
	}
	t.Logf("writes: %d confirmed by WAIT, %d more acknowledged (%d of them lost with the old master), %d failed during the failover",
		len(w.durable), len(w.acked)+len(w.pending), lost, w.errs.Load())
	if len(w.durable) == 0 {
		t.Fatal("no write was confirmed")
	}
}

// failoverUnderLoad kills the master (stop) while a writer works through
// a go-redis failover client, waits for the sentinels to promote a
// replica and the others to follow it, and checks the writes.
func failoverUnderLoad(t *testing.T, masterAddr string, stopMaster func(), replicaAddrs []string) {
	ss := startSentinels(t, masterAddr, len(replicaAddrs))
	var saddrs []string
	for _, s := range ss {
		saddrs = append(saddrs, s.Addr)
	}
	w := &writer{}
	w.replicas.Store(int64(len(replicaAddrs)))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w.run(context.Background(), saddrs, stop)
	}()
	// Let writes reach the replicas before the master dies.
	m := redistest.Dial(t, masterAddr)
	for deadline := time.Now().Add(30 * time.Second); m.Do("LLEN", "log").Int < 200; {
		if time.Now().After(deadline) {
			t.Fatal("the writer did not write 200 entries in 30s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	m.Close()
	stopMaster()
	newAddr := waitFailover(t, ss, masterAddr)
	waitRole(t, newAddr, "")
	for _, a := range replicaAddrs {
		if a != newAddr {
			waitRole(t, a, newAddr)
		}
	}
	// From now on a write is durable once the replicas that survive
	// have it (only the new master can have enough).
	w.replicas.Store(int64(len(replicaAddrs) - 1))
	// The writer goes on writing to the new master.
	nm := redistest.Dial(t, newAddr)
	base := nm.Do("LLEN", "log").Int
	for deadline := time.Now().Add(30 * time.Second); nm.Do("LLEN", "log").Int < base+200; {
		if time.Now().After(deadline) {
			t.Fatal("the writer did not write 200 entries to the new master in 30s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()

	checkLog(t, nm, w)
	if len(replicaAddrs) > 1 {
		// The replicas that follow the promoted one continue the old
		// master's history with it: partial resyncs, no full sync.
		if full, partial := infoInt(t, nm, "stats", "sync_full"), infoInt(t, nm, "stats", "sync_partial_ok"); full != 0 || partial < int64(len(replicaAddrs)-1) {
			t.Errorf("the new master served %d full syncs and %d partial ones, want 0 and %d", full, partial, len(replicaAddrs)-1)
		}
	}
	for _, a := range replicaAddrs {
		if a != newAddr {
			r := redistest.Dial(t, a)
			waitSynced(t, nm, r)
			compare(t, nm, r)
			r.Close()
		}
	}
}

// TestSentinelFailoverOrdo: one ordo-server master and two ordo-server
// replicas monitored by three redis-sentinels; the master dies under
// writes, a replica is promoted and the other follows it.
func TestSentinelFailoverOrdo(t *testing.T) {
	redistest.RequireSentinel(t)
	master := redistest.StartOrdo(t)
	var replicas []string
	for range 2 {
		o := redistest.StartOrdo(t)
		c := redistest.Dial(t, o.Addr)
		replicaOf(t, c, master.Addr)
		waitSynced(t, redistest.Dial(t, master.Addr), c)
		replicas = append(replicas, o.Addr)
	}
	failoverUnderLoad(t, master.Addr, master.Stop, replicas)
}

// TestSentinelFailoverMixed: a redis-server master with an ordo-server
// replica fails over to the ordo-server.
func TestSentinelFailoverMixed(t *testing.T) {
	redistest.RequireSentinel(t)
	master := redistest.StartRedis(t)
	o := redistest.StartOrdo(t)
	c := redistest.Dial(t, o.Addr)
	replicaOf(t, c, master.Addr)
	waitSynced(t, redistest.Dial(t, master.Addr), c)
	failoverUnderLoad(t, master.Addr, master.Stop, []string{o.Addr})
	// Sentinel killed the normal clients when it promoted the replica.
	c = redistest.Dial(t, o.Addr)
	if v := c.Do("SET", "after", "failover"); v.Str != "OK" {
		t.Fatalf("the promoted ordo-server refuses writes: %v", v)
	}
}
