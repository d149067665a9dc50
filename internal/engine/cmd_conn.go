package engine

import (
	"strconv"
)

// Connection commands: PING, ECHO, QUIT, HELLO, AUTH, SELECT, RESET.

// RedisVersion is the Redis version whose behaviour Ordo reproduces; HELLO
// and INFO report it so that clients that check versions keep working.
const RedisVersion = "7.0.15"

func registerConn(t *Table) {
	t.register("ping", func(c *Ctx) {
		if c.Client.Proto == 2 && c.Client.subscribed() && len(c.Args) <= 2 {
			// Subscribed mode: a pong message, as the connection only
			// carries messages (Redis's pingCommand).
			c.W.Array(2)
			c.W.BulkString("pong")
			if len(c.Args) == 2 {
				c.W.Bulk(c.Args[1])
			} else {
				c.W.BulkString("")
			}
			return
		}
		switch len(c.Args) {
		case 1:
			c.W.Simple("PONG")
		case 2:
			c.W.Bulk(c.Args[1])
		default:
			c.W.Error("ERR wrong number of arguments for 'ping' command")
		}
	})
	t.register("echo", func(c *Ctx) { c.W.Bulk(c.Args[1]) })
	t.register("quit", func(c *Ctx) {
		c.Client.closeNext = true
		c.W.OK()
	})
	t.register("select", func(c *Ctx) {
		n, ok := c.IntArg(1)
		if !ok {
			return
		}
		if n != int64(int32(n)) { // getIntFromObjectOrReply
			c.W.Error(ErrIntRange)
			return
		}
		if n < 0 || n >= int64(len(c.E.dbs)) {
			c.W.Error(ErrDBIndex)
			return
		}
		c.Client.DB = int(n)
		c.W.OK()
	})
	t.register("auth", func(c *Ctx) {
		if len(c.Args) > 3 {
			c.W.Error(ErrSyntax)
			return
		}
		user, given := "default", c.Args[len(c.Args)-1]
		if len(c.Args) == 3 {
			user = string(c.Args[1])
		} else if c.E.acl.def.flags&userNopass != 0 {
			c.W.Error(ErrAuthNotSet)
			return
		}
		if !c.E.authClient(c, user, given) {
			c.W.Error(ErrWrongPass)
			return
		}
		c.W.OK()
	})
	t.register("hello", helloCommand)
	t.register("reset", func(c *Ctx) {
		cl := c.Client
		c.E.discard(cl)
		c.E.unsubscribeAll(cl)
		c.E.disableTracking(cl)
		cl.DB = 0
		cl.Proto = 2
		c.W.Proto = 2
		cl.Name = ""
		cl.user = nil // the default user
		cl.Authenticated = !c.E.DefaultUserNeedsAuth()
		c.W.Simple("RESET")
	})
}

func helloCommand(c *Ctx) {
	cl := c.Client
	proto := cl.Proto
	i := 1
	if len(c.Args) > 1 {
		n, err := strconv.ParseInt(string(c.Args[1]), 10, 64)
		if err != nil {
			c.W.Error("ERR Protocol version is not an integer or out of range")
			return
		}
		if n < 2 || n > 3 {
			c.W.Error("NOPROTO unsupported protocol version")
			return
		}
		proto = int(n)
		i = 2
	}
	var name []byte
	setName := false
	for ; i < len(c.Args); i++ {
		more := len(c.Args) - i - 1
		switch {
		case c.ArgIs(i, "auth") && more >= 2:
			if !c.E.authClient(c, string(c.Args[i+1]), c.Args[i+2]) {
				c.W.Error(ErrWrongPass)
				return
			}
			i += 2
		case c.ArgIs(i, "setname") && more >= 1:
			if !validClientName(c.Args[i+1]) {
				c.W.Error("ERR Client names cannot contain spaces, newlines or special characters.")
				return
			}
			name, setName = c.Args[i+1], true
			i++
		default:
			c.W.Error("ERR Syntax error in HELLO option '" + string(c.Args[i]) + "'")
			return
		}
	}
	if !cl.Authenticated {
		c.W.Error("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	if setName {
		cl.Name = string(name)
	}
	cl.Proto = proto
	c.W.Proto = proto
	w := c.W
	w.Map(7)
	w.BulkString("server")
	w.BulkString("redis")
	w.BulkString("version")
	w.BulkString(RedisVersion)
	w.BulkString("proto")
	w.Int(int64(proto))
	w.BulkString("id")
	w.Int(cl.ID)
	w.BulkString("mode")
	w.BulkString("standalone")
	w.BulkString("role")
	if c.E.IsReplica() {
		w.BulkString("replica")
	} else {
		w.BulkString("master")
	}
	w.BulkString("modules")
	w.Array(0)
}

// validClientName rejects names Redis rejects: spaces, newlines, and
// anything outside '!'..'~'.
func validClientName(b []byte) bool {
	for _, ch := range b {
		if ch < '!' || ch > '~' {
			return false
		}
	}
	return true
}
