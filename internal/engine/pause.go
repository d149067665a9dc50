package engine

import (
	"math"
	"slices"
	"time"
)

// CLIENT PAUSE and CLIENT UNPAUSE, as Redis 7.0 (networking.c's
// pauseClients): while a pause lasts, the commands it covers (every
// command in ALL mode; in WRITE mode those that may write or replicate:
// write commands, EVAL/EVALSHA/FCALL, PUBLISH, and EXEC of a transaction
// holding one; a script's declared flags decide for it, as Redis's
// getCommandFlags: a no-writes script or function runs, one declared
// without no-writes waits even through EVAL_RO/FCALL_RO) wait before they run, MULTI queueing included, and run in
// arrival order when the pause ends (its timeout, or UNPAUSE). A waiting
// command is a Waiter without keys: the client shows flag b, and
// disconnecting drops it. As in Redis, the dataset stays still meanwhile:
// expired keys read as missing but are not deleted, and nothing is
// evicted.

const (
	pauseOff = iota
	pauseWrite
	pauseAll
)

type pauseState struct {
	typ     int
	end     int64     // unix ms
	waiters []*Waiter // held commands, in arrival order
	ready   []*Waiter // released, to run (runUnpaused)
	running bool      // runUnpaused is running them
	timer   *time.Timer
	// failover: FAILOVER's write pause (Redis's PAUSE_DURING_FAILOVER),
	// in force until SetFailoverPause(false) whatever CLIENT PAUSE and
	// UNPAUSE do meanwhile.
	failover bool
}

// SetFailoverPause starts or ends FAILOVER's pause of writes (the lock
// held): commands CLIENT PAUSE WRITE holds wait until it ends. Ending it
// ends a CLIENT PAUSE given meanwhile too.
func (e *Engine) SetFailoverPause(on bool) {
	p := &e.pause
	p.failover = on
	if on {
		p.typ, p.end = max(p.typ, pauseWrite), math.MaxInt64
		return
	}
	e.unpause()
	if e.current == nil { // else Call runs them after the current command
		e.runUnpaused()
	}
}

// paused reports whether a pause is in force at now (and ends one that
// expired). Under the lock.
func (e *Engine) paused(now int64) bool {
	p := &e.pause
	if p.typ == pauseOff {
		return false
	}
	if p.end < now {
		e.unpause()
		e.runUnpaused()
		return false
	}
	return true
}

// pauseCovers reports whether cmd must wait for the pause to end.
func (e *Engine) pauseCovers(cl *Client, cmd *Command, args [][]byte, now int64) bool {
	if cl.Kind != "normal" && cl.Kind != "embedded" || cl.replLink || !e.paused(now) {
		return false
	}
	if e.pause.typ == pauseAll {
		return true
	}
	if cmd.callFlags(e, args)&(FlagWrite|FlagMayReplicate) != 0 {
		return true
	}
	if cmd.Name == "exec" && cl.multi {
		for _, q := range cl.multiQueue {
			if q.cmd.callFlags(e, q.args)&(FlagWrite|FlagMayReplicate) != 0 {
				return true
			}
		}
	}
	return false
}

// callFlags is cmd's flags for args (Command.CallFlags).
func (cmd *Command) callFlags(e *Engine, args [][]byte) Flag {
	if cmd.CallFlags != nil {
		return cmd.CallFlags(e, args)
	}
	return cmd.Flags
}

// postpone makes c's command wait for the end of the pause, when unpause
// runs it.
func (e *Engine) postpone(c *Ctx) *Waiter {
	wt := &Waiter{postponed: true}
	wt.args = make([][]byte, len(c.Args))
	for i, a := range c.Args {
		wt.args[i] = append([]byte{}, a...)
	}
	wt.client = c.Client
	wt.db = c.Client.DB
	wt.out = c.W
	wt.w = c.W.Sub()
	wt.done = make(chan struct{})
	c.Client.waiter = wt
	e.pause.waiters = append(e.pause.waiters, wt)
	return wt
}

// unpause ends the pause; the waiting commands run at the next point
// where a command may start (runUnpaused).
func (e *Engine) unpause() {
	p := &e.pause
	p.typ, p.end = pauseOff, 0
	if p.failover {
		// FAILOVER's write pause outlasts CLIENT PAUSE: the commands
		// released below that write are held again when they run.
		p.typ, p.end = pauseWrite, math.MaxInt64
	}
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	p.ready = append(p.ready, p.waiters...)
	p.waiters = nil
}

// runUnpaused runs the commands a pause held, in arrival order, each as
// its client's next command (a blocking one may block then). Under the
// lock, between commands.
func (e *Engine) runUnpaused() {
	p := &e.pause
	if p.running {
		return
	}
	p.running = true
	defer func() { p.running = false }()
	for len(p.ready) > 0 {
		wt := p.ready[0]
		p.ready = p.ready[1:]
		cl := wt.client
		if cl.waiter == wt {
			cl.waiter = nil
		}
		if nw := e.Call(cl, wt.args, wt.w); nw != nil {
			wt.next = nw
		} else {
			cl.handoff(wt.w)
		}
		wt.served = true
		close(wt.done)
	}
	p.ready = nil
}

// pausedNow reports whether a pause is in force, without ending an
// expired one (for checks inside a command).
func (e *Engine) pausedNow(now int64) bool {
	return e.pause.typ != pauseOff && e.pause.end >= now
}

// removePostponed forgets a waiting command (its client left).
func (e *Engine) removePostponed(wt *Waiter) {
	p := &e.pause
	p.waiters = slices.DeleteFunc(p.waiters, func(x *Waiter) bool { return x == wt })
	p.ready = slices.DeleteFunc(p.ready, func(x *Waiter) bool { return x == wt })
}

func clientPauseCommand(c *Ctx) {
	typ := pauseAll
	if len(c.Args) == 4 {
		switch {
		case c.ArgIs(3, "write"):
			typ = pauseWrite
		case c.ArgIs(3, "all"):
		default:
			c.W.Error("ERR CLIENT PAUSE mode must be WRITE or ALL")
			return
		}
	}
	ms, ok := ParseInt(c.Args[2])
	if !ok {
		c.W.Error("ERR timeout is not an integer or out of range")
		return
	}
	if ms < 0 {
		c.W.Error("ERR timeout is negative")
		return
	}
	now := NowMs()
	end := int64(0)
	if ms > 0 {
		end = ms + now
	}
	e := c.E
	p := &e.pause
	if p.typ == pauseOff {
		p.typ, p.end = typ, end
	} else {
		p.typ, p.end = max(p.typ, typ), max(p.end, end)
	}
	// The pause ends by itself at its deadline, as Redis's cron notices.
	if p.timer != nil {
		p.timer.Stop()
	}
	if d := p.end - now; d < maxWaitMs {
		p.timer = time.AfterFunc(time.Duration(d+1)*time.Millisecond, func() {
			e.Lock()
			e.paused(NowMs())
			e.Unlock()
		})
	}
	c.W.OK()
}
