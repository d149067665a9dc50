// Package lock implements distributed locks on Redis-compatible servers:
// a single-instance lock, Redlock over N independent nodes, automatic
// lease extension, and fencing tokens.
//
// # Single instance
//
// New(node, key, opts) locks with
//
//	SET key token NX PX ttl
//
// where token is 16 random bytes unique to this acquisition. Release and
// Extend act only if the key still holds that token, atomically, in Lua:
//
//	if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end
//
// and the same with PEXPIRE for Extend, so a holder whose lease ran out
// can never delete or prolong the lock of the next holder.
//
// # Redlock
//
// NewRedlock(nodes, key, opts) runs the Redlock algorithm over N
// independent nodes (not replicas of each other): it sends the lock
// command to every node at once, each with a small timeout (NodeTimeout,
// 50 ms by default, so a dead node cannot stall acquisition), and holds
// the lock when a majority (N/2+1) said yes and time is left:
//
//	validity = ttl - elapsed - drift,   drift = ttl*0.01 + 2ms
//
// Otherwise it releases the lock on every node (also the ones that did not
// answer in time: their yes may arrive late) and, in Lock, retries after a
// random delay, a bounded number of times. The single-instance lock is
// Redlock with N = 1.
//
// # Beyond the documents
//
// Lease.KeepAlive extends the lease every ttl/3 while the holder lives
// and reports loss of the lock (the key expired or was taken, or no
// majority could be reached before the lease ran out) on a channel; it
// stops on Release or when its context ends. A holder that dies stops
// extending and the lock frees itself after at most ttl.
//
// Lease.Done is closed the moment the lease's validity ends on the local
// clock unless an extension reached a majority in time (and on Release),
// and Lease.Context gives a context cancelled then. A holder that does its
// work under that context, or checks Done, never overlaps with the next
// holder, even when it is cut off from every node by a network that drops
// its packets (no answer, no error) while KeepAlive waits on them: the
// deadline is a local timer, not a reply. KeepAlive's channel reports that
// loss at the same moment.
//
// With Options.FenceKey set, the script that acquires also INCRs a
// counter and returns it as Lease.Fence: a fencing token that only
// grows. The protected resource remembers the highest token it has seen
// and rejects writes carrying a lower one (Fence, FencedSet). With
// Redlock, each node keeps its own counter; the token is the largest
// counter among the nodes acquired, and before the lease is handed out it
// is written back to those nodes (never lowering a counter), so since any
// two majorities share a node, a later holder's token is higher.
//
// # Limits, honestly
//
// A lock that expires by itself cannot be safe on time alone:
//
//   - Process pauses. A holder can stop for longer than its lease (GC
//     pause, VM migration or suspend, swapping, a long system call) and
//     then act, believing it still holds the lock, after another client
//     has acquired it. No check before the write can prevent this (the
//     pause can come right after the check). KeepAlive does not help: it
//     is paused too. Validity only tells how long the lock was held as
//     seen at acquisition.
//   - Clock drift. Expiry runs on each server's clock; Redlock assumes
//     clocks advance at about the same rate everywhere (the drift
//     allowance covers 1%). A server whose clock jumps forward (NTP
//     step, manual change) expires the key early, and two clients can
//     then each hold a majority: A on nodes 1,2,3, node 3 jumps ahead,
//     B on nodes 3,4,5.
//   - Restarts. A node that restarts without having written the lock key
//     to disk (no AOF, or appendfsync everysec losing the last second)
//     forgets it, and can grant the lock again: with Redlock that can give
//     two majorities, as above. Run nodes with appendfsync always, or keep
//     a restarted node out of service for longer than the longest ttl
//     (delayed restarts). The same holds for fencing counters: a counter
//     lost in a restart breaks the "only grows" promise, so they too need
//     durable storage.
//   - Replication. A replica promoted after its master crashed may not
//     have received the lock key: failover does not make a single-instance
//     lock safe. Redlock uses independent nodes for this reason.
//
// Fencing tokens are what makes a lock safe against pauses and expiry:
// the resource itself rejects the late holder's stale token, whatever the
// holder believes. Redlock alone cannot provide that guarantee, since it
// has no ordering between holders. But the token check must be done by the
// resource, atomically with the write (FencedSet does it in one script),
// and the counters must survive restarts. Without a resource that checks
// tokens, use these locks for efficiency (avoiding duplicate work), not
// for correctness.
//
// # Backends
//
// A lock runs on backend.Backend values: goredis.New(client) (package
// github.com/ordo-db/ordo/backend/goredis) for ordo-server, Redis or
// Valkey through go-redis (standalone or cluster: the lock key and its
// fence key must then share a hash slot, e.g. "{order:42}" and
// "{order:42}:fence"), db.Backend() for the embedded database (package
// github.com/ordo-db/ordo). For the per-node timeout to bound the socket
// too, create go-redis clients with ContextTimeoutEnabled: true, and
// MaxRetries: -1 (a dead node is not worth retrying within one attempt).
//
// # Dependencies
//
// This package imports only github.com/ordo-db/ordo/backend, which
// imports only the standard library: a program that uses lock over
// go-redis links lock, backend, backend/goredis and go-redis, not the
// embedded engine or its Lua interpreter (a test checks this with go list
// -deps). Measured with Go 1.26 on linux/amd64, a program that takes and
// releases a lock over go-redis (testdata/sizes/lockgoredis) is 10.9 MB
// (10,896,064 bytes), 6.8% more than the same work with go-redis alone
// (testdata/sizes/goredisonly, SET NX PX and a release script: 10,203,959
// bytes); TestBinarySize keeps that under 10%. When lock still imported
// the embedded database, the first program was 15.1 MB (+48%).
package lock

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/ordo-db/ordo/backend"
)

// Node is one server the lock runs on: it runs Lua scripts. Every
// backend.Backend is a Node.
type Node interface {
	Eval(ctx context.Context, s *backend.Script, keys []string, args ...any) (any, error)
}

var (
	// ErrNotAcquired: the lock is held by someone else (or a majority of
	// nodes could not be reached in time).
	ErrNotAcquired = errors.New("lock: not acquired")
	// ErrNotHeld: release or extend found the key gone or holding
	// another token (the lease ran out).
	ErrNotHeld = errors.New("lock: not held (expired or taken by another holder)")
	// ErrLost is reported by KeepAlive when the lease could not be kept.
	ErrLost = errors.New("lock: lease lost")
	// ErrStaleToken is a write refused by a Fence or FencedSet.
	ErrStaleToken = errors.New("lock: stale fencing token")
)

// Options tune a lock. Zero values take the defaults.
type Options struct {
	TTL         time.Duration // lease time (default 10s)
	NodeTimeout time.Duration // per node and attempt (default 50ms, at most TTL/10)
	Retries     int           // Lock's retries after the first attempt (default 3; negative: none)
	RetryDelay  time.Duration // retries wait a random time in [RetryDelay/2, RetryDelay] (default 200ms)
	DriftFactor float64       // clock drift allowance as a fraction of TTL (default 0.01; 2ms are added)
	// FenceKey, when set, is a counter INCRed by the script that acquires:
	// its value is the lease's fencing token.
	FenceKey string
}

func (o *Options) defaults() {
	if o.TTL <= 0 {
		o.TTL = 10 * time.Second
	}
	if o.NodeTimeout <= 0 {
		o.NodeTimeout = 50 * time.Millisecond
		if o.NodeTimeout > o.TTL/10 {
			o.NodeTimeout = o.TTL / 10
		}
	}
	if o.Retries == 0 {
		o.Retries = 3
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = 200 * time.Millisecond
	}
	if o.DriftFactor <= 0 {
		o.DriftFactor = 0.01
	}
}

// Mutex is a lock on one key, on one node or (Redlock) a majority of N.
type Mutex struct {
	nodes  []Node
	key    string
	o      Options
	quorum int
}

// New returns a single-instance lock on key.
func New(node Node, key string, o Options) *Mutex {
	return NewRedlock([]Node{node}, key, o)
}

// NewRedlock returns a Redlock lock on key over independent nodes.
func NewRedlock(nodes []Node, key string, o Options) *Mutex {
	if len(nodes) == 0 {
		panic("lock: no nodes")
	}
	o.defaults()
	return &Mutex{nodes: nodes, key: key, o: o, quorum: len(nodes)/2 + 1}
}

// Key returns the lock's key.
func (m *Mutex) Key() string { return m.key }

var (
	acquireScript = backend.NewScript(`if redis.call("exists", KEYS[1]) == 1 then return 0 end
local f = 1
if #KEYS > 1 then f = redis.call("incr", KEYS[2]) end
redis.call("set", KEYS[1], ARGV[1], "PX", ARGV[2])
return f`)
	releaseScript = backend.NewScript(`if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end`)
	extendScript = backend.NewScript(`if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("pexpire",KEYS[1],ARGV[2])
else
    return 0
end`)
	raiseScript = backend.NewScript(`local c = tonumber(redis.call("get", KEYS[1]) or "0")
if c < tonumber(ARGV[1]) then redis.call("set", KEYS[1], ARGV[1]) end
return 1`)
)

type nodeResult struct {
	v   int64
	err error
}

// onAll runs f on every node at once and waits for each at most
// NodeTimeout (or until ctx ends).
func (m *Mutex) onAll(ctx context.Context, only []bool, f func(ctx context.Context, n Node) (any, error)) []nodeResult {
	res := make([]nodeResult, len(m.nodes))
	ch := make(chan struct {
		i int
		r nodeResult
	}, len(m.nodes))
	ctx, cancel := context.WithTimeout(ctx, m.o.NodeTimeout)
	defer cancel()
	pending := 0
	for i, n := range m.nodes {
		if only != nil && !only[i] {
			res[i].err = errSkipped
			continue
		}
		pending++
		go func() {
			v, err := f(ctx, n)
			r := nodeResult{err: err}
			if err == nil {
				r.v, r.err = toInt(v)
			}
			ch <- struct {
				i int
				r nodeResult
			}{i, r}
		}()
		res[i].err = context.DeadlineExceeded
	}
	for ; pending > 0; pending-- {
		select {
		case x := <-ch:
			res[x.i] = x.r
		case <-ctx.Done():
			return res // the late ones keep their timeout error
		}
	}
	return res
}

var errSkipped = errors.New("lock: node not involved")

func toInt(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case string:
		return strconv.ParseInt(x, 10, 64)
	case nil:
		return 0, nil
	}
	return 0, fmt.Errorf("lock: unexpected reply %T", v)
}

func (m *Mutex) drift() time.Duration {
	return time.Duration(float64(m.o.TTL)*m.o.DriftFactor) + 2*time.Millisecond
}

func (m *Mutex) keys() []string {
	if m.o.FenceKey != "" {
		return []string{m.key, m.o.FenceKey}
	}
	return []string{m.key}
}

func newToken() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// NodeError collects the nodes' errors of a failed attempt.
type NodeError struct {
	Acquired int // nodes that granted the lock
	Needed   int // the quorum
	Errs     []error
}

func (e *NodeError) Error() string {
	s := fmt.Sprintf("lock: %d of %d nodes needed", e.Acquired, e.Needed)
	for _, err := range e.Errs {
		if err != nil {
			s += "; " + err.Error()
			break
		}
	}
	return s
}

func (e *NodeError) Unwrap() error { return ErrNotAcquired }

// TryLock makes one attempt. It returns ErrNotAcquired (possibly wrapped
// in a *NodeError telling what the nodes said) when the lock is not
// obtained, after releasing whatever part of it was.
func (m *Mutex) TryLock(ctx context.Context) (*Lease, error) {
	token := newToken()
	ttl := strconv.FormatInt(m.o.TTL.Milliseconds(), 10)
	keys := m.keys()
	start := time.Now()
	res := m.onAll(ctx, nil, func(ctx context.Context, n Node) (any, error) {
		return n.Eval(ctx, acquireScript, keys, token, ttl)
	})
	got := make([]bool, len(m.nodes))
	acquired := 0
	var fence int64
	var errs []error
	for i, r := range res {
		if r.err == nil && r.v > 0 {
			got[i] = true
			acquired++
			fence = max(fence, r.v)
		}
		errs = append(errs, r.err)
	}
	if acquired >= m.quorum && m.o.FenceKey != "" && len(m.nodes) > 1 {
		// Write the token back to the acquired nodes so that any later
		// majority (which shares a node with this one) counts above it.
		f := strconv.FormatInt(fence, 10)
		rr := m.onAll(ctx, got, func(ctx context.Context, n Node) (any, error) {
			return n.Eval(ctx, raiseScript, []string{m.o.FenceKey}, f)
		})
		for i, r := range rr {
			if got[i] && r.err != nil {
				got[i] = false
				acquired--
			}
		}
	}
	validity := m.o.TTL - time.Since(start) - m.drift()
	if acquired >= m.quorum && validity > 0 {
		if m.o.FenceKey == "" {
			fence = 0
		}
		return newLease(m, token, fence, start.Add(m.o.TTL-m.drift())), nil
	}
	m.releaseAll(context.WithoutCancel(ctx), token)
	if acquired == 0 && allZero(res) {
		return nil, ErrNotAcquired
	}
	return nil, &NodeError{Acquired: acquired, Needed: m.quorum, Errs: errs}
}

func allZero(res []nodeResult) bool {
	for _, r := range res {
		if r.err != nil {
			return false
		}
	}
	return true
}

// Lock tries to acquire, retrying after a random delay up to Retries
// times; it gives up early when ctx ends.
func (m *Mutex) Lock(ctx context.Context) (*Lease, error) {
	for attempt := 0; ; attempt++ {
		l, err := m.TryLock(ctx)
		if err == nil || !errors.Is(err, ErrNotAcquired) || attempt >= m.o.Retries {
			return l, err
		}
		d := m.o.RetryDelay/2 + time.Duration(mrand.Int64N(int64(m.o.RetryDelay/2)+1))
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// releaseAll deletes the key where it holds token; it returns the number
// of nodes that deleted it and whether every node answered.
func (m *Mutex) releaseAll(ctx context.Context, token string) (int, []nodeResult) {
	res := m.onAll(ctx, nil, func(ctx context.Context, n Node) (any, error) {
		return n.Eval(ctx, releaseScript, []string{m.key}, token)
	})
	n := 0
	for _, r := range res {
		if r.err == nil && r.v == 1 {
			n++
		}
	}
	return n, res
}

// Lease is a held lock.
type Lease struct {
	m     *Mutex
	token string
	fence int64

	mu       sync.Mutex
	until    time.Time // end of validity on the local clock
	released bool
	ended    bool          // validity ran out or released: done is closed
	done     chan struct{} // closed when the lease ends
	timer    *time.Timer   // fires at until
	stop     chan struct{}
	keep     <-chan error
}

// errLapsed is the loss of a lease whose validity ran out on the local
// clock before an extension reached a majority.
var errLapsed = fmt.Errorf("%w: %w: its validity ran out before an extension reached a majority", ErrLost, ErrNotHeld)

func newLease(m *Mutex, token string, fence int64, until time.Time) *Lease {
	l := &Lease{m: m, token: token, fence: fence, until: until, stop: make(chan struct{}), done: make(chan struct{})}
	l.mu.Lock() // the timer may fire before it is stored
	l.timer = time.AfterFunc(time.Until(until), l.deadline)
	l.mu.Unlock()
	return l
}

// deadline runs when the validity known at the last arming ends.
func (l *Lease) deadline() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return
	}
	if left := time.Until(l.until); left > 0 { // extended while the timer fired
		l.timer.Reset(left)
		return
	}
	l.endLocked()
}

func (l *Lease) endLocked() {
	if !l.ended {
		l.ended = true
		l.timer.Stop()
		close(l.done)
	}
}

// Done returns a channel closed when the lease ends: at the end of its
// validity on the local clock (ValidUntil) unless an extension reached a
// majority before then, or on Release. Once closed it stays closed: work
// protected by the lock must stop.
func (l *Lease) Done() <-chan struct{} { return l.done }

// Context returns a context derived from parent that is cancelled when the
// lease ends (Done), with cause ErrLost unless the lease was released. Do
// the protected work under it.
func (l *Lease) Context(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	go func() {
		select {
		case <-l.done:
			l.mu.Lock()
			released := l.released
			l.mu.Unlock()
			if released {
				cancel(context.Canceled)
			} else {
				cancel(errLapsed)
			}
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(context.Canceled) }
}

// Key returns the locked key.
func (l *Lease) Key() string { return l.m.key }

// Token returns the random value stored in the key.
func (l *Lease) Token() string { return l.token }

// Fence returns the fencing token (0 without Options.FenceKey). Pass it
// to the protected resource with every write.
func (l *Lease) Fence() int64 { return l.fence }

// ValidUntil returns when the lease ends on the local clock, as known at
// the last acquisition or extension (minus the drift allowance).
func (l *Lease) ValidUntil() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.until
}

// Validity returns the time left on the lease.
func (l *Lease) Validity() time.Duration { return time.Until(l.ValidUntil()) }

// Extend sets the lease back to the full TTL on the nodes where the key
// still holds this lease's token. It returns ErrNotHeld when a majority
// is out of reach because the key is gone or taken, another error when
// nodes failed to answer (the lease may still be valid until ValidUntil).
// A lease that has ended (Done is closed) cannot be extended: that error
// wraps ErrLost and ErrNotHeld.
func (l *Lease) Extend(ctx context.Context) error {
	m := l.m
	l.mu.Lock()
	ended := l.ended
	l.mu.Unlock()
	if ended {
		return errLapsed
	}
	ttl := strconv.FormatInt(m.o.TTL.Milliseconds(), 10)
	start := time.Now()
	res := m.onAll(ctx, nil, func(ctx context.Context, n Node) (any, error) {
		return n.Eval(ctx, extendScript, []string{m.key}, l.token, ttl)
	})
	ok, refused := 0, 0
	var errs []error
	for _, r := range res {
		switch {
		case r.err != nil:
			errs = append(errs, r.err)
		case r.v == 1:
			ok++
		default:
			refused++
		}
	}
	if ok >= m.quorum && m.o.TTL-time.Since(start)-m.drift() > 0 {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.ended {
			// The validity ran out while the nodes answered: the holder has
			// been told to stop, and stays stopped.
			return errLapsed
		}
		l.until = start.Add(m.o.TTL - m.drift())
		l.timer.Reset(time.Until(l.until))
		return nil
	}
	if refused > len(m.nodes)-m.quorum {
		return ErrNotHeld
	}
	return &NodeError{Acquired: ok, Needed: m.quorum, Errs: errs}
}

// Release deletes the lock where it still holds this lease's token, and
// stops KeepAlive. It returns ErrNotHeld when no node held it any more
// (the lease had run out), another error when nodes did not answer.
func (l *Lease) Release(ctx context.Context) error {
	l.mu.Lock()
	if !l.released {
		l.released = true
		close(l.stop)
	}
	l.endLocked()
	l.mu.Unlock()
	n, res := l.m.releaseAll(ctx, l.token)
	if n > 0 {
		return nil
	}
	var errs []error
	for _, r := range res {
		if r.err != nil {
			errs = append(errs, r.err)
		}
	}
	if len(errs) == 0 {
		return ErrNotHeld
	}
	return &NodeError{Needed: l.m.quorum, Errs: errs}
}

// KeepAlive extends the lease every TTL/3 until Release or until ctx
// ends; then the returned channel is closed. If the lease is lost (the key
// expired or was taken, or no majority answered before the lease ran
// out), the channel receives an error wrapping ErrLost first, and
// extension stops: the holder must stop using the resource. A lease whose
// validity runs out is reported at that moment (when Done closes), not
// when the unanswered extension gives up. Calling KeepAlive again returns
// the same channel.
func (l *Lease) KeepAlive(ctx context.Context) <-chan error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.keep != nil {
		return l.keep
	}
	ch := make(chan error, 1)
	l.keep = ch
	if l.released {
		close(ch)
		return ch
	}
	go l.keepAlive(ctx, ch)
	return ch
}

func (l *Lease) keepAlive(ctx context.Context, ch chan<- error) {
	defer close(ch)
	interval := l.m.o.TTL / 3
	retry := max(interval/4, time.Millisecond)
	t := time.NewTimer(interval)
	defer t.Stop()
	// Extensions run under a context that ends with the lease, so a
	// request into a network that drops packets is abandoned the moment
	// the validity ends.
	ectx, cancel := l.Context(ctx)
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.stop:
			return
		case <-l.done:
			l.lost(ch, errLapsed)
			return
		case <-t.C:
		}
		err := l.Extend(ectx)
		switch {
		case err == nil:
			t.Reset(interval)
		case ctx.Err() != nil:
			return
		case errors.Is(err, ErrNotHeld):
			l.lost(ch, err)
			return
		case time.Now().After(l.ValidUntil()):
			l.lost(ch, errLapsed)
			return
		default:
			t.Reset(retry) // nodes did not answer: try again while time is left
		}
	}
}

func (l *Lease) lost(ch chan<- error, cause error) {
	select {
	case <-l.stop: // released meanwhile: not a loss
		return
	default:
	}
	ch <- fmt.Errorf("%w: %w", ErrLost, cause)
}
