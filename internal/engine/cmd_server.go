package engine

import (
	"strings"
	"sync/atomic"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

// Server commands: TIME, WAIT, SHUTDOWN, SLOWLOG, LATENCY, ROLE, and the
// statistics kept around every call.

func registerServer(t *Table) {
	t.register("time", func(c *Ctx) {
		now := time.Now()
		c.W.Array(2)
		c.W.BulkInt(now.Unix())
		c.W.BulkInt(int64(now.Nanosecond() / 1000))
	})
	t.register("wait", waitCommand)
	t.register("shutdown", shutdownCommand)

	t.registerContainer("slowlog")
	t.register("slowlog|get", func(c *Ctx) {
		n := int64(10)
		if len(c.Args) == 3 {
			var ok bool
			n, ok = ParseInt(c.Args[2])
			if !ok || n < -1 {
				c.W.Error(ErrSlowlogCount)
				return
			}
		}
		c.E.writeSlowlog(c.W, n)
	})
	t.register("slowlog|len", func(c *Ctx) { c.W.Int(int64(len(c.E.slowlog))) })
	t.register("slowlog|reset", func(c *Ctx) {
		c.E.slowlog = nil
		c.W.OK()
	})
	t.register("slowlog|help", func(c *Ctx) {
		helpReply(c, "SLOWLOG",
			"GET [<count>]",
			"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
			"    Entries are made of:",
			"    id, timestamp, time in microseconds, arguments array, client IP and port,",
			"    client name",
			"LEN",
			"    Return the length of the slowlog.",
			"RESET",
			"    Reset the slowlog.")
	})

	t.registerContainer("latency")
	registerLatency(t) // latency.go
	t.register("latency|histogram", func(c *Ctx) { c.W.Map(0) })
	t.register("latency|help", func(c *Ctx) {
		helpReply(c, "LATENCY",
			"DOCTOR",
			"    Return a human readable latency analysis report.",
			"GRAPH <event>",
			"    Return an ASCII latency graph for the <event> class.",
			"HISTORY <event>",
			"    Return time-latency samples for the <event> class.",
			"LATEST",
			"    Return the latest latency samples for all events.",
			"RESET [<event> ...]",
			"    Reset latency data of one or more <event> classes.",
			"    (default: reset all data for all event classes)",
			"HISTOGRAM [COMMAND ...]",
			"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
			"    If no commands are specified then all histograms are replied.")
	})

	t.register("role", func(c *Ctx) {
		if r := c.E.Replication; r != nil {
			r.Role(c.W)
			return
		}
		roleMaster(c.W)
	})
}

// Error replies of the server commands, as Redis 7.0 writes them.
const (
	ErrNoConfigFile    = "ERR The server is running without a config file"
	ErrNoSuchClient    = "ERR No such client"
	ErrClientID        = "ERR client-id should be greater than 0"
	ErrInvalidClientID = "ERR Invalid client ID"
	ErrClientName      = "ERR Client names cannot contain spaces, newlines or special characters."
	ErrInvalidCommand  = "ERR Invalid command specified"
	ErrInvalidCmdArgs  = "ERR Invalid number of arguments specified for command"
	ErrNoKeyArgs       = "ERR The command has no key arguments"
	ErrLFUNotSelected  = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
	ErrLRUNotSelected  = "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
	ErrDebugNotAllowed = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."
	ErrShutdownFailed  = "ERR Errors trying to SHUTDOWN. Check logs."
	ErrNoShutdown      = "ERR No shutdown in progress."
	ErrWaitTimeout     = "ERR timeout is not an integer or out of range"
	ErrSlowlogCount    = "ERR count should be greater than or equal to -1"
)

// helpReply writes a HELP reply as Redis's addReplyHelp does.
func helpReply(c *Ctx, name string, lines ...string) {
	c.W.Array(len(lines) + 3)
	c.W.Simple(name + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		c.W.Simple(l)
	}
	c.W.Simple("HELP")
	c.W.Simple("    Prints this help.")
}

// afterCall runs after every Call: it counts error replies and applies
// CLIENT REPLY OFF/SKIP by dropping the reply just written.
func (e *Engine) afterCall(cl *Client, w *resp.Writer, start int) {
	if w.IsErrorAt(start) { // inlined: the common case costs no call
		e.Stats.TotalErrorReplies.Add(1)
		b, _ := w.ErrorAt(start)
		n := 0
		for n < len(b) && b[n] != ' ' {
			n++
		}
		// Counted by first word (INFO errorstats), at most 128 codes as Redis.
		if e.errorStats == nil {
			e.errorStats = map[string]int64{}
		}
		// (A map assignment replaces the stored key: never assign with a
		// key that aliases the reply buffer.)
		if _, ok := e.errorStats[string(b[:n])]; ok || len(e.errorStats) < 128 {
			e.errorStats[string(b[:n])]++
		}
	}
	if cl.replySkip {
		w.Truncate(start)
		cl.replySkip = false
	} else if cl.replyOff {
		w.Truncate(start)
	}
	if cl.replySkipNext {
		cl.replySkip, cl.replySkipNext = true, false
	}
}

// ResetStats is CONFIG RESETSTAT.
func (e *Engine) ResetStats() {
	clear(e.errorStats)
	e.evict.exceededTotal, e.evict.exceededSince = 0, time.Time{}
	e.resetCommandStats()
	s := &e.Stats
	for _, x := range []*atomic.Int64{&s.Commands, &s.Connections, &s.RejectedConns, &s.ExpiredKeys, &s.EvictedKeys,
		&s.KeyspaceHits, &s.KeyspaceMisses, &s.NetInput, &s.NetOutput, &s.TotalErrorReplies} {
		x.Store(0)
	}
}

func shutdownCommand(c *Ctx) {
	save, nosave, abort := false, false, false
	for _, a := range c.Args[1:] {
		switch strings.ToLower(string(a)) {
		case "nosave":
			nosave = true
		case "save":
			save = true
		case "now", "force":
		case "abort":
			abort = true
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	if (save && nosave) || (abort && len(c.Args) > 2) {
		c.W.Error(ErrSyntax)
		return
	}
	if abort {
		c.W.Error(ErrNoShutdown)
		return
	}
	if !save && !nosave {
		save = c.E.Config.Get("save") != ""
	}
	if c.E.Shutdown == nil {
		c.W.Error(ErrShutdownFailed)
		return
	}
	if err := c.E.Shutdown(c, save); err != nil {
		c.W.Error(ErrShutdownFailed)
		return
	}
	// Like Redis, no reply: the connection closes.
	c.Client.closeNext = true
}
