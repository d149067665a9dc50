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
// ScriptRun that internal/script registers with SetScriptRun.
//
// A connection that finds the lock taken by a running script does not
// block on the mutex (it could not be answered BUSY from there): it
// queues on the ScriptRun and sleeps until the script ends (the script's
// End wakes one waiter, which wakes the next if no script runs) or until
// the script crosses the threshold. Connections that find the lock taken
// by anything else block on the mutex as usual, so the uncontended path
// is one TryLock and ordinary contention costs nothing more.

// ErrBusyScript is Redis 7.0's reply to commands refused during a busy script.
const ErrBusyScript = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."

// ScriptRun is the state of the running script that other connections
// read without the engine lock.
type ScriptRun struct {
	start atomic.Int64 // unix ns when the running script started; 0 when none runs
	// Kill is called by SCRIPT KILL while a script is past the threshold,
	// without the engine lock but under the ScriptRun's own (so it must
	// not block); it returns "" (reply OK) or an error reply.
	Kill func() string

	mu      sync.Mutex
	waiters []chan struct{}
}

// Begin marks the start of a script at unixMs (under the engine lock).
func (r *ScriptRun) Begin(unixMs int64) { r.start.Store(unixMs * int64(time.Millisecond)) }

// End marks the end of the script (under the engine lock) and wakes one
// waiting connection.
func (r *ScriptRun) End() {
	r.mu.Lock()
	r.start.Store(0)
	r.wakeOne()
	r.mu.Unlock()
}

func (r *ScriptRun) wakeOne() {
	if len(r.waiters) > 0 {
		close(r.waiters[0])
		r.waiters[0] = nil
		r.waiters = r.waiters[1:]
	}
}

func (r *ScriptRun) remove(ch chan struct{}) {
	r.mu.Lock()
	for i, w := range r.waiters {
		if w == ch {
			r.waiters = append(r.waiters[:i:i], r.waiters[i+1:]...)
			break
		}
	}
	r.mu.Unlock()
}

// SetScriptRun registers the script state of the engine (once, under the lock).
func (e *Engine) SetScriptRun(r *ScriptRun) { e.scriptRun.Store(r) }

// LockOrBusy takes the engine lock to execute args for cl, as Lock does,
// unless a script holds the lock past busy-reply-threshold: then it
// answers args itself without the lock (BUSY, or SCRIPT KILL) and
// returns false.
func (e *Engine) LockOrBusy(cl *Client, args [][]byte, w *resp.Writer) bool {
	if e.mu.TryLock() {
		return true
	}
	r := e.scriptRun.Load()
	if r == nil {
		e.mu.Lock()
		return true
	}
	for {
		r.mu.Lock()
		start := r.start.Load()
		if start == 0 {
			// No script runs: let the next queued connection go too.
			r.wakeOne()
			r.mu.Unlock()
			e.mu.Lock()
			return true
		}
		limit := time.Duration(e.Config.Int("busy-reply-threshold")) * time.Millisecond
		elapsed := time.Duration(time.Now().UnixNano() - start)
		if limit <= 0 {
			r.mu.Unlock()
			e.mu.Lock()
			return true
		}
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
		ch := make(chan struct{})
		r.waiters = append(r.waiters, ch)
		r.mu.Unlock()
		t := time.NewTimer(limit - elapsed)
		select {
		case <-ch:
			t.Stop()
		case <-t.C:
			r.remove(ch)
		}
		if e.mu.TryLock() {
			// Pass the wake-up along: if this connection's command is not a
			// script, no End will come to wake the connections queued behind
			// it, and they would sleep until busy-reply-threshold.
			r.mu.Lock()
			if r.start.Load() == 0 {
				r.wakeOne()
			}
			r.mu.Unlock()
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
	case cmd.Name == "script|kill":
		if msg := r.Kill(); msg != "" {
			return reject(msg)
		}
		w.OK()
		return true
	case cmd.Has(FlagAllowBusy):
		return false
	}
	return reject(ErrBusyScript)
}
