package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

// Scripts hold the engine lock for their whole run, so a client that
// arrives while a script runs past busy-reply-threshold must be answered
// without the lock: LockOrBusy does that for the server, using the
// engine's ScriptRun, which internal/script marks (Begin, End) and gives
// its SCRIPT KILL (SetKill). The ScriptRun exists from the engine's
// start: the first EVAL, which makes the scripting state, is no
// different from the others.
//
// A connection that finds the lock taken never blocks on the mutex
// itself (it could not be answered BUSY from there, should the holder be
// or become a script): it queues on the ScriptRun and sleeps until one
// of three things happens. Unlock wakes the first queued connection,
// which tries the lock again; Begin (a script starting under the lock)
// wakes them all, so that each one now sleeps at most until the script
// crosses the threshold; the threshold passing, which makes it answer
// BUSY. So a command that reaches the server at any instant of a
// script's run, even between the EVAL taking the lock and the script
// registering as running, is answered BUSY once the script is past the
// threshold. The uncontended path is one TryLock, and Unlock costs one
// atomic load more when no one is queued.

// ErrBusyScript is Redis 7.0's reply to commands refused during a busy script.
const ErrBusyScript = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."

// ErrBusyFunction is the reply while the busy script is a function (FCALL).
const ErrBusyFunction = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."

// ScriptRun is the state of the running script that other connections
// read without the engine lock.
type ScriptRun struct {
	start  atomic.Int64 // unix ns when the running script started; 0 when none runs
	queued atomic.Int32 // len(waiters), read by Unlock without mu

	mu      sync.Mutex
	kill    func(function bool) string // see SetKill
	fn      atomic.Bool                // the running script is a function
	waiters []chan struct{}
}

// SetKill sets what SCRIPT KILL (function false) and FUNCTION KILL
// (function true) call while a script is past the threshold: without the
// engine lock but under the ScriptRun's own (so it must not block); it
// returns "" (reply OK) or an error reply.
func (r *ScriptRun) SetKill(kill func(function bool) string) {
	r.mu.Lock()
	r.kill = kill
	r.mu.Unlock()
}

// Begin marks the start of a script at unixMs (under the engine lock)
// and wakes every queued connection: they queued without a deadline,
// when the lock holder was not yet running a script.
func (r *ScriptRun) Begin(unixMs int64) {
	r.mu.Lock()
	r.start.Store(unixMs * int64(time.Millisecond))
	for _, ch := range r.waiters {
		close(ch)
	}
	clear(r.waiters)
	r.waiters = r.waiters[:0]
	r.queued.Store(0)
	r.mu.Unlock()
}

// SetFunction tells whether the script about to Begin is a function
// (FCALL): other commands then get ErrBusyFunction.
func (r *ScriptRun) SetFunction(fn bool) { r.fn.Store(fn) }

// End marks the end of the script (under the engine lock; the Unlock
// that follows wakes the next queued connection).
func (r *ScriptRun) End() {
	r.mu.Lock()
	r.start.Store(0)
	r.mu.Unlock()
}

// enqueue adds a waiter (under r.mu).
func (r *ScriptRun) enqueue() chan struct{} {
	ch := make(chan struct{})
	r.waiters = append(r.waiters, ch)
	r.queued.Store(int32(len(r.waiters)))
	return ch
}

// wakeOne wakes the first waiter (under r.mu).
func (r *ScriptRun) wakeOne() {
	if len(r.waiters) > 0 {
		close(r.waiters[0])
		r.waiters[0] = nil
		r.waiters = r.waiters[1:]
		r.queued.Store(int32(len(r.waiters)))
	}
}

// remove takes ch out of the queue if it is still there (a waiter that
// stopped waiting on its own: timer, or lock taken).
func (r *ScriptRun) remove(ch chan struct{}) {
	r.mu.Lock()
	for i, w := range r.waiters {
		if w == ch {
			r.waiters = append(r.waiters[:i:i], r.waiters[i+1:]...)
			r.queued.Store(int32(len(r.waiters)))
			break
		}
	}
	r.mu.Unlock()
}

// ScriptRun is the engine's running-script state (see LockOrBusy).
func (e *Engine) ScriptRun() *ScriptRun { return &e.scriptRun }

// Lock takes the engine lock; every Call must happen while it is held.
func (e *Engine) Lock() { e.mu.Lock() }

// Unlock releases the engine lock and wakes the first connection queued
// in LockOrBusy.
func (e *Engine) Unlock() {
	if e.trk.bcastKeys {
		// BCAST invalidations go out once per batch, as Redis sends
		// them once per event-loop turn (tracking.go).
		e.broadcastInvalidations()
	}
	e.clock.ok = false // the next holder reads the clock afresh (Call)
	e.mu.Unlock()
	// Paired with LockOrBusy's enqueue-then-TryLock: either this load
	// sees the waiter queued, or the waiter's TryLock sees the lock free.
	if r := &e.scriptRun; r.queued.Load() > 0 {
		r.mu.Lock()
		r.wakeOne()
		r.mu.Unlock()
	}
}

// LockOrBusy takes the engine lock to execute args for cl, as Lock does,
// unless a script holds the lock past busy-reply-threshold: then it
// answers args itself without the lock (BUSY, or SCRIPT KILL) and
// returns false.
func (e *Engine) LockOrBusy(cl *Client, args [][]byte, w *resp.Writer) bool {
	if e.mu.TryLock() {
		return true
	}
	r := &e.scriptRun
	for {
		r.mu.Lock()
		var wait time.Duration // 0: until woken
		limit := time.Duration(e.Config.Int("busy-reply-threshold")) * time.Millisecond
		if start := r.start.Load(); start != 0 && limit > 0 {
			elapsed := time.Duration(time.Now().UnixNano() - start)
			if elapsed >= limit {
				// Answered under r.mu: the script cannot end meanwhile, so
				// SCRIPT KILL kills the script that was seen busy.
				answered := e.answerBusy(cl, args, w, r)
				r.mu.Unlock()
				if answered {
					return false
				}
				e.mu.Lock()
				return true
			}
			wait = limit - elapsed
		}
		ch := r.enqueue()
		r.mu.Unlock()
		// The lock may have been released before this connection was
		// queued, by an Unlock that saw no one to wake.
		if e.mu.TryLock() {
			r.remove(ch)
			return true
		}
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ch:
			case <-t.C:
				r.remove(ch)
			}
			t.Stop()
		} else {
			<-ch
		}
		if e.mu.TryLock() {
			return true
		}
	}
}

// answerBusy replies to a command that arrives while a script is busy,
// as Redis's processCommand does; it returns false when the command must
// instead wait for the lock (allow_busy commands other than SCRIPT KILL).
func (e *Engine) answerBusy(cl *Client, args [][]byte, w *resp.Writer, r *ScriptRun) bool {
	reject := func(msg string) bool {
		if cl.multi {
			cl.multiErr = true
		}
		w.Error(msg)
		e.Stats.TotalErrorReplies.Add(1)
		return true
	}
	cmd := e.cmds.Lookup(args)
	switch {
	case cmd == nil:
		return reject(unknownCommand(args))
	case !checkArity(cmd, len(args)):
		return reject("ERR wrong number of arguments for '" + cmd.Name + "' command")
	case !cl.Authenticated && !cmd.Has(FlagNoAuth):
		return reject(ErrNoAuth)
	case (cmd.Name == "script|kill" || cmd.Name == "function|kill") && r.kill != nil:
		if msg := r.kill(cmd.Name == "function|kill"); msg != "" {
			return reject(msg)
		}
		w.OK()
		return true
	case cmd.Has(FlagAllowBusy):
		return false
	}
	if r.fn.Load() {
		return reject(ErrBusyFunction)
	}
	return reject(ErrBusyScript)
}
