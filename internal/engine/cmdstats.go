package engine

// Per-command statistics (INFO commandstats) and the slow log (SLOWLOG),
// as Redis's call() keeps them: a command that ran counts a call, its
// microseconds and, if it answered an error, a failed call; one refused
// before running (arity, NOAUTH, NOPERM, OOM, READONLY ...) counts a
// rejected call. A command that ran for at least slowlog-log-slower-than
// microseconds (0: every command, -1: none) is logged with at most 32
// arguments of at most 128 bytes, as Redis trims them. The counters live
// on the engine's own Command entries: nothing is shared between engines.
// Commands run by EXEC and by scripts are counted in the EXEC or EVAL
// that ran them (Redis counts them one by one).

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

// cmdStats are one command's counters (engine lock held). The time is
// summed in nanoseconds and shown in microseconds: summing each call's
// whole microseconds would count a pipelined GET (about 0.2 us here) as
// 0, where Redis's microsecond clock counts the boundaries its calls
// cross, right on average.
type cmdStats struct {
	calls, ns, rejected, failed int64
}

// slowEntry is one SLOWLOG entry.
type slowEntry struct {
	id         int64
	at, usec   int64 // unix seconds, duration
	args       []string
	addr, name string
}

// slowSkip are the commands Redis never logs (CMD_SKIP_SLOWLOG), plus
// those whose arguments carry secrets (Redis logs them redacted).
var slowSkip = map[string]bool{"exec": true, "auth": true, "hello": true, "migrate": true,
	"acl|setuser": true, "config|set": true}

// cmdClock times the commands of one lock hold with one clock read per
// command: a command starts when the previous one ended (or, first in the
// hold, at a reading taken then), and its end is one monotonic reading
// (time.Since on a base carrying the monotonic clock: nanotime only, no
// wall clock). Offsets from the base are integers, so the per-command
// arithmetic is a subtraction, not time.Time's Add and UnixMilli. Reading
// the clock once per command instead of three times once cost 10-15% of a
// cheap command's CPU on the bench machine; the read left costs 60-80 ns
// there (a KVM guest), as much as a GET's own work.
type cmdClock struct {
	base   time.Time     // taken when the hold's first command started
	baseNs int64         // base in unix ns
	last   time.Duration // since base: when the last command ended
	ok     bool          // base is valid (cleared by Unlock)
}

// start returns when the next command starts, in unix ms.
func (k *cmdClock) start() int64 {
	if !k.ok {
		k.base = time.Now()
		k.baseNs = k.base.UnixNano()
		k.last = 0
		k.ok = true
	}
	return (k.baseNs + int64(k.last)) / 1e6
}

// stop ends the command start began and returns its duration.
func (k *cmdClock) stop() time.Duration {
	now := time.Since(k.base)
	d := now - k.last
	k.last = now
	return d
}

// recordNested updates the statistics after a command run inside EXEC or
// a script, which Redis's call() counts as any other (commandstats,
// total_commands_processed, SLOWLOG, LATENCY); not while replaying the
// AOF. start is where its reply began in c.W.
func (e *Engine) recordNested(c *Ctx, start int, t0 time.Time) {
	if c.Client == nil || c.Client.Kind == "aof" || c.Cmd == nil {
		return
	}
	e.Stats.Commands.Add(1)
	isErr := c.W.IsErrorAt(start)
	e.recordCall(c.Client, c.Cmd, c.Args, true, isErr, time.Since(t0))
}

// recordCall updates the statistics after Call; ran tells whether the
// command executed, isErr whether its reply was an error.
func (e *Engine) recordCall(cl *Client, cmd *Command, args [][]byte, ran, isErr bool, d time.Duration) {
	if !ran {
		if isErr {
			cmd.stats.rejected++
		}
		return
	}
	us := d.Microseconds()
	if cmd.Has(FlagFast) {
		e.LatencySample("fast-command", us/1000)
	} else {
		e.LatencySample("command", us/1000)
	}
	cmd.stats.calls++
	cmd.stats.ns += d.Nanoseconds()
	if isErr {
		cmd.stats.failed++
	}
	hs := e.Config.hot()
	limit := hs.slowlogSlower
	if limit < 0 || us < limit || slowSkip[cmd.Name] {
		return
	}
	max := hs.slowlogMax
	if max <= 0 {
		return
	}
	n := min(len(args), 32)
	ent := slowEntry{id: e.slowID, at: time.Now().Unix(), usec: us, addr: cl.Addr, name: cl.Name,
		args: make([]string, n)}
	e.slowID++
	for i := 0; i < n; i++ {
		if i == 31 && len(args) > 32 {
			ent.args[i] = "... (" + strconv.Itoa(len(args)-31) + " more arguments)"
			break
		}
		a := args[i]
		if len(a) > 128 {
			ent.args[i] = string(a[:128]) + "... (" + strconv.Itoa(len(a)-128) + " more bytes)"
		} else {
			ent.args[i] = string(a)
		}
	}
	e.slowlog = append([]slowEntry{ent}, e.slowlog...)
	if int64(len(e.slowlog)) > max {
		e.slowlog = e.slowlog[:max]
	}
}

// writeSlowlog replies to SLOWLOG GET with count entries (-1: all).
func (e *Engine) writeSlowlog(w *resp.Writer, count int64) {
	n := int64(len(e.slowlog))
	if count >= 0 && count < n {
		n = count
	}
	w.Array(int(n))
	for _, s := range e.slowlog[:n] {
		w.Array(6)
		w.Int(s.id)
		w.Int(s.at)
		w.Int(s.usec)
		w.Array(len(s.args))
		for _, a := range s.args {
			w.Bulk([]byte(a))
		}
		w.Bulk([]byte(s.addr))
		w.Bulk([]byte(s.name))
	}
}

// commandStatsLines are INFO commandstats's lines, by command name.
func (e *Engine) commandStatsLines() []string {
	var out []string
	var visit func(c *Command)
	visit = func(c *Command) {
		if s := c.stats; s.calls > 0 || s.rejected > 0 || s.failed > 0 {
			per := 0.0
			if s.calls > 0 {
				per = float64(s.ns) / 1e3 / float64(s.calls)
			}
			out = append(out, fmt.Sprintf("cmdstat_%s:calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d",
				c.Name, s.calls, s.ns/1e3, per, s.rejected, s.failed))
		}
		for _, sub := range c.Sub {
			visit(sub)
		}
	}
	for _, c := range e.cmds.cmds {
		visit(c)
	}
	sort.Strings(out)
	return out
}

// resetCommandStats is CONFIG RESETSTAT's part.
func (e *Engine) resetCommandStats() {
	var visit func(c *Command)
	visit = func(c *Command) {
		c.stats = cmdStats{}
		for _, sub := range c.Sub {
			visit(sub)
		}
	}
	for _, c := range e.cmds.cmds {
		visit(c)
	}
}
