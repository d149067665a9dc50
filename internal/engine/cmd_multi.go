package engine

import "time"

// MULTI/EXEC/DISCARD/WATCH/UNWATCH, as in Redis: a command refused while
// queueing (unknown, wrong arity, OOM) makes EXEC fail with EXECABORT; a
// command that fails when run inside EXEC does not stop the others.

func registerTransactions(t *Table) {
	t.register("multi", func(c *Ctx) {
		if c.Client.multi {
			c.W.Error("ERR MULTI calls can not be nested")
			return
		}
		c.Client.multi = true
		c.W.OK()
	})
	t.register("discard", func(c *Ctx) {
		if !c.Client.multi {
			c.W.Error("ERR DISCARD without MULTI")
			return
		}
		c.E.discard(c.Client)
		c.W.OK()
	})
	t.register("exec", execCommand)
	t.register("watch", func(c *Ctx) {
		if c.Client.multi {
			c.W.Error("ERR WATCH inside MULTI is not allowed")
			return
		}
		// As Redis: no point in watching once the client is dirty.
		if c.Client.dirtyCAS {
			c.W.OK()
			return
		}
		for _, k := range c.Args[1:] {
			c.E.watch(c, k)
		}
		c.W.OK()
	})
	t.register("unwatch", func(c *Ctx) {
		c.E.unwatchAll(c.Client)
		c.W.OK()
	})
}

func (e *Engine) discard(cl *Client) {
	cl.multi, cl.multiErr, cl.multiQueue = false, false, nil
	e.unwatchAll(cl)
}

// watchedExpired reports whether a watched key expired since WATCH (Redis
// 7.0's isWatchedKeyExpired treats that as a change; a key already
// expired when WATCHed is not).
func (e *Engine) watchedExpired(c *Ctx) bool {
	for _, w := range c.Client.watched {
		if !w.expired && w.db.expiredNow(w.key, c.Now) {
			return true
		}
	}
	return false
}

func execCommand(c *Ctx) {
	cl := c.Client
	if !cl.multi {
		c.W.Error("ERR EXEC without MULTI")
		return
	}
	if cl.multiErr {
		c.E.discard(cl)
		c.W.Error(ErrExecAbort)
		return
	}
	if cl.dirtyCAS || c.E.watchedExpired(c) {
		c.E.discard(cl)
		c.W.NullArray()
		return
	}
	queue := cl.multiQueue
	c.E.discard(cl)
	c.W.Array(len(queue))
	wrote := false
	sub := c.E.enterNested()
	defer c.E.leaveNested(sub)
	for _, q := range queue {
		*sub = Ctx{E: c.E, Client: cl, DB: c.E.dbs[cl.DB], Args: q.args, Cmd: q.cmd, W: c.W,
			Now: NowMs(), NoBlock: true}
		// Writes inside EXEC are logged between MULTI and EXEC so that
		// replay applies the transaction whole.
		if !wrote && q.cmd.Has(FlagWrite) && c.E.Propagate != nil {
			c.E.Propagate(cl.DB, [][]byte{[]byte("MULTI")})
			wrote = true
		}
		cl.LastCmd = q.cmd.Name
		if msg := c.E.aclExecDenied(sub); msg != "" { // the rules changed since queueing (acl.go)
			c.W.Error(msg)
			continue
		}
		start, t0 := c.W.Len(), time.Now()
		if c.E.invoke(sub) {
			c.E.finish(sub)
		}
		c.E.recordNested(sub, start, t0)
	}
	if wrote {
		c.E.Propagate(cl.DB, [][]byte{[]byte("EXEC")})
	}
	// The transaction's own effects were propagated command by command.
	c.dirty = 0
}
