package engine

import (
	crand "crypto/rand"
	"fmt"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ordo-db/ordo/internal/ds/glob"
	"github.com/ordo-db/ordo/internal/resp"
	"github.com/ordo-db/ordo/internal/sysinfo"
)

// Server and introspection commands: CONFIG, COMMAND, CLIENT, INFO, TIME,
// DEBUG, OBJECT, MEMORY, WAIT, SHUTDOWN, SLOWLOG, LATENCY, ROLE.

// Error replies of the server commands, as Redis 7.0 writes them.
const (
	ErrNoConfigFile     = "ERR The server is running without a config file"
	ErrNoSuchClient     = "ERR No such client"
	ErrClientID         = "ERR client-id should be greater than 0"
	ErrInvalidClientID  = "ERR Invalid client ID"
	ErrClientName       = "ERR Client names cannot contain spaces, newlines or special characters."
	ErrInvalidCommand   = "ERR Invalid command specified"
	ErrInvalidCmdArgs   = "ERR Invalid number of arguments specified for command"
	ErrNoKeyArgs        = "ERR The command has no key arguments"
	ErrLFUNotSelected   = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
	ErrLRUNotSelected   = "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
	ErrDebugNotAllowed  = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."
	ErrShutdownFailed   = "ERR Errors trying to SHUTDOWN. Check logs."
	ErrNoShutdown       = "ERR No shutdown in progress."
	ErrWaitTimeout      = "ERR timeout is not an integer or out of range"
	ErrSlowlogCount     = "ERR count should be greater than or equal to -1"
	ErrPauseUnsupported = "ERR CLIENT PAUSE is not supported by Ordo"
)

// ActiveExpireEnabled reports whether the active expiry cycle runs
// (DEBUG SET-ACTIVE-EXPIRE).
func (e *Engine) ActiveExpireEnabled() bool { return !e.activeExpireOff.Load() }

func registerServer(t *Table) {
	t.registerContainer("config")
	t.register("config|get", configGetCommand)
	t.register("config|set", configSetCommand)
	t.register("config|resetstat", func(c *Ctx) {
		c.E.ResetStats()
		c.W.OK()
	})
	t.register("config|rewrite", func(c *Ctx) {
		if c.E.Config.File == "" {
			c.W.Error(ErrNoConfigFile)
			return
		}
		if err := c.E.Config.Rewrite(); err != nil {
			c.W.Error("ERR Rewriting config file: " + err.Error())
			return
		}
		c.W.OK()
	})
	t.register("config|help", func(c *Ctx) {
		helpReply(c, "CONFIG",
			"GET <pattern>",
			"    Return parameters matching the glob-like <pattern> and their values.",
			"SET <directive> <value>",
			"    Set the configuration <directive> to <value>.",
			"RESETSTAT",
			"    Reset statistics reported by the INFO command.",
			"REWRITE",
			"    Rewrite the configuration file.")
	})

	t.register("command", commandCommand)
	t.register("command|count", func(c *Ctx) { c.W.Int(int64(len(c.E.cmds.cmds))) })
	t.register("command|info", commandInfoCommand)
	t.register("command|docs", commandDocsCommand)
	t.register("command|list", commandListCommand)
	t.register("command|getkeys", commandGetKeysCommand)
	t.register("command|help", func(c *Ctx) {
		helpReply(c, "COMMAND",
			"(no subcommand)",
			"    Return details about all Redis commands.",
			"COUNT",
			"    Return the total number of commands in this Redis server.",
			"LIST",
			"    Return a list of all commands in this Redis server.",
			"INFO [<command-name> ...]",
			"    Return details about multiple Redis commands.",
			"    If no command names are given, documentation details for all",
			"    commands are returned.",
			"DOCS [<command-name> ...]",
			"    Return documentation details about multiple Redis commands.",
			"    If no command names are given, documentation details for all",
			"    commands are returned.",
			"GETKEYS <full-command>",
			"    Return the keys from a full Redis command.",
			"GETKEYSANDFLAGS <full-command>",
			"    Return the keys and the access flags from a full Redis command.")
	})

	t.registerContainer("client")
	t.register("client|id", func(c *Ctx) { c.W.Int(c.Client.ID) })
	t.register("client|setname", func(c *Ctx) {
		if !validClientName(c.Args[2]) {
			c.W.Error(ErrClientName)
			return
		}
		c.Client.Name = string(c.Args[2])
		c.W.OK()
	})
	t.register("client|getname", func(c *Ctx) {
		if c.Client.Name == "" {
			c.W.Null()
			return
		}
		c.W.BulkString(c.Client.Name)
	})
	t.register("client|list", clientListCommand)
	t.register("client|info", func(c *Ctx) {
		c.W.Verbatim("txt", c.E.clientInfoLine(c.Client)+"\n")
	})
	t.register("client|kill", clientKillCommand)
	t.register("client|no-evict", func(c *Ctx) {
		switch {
		case c.ArgIs(2, "on"):
			c.Client.noEvict = true
		case c.ArgIs(2, "off"):
			c.Client.noEvict = false
		default:
			c.W.Error(ErrSyntax)
			return
		}
		c.W.OK()
	})
	t.register("client|reply", func(c *Ctx) {
		switch {
		case c.ArgIs(2, "on"):
			c.Client.replyOff, c.Client.replySkip, c.Client.replySkipNext = false, false, false
			c.W.OK()
		case c.ArgIs(2, "off"):
			c.Client.replyOff = true // no reply, as in Redis
		case c.ArgIs(2, "skip"):
			if !c.Client.replyOff {
				c.Client.replySkipNext = true
			}
		default:
			c.W.Error(ErrSyntax)
		}
	})
	t.register("client|unblock", clientUnblockCommand)
	t.register("client|pause", func(c *Ctx) { c.W.Error(ErrPauseUnsupported) })
	t.register("client|unpause", func(c *Ctx) { c.W.OK() })
	t.register("client|help", func(c *Ctx) {
		helpReply(c, "CLIENT",
			"CACHING (YES|NO)",
			"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
			"GETREDIR",
			"    Return the client ID we are redirecting to when tracking is enabled.",
			"GETNAME",
			"    Return the name of the current connection.",
			"ID",
			"    Return the ID of the current connection.",
			"INFO",
			"    Return information about the current client connection.",
			"KILL <ip:port>",
			"    Kill connection made from <ip:port>.",
			"KILL <option> <value> [<option> <value> [...]]",
			"    Kill connections. Options are:",
			"    * ADDR (<ip:port>|<unixsocket>:0)",
			"      Kill connections made from the specified address",
			"    * LADDR (<ip:port>|<unixsocket>:0)",
			"      Kill connections made to specified local address",
			"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
			"      Kill connections by type.",
			"    * USER <username>",
			"      Kill connections authenticated by <username>.",
			"    * SKIPME (YES|NO)",
			"      Skip killing current connection (default: yes).",
			"LIST [options ...]",
			"    Return information about client connections. Options:",
			"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
			"      Return clients of specified type.",
			"UNPAUSE",
			"    Stop the current client pause, resuming traffic.",
			"PAUSE <timeout> [WRITE|ALL]",
			"    Suspend all, or just write, clients for <timeout> milliseconds.",
			"REPLY (ON|OFF|SKIP)",
			"    Control the replies sent to the current connection.",
			"SETNAME <name>",
			"    Assign the name <name> to the current connection.",
			"UNBLOCK <clientid> [TIMEOUT|ERROR]",
			"    Unblock the specified blocked client.",
			"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
			"         [OPTIN] [OPTOUT] [NOLOOP]",
			"    Control server assisted client side caching.",
			"TRACKINGINFO",
			"    Report tracking status for the current connection.",
			"NO-EVICT (ON|OFF)",
			"    Protect current client connection from eviction.")
	})
	// Redis 7.2's CLIENT SETINFO and NO-TOUCH: go-redis v9 sends SETINFO
	// on connect. Redis 7.0 has no metadata for them.
	t.registerSpec("client|setinfo", clientSetInfoCommand, Spec{Arity: 4,
		Flags: []string{"noscript", "loading", "stale"}, Categories: []string{"@slow", "@connection"}})
	t.registerSpec("client|no-touch", func(c *Ctx) {
		switch {
		case c.ArgIs(2, "on"):
			c.Client.noTouch = true
		case c.ArgIs(2, "off"):
			c.Client.noTouch = false
		default:
			c.W.Error(ErrSyntax)
			return
		}
		c.W.OK()
	}, Spec{Arity: 3, Flags: []string{"noscript", "loading", "stale"}, Categories: []string{"@slow", "@connection"}})

	t.register("info", infoCommand)
	t.register("time", func(c *Ctx) {
		now := time.Now()
		c.W.Array(2)
		c.W.BulkInt(now.Unix())
		c.W.BulkInt(int64(now.Nanosecond() / 1000))
	})
	t.register("debug", debugCommand)

	t.registerContainer("object")
	t.register("object|encoding", func(c *Ctx) {
		v, ok := c.Lookup(c.Args[2])
		if !ok {
			c.W.Null()
			return
		}
		c.W.BulkString(valueEncoding(v))
	})
	t.register("object|refcount", func(c *Ctx) {
		v, ok := c.Lookup(c.Args[2])
		if !ok {
			c.W.Null()
			return
		}
		c.W.Int(c.E.refcount(v))
	})
	t.register("object|idletime", func(c *Ctx) {
		if _, ok := c.Lookup(c.Args[2]); !ok {
			c.W.Null()
			return
		}
		if strings.HasSuffix(c.E.Config.Get("maxmemory-policy"), "-lfu") {
			c.W.Error(ErrLRUNotSelected)
			return
		}
		c.W.Int(0) // Ordo does not track access times
	})
	t.register("object|freq", func(c *Ctx) {
		if _, ok := c.Lookup(c.Args[2]); !ok {
			c.W.Null()
			return
		}
		if !strings.HasSuffix(c.E.Config.Get("maxmemory-policy"), "-lfu") {
			c.W.Error(ErrLFUNotSelected)
			return
		}
		c.W.Int(0) // Ordo does not track access frequencies
	})
	t.register("object|help", func(c *Ctx) {
		helpReply(c, "OBJECT",
			"ENCODING <key>",
			"    Return the kind of internal representation used in order to store the value",
			"    associated with a <key>.",
			"FREQ <key>",
			"    Return the access frequency index of the <key>. The returned integer is",
			"    proportional to the logarithm of the recent access frequency of the key.",
			"IDLETIME <key>",
			"    Return the idle time of the <key>, that is the approximated number of",
			"    seconds elapsed since the last access to the key.",
			"REFCOUNT <key>",
			"    Return the number of references of the value associated with the specified",
			"    <key>.")
	})

	t.registerContainer("memory")
	t.register("memory|usage", memoryUsageCommand)
	t.register("memory|stats", memoryStatsCommand)
	t.register("memory|doctor", func(c *Ctx) {
		c.W.Verbatim("txt", "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.")
	})
	t.register("memory|malloc-stats", func(c *Ctx) {
		c.W.Verbatim("txt", "Stats not supported for the current allocator")
	})
	t.register("memory|purge", func(c *Ctx) {
		debug.FreeOSMemory()
		c.W.OK()
	})
	t.register("memory|help", func(c *Ctx) {
		helpReply(c, "MEMORY",
			"DOCTOR",
			"    Return memory problems reports.",
			"MALLOC-STATS",
			"    Return internal statistics report from the memory allocator.",
			"PURGE",
			"    Attempt to purge dirty pages for reclamation by the allocator.",
			"STATS",
			"    Return information about the memory usage of the server.",
			"USAGE <key> [SAMPLES <count>]",
			"    Return memory in bytes used by <key> and its value. Nested values are",
			"    sampled up to <count> times (default: 5, 0 means sample all).")
	})

	t.register("wait", func(c *Ctx) {
		if _, ok := c.IntArg(1); !ok {
			return
		}
		t, ok := ParseInt(c.Args[2])
		if !ok {
			c.W.Error(ErrWaitTimeout)
			return
		}
		if t < 0 {
			c.W.Error(ErrTimeoutNegative)
			return
		}
		c.W.Int(0) // no replicas
	})
	t.register("shutdown", shutdownCommand)

	t.registerContainer("slowlog")
	t.register("slowlog|get", func(c *Ctx) {
		if len(c.Args) == 3 {
			n, ok := ParseInt(c.Args[2])
			if !ok || n < -1 {
				c.W.Error(ErrSlowlogCount)
				return
			}
		}
		c.W.Array(0)
	})
	t.register("slowlog|len", func(c *Ctx) { c.W.Int(0) })
	t.register("slowlog|reset", func(c *Ctx) { c.W.OK() })
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
	t.register("latency|doctor", func(c *Ctx) {
		c.W.Verbatim("txt", "Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sleep better tonight.\n")
	})
	t.register("latency|latest", func(c *Ctx) { c.W.Array(0) })
	t.register("latency|history", func(c *Ctx) { c.W.Array(0) })
	t.register("latency|reset", func(c *Ctx) { c.W.Int(0) })
	t.register("latency|graph", func(c *Ctx) {
		c.W.Error("ERR No samples available for event '" + string(c.Args[2]) + "'")
	})
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
		c.W.Array(3)
		c.W.BulkString("master")
		c.W.Int(0)
		c.W.Array(0)
	})
}

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
	if len(w.Buf) > start && w.Buf[start] == '-' {
		e.Stats.TotalErrorReplies.Add(1)
		b := w.Buf[start+1:]
		n := 0
		for n < len(b) && b[n] != ' ' && b[n] != '\r' {
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
		w.Buf = w.Buf[:start]
		cl.replySkip = false
	} else if cl.replyOff {
		w.Buf = w.Buf[:start]
	}
	if cl.replySkipNext {
		cl.replySkip, cl.replySkipNext = true, false
	}
}

// ResetStats is CONFIG RESETSTAT.
func (e *Engine) ResetStats() {
	clear(e.errorStats)
	s := &e.Stats
	for _, x := range []*atomic.Int64{&s.Commands, &s.Connections, &s.RejectedConns, &s.ExpiredKeys,
		&s.KeyspaceHits, &s.KeyspaceMisses, &s.NetInput, &s.NetOutput, &s.TotalErrorReplies} {
		x.Store(0)
	}
}

// ---- CONFIG ----

func configGetCommand(c *Ctx) {
	type match struct{ name, value string }
	var out []match
	seen := map[string]bool{}
	vals := c.E.Config.Snapshot()
	for _, pat := range c.Args[2:] {
		if !strings.ContainsAny(string(pat), "[*?") {
			name := string(pat)
			if seen[name] {
				continue
			}
			if p := LookupParam(name); p != nil {
				seen[name] = true
				out = append(out, match{name, vals[p.Name]})
			}
			continue
		}
		for _, p := range params {
			for _, n := range append([]string{p.Name}, p.Aliases...) {
				if seen[n] || !glob.Match(pat, []byte(n), true) {
					continue
				}
				seen[n] = true
				out = append(out, match{n, vals[p.Name]})
			}
		}
	}
	c.W.Map(len(out))
	for _, m := range out {
		c.W.BulkString(m.name)
		c.W.BulkString(m.value)
	}
}

func configSetCommand(c *Ctx) {
	if len(c.Args)%2 != 0 {
		c.W.Error(ErrSyntax)
		return
	}
	pairs := make([]string, 0, len(c.Args)-2)
	for _, a := range c.Args[2:] {
		pairs = append(pairs, string(a))
	}
	if err := c.E.Config.SetMany(pairs, isLocalClient(c.Client)); err != nil {
		c.W.Error(err.Reply())
		return
	}
	c.W.OK()
}

// isLocalClient reports whether the client connects over loopback (or is
// not a network client at all).
func isLocalClient(cl *Client) bool {
	if cl.Addr == "" {
		return true
	}
	host, _, err := net.SplitHostPort(cl.Addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ---- COMMAND ----

// writeValue re-emits a parsed reply with the writer, so that RESP3 types
// degrade to RESP2 exactly as Redis does.
func writeValue(w *resp.Writer, v resp.Value) {
	switch v.Kind {
	case resp.KindSimple:
		w.Simple(v.Str)
	case resp.KindError:
		w.Error(v.Str)
	case resp.KindInt:
		w.Int(v.Int)
	case resp.KindBulk:
		w.BulkString(v.Str)
	case resp.KindVerbatim:
		format, s := "txt", v.Str
		if len(s) >= 4 && s[3] == ':' {
			format, s = s[:3], s[4:]
		}
		w.Verbatim(format, s)
	case resp.KindNull:
		w.Null()
	case resp.KindBool:
		w.Bool(v.Int != 0)
	case resp.KindDouble:
		f, _ := strconv.ParseFloat(v.Str, 64)
		w.Double(f)
	case resp.KindArray:
		w.Array(len(v.Elems))
	case resp.KindSet:
		w.Set(len(v.Elems))
	case resp.KindPush:
		w.Push(len(v.Elems))
	case resp.KindMap:
		w.Map(len(v.Elems) / 2)
	default:
		w.Null()
		return
	}
	for _, e := range v.Elems {
		writeValue(w, e)
	}
}

// sortedSubs returns cmd's subcommands in the order Redis lists them in
// its metadata, then Ordo's own, by name.
func sortedSubs(cmd *Command) []*Command {
	var out []*Command
	done := map[string]bool{}
	if len(cmd.info.Elems) > 9 {
		for _, s := range cmd.info.Elems[9].Elems {
			if len(s.Elems) == 0 {
				continue
			}
			full := s.Elems[0].Str
			_, sub, _ := strings.Cut(full, "|")
			if sc := cmd.Sub[sub]; sc != nil {
				out = append(out, sc)
				done[sub] = true
			}
		}
	}
	var rest []string
	for name := range cmd.Sub {
		if !done[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	for _, name := range rest {
		out = append(out, cmd.Sub[name])
	}
	return out
}

// commandInfo is cmd's COMMAND INFO entry, listing only the subcommands
// Ordo implements.
func commandInfo(cmd *Command) resp.Value {
	v := cmd.info
	if cmd.Sub == nil || len(v.Elems) < 10 {
		return v
	}
	subs := sortedSubs(cmd)
	list := resp.Value{Kind: v.Elems[9].Kind, Elems: make([]resp.Value, 0, len(subs))}
	if list.Kind == 0 {
		list.Kind = resp.KindArray
	}
	for _, s := range subs {
		list.Elems = append(list.Elems, commandInfo(s))
	}
	elems := append([]resp.Value(nil), v.Elems...)
	elems[9] = list
	v.Elems = elems
	return v
}

// commandDocs is cmd's COMMAND DOCS entry (a map), listing only the
// subcommands Ordo implements.
func commandDocs(cmd *Command) resp.Value {
	v := cmd.docs
	if v.Kind != resp.KindMap {
		return resp.Value{Kind: resp.KindMap, Elems: []resp.Value{
			{Kind: resp.KindBulk, Str: "group"}, {Kind: resp.KindBulk, Str: "module"}}}
	}
	if cmd.Sub == nil {
		return v
	}
	elems := append([]resp.Value(nil), v.Elems...)
	for i := 0; i+1 < len(elems); i += 2 {
		if elems[i].Str != "subcommands" {
			continue
		}
		m := resp.Value{Kind: resp.KindMap}
		for _, s := range sortedSubs(cmd) {
			m.Elems = append(m.Elems, resp.Value{Kind: resp.KindBulk, Str: s.Name}, commandDocs(s))
		}
		elems[i+1] = m
	}
	v.Elems = elems
	return v
}

// sorted lists the top-level commands by name.
func (t *Table) sorted() []*Command {
	out := make([]*Command, 0, len(t.cmds))
	for _, cmd := range t.cmds {
		out = append(out, cmd)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// lookupFullName finds "get" or "config|get" (case-insensitive).
func (t *Table) lookupFullName(name string) *Command {
	name = strings.ToLower(name)
	parent, sub, isSub := strings.Cut(name, "|")
	cmd := t.cmds[parent]
	if !isSub || cmd == nil {
		return cmd
	}
	if cmd.Sub == nil {
		return nil
	}
	return cmd.Sub[sub]
}

func commandCommand(c *Ctx) {
	if len(c.Args) > 1 {
		c.W.Error(fmt.Sprintf("ERR unknown subcommand '%s'. Try COMMAND HELP.", truncate(string(c.Args[1]), 128)))
		return
	}
	all := c.E.cmds.sorted()
	c.W.Array(len(all))
	for _, cmd := range all {
		writeValue(c.W, commandInfo(cmd))
	}
}

func commandInfoCommand(c *Ctx) {
	if len(c.Args) == 2 {
		commandCommand(&Ctx{W: c.W, Args: c.Args[:1]})
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, a := range c.Args[2:] {
		cmd := c.E.cmds.lookupFullName(string(a))
		if cmd == nil {
			c.W.Null()
			continue
		}
		writeValue(c.W, commandInfo(cmd))
	}
}

func commandDocsCommand(c *Ctx) {
	var list []*Command
	if len(c.Args) == 2 {
		list = c.E.cmds.sorted()
	} else {
		for _, a := range c.Args[2:] {
			if cmd := c.E.cmds.lookupFullName(string(a)); cmd != nil {
				list = append(list, cmd)
			}
		}
	}
	c.W.Map(len(list))
	for _, cmd := range list {
		c.W.BulkString(cmd.Name)
		writeValue(c.W, commandDocs(cmd))
	}
}

func commandListCommand(c *Ctx) {
	var filter func(cmd *Command) bool
	switch {
	case len(c.Args) == 2:
	case len(c.Args) == 5 && c.ArgIs(2, "filterby"):
		arg := string(c.Args[4])
		switch {
		case c.ArgIs(3, "module"):
			filter = func(*Command) bool { return false }
		case c.ArgIs(3, "aclcat"):
			filter = func(cmd *Command) bool {
				if len(cmd.info.Elems) < 7 {
					return false
				}
				for _, cat := range cmd.info.Elems[6].Elems {
					if strings.EqualFold(strings.TrimPrefix(cat.Str, "@"), arg) {
						return true
					}
				}
				return false
			}
		case c.ArgIs(3, "pattern"):
			filter = func(cmd *Command) bool { return glob.Match([]byte(arg), []byte(cmd.Name), true) }
		default:
			c.W.Error(ErrSyntax)
			return
		}
	default:
		c.W.Error(ErrSyntax)
		return
	}
	var names []string
	for _, cmd := range c.E.cmds.sorted() {
		if filter == nil || filter(cmd) {
			names = append(names, cmd.Name)
		}
		for _, s := range sortedSubs(cmd) {
			if filter == nil || filter(s) {
				names = append(names, s.Name)
			}
		}
	}
	c.W.Array(len(names))
	for _, n := range names {
		c.W.BulkString(n)
	}
}

func commandGetKeysCommand(c *Ctx) {
	args := c.Args[2:]
	cmd := c.E.cmds.Lookup(args)
	// Redis's lookup finds nothing for a container with an unknown subcommand.
	if cmd == nil || cmd.Sub != nil && len(args) > 1 {
		c.W.Error(ErrInvalidCommand)
		return
	}
	if !cmd.HasKeys() {
		c.W.Error(ErrNoKeyArgs)
		return
	}
	if !checkArity(cmd, len(args)) {
		c.W.Error(ErrInvalidCmdArgs)
		return
	}
	idx := cmd.KeyIndexes(args)
	if len(idx) == 0 {
		if cmd.Has(FlagNoMandatoryKeys) {
			c.W.Array(0)
		} else {
			c.W.Error("ERR Invalid arguments specified for command")
		}
		return
	}
	c.W.Array(len(idx))
	for _, i := range idx {
		c.W.Bulk(args[i])
	}
}

// ---- CLIENT ----

// clientUnblockCommand ends another client's blocking wait (CLIENT UNBLOCK
// id [TIMEOUT|ERROR]); it replies 1 if that client was blocked.
func clientUnblockCommand(c *Ctx) {
	id, ok := c.IntArg(2)
	if !ok {
		return
	}
	withError := false
	if len(c.Args) == 4 {
		switch {
		case c.ArgIs(3, "timeout"):
		case c.ArgIs(3, "error"):
			withError = true
		default:
			c.W.Error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
			return
		}
	}
	for _, cl := range c.E.Clients() {
		if cl.ID == id && cl != c.Client {
			if c.E.Unblock(cl, withError) {
				c.W.Int(1)
				return
			}
			break
		}
	}
	c.W.Int(0)
}

// clientFlags are CLIENT LIST's flags letters.
func clientFlags(cl *Client) string {
	var b []byte
	if cl.multi {
		b = append(b, 'x')
	}
	if cl.waiter != nil {
		b = append(b, 'b')
	}
	if cl.dirtyCAS {
		b = append(b, 'd')
	}
	if cl.closeNext {
		b = append(b, 'c')
	}
	if cl.noEvict {
		b = append(b, 'e')
	}
	if cl.noTouch {
		b = append(b, 'T')
	}
	if len(b) == 0 {
		return "N"
	}
	return string(b)
}

// clientInfoLine is one line of CLIENT LIST in Redis 7.0's format (with
// Redis 7.2's lib-name and lib-ver at the end). Buffer sizes Ordo does
// not track are reported as 0.
func (e *Engine) clientInfoLine(cl *Client) string {
	now := time.Now()
	multi := -1
	if cl.multi {
		multi = len(cl.multiQueue)
	}
	cmd := cl.LastCmd
	if cmd == "" {
		cmd = "NULL"
	}
	events := "r"
	return fmt.Sprintf("id=%d addr=%s laddr=%s fd=%d name=%s age=%d idle=%d flags=%s db=%d sub=0 psub=0 ssub=0 multi=%d qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=%s cmd=%s user=default redir=-1 resp=%d lib-name=%s lib-ver=%s",
		cl.ID, cl.Addr, cl.LAddr, cl.FD, cl.Name,
		int64(now.Sub(cl.Created)/time.Second),
		(now.UnixMilli()-cl.LastActive.Load())/1000,
		clientFlags(cl), cl.DB, multi, events, cmd, cl.Proto, cl.LibName, cl.LibVer)
}

func clientListCommand(c *Ctx) {
	var ids map[int64]bool
	typ := ""
	switch {
	case len(c.Args) == 2:
	case len(c.Args) == 4 && c.ArgIs(2, "type"):
		typ = strings.ToLower(string(c.Args[3]))
		switch typ {
		case "normal", "master", "replica", "slave", "pubsub":
		default:
			c.W.Error("ERR Unknown client type '" + string(c.Args[3]) + "'")
			return
		}
	case len(c.Args) > 3 && c.ArgIs(2, "id"):
		ids = map[int64]bool{}
		for _, a := range c.Args[3:] {
			id, ok := ParseInt(a)
			if !ok {
				c.W.Error(ErrInvalidClientID)
				return
			}
			ids[id] = true
		}
	default:
		c.W.Error(ErrSyntax)
		return
	}
	var b strings.Builder
	for _, cl := range c.E.Clients() {
		if ids != nil && !ids[cl.ID] {
			continue
		}
		if typ != "" && typ != "normal" {
			continue
		}
		b.WriteString(c.E.clientInfoLine(cl))
		b.WriteByte('\n')
	}
	c.W.Verbatim("txt", b.String())
}

func clientKillCommand(c *Ctx) {
	var (
		addr, laddr string
		id          int64
		typ         string
		user        string
		skipMe      = true
	)
	oldForm := len(c.Args) == 3
	if oldForm {
		addr = string(c.Args[2])
		skipMe = false
	} else {
		if len(c.Args)%2 != 0 {
			c.W.Error(ErrSyntax)
			return
		}
		for i := 2; i < len(c.Args); i += 2 {
			v := string(c.Args[i+1])
			switch {
			case c.ArgIs(i, "id"):
				n, ok := ParseInt(c.Args[i+1])
				if !ok || n <= 0 {
					c.W.Error(ErrClientID)
					return
				}
				id = n
			case c.ArgIs(i, "type"):
				typ = strings.ToLower(v)
				switch typ {
				case "normal", "master", "replica", "slave", "pubsub":
				default:
					c.W.Error("ERR Unknown client type '" + v + "'")
					return
				}
			case c.ArgIs(i, "addr"):
				addr = v
			case c.ArgIs(i, "laddr"):
				laddr = v
			case c.ArgIs(i, "user"):
				if v != "default" {
					c.W.Error("ERR No such user '" + v + "'")
					return
				}
				user = v
			case c.ArgIs(i, "skipme"):
				switch {
				case EqualFold(c.Args[i+1], "yes"):
					skipMe = true
				case EqualFold(c.Args[i+1], "no"):
					skipMe = false
				default:
					c.W.Error(ErrSyntax)
					return
				}
			default:
				c.W.Error(ErrSyntax)
				return
			}
		}
	}
	_ = user // every Ordo client is the default user
	killed := 0
	for _, cl := range c.E.Clients() {
		if addr != "" && cl.Addr != addr {
			continue
		}
		if laddr != "" && cl.LAddr != laddr {
			continue
		}
		if id != 0 && cl.ID != id {
			continue
		}
		if typ != "" && typ != "normal" {
			continue
		}
		if cl == c.Client && skipMe {
			continue
		}
		killed++
		if cl == c.Client {
			cl.closeNext = true
			continue
		}
		cl.killed.Store(true)
		if cl.Kill != nil {
			cl.Kill()
		}
	}
	if oldForm {
		if killed == 0 {
			c.W.Error(ErrNoSuchClient)
			return
		}
		c.W.OK()
		return
	}
	c.W.Int(int64(killed))
}

func clientSetInfoCommand(c *Ctx) {
	attr := strings.ToLower(string(c.Args[2]))
	val := c.Args[3]
	if attr != "lib-name" && attr != "lib-ver" {
		c.W.Error("ERR Unrecognized option '" + string(c.Args[2]) + "'")
		return
	}
	if !validClientName(val) {
		c.W.Error("ERR " + attr + " cannot contain spaces, newlines or special characters.")
		return
	}
	if attr == "lib-name" {
		c.Client.LibName = string(val)
	} else {
		c.Client.LibVer = string(val)
	}
	c.W.OK()
}

// ---- INFO ----

var infoDefault = []string{"server", "clients", "memory", "persistence", "stats", "replication", "cpu", "modules", "errorstats", "cluster", "keyspace"}
var infoAll = []string{"server", "clients", "memory", "persistence", "stats", "replication", "cpu", "modules", "commandstats", "errorstats", "latencystats", "cluster", "keyspace"}

func infoCommand(c *Ctx) {
	want := map[string]bool{}
	everything := false
	if len(c.Args) == 1 {
		for _, s := range infoDefault {
			want[s] = true
		}
	}
	for _, a := range c.Args[1:] {
		s := strings.ToLower(string(a))
		switch s {
		case "default":
			for _, x := range infoDefault {
				want[x] = true
			}
		case "all":
			for _, x := range infoAll {
				want[x] = true
			}
		case "everything":
			everything = true
			for _, x := range infoAll {
				want[x] = true
			}
		default:
			want[s] = true
		}
	}
	_ = everything
	c.W.Verbatim("txt", c.E.InfoString(want, c))
}

// InfoString renders the INFO sections in want.
func (e *Engine) InfoString(want map[string]bool, c *Ctx) string {
	var b strings.Builder
	first := true
	section := func(name string) bool {
		if !want[strings.ToLower(name)] {
			return false
		}
		if !first {
			b.WriteString("\r\n")
		}
		first = false
		b.WriteString("# " + name + "\r\n")
		return true
	}
	kv := func(k string, v any) {
		b.WriteString(k)
		b.WriteByte(':')
		fmt.Fprint(&b, v)
		b.WriteString("\r\n")
	}
	now := time.Now()
	uptime := int64(now.Sub(e.StartTime) / time.Second)
	clients := e.Clients()
	if section("Server") {
		kv("redis_version", RedisVersion)
		kv("redis_git_sha1", "00000000")
		kv("redis_git_dirty", 0)
		kv("redis_build_id", "0")
		kv("redis_mode", "standalone")
		kv("ordo_version", OrdoVersion)
		kv("os", osString())
		kv("arch_bits", strconv.Itoa(32<<(^uint(0)>>63)))
		kv("monotonic_clock", "POSIX clock_gettime")
		kv("multiplexing_api", "epoll")
		kv("atomicvar_api", "c11-builtin")
		kv("gcc_version", "0.0.0")
		kv("go_version", runtime.Version())
		kv("process_id", os.Getpid())
		kv("process_supervised", "no")
		kv("run_id", e.RunID())
		kv("tcp_port", e.Config.Get("port"))
		kv("server_time_usec", now.UnixMicro())
		kv("uptime_in_seconds", uptime)
		kv("uptime_in_days", uptime/86400)
		kv("hz", e.Config.Get("hz"))
		kv("configured_hz", e.Config.Get("hz"))
		kv("lru_clock", (now.Unix())&(1<<24-1))
		exe, _ := os.Executable()
		kv("executable", exe)
		kv("config_file", e.Config.File)
		kv("io_threads_active", 0)
	}
	if section("Clients") {
		blocked := 0
		for _, cl := range clients {
			if cl.waiter != nil {
				blocked++
			}
		}
		kv("connected_clients", len(clients))
		kv("cluster_connections", 0)
		kv("maxclients", e.Config.Get("maxclients"))
		kv("client_recent_max_input_buffer", 0)
		kv("client_recent_max_output_buffer", 0)
		kv("blocked_clients", blocked)
		kv("tracking_clients", 0)
		kv("clients_in_timeout_table", 0)
	}
	if section("Memory") {
		used := e.UsedMemory()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		rss := int64(ms.Sys - ms.HeapReleased)
		peak := e.peakMemory(used)
		maxmem := e.Config.Int("maxmemory")
		kv("used_memory", used)
		kv("used_memory_human", bytesToHuman(used))
		kv("used_memory_rss", rss)
		kv("used_memory_rss_human", bytesToHuman(rss))
		kv("used_memory_peak", peak)
		kv("used_memory_peak_human", bytesToHuman(peak))
		kv("used_memory_peak_perc", fmt.Sprintf("%.2f%%", float64(used)*100/float64(max(peak, 1))))
		kv("used_memory_overhead", 0)
		kv("used_memory_startup", 0)
		kv("used_memory_dataset", used)
		kv("used_memory_dataset_perc", "100.00%")
		kv("allocator_allocated", used)
		kv("allocator_active", int64(ms.HeapInuse))
		kv("allocator_resident", rss)
		total := totalSystemMemory()
		kv("total_system_memory", total)
		kv("total_system_memory_human", bytesToHuman(total))
		kv("used_memory_lua", 0)
		kv("used_memory_vm_eval", 0)
		kv("used_memory_lua_human", "0B")
		kv("used_memory_scripts_eval", 0)
		kv("number_of_cached_scripts", 0)
		kv("number_of_functions", 0)
		kv("number_of_libraries", 0)
		kv("used_memory_vm_functions", 0)
		kv("used_memory_vm_total", 0)
		kv("used_memory_vm_total_human", "0B")
		kv("used_memory_functions", 0)
		kv("used_memory_scripts", 0)
		kv("used_memory_scripts_human", "0B")
		kv("maxmemory", maxmem)
		kv("maxmemory_human", bytesToHuman(maxmem))
		kv("maxmemory_policy", e.Config.Get("maxmemory-policy"))
		ratio := float64(rss) / float64(max(used, 1))
		kv("allocator_frag_ratio", "1.00")
		kv("allocator_frag_bytes", 0)
		kv("allocator_rss_ratio", "1.00")
		kv("allocator_rss_bytes", 0)
		kv("rss_overhead_ratio", "1.00")
		kv("rss_overhead_bytes", 0)
		kv("mem_fragmentation_ratio", fmt.Sprintf("%.2f", ratio))
		kv("mem_fragmentation_bytes", rss-used)
		kv("mem_not_counted_for_evict", 0)
		kv("mem_replication_backlog", 0)
		kv("mem_total_replication_buffers", 0)
		kv("mem_clients_slaves", 0)
		kv("mem_clients_normal", 0)
		kv("mem_cluster_links", 0)
		kv("mem_aof_buffer", 0)
		kv("mem_allocator", "go-"+runtime.Version())
		kv("active_defrag_running", 0)
		kv("lazyfree_pending_objects", 0)
		kv("lazyfreed_objects", 0)
	}
	if section("Persistence") {
		if p := e.Persistence; p != nil {
			s := p.InfoPersistence()
			s = strings.ReplaceAll(strings.TrimRight(s, "\r\n"), "\r\n", "\n")
			for _, l := range strings.Split(s, "\n") {
				if l != "" {
					b.WriteString(l + "\r\n")
				}
			}
		} else {
			kv("loading", 0)
			kv("async_loading", 0)
			kv("current_cow_peak", 0)
			kv("current_cow_size", 0)
			kv("current_cow_size_age", 0)
			kv("current_fork_perc", "0.00")
			kv("current_save_keys_processed", 0)
			kv("current_save_keys_total", 0)
			kv("rdb_changes_since_last_save", e.dirty)
			kv("rdb_bgsave_in_progress", 0)
			kv("rdb_last_save_time", e.StartTime.Unix())
			kv("rdb_last_bgsave_status", "ok")
			kv("rdb_last_bgsave_time_sec", -1)
			kv("rdb_current_bgsave_time_sec", -1)
			kv("rdb_saves", 0)
			kv("rdb_last_cow_size", 0)
			kv("rdb_last_load_keys_expired", 0)
			kv("rdb_last_load_keys_loaded", 0)
			kv("aof_enabled", 0)
			kv("aof_rewrite_in_progress", 0)
			kv("aof_rewrite_scheduled", 0)
			kv("aof_last_rewrite_time_sec", -1)
			kv("aof_current_rewrite_time_sec", -1)
			kv("aof_last_bgrewrite_status", "ok")
			kv("aof_rewrites", 0)
			kv("aof_rewrites_consecutive_failures", 0)
			kv("aof_last_write_status", "ok")
			kv("aof_last_cow_size", 0)
			kv("module_fork_in_progress", 0)
			kv("module_fork_last_cow_size", 0)
		}
	}
	if section("Stats") {
		s := &e.Stats
		kv("total_connections_received", s.Connections.Load())
		kv("total_commands_processed", s.Commands.Load())
		kv("instantaneous_ops_per_sec", 0)
		kv("total_net_input_bytes", s.NetInput.Load())
		kv("total_net_output_bytes", s.NetOutput.Load())
		kv("total_net_repl_input_bytes", 0)
		kv("total_net_repl_output_bytes", 0)
		kv("instantaneous_input_kbps", "0.00")
		kv("instantaneous_output_kbps", "0.00")
		kv("instantaneous_input_repl_kbps", "0.00")
		kv("instantaneous_output_repl_kbps", "0.00")
		kv("rejected_connections", s.RejectedConns.Load())
		kv("sync_full", 0)
		kv("sync_partial_ok", 0)
		kv("sync_partial_err", 0)
		kv("expired_keys", s.ExpiredKeys.Load())
		kv("expired_stale_perc", "0.00")
		kv("expired_time_cap_reached_count", 0)
		kv("expire_cycle_cpu_milliseconds", 0)
		kv("evicted_keys", 0)
		kv("evicted_clients", 0)
		kv("total_eviction_exceeded_time", 0)
		kv("current_eviction_exceeded_time", 0)
		kv("keyspace_hits", s.KeyspaceHits.Load())
		kv("keyspace_misses", s.KeyspaceMisses.Load())
		kv("pubsub_channels", 0)
		kv("pubsub_patterns", 0)
		kv("pubsubshard_channels", 0)
		kv("latest_fork_usec", 0)
		kv("total_forks", 0)
		kv("migrate_cached_sockets", 0)
		kv("slave_expires_tracked_keys", 0)
		kv("active_defrag_hits", 0)
		kv("active_defrag_misses", 0)
		kv("active_defrag_key_hits", 0)
		kv("active_defrag_key_misses", 0)
		kv("total_active_defrag_time", 0)
		kv("current_active_defrag_time", 0)
		kv("tracking_total_keys", 0)
		kv("tracking_total_items", 0)
		kv("tracking_total_prefixes", 0)
		kv("unexpected_error_replies", 0)
		kv("total_error_replies", s.TotalErrorReplies.Load())
		kv("dump_payload_sanitizations", 0)
		kv("total_reads_processed", 0)
		kv("total_writes_processed", 0)
		kv("io_threaded_reads_processed", 0)
		kv("io_threaded_writes_processed", 0)
		kv("reply_buffer_shrinks", 0)
		kv("reply_buffer_expands", 0)
	}
	if section("Replication") {
		kv("role", "master")
		kv("connected_slaves", 0)
		kv("master_failover_state", "no-failover")
		kv("master_replid", e.RunID())
		kv("master_replid2", strings.Repeat("0", 40))
		kv("master_repl_offset", 0)
		kv("second_repl_offset", -1)
		kv("repl_backlog_active", 0)
		kv("repl_backlog_size", e.Config.Get("repl-backlog-size"))
		kv("repl_backlog_first_byte_offset", 0)
		kv("repl_backlog_histlen", 0)
	}
	if section("CPU") {
		cpu := sysinfo.CPUTimes()
		tv := func(d time.Duration) string {
			return fmt.Sprintf("%d.%06d", d/time.Second, d%time.Second/time.Microsecond)
		}
		kv("used_cpu_sys", tv(cpu.SelfSys))
		kv("used_cpu_user", tv(cpu.SelfUser))
		kv("used_cpu_sys_children", tv(cpu.ChildSys))
		kv("used_cpu_user_children", tv(cpu.ChildUser))
		kv("used_cpu_sys_main_thread", tv(cpu.SelfSys))
		kv("used_cpu_user_main_thread", tv(cpu.SelfUser))
	}
	section("Modules")
	section("Commandstats")
	if section("Errorstats") {
		codes := make([]string, 0, len(e.errorStats))
		for k := range e.errorStats {
			codes = append(codes, k)
		}
		sort.Strings(codes)
		for _, k := range codes {
			kv("errorstat_"+k, fmt.Sprintf("count=%d", e.errorStats[k]))
		}
	}
	section("Latencystats")
	if section("Cluster") {
		kv("cluster_enabled", 0)
	}
	if section("Keyspace") {
		now := NowMs()
		for _, db := range e.dbs {
			if db.Len() == 0 {
				continue
			}
			kv(fmt.Sprintf("db%d", db.ID), fmt.Sprintf("keys=%d,expires=%d,avg_ttl=%d", db.Len(), db.ExpiresLen(), avgTTL(db, now)))
		}
	}
	return b.String()
}

// avgTTL estimates the average remaining TTL of db's volatile keys from a
// bounded sample, as Redis does.
func avgTTL(db *DB, now int64) int64 {
	if db.expires.Len() == 0 {
		return 0
	}
	var sum, n int64
	cursor := uint64(0)
	for i := 0; i < 8 && n < 100; i++ {
		cursor = db.expires.Scan(cursor, func(_ string, at int64) {
			if at > now {
				sum += at - now
				n++
			}
		})
		if cursor == 0 {
			break
		}
	}
	if n == 0 {
		return 0
	}
	return sum / n
}

// OrdoVersion is reported by INFO as ordo_version.
const OrdoVersion = "0.1.0"

// newRunID is a random 40-hex-digit run id, one per engine, as Redis's.
func newRunID() string {
	var b [20]byte
	if _, err := crand.Read(b[:]); err != nil {
		t := time.Now().UnixNano()
		for i := range b {
			b[i] = byte(t >> (8 * (i % 8)))
		}
	}
	return fmt.Sprintf("%x", b)
}

// RunID is the instance's random run id.
func (e *Engine) RunID() string { return e.runID }

// peakMemory records used as the engine's peak if it is higher.
func (e *Engine) peakMemory(used int64) int64 {
	peakMem := &e.peakMem
	for {
		p := peakMem.Load()
		if used <= p {
			return p
		}
		if peakMem.CompareAndSwap(p, used) {
			return used
		}
	}
}

// osString and totalSystemMemory are INFO's os and total_system_memory;
// the per-platform probes live in internal/sysinfo.
func osString() string { return sysinfo.OS() }

func totalSystemMemory() int64 { return sysinfo.TotalMemory() }

// bytesToHuman formats n as Redis's bytesToHuman does.
func bytesToHuman(n int64) string {
	d := float64(n)
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.2fK", d/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.2fM", d/(1024*1024))
	case n < 1024*1024*1024*1024:
		return fmt.Sprintf("%.2fG", d/(1024*1024*1024))
	case n < 1024*1024*1024*1024*1024:
		return fmt.Sprintf("%.2fT", d/(1024*1024*1024*1024))
	}
	return fmt.Sprintf("%.2fP", d/(1024*1024*1024*1024*1024))
}

// ---- DEBUG, OBJECT, MEMORY ----

// valueEncoding is OBJECT ENCODING's reply for v.
func valueEncoding(v Value) string {
	if v.o == nil {
		return stringEncoding(v.s)
	}
	if t, ok := v.o.(Typed); ok {
		return t.Encoding()
	}
	return "unknown"
}

// refcount is OBJECT REFCOUNT: Redis shares the integers 0..9999 (with
// refcount INT_MAX) unless an LRU/LFU policy needs per-key metadata.
func (e *Engine) refcount(v Value) int64 {
	if v.o == nil && stringEncoding(v.s) == "int" {
		n, _ := strconv.ParseInt(v.s, 10, 64)
		policy := e.Config.Get("maxmemory-policy")
		shareable := e.Config.Int("maxmemory") == 0 || !(strings.HasSuffix(policy, "-lru") || strings.HasSuffix(policy, "-lfu"))
		if n >= 0 && n < 10000 && shareable {
			return 2147483647
		}
	}
	return 1
}

// jemallocSize rounds n up to jemalloc's size classes, so that MEMORY
// USAGE of strings comes out as Redis's.
func jemallocSize(n int64) int64 {
	if n <= 8 {
		return 8
	}
	if n <= 128 {
		return (n + 15) / 16 * 16
	}
	// Four classes per doubling above 128.
	p := int64(128)
	for p*2 < n {
		p *= 2
	}
	step := p / 4
	return (n + step - 1) / step * step
}

// keyMemoryUsage is MEMORY USAGE's estimate for key holding v.
func keyMemoryUsage(key string, v Value) int64 {
	var size int64
	if v.o == nil {
		switch stringEncoding(v.s) {
		case "int":
			size = 16
		case "embstr":
			size = jemallocSize(16 + 3 + int64(len(v.s)) + 1)
		default:
			size = 16 + jemallocSize(sdsHeader(len(v.s))+int64(len(v.s))+1)
		}
	} else if t, ok := v.o.(Typed); ok {
		size = t.MemoryUsage()
	}
	return size + jemallocSize(sdsHeader(len(key))+int64(len(key))+1) + 24
}

func sdsHeader(n int) int64 {
	switch {
	case n < 1<<5:
		return 1
	case n < 1<<8:
		return 3
	case n < 1<<16:
		return 5
	case int64(n) < 1<<32:
		return 9
	}
	return 17
}

func memoryUsageCommand(c *Ctx) {
	for i := 3; i < len(c.Args); i++ {
		if c.ArgIs(i, "samples") && i+1 < len(c.Args) {
			n, ok := ParseInt(c.Args[i+1])
			if !ok {
				c.W.Error(ErrNotInteger)
				return
			}
			if n < 0 {
				c.W.Error(ErrSyntax)
				return
			}
			i++
			continue
		}
		c.W.Error(ErrSyntax)
		return
	}
	v, ok := c.Lookup(c.Args[2])
	if !ok {
		c.W.Null()
		return
	}
	c.W.Int(keyMemoryUsage(string(c.Args[2]), v))
}

func memoryStatsCommand(c *Ctx) {
	e := c.E
	used := e.UsedMemory()
	peak := e.peakMemory(used)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss := int64(ms.Sys - ms.HeapReleased)
	keys := 0
	var dbs []*DB
	for _, db := range c.E.dbs {
		if db.Len() > 0 {
			keys += db.Len()
			dbs = append(dbs, db)
		}
	}
	w := c.W
	pair := func(k string, v int64) {
		w.BulkString(k)
		w.Int(v)
	}
	ratio := func(k string, v float64) {
		w.BulkString(k)
		w.Double(v)
	}
	w.Map(27 + len(dbs))
	pair("peak.allocated", peak)
	pair("total.allocated", used)
	pair("startup.allocated", 0)
	pair("replication.backlog", 0)
	pair("clients.slaves", 0)
	pair("clients.normal", 0)
	pair("cluster.links", 0)
	pair("aof.buffer", 0)
	pair("lua.caches", 0)
	pair("functions.caches", 0)
	var overhead int64
	for _, db := range dbs {
		w.BulkString(fmt.Sprintf("db.%d", db.ID))
		w.Map(3)
		main, exp := db.keys.Overhead(), db.expires.Overhead()
		overhead += main + exp
		pair("overhead.hashtable.main", main)
		pair("overhead.hashtable.expires", exp)
		pair("overhead.hashtable.slot-to-keys", 0)
	}
	pair("overhead.total", overhead)
	pair("keys.count", int64(keys))
	if keys > 0 {
		pair("keys.bytes-per-key", used/int64(keys))
	} else {
		pair("keys.bytes-per-key", 0)
	}
	pair("dataset.bytes", used-overhead)
	ratio("dataset.percentage", float64(used-overhead)*100/float64(max(used, 1)))
	ratio("peak.percentage", float64(used)*100/float64(max(peak, 1)))
	pair("allocator.allocated", used)
	pair("allocator.active", int64(ms.HeapInuse))
	pair("allocator.resident", rss)
	ratio("allocator-fragmentation.ratio", float64(ms.HeapInuse)/float64(max(used, 1)))
	pair("allocator-fragmentation.bytes", int64(ms.HeapInuse)-used)
	ratio("allocator-rss.ratio", float64(rss)/float64(max(int64(ms.HeapInuse), 1)))
	pair("allocator-rss.bytes", rss-int64(ms.HeapInuse))
	ratio("rss-overhead.ratio", 1)
	pair("rss-overhead.bytes", 0)
	ratio("fragmentation", float64(rss)/float64(max(used, 1)))
	pair("fragmentation.bytes", rss-used)
}

func debugAllowed(c *Ctx) bool {
	switch c.E.Config.Get("enable-debug-command") {
	case "yes":
		return true
	case "local":
		return isLocalClient(c.Client)
	}
	return false
}

func debugCommand(c *Ctx) {
	if !debugAllowed(c) {
		c.W.Error(ErrDebugNotAllowed)
		return
	}
	sub := strings.ToLower(string(c.Args[1]))
	n := len(c.Args)
	switch {
	case sub == "help" && n == 2:
		helpReply(c, "DEBUG",
			"OBJECT <key>",
			"    Show low level info about the <key> and associated value.",
			"RELOAD [MERGE] [NOFLUSH] [NOSAVE]",
			"    Save the dataset and reload it from disk.",
			"SET-ACTIVE-EXPIRE <0|1>",
			"    Setting it to 0 disables expiring keys in background when they are not",
			"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
			"    default.",
			"SLEEP <seconds>",
			"    Stop the server for <seconds>. Decimals allowed.")
	case sub == "sleep" && n == 3:
		f, ok := parseFloatArg(c.Args[2])
		if !ok {
			f = 0 // Redis uses atof: garbage sleeps 0 seconds
		}
		if f > 0 {
			time.Sleep(time.Duration(f * float64(time.Second)))
		}
		c.W.OK()
	case sub == "object" && n == 3:
		v, ok := c.Lookup(c.Args[2])
		if !ok {
			c.W.Error(ErrNoSuchKey)
			return
		}
		extra := ""
		if v.o != nil {
			if t, ok := v.o.(Typed); ok && t.Encoding() == "quicklist" {
				extra = fmt.Sprintf(" ql_nodes:1 ql_avg_node:%.2f ql_listpack_max:%s ql_compressed:0 ql_uncompressed_size:%d",
					float64(t.Len()), c.E.Config.Get("list-max-listpack-size"), t.MemoryUsage())
			}
		}
		c.W.Simple(fmt.Sprintf("Value at:0x%x refcount:%d encoding:%s serializedlength:%d lru:%d lru_seconds_idle:0%s",
			0xc000000000+int64(len(c.Args[2]))*64, c.E.refcount(v), valueEncoding(v), serializedLength(v),
			time.Now().Unix()&(1<<24-1), extra))
	case sub == "set-active-expire" && n == 3:
		v, ok := ParseInt(c.Args[2])
		if !ok {
			v = 0
		}
		c.E.activeExpireOff.Store(v == 0)
		c.W.OK()
	case sub == "reload":
		for _, a := range c.Args[2:] {
			switch strings.ToLower(string(a)) {
			case "merge", "noflush", "nosave":
			default:
				c.W.Error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.")
				return
			}
		}
		p := c.E.Persistence
		if p == nil {
			c.W.Error("ERR DEBUG RELOAD is not available: persistence is not configured")
			return
		}
		if err := p.Reload(); err != nil {
			c.W.Error("ERR Error trying to load the RDB dump: " + err.Error())
			return
		}
		c.W.OK()
	default:
		c.W.Error(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%s'. Try DEBUG HELP.", truncate(string(c.Args[1]), 128)))
	}
}

// serializedLength approximates DEBUG OBJECT's serializedlength.
func serializedLength(v Value) int64 {
	if v.o == nil {
		if stringEncoding(v.s) == "int" {
			n, _ := strconv.ParseInt(v.s, 10, 64)
			switch {
			case n >= -(1<<7) && n < 1<<7:
				return 2
			case n >= -(1<<15) && n < 1<<15:
				return 3
			case n >= -(1<<31) && n < 1<<31:
				return 5
			}
		}
		l := int64(len(v.s))
		switch {
		case l < 1<<6:
			return l + 1
		case l < 1<<14:
			return l + 2
		}
		return l + 5
	}
	if t, ok := v.o.(Typed); ok {
		return t.MemoryUsage()
	}
	return 0
}

// ---- SHUTDOWN ----

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
