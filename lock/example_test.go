package lock_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo"
	"github.com/ordo-db/ordo/backend/goredis"
	"github.com/ordo-db/ordo/lock"
)

func openDB() (*ordo.DB, func()) {
	dir, _ := os.MkdirTemp("", "lock-example")
	db, err := ordo.Open(dir, nil)
	if err != nil {
		panic(err)
	}
	return db, func() { db.Close(); os.RemoveAll(dir) }
}

// A single-instance lock: SET key token NX PX ttl, released only by its
// holder.
func Example() {
	db, done := openDB()
	defer done()
	ctx := context.Background()

	m := lock.New(db.Backend(), "lock:invoice:42", lock.Options{TTL: 10 * time.Second})
	l, err := m.Lock(ctx)
	if err != nil {
		fmt.Println("busy:", err)
		return
	}
	// ... work on invoice 42, for less than l.Validity() ...
	_, err = m.TryLock(ctx) // someone else
	fmt.Println("second holder:", err)
	fmt.Println("release:", l.Release(ctx))
	fmt.Println("release again:", l.Release(ctx))
	// Output:
	// second holder: lock: not acquired
	// release: <nil>
	// release again: lock: not held (expired or taken by another holder)
}

// Redlock over five independent servers (not replicas): the lock is held
// when three of them granted it in time.
func Example_redlock() {
	ctx := context.Background()
	var nodes []lock.Node
	for _, addr := range []string{"10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379", "10.0.0.4:6379", "10.0.0.5:6379"} {
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, ContextTimeoutEnabled: true})
		nodes = append(nodes, goredis.New(c))
	}
	m := lock.NewRedlock(nodes, "lock:report", lock.Options{
		TTL:         30 * time.Second,
		NodeTimeout: 50 * time.Millisecond, // small against the TTL
		Retries:     5,                     // after a random 100-200 ms each
	})
	l, err := m.Lock(ctx)
	if err != nil {
		fmt.Println("not acquired:", err)
		return
	}
	defer l.Release(ctx)
	fmt.Println("held for at most", l.Validity().Round(time.Second))
}

// KeepAlive extends the lease while the holder works, and tells it when
// the lock is lost.
func ExampleLease_KeepAlive() {
	db, done := openDB()
	defer done()
	ctx := context.Background()

	m := lock.New(db.Backend(), "lock:job", lock.Options{TTL: 300 * time.Millisecond})
	l, err := m.TryLock(ctx)
	if err != nil {
		panic(err)
	}
	lost := l.KeepAlive(ctx)
	work := time.After(time.Second) // longer than the TTL
	select {
	case <-work:
		fmt.Println("work done, still holding:", l.Validity() > 0)
	case err := <-lost:
		fmt.Println("stop working:", err)
		return
	}
	l.Release(ctx)
	_, open := <-lost
	fmt.Println("keep-alive stopped:", !open)
	// Output:
	// work done, still holding: true
	// keep-alive stopped: true
}

// Context ends when the lease does: do the protected work under it, and
// it stops when the lease can have passed to the next holder.
func ExampleLease_Context() {
	db, done := openDB()
	defer done()
	ctx := context.Background()

	m := lock.New(db.Backend(), "lock:report", lock.Options{TTL: 100 * time.Millisecond})
	l, err := m.TryLock(ctx)
	if err != nil {
		panic(err)
	}
	work, cancel := l.Context(ctx)
	defer cancel()
	// No KeepAlive: the work outlives the lease, and is told.
	select {
	case <-work.Done():
		fmt.Println("stopped:", errors.Is(context.Cause(work), lock.ErrLost))
	case <-time.After(time.Second):
		fmt.Println("still working after the lease ended")
	}
	// Output:
	// stopped: true
}

// Fencing tokens: a client paused past its lease cannot overwrite the
// work of the next holder, because the resource checks the token.
func ExampleFence() {
	db, done := openDB()
	defer done()
	ctx := context.Background()
	node := db.Backend()

	m := lock.New(node, "lock:file", lock.Options{TTL: 100 * time.Millisecond, FenceKey: "lock:file:fence"})
	var storage lock.Fence // the protected resource keeps the highest token seen
	file := ""
	write := func(token int64, data string) error {
		return storage.Do(token, func() error { file = data; return nil })
	}

	c1, _ := m.TryLock(ctx)
	time.Sleep(150 * time.Millisecond) // client 1 pauses (GC, VM migration): its lease expires
	c2, _ := m.TryLock(ctx)
	fmt.Println("client 2, token", c2.Fence(), write(c2.Fence(), "from client 2"))
	err := write(c1.Fence(), "from client 1") // client 1 wakes up
	fmt.Println("client 1, token", c1.Fence(), err, errors.Is(err, lock.ErrStaleToken))
	fmt.Println("file:", file)

	// The same check done by the server, atomically with the write.
	fmt.Println(lock.FencedSet(ctx, node, "file", c2.Fence(), "v2"))
	fmt.Println(lock.FencedSet(ctx, node, "file", c1.Fence(), "v1"))
	// Output:
	// client 2, token 2 <nil>
	// client 1, token 1 lock: stale fencing token true
	// file: from client 2
	// <nil>
	// lock: stale fencing token
}
