package engine

import (
	"fmt"
	"net"
	"strings"
	"time"
)

// CLIENT and its subcommands.

func registerClient(t *Table) {
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
	registerTracking(t)
	t.register("client|pause", clientPauseCommand)
	t.register("client|unpause", func(c *Ctx) {
		c.E.unpause()
		c.W.OK()
	})
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

// clientType is the client's CLIENT LIST/KILL TYPE: "master" (the link
// to this replica's master), "replica" (a replica's link), "pubsub" while
// subscribed, else "normal".
func clientType(cl *Client) string {
	switch {
	case cl.Kind == KindMaster:
		return "master"
	case cl.replLink:
		return "replica"
	case cl.subscribed():
		return "pubsub"
	}
	return "normal"
}

// clientFlags are CLIENT LIST's flags letters.
func clientFlags(cl *Client) string {
	var b []byte
	switch clientType(cl) {
	case "master":
		b = append(b, 'M')
	case "replica":
		b = append(b, 'S')
	case "pubsub":
		b = append(b, 'P')
	}
	if cl.multi {
		b = append(b, 'x')
	}
	if cl.waiter != nil {
		b = append(b, 'b')
	}
	if cl.tracking() {
		b = append(b, 't')
	}
	if cl.trkFlag(trkBrokenRedir) {
		b = append(b, 'R')
	}
	if cl.trkFlag(trkBcast) {
		b = append(b, 'B')
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
	var nsub, npsub, nssub int
	if s := cl.subs; s != nil {
		nsub, npsub, nssub = s.channels.len(), s.patterns.len(), s.shard.len()
	}
	redir := int64(-1)
	if cl.tracking() {
		redir = cl.trk.redirect
	}
	var omem int
	if cl.out != nil {
		omem = cl.out.Pending()
	}
	return fmt.Sprintf("id=%d addr=%s laddr=%s fd=%d name=%s age=%d idle=%d flags=%s db=%d sub=%d psub=%d ssub=%d multi=%d qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=%d tot-mem=%d events=%s cmd=%s user=%s redir=%d resp=%d lib-name=%s lib-ver=%s",
		cl.ID, cl.Addr, cl.LAddr, cl.FD, cl.Name,
		int64(now.Sub(cl.Created)/time.Second),
		(now.UnixMilli()-cl.LastActive.Load())/1000,
		clientFlags(cl), cl.DB, nsub, npsub, nssub, multi, omem, omem, events, cmd, e.userOf(cl).name, redir, cl.Proto, cl.LibName, cl.LibVer)
}

func clientListCommand(c *Ctx) {
	var ids map[int64]bool
	typ := ""
	switch {
	case len(c.Args) == 2:
	case len(c.Args) == 4 && c.ArgIs(2, "type"):
		typ = strings.ToLower(string(c.Args[3]))
		if typ == "slave" {
			typ = "replica"
		}
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
		if typ != "" && typ != clientType(cl) {
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
		user        *User
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
				if typ == "slave" {
					typ = "replica"
				}
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
				if user = c.E.acl.users[v]; user == nil {
					c.W.Error("ERR No such user '" + v + "'")
					return
				}
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
	killed := 0
	for _, cl := range c.E.Clients() {
		if cl.killed.Load() {
			// Already killed, not yet gone (Redis frees such clients
			// before it runs the next command).
			continue
		}
		if addr != "" && cl.Addr != addr {
			continue
		}
		if laddr != "" && cl.LAddr != laddr {
			continue
		}
		if id != 0 && cl.ID != id {
			continue
		}
		if typ != "" && typ != clientType(cl) {
			continue
		}
		if user != nil && c.E.userOf(cl) != user {
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
