package lock_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo"
	"github.com/ordo-db/ordo/backend/goredis"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/lock"
)

func client(t *testing.T, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, ContextTimeoutEnabled: true,
		DialTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { c.Close() })
	return c
}

func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// backends returns one node of each kind: redis-server, ordo-server (both
// through go-redis), and the embedded database.
func backends(t *testing.T) map[string]lock.Node {
	t.Helper()
	r := redistest.StartRedis(t)
	o := redistest.StartOrdo(t)
	db, err := ordo.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return map[string]lock.Node{
		"redis":    goredis.New(client(t, r.Addr)),
		"ordo":     goredis.New(client(t, o.Addr)),
		"embedded": db.Backend(),
	}
}

// generous per-node timeout: the test machine is shared and busy.
const nodeTimeout = 500 * time.Millisecond

// TestMutualExclusion: many goroutines take the lock in turn; a shared
// counter of holders must never exceed one.
func TestMutualExclusion(t *testing.T) {
	for name, node := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t, 30*time.Second)
			m := lock.New(node, "mutex", lock.Options{TTL: 5 * time.Second, NodeTimeout: nodeTimeout,
				Retries: 10000, RetryDelay: 2 * time.Millisecond})
			var inside, maxInside, total atomic.Int64
			var wg sync.WaitGroup
			const workers, rounds = 16, 10
			errs := make(chan error, workers)
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < rounds; i++ {
						l, err := m.Lock(ctx)
						if err != nil {
							errs <- err
							return
						}
						n := inside.Add(1)
						if n > maxInside.Load() {
							maxInside.Store(n)
						}
						time.Sleep(100 * time.Microsecond)
						total.Add(1)
						inside.Add(-1)
						if err := l.Release(ctx); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if maxInside.Load() != 1 || total.Load() != workers*rounds {
				t.Fatalf("max holders at once %d (want 1), critical sections %d", maxInside.Load(), total.Load())
			}
		})
	}
}

// TestExpiryAndTokens: a lease runs out by itself; then the old holder can
// neither release nor extend the new holder's lock.
func TestExpiryAndTokens(t *testing.T) {
	for name, node := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			o := lock.Options{TTL: 200 * time.Millisecond, NodeTimeout: nodeTimeout, Retries: -1}
			a, b := lock.New(node, "res", o), lock.New(node, "res", o)
			la, err := a.TryLock(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if v := la.Validity(); v <= 0 || v > 200*time.Millisecond {
				t.Fatalf("validity %v", v)
			}
			if _, err := b.TryLock(ctx); !errors.Is(err, lock.ErrNotAcquired) {
				t.Fatalf("second holder: %v", err)
			}
			time.Sleep(300 * time.Millisecond)
			lb, err := b.TryLock(ctx)
			if err != nil {
				t.Fatalf("after expiry: %v", err)
			}
			if err := la.Release(ctx); !errors.Is(err, lock.ErrNotHeld) {
				t.Fatalf("stale release: %v", err)
			}
			if err := la.Extend(ctx); !errors.Is(err, lock.ErrNotHeld) {
				t.Fatalf("stale extend: %v", err)
			}
			// b still holds it: a third party cannot get it.
			if _, err := a.TryLock(ctx); !errors.Is(err, lock.ErrNotAcquired) {
				t.Fatalf("lock free after a stale release: %v", err)
			}
			if err := lb.Extend(ctx); err != nil {
				t.Fatal(err)
			}
			if err := lb.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if err := lb.Release(ctx); !errors.Is(err, lock.ErrNotHeld) {
				t.Fatalf("double release: %v", err)
			}
		})
	}
}

// TestRetry: Lock waits for a lock released by its holder.
func TestRetry(t *testing.T) {
	r := redistest.StartRedis(t)
	node := goredis.New(client(t, r.Addr))
	ctx := testCtx(t, 10*time.Second)
	o := lock.Options{TTL: 10 * time.Second, NodeTimeout: nodeTimeout, Retries: 50, RetryDelay: 20 * time.Millisecond}
	l, err := lock.New(node, "k", o).Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(100*time.Millisecond, func() { l.Release(context.Background()) })
	start := time.Now()
	l2, err := lock.New(node, "k", o).Lock(ctx)
	if err != nil || time.Since(start) < 90*time.Millisecond {
		t.Fatalf("%v after %v", err, time.Since(start))
	}
	l2.Release(ctx)
	// Bounded retries give up.
	l3, _ := lock.New(node, "k", o).Lock(ctx)
	o.Retries, o.RetryDelay = 2, 10*time.Millisecond
	start = time.Now()
	if _, err := lock.New(node, "k", o).Lock(ctx); !errors.Is(err, lock.ErrNotAcquired) || time.Since(start) > 2*time.Second {
		t.Fatalf("%v after %v", err, time.Since(start))
	}
	l3.Release(ctx)
}

// redlockNodes starts n redis-servers.
func redlockNodes(t *testing.T, n int) ([]*redistest.Redis, []lock.Node, []*redis.Client) {
	var servers []*redistest.Redis
	var nodes []lock.Node
	var clients []*redis.Client
	for i := 0; i < n; i++ {
		r := redistest.StartRedis(t)
		c := client(t, r.Addr)
		servers, nodes, clients = append(servers, r), append(nodes, goredis.New(c)), append(clients, c)
	}
	return servers, nodes, clients
}

func exists(ctx context.Context, c *redis.Client, key string) int64 {
	n, _ := c.Exists(ctx, key).Result()
	return n
}

// TestRedlockQuorum: 5 nodes; with 2 stopped the lock is acquired, with 3
// stopped it is not and what was taken is given back.
func TestRedlockQuorum(t *testing.T) {
	servers, nodes, clients := redlockNodes(t, 5)
	ctx := testCtx(t, 20*time.Second)
	o := lock.Options{TTL: 5 * time.Second, NodeTimeout: nodeTimeout, Retries: -1}
	m := lock.NewRedlock(nodes, "redlock", o)

	l, err := m.TryLock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range clients {
		if exists(ctx, c, "redlock") != 1 {
			t.Fatalf("node %d has no lock key", i)
		}
	}
	if _, err := lock.NewRedlock(nodes, "redlock", o).TryLock(ctx); !errors.Is(err, lock.ErrNotAcquired) {
		t.Fatalf("second holder: %v", err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}

	servers[0].Stop()
	servers[1].Stop()
	l, err = m.TryLock(ctx)
	if err != nil {
		t.Fatalf("3 of 5 up: %v", err)
	}
	if v := l.Validity(); v < 5*time.Second-nodeTimeout-100*time.Millisecond-52*time.Millisecond || v > 5*time.Second {
		t.Fatalf("validity %v", v)
	}
	if err := l.Extend(ctx); err != nil {
		t.Fatalf("extend on 3 of 5: %v", err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}

	servers[2].Stop()
	start := time.Now()
	_, err = m.TryLock(ctx)
	var ne *lock.NodeError
	if !errors.Is(err, lock.ErrNotAcquired) || !errors.As(err, &ne) || ne.Acquired != 2 || ne.Needed != 3 {
		t.Fatalf("2 of 5 up: %v", err)
	}
	if el := time.Since(start); el > 3*nodeTimeout {
		t.Fatalf("attempt took %v", el)
	}
	for _, c := range clients[3:] {
		if exists(ctx, c, "redlock") != 0 {
			t.Fatal("lock key left behind on a live node after a failed attempt")
		}
	}
}

// TestRedlockUnresponsiveNode: nodes that accept connections but never
// answer cost at most the per-node timeout.
func TestRedlockUnresponsiveNode(t *testing.T) {
	_, nodes, _ := redlockNodes(t, 3)
	for i := 0; i < 2; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				t.Cleanup(func() { c.Close() })
			}
		}()
		nodes = append(nodes, goredis.New(client(t, ln.Addr().String())))
	}
	ctx := testCtx(t, 10*time.Second)
	const timeout = 150 * time.Millisecond
	m := lock.NewRedlock(nodes, "slow", lock.Options{TTL: 2 * time.Second, NodeTimeout: timeout, Retries: -1})
	start := time.Now()
	l, err := m.TryLock(ctx)
	el := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if el < timeout || el > timeout+time.Second {
		t.Fatalf("acquisition took %v (node timeout %v)", el, timeout)
	}
	// validity = ttl - elapsed - drift
	if v := l.Validity(); v > 2*time.Second-timeout-22*time.Millisecond {
		t.Fatalf("validity %v does not account for the elapsed time", v)
	}
	l.Release(ctx)
}

// TestRedlockMixed runs Redlock over redis-server and ordo-server nodes.
func TestRedlockMixed(t *testing.T) {
	_, nodes, _ := redlockNodes(t, 2)
	for i := 0; i < 3; i++ {
		o := redistest.StartOrdo(t)
		nodes = append(nodes, goredis.New(client(t, o.Addr)))
	}
	ctx := testCtx(t, 20*time.Second)
	m := lock.NewRedlock(nodes, "mixed", lock.Options{TTL: 5 * time.Second, NodeTimeout: nodeTimeout,
		Retries: 10000, RetryDelay: 2 * time.Millisecond, FenceKey: "mixed:fence"})
	var inside, bad atomic.Int64
	var last atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				l, err := m.Lock(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				if inside.Add(1) != 1 {
					bad.Add(1)
				}
				if l.Fence() <= last.Load() {
					bad.Add(1)
				}
				last.Store(l.Fence())
				inside.Add(-1)
				l.Release(ctx)
			}
		}()
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Fatalf("%d overlaps or non-increasing fencing tokens", bad.Load())
	}
}

// TestKeepAlive: the lease outlives its TTL while extended, and is free
// right after Release.
func TestKeepAlive(t *testing.T) {
	for name, node := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			o := lock.Options{TTL: 300 * time.Millisecond, NodeTimeout: nodeTimeout / 5, Retries: -1}
			m := lock.New(node, "kept", o)
			l, err := m.TryLock(ctx)
			if err != nil {
				t.Fatal(err)
			}
			lost := l.KeepAlive(ctx)
			if l.KeepAlive(ctx) != lost {
				t.Fatal("KeepAlive twice gave two channels")
			}
			for i := 0; i < 5; i++ { // 1 s: more than three TTLs
				time.Sleep(200 * time.Millisecond)
				if _, err := m.TryLock(ctx); !errors.Is(err, lock.ErrNotAcquired) {
					t.Fatalf("lock free after %d ms while kept alive: %v", 200*(i+1), err)
				}
			}
			if l.Validity() <= 0 {
				t.Fatal("validity not renewed")
			}
			if err := l.Release(ctx); err != nil {
				t.Fatal(err)
			}
			select {
			case err, ok := <-lost:
				if ok {
					t.Fatalf("loss reported after Release: %v", err)
				}
			case <-time.After(time.Second):
				t.Fatal("KeepAlive did not stop on Release")
			}
			l2, err := m.TryLock(ctx)
			if err != nil {
				t.Fatal(err)
			}
			l2.Release(ctx)
		})
	}
}

// TestKeepAliveLoss: a lease whose key is taken away is reported lost; a
// cancelled context stops extension without a loss.
func TestKeepAliveLoss(t *testing.T) {
	r := redistest.StartRedis(t)
	c := client(t, r.Addr)
	node := goredis.New(c)
	ctx := testCtx(t, 10*time.Second)
	o := lock.Options{TTL: 300 * time.Millisecond, NodeTimeout: nodeTimeout / 5, Retries: -1}
	l, err := lock.New(node, "lost", o).TryLock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lost := l.KeepAlive(ctx)
	c.Set(ctx, "lost", "someone else", 0) // e.g. a failover that lost the key, then another holder
	select {
	case err := <-lost:
		if !errors.Is(err, lock.ErrLost) || !errors.Is(err, lock.ErrNotHeld) {
			t.Fatalf("loss reported as %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("loss not reported")
	}
	if _, ok := <-lost; ok {
		t.Fatal("channel not closed after the loss")
	}

	c.Del(ctx, "lost")
	l, err = lock.New(node, "lost", o).TryLock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kctx, cancel := context.WithCancel(ctx)
	ch := l.KeepAlive(kctx)
	cancel()
	select {
	case err, ok := <-ch:
		if ok {
			t.Fatalf("cancel reported %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("KeepAlive did not stop on cancel")
	}
}

// TestFencing: tokens strictly increase, and a holder paused past its
// lease is refused by the resource.
func TestFencing(t *testing.T) {
	for name, node := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			o := lock.Options{TTL: 150 * time.Millisecond, NodeTimeout: nodeTimeout, Retries: -1, FenceKey: "file:fence"}
			m := lock.New(node, "file", o)
			var prev int64
			for i := 0; i < 5; i++ {
				l, err := m.TryLock(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if l.Fence() <= prev {
					t.Fatalf("token %d after %d", l.Fence(), prev)
				}
				prev = l.Fence()
				l.Release(ctx)
			}

			// The document's scenario: client 1 pauses, its lease expires,
			// client 2 takes the lock and writes; client 1 wakes up and
			// writes.
			var fence lock.Fence
			var file string
			write := func(token int64, data string) error {
				if err := lock.FencedSet(ctx, node, "file:data", token, data); err != nil {
					return err
				}
				return fence.Do(token, func() error { file = data; return nil })
			}
			l1, err := m.TryLock(ctx)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond) // a GC pause past the lease
			l2, err := m.TryLock(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := write(l2.Fence(), "from client 2"); err != nil {
				t.Fatal(err)
			}
			if err := write(l1.Fence(), "from client 1"); !errors.Is(err, lock.ErrStaleToken) {
				t.Fatalf("stale write: %v", err)
			}
			if err := fence.Check(l1.Fence()); !errors.Is(err, lock.ErrStaleToken) {
				t.Fatalf("stale token accepted by Fence: %v", err)
			}
			if err := write(l2.Fence(), "client 2 again"); err != nil {
				t.Fatalf("same token twice: %v", err)
			}
			if file != "client 2 again" || fence.Highest() != l2.Fence() {
				t.Fatalf("file %q, highest %d", file, fence.Highest())
			}
			l2.Release(ctx)
		})
	}
}

// TestRedlockFencingMonotonic: with Redlock each node has its own
// counter; tokens still grow when the node with the highest counter is
// gone.
func TestRedlockFencingMonotonic(t *testing.T) {
	servers, nodes, clients := redlockNodes(t, 3)
	ctx := testCtx(t, 10*time.Second)
	clients[0].Set(ctx, "f:fence", 100, 0)
	o := lock.Options{TTL: time.Second, NodeTimeout: nodeTimeout, Retries: -1, FenceKey: "f:fence"}
	m := lock.NewRedlock(nodes, "f", o)
	l, err := m.TryLock(ctx)
	if err != nil || l.Fence() != 101 {
		t.Fatalf("%v, token %d", err, l.Fence())
	}
	l.Release(ctx)
	servers[0].Stop()
	l, err = m.TryLock(ctx)
	if err != nil || l.Fence() != 102 {
		t.Fatalf("%v, token %d (want 102: counters written back)", err, l.Fence())
	}
	l.Release(ctx)
}
