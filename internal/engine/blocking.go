package engine

import (
	"context"
	"math"
	"math/big"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

// Waiter is a client blocked in BLPOP, BRPOP, BLMOVE, BZPOPMIN ... It is
// queued on each of its keys; clients are served in the order they
// blocked, as Redis does.
type Waiter struct {
	Keys [][]byte
	// Deadline is the unix ms at which to time out; 0 waits forever.
	Deadline int64
	// Serve tries to complete the command for the client (under the lock,
	// right after the command that made a key ready). It sees c.Args as a
	// private copy of the blocked command's arguments. It writes the reply
	// and returns true, or returns false and writes nothing; what it
	// changes it must log with c.Propagate.
	Serve func(c *Ctx) bool
	// ReadyKey is the key that received data, set before each call of
	// Serve (one of Keys). Redis serves a client blocked on several keys
	// from the key that became ready, which need not be the first one
	// holding data (MULTI; RPUSH b x; RPUSH a y; EXEC serves BLPOP a b
	// with b).
	ReadyKey []byte
	// Timeout writes the reply for a timed-out wait (a null array if nil).
	Timeout func(w *resp.Writer)

	args   [][]byte
	client *Client
	db     int
	// w is the waiter's own reply buffer: Serve and Timeout write there
	// under the lock, and Wait moves the reply to out (the writer given
	// to Call) in the waiting goroutine. Writing to out directly would
	// race with the caller, which flushes out after Call returns.
	w      *resp.Writer
	out    *resp.Writer
	done   chan struct{}
	served bool
	// postponed: the command waits for CLIENT PAUSE to end and runs
	// then (pause.go); next is the wait it began when it blocked.
	postponed bool
	next      *Waiter
}

type blockKey struct {
	db  int
	key string
}

// maxWaitMs bounds a timer: longer deadlines wait forever (a Duration
// of more than ~292 years would overflow).
const maxWaitMs = 1 << 40

// Wait blocks until wt is served, times out, or ctx ends, with the engine
// lock NOT held; the reply is written to w (the same writer given to
// Call). A wait cut short by ctx writes nothing and returns ctx's error.
func (e *Engine) Wait(ctx context.Context, wt *Waiter) error {
	var timer <-chan time.Time
	if wt.Deadline > 0 {
		if d := wt.Deadline - NowMs(); d < maxWaitMs {
			t := time.NewTimer(time.Duration(d) * time.Millisecond)
			defer t.Stop()
			timer = t.C
		}
	}
	select {
	case <-wt.done:
	case <-timer:
		e.Lock()
		if !wt.served {
			e.removeWaiter(wt)
			if wt.Timeout != nil {
				wt.Timeout(wt.w)
			} else {
				wt.w.NullArray()
			}
			wt.client.handoff(wt.w)
		}
		e.Unlock()
	case <-ctx.Done():
		e.Lock()
		served := wt.served
		if !served {
			e.removeWaiter(wt)
		}
		e.Unlock()
		if !served {
			return ctx.Err()
		}
	case <-e.closed:
		e.Lock()
		served := wt.served
		if !served {
			e.removeWaiter(wt)
		}
		e.Unlock()
		if !served {
			return ErrClosed
		}
	}
	if wt.next != nil {
		// A command held by CLIENT PAUSE ran when the pause ended, and
		// blocked (pause.go): its reply comes from that wait.
		if err := e.Wait(ctx, wt.next); err != nil {
			return err
		}
	}
	// Served or timed out: wt.w is no longer written by anyone.
	wt.out.Append(wt.w)
	return nil
}

// enqueue registers a waiter; called by Call's caller path via Ctx.Block.
func (e *Engine) enqueue(c *Ctx, wt *Waiter) {
	wt.args = make([][]byte, len(c.Args))
	for i, a := range c.Args {
		wt.args[i] = append([]byte{}, a...) // never nil: "" is a key too
	}
	keys := make([][]byte, len(wt.Keys))
	for i, k := range wt.Keys {
		keys[i] = append([]byte(nil), k...)
	}
	wt.Keys = keys
	wt.client = c.Client
	wt.db = c.DB.ID
	wt.out = c.W
	wt.w = c.W.Sub()
	wt.done = make(chan struct{})
	for _, k := range wt.Keys {
		bk := blockKey{c.DB.ID, string(k)}
		e.blocked[bk] = append(e.blocked[bk], wt)
	}
	c.Client.waiter = wt
}

func (e *Engine) removeWaiter(wt *Waiter) {
	if wt.postponed {
		e.removePostponed(wt)
	}
	for _, k := range wt.Keys {
		bk := blockKey{wt.db, string(k)}
		list := e.blocked[bk]
		for i, x := range list {
			if x == wt {
				list = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(e.blocked, bk)
		} else {
			e.blocked[bk] = list
		}
	}
	if wt.client != nil && wt.client.waiter == wt {
		wt.client.waiter = nil
	}
}

// serveReady serves blocked clients on the keys made ready by the last
// command, in blocking order, until no ready key is left (serving one
// client may make another key ready, as BLMOVE does).
func (e *Engine) serveReady() {
	for len(e.readyKeys) > 0 {
		keys := e.readyKeys
		e.readyKeys = nil
		clear(e.readySet)
		for _, bk := range keys {
			for {
				list := e.blocked[bk]
				if len(list) == 0 {
					break
				}
				progressed := false
				for _, wt := range list {
					wt.ReadyKey = nil
					for _, k := range wt.Keys {
						if string(k) == bk.key {
							wt.ReadyKey = k
							break
						}
					}
					c := Ctx{E: e, Client: wt.client, DB: e.dbs[bk.db], W: wt.w, Args: wt.args,
						Cmd: e.cmds.Lookup(wt.args), Now: NowMs(), NoBlock: true}
					wt.client.curW = wt.w
					served, ok := e.serve(wt, &c)
					wt.client.curW = nil
					if served {
						wt.served = true
						wt.client.handoff(wt.w)
						e.removeWaiter(wt)
						close(wt.done)
						if ok {
							e.finishServe(&c)
						}
						progressed = true
						break
					}
				}
				if !progressed {
					break
				}
			}
		}
	}
}

// serve calls wt.Serve; a Serve that panics is contained as a handler
// is (invoke): the waiter is answered with an error, ending its wait
// (served true, ok false).
func (e *Engine) serve(wt *Waiter, c *Ctx) (served, ok bool) {
	start := c.W.Len()
	defer func() {
		if !ok {
			e.contain(c, start, recover())
			served = true
		}
	}()
	return wt.Serve(c), true
}

// finishServe propagates what a served waiter changed.
func (e *Engine) finishServe(c *Ctx) {
	if c.dirty > 0 {
		e.dirty += c.dirty
		if e.Propagate != nil {
			for _, p := range c.prop {
				e.Propagate(c.DB.ID, p)
			}
		}
	}
}

// BlockTimeout parses a blocking command's timeout (seconds, may be
// fractional) into an absolute deadline in unix ms (0 = forever).
func (c *Ctx) BlockTimeout(i int) (int64, bool) {
	ms, errMsg := parseBlockTimeout(c.Args[i])
	if errMsg != "" {
		c.W.Error(errMsg)
		return 0, false
	}
	if ms == 0 {
		return 0, true
	}
	if ms > math.MaxInt64-c.Now {
		return math.MaxInt64, true
	}
	return c.Now + ms, true
}

// parseBlockTimeout is Redis 7.0's getTimeoutFromObjectOrReply in
// seconds: strtold (hex accepted, "inf" too), then (long long)
// ceill(x*1000), where a value beyond the range of long long becomes
// LLONG_MIN and so "timeout is negative"; -0.0001 rounds up to 0
// (forever), 0.0001 to 1 ms.
func parseBlockTimeout(b []byte) (int64, string) {
	if len(b) == 0 || isSpaceByte(b[0]) {
		return 0, ErrTimeout
	}
	body := b
	if body[0] == '+' || body[0] == '-' {
		body = body[1:]
	}
	if len(body) == 0 {
		return 0, ErrTimeout
	}
	switch {
	case EqualFold(body, "inf"), EqualFold(body, "infinity"):
		return 0, ErrTimeoutNegative
	case body[0] == '+' || body[0] == '-':
		return 0, ErrTimeout
	case len(body) > 1 && body[0] == '0' && (body[1]|0x20 == 'b' || body[1]|0x20 == 'o'):
		return 0, ErrTimeout
	}
	for _, ch := range body {
		if ch == '_' || ch == 'n' || ch == 'N' || isSpaceByte(ch) {
			return 0, ErrTimeout // no NaN, no digit separators, no trailing space
		}
	}
	f, _, err := big.ParseFloat(string(b), 0, 64, big.ToNearestEven)
	if err != nil {
		return 0, ErrTimeout
	}
	if f.Sign() != 0 {
		// strtold's range (x87 long double): overflow and underflow to 0 fail.
		if exp := f.MantExp(nil); exp > 16384 || exp < -16445 {
			return 0, ErrTimeout
		}
	}
	f.Mul(f, big.NewFloat(1000))
	n, acc := f.Int64()
	if f.Sign() > 0 && acc == big.Below {
		if n == math.MaxInt64 {
			return 0, ErrTimeoutNegative
		}
		n++ // ceil
	}
	if f.Sign() < 0 && n == math.MinInt64 || n < 0 {
		return 0, ErrTimeoutNegative
	}
	return n, ""
}

// Unblock ends cl's blocking wait as CLIENT UNBLOCK does: with the
// command's timeout reply, or with Redis's UNBLOCKED error if withError.
// It reports whether cl was blocked. The lock must be held.
func (e *Engine) Unblock(cl *Client, withError bool) bool {
	wt := cl.waiter
	if wt == nil || wt.postponed { // CLIENT UNBLOCK does not end a pause
		return false
	}
	e.removeWaiter(wt)
	switch {
	case withError:
		wt.w.Error("UNBLOCKED client unblocked via CLIENT UNBLOCK")
	case wt.Timeout != nil:
		wt.Timeout(wt.w)
	default:
		wt.w.NullArray()
	}
	wt.served = true
	close(wt.done)
	return true
}
