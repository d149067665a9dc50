package lock_test

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordo-db/ordo/backend/goredis"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/lock"
)

// Proxy modes: pass traffic, drop it (connections stay open, bytes vanish:
// requests get no answer and no error), or refuse (connections are closed
// and new ones reset).
const (
	pass int32 = iota
	drop
	refuse
)

// proxy stands between a lock holder and one node, so that the test can
// cut the holder off while the node stays up for everyone else.
type proxy struct {
	ln     net.Listener
	target string
	mode   atomic.Int32
	mu     sync.Mutex
	conns  []net.Conn
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.closeAll() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if p.mode.Load() == refuse {
				c.Close()
				continue
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			go p.pump(u, c)
			go p.pump(c, u)
		}
	}()
	return p
}

// pump copies src to dst while passing; while dropping, it reads and
// discards, as a network that loses every packet.
func (p *proxy) pump(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && p.mode.Load() == pass {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				dst.Close()
			}
			return
		}
	}
}

func (p *proxy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) set(mode int32) {
	p.mode.Store(mode)
	if mode == refuse {
		p.closeAll()
	}
}

// TestLeaseEndsBeforeNextHolder: a Redlock holder that keeps its lease
// with KeepAlive and is then cut off from every node (packets dropped, or
// connections refused; the nodes stay up) learns that its lease may be
// lost (Done, its Context, KeepAlive's channel) no later than the next
// holder gets the lock, on redis-server and on ordo-server alike.
func TestLeaseEndsBeforeNextHolder(t *testing.T) {
	for _, kind := range []string{"redis", "ordo"} {
		for _, mode := range []int32{drop, refuse} {
			name := kind + map[int32]string{drop: "/drop", refuse: "/refuse"}[mode]
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				var direct, cut []lock.Node
				var proxies []*proxy
				for i := 0; i < 3; i++ {
					var addr string
					if kind == "redis" {
						addr = redistest.StartRedis(t).Addr
					} else {
						addr = redistest.StartOrdo(t).Addr
					}
					p := startProxy(t, addr)
					proxies = append(proxies, p)
					direct = append(direct, goredis.New(client(t, addr)))
					cut = append(cut, goredis.New(client(t, p.ln.Addr().String())))
				}
				ctx := testCtx(t, 20*time.Second)
				// A drift allowance (92 ms) well above this busy machine's timer
				// and scheduling delays: the guarantee is about the lease's end,
				// the margin about the test host. A node timeout above it: a
				// holder that learns of the loss only when an unanswered
				// extension gives up learns it too late.
				o := lock.Options{TTL: 600 * time.Millisecond, NodeTimeout: 250 * time.Millisecond,
					DriftFactor: 0.15, Retries: -1}
				holder, err := lock.NewRedlock(cut, "job", o).TryLock(ctx)
				if err != nil {
					t.Fatal(err)
				}
				lost := holder.KeepAlive(ctx)
				work, cancelWork := holder.Context(ctx)
				defer cancelWork()

				var doneAt, lostAt, workAt atomic.Int64
				var lostErr atomic.Value
				go func() { <-holder.Done(); doneAt.Store(time.Now().UnixNano()) }()
				go func() { <-work.Done(); workAt.Store(time.Now().UnixNano()) }()
				go func() {
					if err, ok := <-lost; ok {
						lostErr.Store(err)
						lostAt.Store(time.Now().UnixNano())
					}
				}()

				time.Sleep(450 * time.Millisecond) // KeepAlive extended the lease once (at 200 ms)
				select {
				case <-holder.Done():
					t.Fatal("lease ended while the nodes answered")
				default:
				}
				for _, p := range proxies {
					p.set(mode)
				}

				next := lock.NewRedlock(direct, "job", lock.Options{TTL: time.Second, NodeTimeout: 200 * time.Millisecond, Retries: -1})
				var gotAt int64
				for i := 0; i < 2000 && gotAt == 0; i++ {
					l, err := next.TryLock(ctx)
					if err == nil {
						gotAt = time.Now().UnixNano()
						defer l.Release(context.Background())
						break
					}
					if !errors.Is(err, lock.ErrNotAcquired) {
						t.Fatal(err)
					}
					time.Sleep(2 * time.Millisecond)
				}
				if gotAt == 0 {
					t.Fatal("the next holder never got the lock")
				}
				for name, at := range map[string]int64{"Done": doneAt.Load(), "Context": workAt.Load(), "KeepAlive": lostAt.Load()} {
					switch {
					case at == 0:
						t.Errorf("%s had not told the holder when the next holder had the lock", name)
					case at > gotAt:
						t.Errorf("%s told the holder %v after the next holder had the lock", name, time.Duration(at-gotAt))
					}
				}
				if err, _ := lostErr.Load().(error); !errors.Is(err, lock.ErrLost) {
					t.Errorf("KeepAlive reported %v, want ErrLost", err)
				}
				if c := context.Cause(work); !errors.Is(c, lock.ErrLost) {
					t.Errorf("work context cause %v, want ErrLost", c)
				}
				if err := holder.Extend(ctx); !errors.Is(err, lock.ErrLost) {
					t.Errorf("Extend after the end: %v", err)
				}
			})
		}
	}
}
