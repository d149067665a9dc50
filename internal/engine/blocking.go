package engine

import (
	"context"
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
	// Timeout writes the reply for a timed-out wait (usually a null array).
	Timeout func(w *resp.Writer)

	args   [][]byte
	client *Client
	db     int
	w      *resp.Writer
	done   chan struct{}
	served bool
}

type blockKey struct {
	db  int
	key string
}

// Wait blocks until wt is served, times out, or ctx ends, with the engine
// lock NOT held; the reply is written to w (the same writer given to
// Call). A wait cut short by ctx writes nothing and returns ctx's error.
func (e *Engine) Wait(ctx context.Context, wt *Waiter) error {
	var timer <-chan time.Time
	if wt.Deadline > 0 {
		t := time.NewTimer(time.Duration(wt.Deadline-NowMs()) * time.Millisecond)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-wt.done:
		return nil
	case <-timer:
		e.Lock()
		if !wt.served {
			e.removeWaiter(wt)
			wt.Timeout(wt.w)
		}
		e.Unlock()
		return nil
	case <-ctx.Done():
		e.Lock()
		served := wt.served
		if !served {
			e.removeWaiter(wt)
		}
		e.Unlock()
		if served {
			return nil
		}
		return ctx.Err()
	}
}

// enqueue registers a waiter; called by Call's caller path via Ctx.Block.
func (e *Engine) enqueue(c *Ctx, wt *Waiter) {
	wt.args = make([][]byte, len(c.Args))
	for i, a := range c.Args {
		wt.args[i] = append([]byte(nil), a...)
	}
	keys := make([][]byte, len(wt.Keys))
	for i, k := range wt.Keys {
		keys[i] = append([]byte(nil), k...)
	}
	wt.Keys = keys
	wt.client = c.Client
	wt.db = c.DB.ID
	wt.w = c.W
	wt.done = make(chan struct{})
	for _, k := range wt.Keys {
		bk := blockKey{c.DB.ID, string(k)}
		e.blocked[bk] = append(e.blocked[bk], wt)
	}
	c.Client.waiter = wt
}

func (e *Engine) removeWaiter(wt *Waiter) {
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
					c := Ctx{E: e, Client: wt.client, DB: e.dbs[bk.db], W: wt.w, Args: wt.args,
						Cmd: Lookup(wt.args), Now: NowMs(), NoBlock: true}
					if wt.Serve(&c) {
						wt.served = true
						e.removeWaiter(wt)
						close(wt.done)
						e.finishServe(&c)
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
	f, ok := parseFloatArg(c.Args[i])
	if !ok {
		c.W.Error(ErrTimeout)
		return 0, false
	}
	if f < 0 {
		c.W.Error(ErrTimeoutNegative)
		return 0, false
	}
	ms := int64(f * 1000)
	if ms == 0 {
		return 0, true
	}
	return c.Now + ms, true
}
