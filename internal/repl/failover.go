package repl

// FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms], as Redis 7.0's
// coordinated failover (replication.c): the master pauses writes (as
// CLIENT PAUSE WRITE, and stops its PINGs so that the offset stands
// still), waits until a replica (the one named by TO, or the first) has
// acknowledged the whole stream, then becomes a replica of it and asks it
// with PSYNC <replid> <offset> FAILOVER to become a master; the target
// promotes itself if the replication ID is its own and answers
// +CONTINUE. Then the writes held meanwhile run (and, the server being a
// replica now, get READONLY). INFO's master_failover_state shows
// no-failover, waiting-for-sync or failover-in-progress. A TIMEOUT that
// passes while waiting aborts the failover, or with FORCE fails over to
// the target anyway; FAILOVER ABORT ends it, and a master that already
// became a replica becomes a master again; so does one whose target
// answers the PSYNC with an error. A target that cannot be reached is
// retried every second until it answers or FAILOVER ABORT, as Redis's
// replica retries its master.

import (
	"time"

	"github.com/ordo-db/ordo/internal/engine"
)

// Failover states, as INFO names them.
const (
	foNone       = "no-failover"
	foWaiting    = "waiting-for-sync"
	foInProgress = "failover-in-progress"
)

// failover is the state of a FAILOVER, under r.mu.
type failover struct {
	state string // "" or one of the above
	host  string // the target, "" until chosen
	port  int
	end   time.Time // zero: no TIMEOUT
	force bool
	stop  chan struct{} // ends the watcher goroutine
}

// FailingOver reports whether a FAILOVER is under way (REPLICAOF is
// refused meanwhile).
func (r *Replica) FailingOver() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fo.state != "" && r.fo.state != foNone
}

func (r *Replica) failoverState() string {
	if r.fo.state == "" {
		return foNone
	}
	return r.fo.state
}

// Failover is the FAILOVER command (the engine lock held).
func (r *Replica) Failover(c *engine.Ctx) {
	if len(c.Args) == 2 && c.ArgIs(1, "abort") {
		r.mu.Lock()
		if r.failoverState() == foNone {
			r.mu.Unlock()
			c.W.Error("ERR No failover in progress.")
			return
		}
		r.mu.Unlock()
		r.abortFailover("Failover manually aborted")
		c.W.OK()
		return
	}
	var timeout, port int64
	host, force, hasHost := "", false, false
	for j := 1; j < len(c.Args); j++ {
		switch {
		case c.ArgIs(j, "timeout") && j+1 < len(c.Args) && timeout == 0:
			t, ok := c.IntArg(j + 1)
			if !ok {
				return
			}
			if t <= 0 {
				c.W.Error("ERR FAILOVER timeout must be greater than 0")
				return
			}
			timeout = t
			j++
		case c.ArgIs(j, "to") && j+2 < len(c.Args) && !hasHost:
			p, ok := c.IntArg(j + 2)
			if !ok {
				return
			}
			host, port, hasHost = string(c.Args[j+1]), p, true
			j += 2
		case c.ArgIs(j, "force") && !force:
			force = true
		default:
			c.W.Error(engine.ErrSyntax)
			return
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.failoverState() != foNone:
		c.W.Error("ERR FAILOVER already in progress.")
		return
	case r.host != "":
		c.W.Error("ERR FAILOVER is not valid when server is a replica.")
		return
	case len(r.links) == 0:
		c.W.Error("ERR FAILOVER requires connected replicas.")
		return
	case force && (timeout == 0 || !hasHost):
		c.W.Error("ERR FAILOVER with force option requires both a timeout and target HOST and IP.")
		return
	}
	fo := failover{state: foWaiting, force: force, stop: make(chan struct{})}
	if hasHost {
		l := r.findReplicaLocked(host, int(port))
		if l == nil {
			c.W.Error("ERR FAILOVER target HOST and PORT is not a replica.")
			return
		}
		if !l.online {
			c.W.Error("ERR FAILOVER target replica is not online.")
			return
		}
		fo.host, fo.port = host, int(port)
		r.logf("FAILOVER requested to %s:%d.", host, port)
	} else {
		r.logf("FAILOVER requested to any replica.")
	}
	if timeout > 0 {
		fo.end = time.Now().Add(time.Duration(timeout) * time.Millisecond)
	}
	r.fo = fo
	r.e.SetFailoverPause(true)
	go r.watchFailover(fo.stop)
	c.W.OK()
}

// findReplicaLocked returns the link of the replica at host:port (its
// announced address and listening port), or nil.
func (r *Replica) findReplicaLocked(host string, port int) *link {
	for _, l := range r.sortedLinks() {
		if l.host() == host && l.port == port {
			return l
		}
	}
	return nil
}

// watchFailover checks the failover every 10 ms while it waits for the
// target's acknowledgement (Redis checks it before every event loop
// sleep): the timeout, then whether a replica is in step.
func (r *Replica) watchFailover(stop <-chan struct{}) {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-r.closedCh:
			return
		case <-t.C:
		}
		if r.updateFailover() {
			return
		}
	}
}

// updateFailover is Redis's updateFailoverStatus; it reports whether the
// watcher is done.
func (r *Replica) updateFailover() bool {
	e := r.e
	e.Lock()
	defer e.Unlock()
	r.mu.Lock()
	if r.fo.state != foWaiting {
		r.mu.Unlock()
		return true
	}
	if !r.fo.end.IsZero() && !time.Now().Before(r.fo.end) {
		if r.fo.force {
			r.logf("FAILOVER to %s:%d time out exceeded, failing over.", r.fo.host, r.fo.port)
			r.fo.state = foInProgress
			host, port := r.fo.host, r.fo.port
			r.mu.Unlock()
			r.ReplicaOf(host, port)
			return true
		}
		r.mu.Unlock()
		r.abortFailover("Replica never caught up before timeout")
		return true
	}
	off := r.offset.Load()
	var target *link
	if r.fo.host != "" {
		target = r.findReplicaLocked(r.fo.host, r.fo.port)
	} else {
		for _, l := range r.sortedLinks() {
			if l.ack == off {
				r.fo.host, r.fo.port = l.host(), l.port
				target = l
				break
			}
		}
	}
	if target == nil || target.ack != off {
		r.mu.Unlock()
		return false
	}
	r.fo.state = foInProgress
	r.logf("Failover target %s:%d is synced, failing over.", r.fo.host, r.fo.port)
	host, port := r.fo.host, r.fo.port
	r.mu.Unlock()
	r.ReplicaOf(host, port)
	return true
}

// abortFailover is Redis's abortFailover: a master that became a replica
// for the failover becomes a master again; writes resume. The engine
// lock is held, not r.mu.
func (r *Replica) abortFailover(why string) {
	r.mu.Lock()
	fo := r.fo
	if fo.state == "" || fo.state == foNone {
		r.mu.Unlock()
		return
	}
	if fo.host != "" {
		r.logf("FAILOVER to %s:%d aborted: %s", fo.host, fo.port, why)
	} else {
		r.logf("FAILOVER to any replica aborted: %s", why)
	}
	r.mu.Unlock()
	if fo.state == foInProgress {
		r.unsetMaster("failover aborted")
	}
	r.clearFailover()
}

// clearFailover ends the failover and its write pause (the engine lock
// held, not r.mu).
func (r *Replica) clearFailover() {
	r.mu.Lock()
	if r.fo.stop != nil {
		close(r.fo.stop)
	}
	r.fo = failover{}
	r.mu.Unlock()
	r.e.SetFailoverPause(false)
}

// failoverHandshakeDone is told by the link, after its PSYNC, whether the
// target accepted (it takes the engine lock).
func (r *Replica) failoverHandshakeDone(gen int64, accepted bool) {
	r.e.Lock()
	defer r.e.Unlock()
	r.mu.Lock()
	inProgress := r.fo.state == foInProgress && !r.stale(gen)
	r.mu.Unlock()
	if !inProgress {
		return
	}
	if accepted {
		r.clearFailover()
		return
	}
	r.abortFailover("Failover target rejected psync request")
}

// failoverPSYNC reports whether the link's PSYNC must ask the master to
// take over (the failover is in progress).
func (r *Replica) failoverPSYNC() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fo.state == foInProgress
}

// psyncFailover is the target's side of PSYNC <replid> <offset> FAILOVER
// (the engine lock held, not r.mu): a replica asked with its own
// replication ID becomes a master before answering the PSYNC. It reports
// false after an error reply.
func (r *Replica) psyncFailover(c *engine.Ctx) bool {
	r.mu.Lock()
	mine := string(c.Args[1]) == r.replid
	r.mu.Unlock()
	if !mine {
		c.W.Error("ERR PSYNC FAILOVER replid must match my replid.")
		return false
	}
	r.unsetMaster("failover request from " + c.Client.Addr)
	return true
}
