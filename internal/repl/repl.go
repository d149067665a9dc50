// Package repl is Redis 7.0's replication protocol for an Ordo engine,
// both sides. The master side is in master.go (SYNC/PSYNC served from a
// backlog fed by the engine's propagation stream). The replica side:
// REPLICAOF host port (or the replicaof directive)
// connects to a redis-server (or anything speaking its protocol), does
// the handshake (PING, AUTH with masterauth/masteruser, REPLCONF
// listening-port, REPLCONF capa eof capa psync2, PSYNC), loads the
// master's RDB (disk form "$<len>" or diskless form "$EOF:<mark>") into
// a fresh dataset while the old one is still served, swaps it in as one
// atomic step (without the log, the file received is kept as
// dir/dbfilename, written as it arrives, as redis-server's replica keeps
// it; with the log, see below), then applies the master's command stream
// through a client
// of kind engine.KindMaster, counting the replication offset. It answers
// REPLCONF GETACK and sends REPLCONF ACK every second; a dropped link is
// resumed with PSYNC <replid> <offset+1>, and a +CONTINUE keeps the data.
// As Redis 7, a replica keeps a backlog of its master's stream, byte for
// byte: it serves replicas of its own (chained replication, with the
// master's replication ID and offsets), and after REPLICAOF NO ONE the
// other replicas of the old master continue with it by a partial resync
// (replid2). Redis Sentinel's commands (INFO, SLAVEOF in MULTI, CONFIG
// REWRITE, CLIENT KILL, the hello channel) need nothing more than this and
// the engine's ordinary commands. FAILOVER, Redis 7's coordinated
// handover, is in failover.go. A full sync's file carries, besides keys,
// what Redis's RDB has no type for (JSON documents, FT index definitions
// and the rest of the engine-wide state) in aux fields redis-server
// skips; an Ordo replica installs them (state.go). On the master, the
// file is an engine snapshot taken in slices (snapshot.go); a diskless
// transfer streams it to the socket as it is assembled.
//
// With the log on (appendonly yes), the swap bypasses it; as Redis's
// replica stops its AOF and starts it again (restartAOFAfterSYNC, a
// background rewrite in AOF_WAIT_REWRITE), the swap starts a background
// rewrite whose T0 is the swap (aof.RestartAfterSync): under the engine
// lock only a new incremental file becomes the log's file and the
// snapshot begins; the base is written while clients are served and the
// master's stream applied, the stream's changes going to the new file.
// With 1M keys (TestReplicaLogRestartPause, 2 cores shared with other
// jobs at load average 14, noisy): the swap's lock hold went from 1.2-3.0
// s (the whole save) to 0.4 ms, and the longest PING on the replica from
// 1.2-3.0 s to 170-560 ms overall and 130-160 ms once the link was up
// (the rewrite's slices, GC and the busy machine). A rewrite of the old data set running at
// the swap is stopped first. INFO reads as redis-server's meanwhile
// (aof_rewrite_in_progress:1, then aof_rewrite_scheduled:1 if it failed
// and waits to be retried). A crash before it completes restarts from the
// old files, whose manifest still names them: the data set as it was
// before the full sync (the file written since is not listed and is
// removed at start). As Redis's AOF, the log keeps no replication ID, so
// the restarted replica resyncs in full (replicaof in its configuration,
// or REPLICAOF). Unlike Redis, SHUTDOWN NOSAVE during that rewrite
// exits (Redis refuses: "Writing initial AOF, can't exit"), and a restart
// then also comes back with the data set from before the sync.
//
// Locking: ReplicaOf runs under the engine lock (it is a command); the
// link goroutine takes the engine lock to apply a batch and checks there
// that its generation is still current, so after REPLICAOF NO ONE (or
// another REPLICAOF) returns, nothing from the old link is applied. The
// Replica's own mutex is always taken after the engine lock, never
// before it.
package repl

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// Link states, as ROLE names them.
const (
	stateNone       = "none"
	stateConnect    = "connect"
	stateConnecting = "connecting"
	stateHandshake  = "handshake"
	stateSync       = "sync"
	stateConnected  = "connected"
)

// Options configure a Replica.
type Options struct {
	// Logf receives Redis-style log lines; nil is silent.
	Logf func(format string, args ...any)
	// Port returns the port announced with REPLCONF listening-port
	// (replica-announce-port overrides it); nil announces the port
	// parameter.
	Port func() int
}

// Replica is the replication state of one engine.
type Replica struct {
	e    *engine.Engine
	opts Options

	gen atomic.Int64 // bumped by ReplicaOf and Close; stale links stop

	mu           sync.Mutex
	host         string // "" when a master
	port         int
	state        string
	cancel       context.CancelFunc
	done         chan struct{} // closed when the current link goroutine exits
	closed       bool
	replid       string
	replid2      string
	secondOffset int64
	synced       bool // the offsets below belong to a master link
	linkUp       bool
	downSince    time.Time
	dbSel        int // the master client's database, kept for PSYNC
	syncTotal    int64
	syncStart    time.Time

	// master side (master.go), under mu
	backlog        *backlog
	feeding        atomic.Bool // backlog != nil: feed has work
	feedBuf        []byte
	seldb          int
	links          map[int64]*link // replicas past SYNC/PSYNC, by client ID
	pre            map[int64]*link // clients that sent REPLCONF, by client ID
	stopPing       chan struct{}
	ackReq         chan struct{} // WAIT asks for REPLCONF GETACK (pinger)
	limitsSrc      string        // client-output-buffer-limit, parsed into limits
	limits         [3]int64      // its replica class: hard, soft, seconds
	closedCh       chan struct{}
	syncFull       int64
	syncPartialOK  int64
	syncPartialErr int64

	offset     atomic.Int64 // applied (slave_repl_offset, master_repl_offset)
	readOffset atomic.Int64 // read from the master
	lastIO     atomic.Int64 // unix ms of the last byte from the master
	syncRead   atomic.Int64 // bytes of the RDB read so far

	fo failover // FAILOVER (failover.go), under mu
}

// New returns e's replication state (a master) and installs it as
// e.Replication.
func New(e *engine.Engine, opts Options) *Replica {
	r := &Replica{e: e, opts: opts, state: stateNone, replid: newID(), replid2: strings.Repeat("0", 40), secondOffset: -1,
		seldb: -1, closedCh: make(chan struct{}), ackReq: make(chan struct{}, 1)}
	e.Replication = r
	return r
}

func newID() string {
	var b [20]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (r *Replica) logf(format string, args ...any) {
	if r.opts.Logf != nil {
		r.opts.Logf(format, args...)
	}
}

// Start chains the master side's feed after the engine's Propagate
// (the AOF's, installed before) and applies the replicaof parameter
// ("host port"), if set: called once the server listens.
func (r *Replica) Start() error {
	r.e.Lock()
	r.attachFeed()
	r.e.Unlock()
	v := strings.Fields(r.e.Config.Get("replicaof"))
	if len(v) == 0 {
		return nil
	}
	if len(v) != 2 {
		return fmt.Errorf("replicaof: want \"host port\", got %q", r.e.Config.Get("replicaof"))
	}
	port, err := strconv.Atoi(v[1])
	if err != nil {
		return fmt.Errorf("replicaof: invalid port %q", v[1])
	}
	r.e.Lock()
	r.ReplicaOf(v[0], port)
	r.e.Unlock()
	return nil
}

// Close stops replicating and waits for the link to end. It must not be
// called with the engine lock held.
func (r *Replica) Close() {
	r.gen.Add(1)
	r.mu.Lock()
	if !r.closed {
		close(r.closedCh)
		if r.stopPing != nil {
			close(r.stopPing)
		}
	}
	r.closed = true
	done := r.stopLocked()
	r.mu.Unlock()
	if done != nil {
		<-done
	}
}

// stopLocked cancels the current link; r.mu is held.
func (r *Replica) stopLocked() chan struct{} {
	if r.cancel != nil {
		r.cancel()
		r.cancel = nil
	}
	d := r.done
	r.done = nil
	return d
}

// ReplicaOf implements engine.Replication (REPLICAOF, SLAVEOF).
func (r *Replica) ReplicaOf(host string, port int) string {
	if host == "" {
		r.unsetMaster("user request")
		return "OK"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.host == host && r.port == port {
		return "OK Already connected to specified master"
	}
	gen := r.gen.Add(1)
	r.stopLocked()
	wasMaster := r.host == ""
	// Our replicas resync with us once we are in step with the new
	// master (Redis's replicationSetMaster); the backlog stays, to go on
	// from our history if the new master continues it.
	r.kickLinksLocked()
	r.feeding.Store(false)
	r.host, r.port, r.state, r.linkUp = host, port, stateConnect, false
	r.downSince = time.Time{}
	if wasMaster {
		// As Redis's replicationCacheMasterUsingMyself: our own history
		// is what we ask to continue (a master that does not know it
		// answers FULLRESYNC).
		r.synced = true
		r.dbSel = 0
	}
	r.e.SetReplica(true)
	r.e.SetMasterLinkUp(false)
	r.e.Config.Set("replicaof", host+" "+strconv.Itoa(port), true) // CONFIG GET/REWRITE
	if r.closed {
		return "OK"
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	done := make(chan struct{})
	r.done = done
	r.logf("Connecting to MASTER %s:%d", host, port)
	go r.run(ctx, gen, host, port, done)
	return "OK"
}

// unsetMaster makes a replica a master again, keeping its data (Redis's
// replicationUnsetMaster; why is for the log). The engine lock is held,
// not r.mu.
func (r *Replica) unsetMaster(why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.host == "" {
		return
	}
	r.gen.Add(1)
	r.stopLocked()
	// Redis's shiftReplicationId: replicas of the old master can
	// still PSYNC from us up to the offset reached.
	r.replid2 = r.replid
	r.secondOffset = r.offset.Load() + 1
	r.replid = newID()
	// Our replicas reconnect and learn the new ID with a partial
	// resync (Redis's replicationUnsetMaster); our own writes
	// start with a SELECT.
	r.kickLinksLocked()
	r.seldb = -1
	r.feeding.Store(r.backlog != nil)
	if r.backlog != nil {
		r.ensurePinger()
	}
	r.logf("MASTER MODE enabled (%s)", why)
	r.host, r.port, r.state, r.linkUp = "", 0, stateNone, false
	r.e.SetReplica(false)
	r.e.SetMasterLinkUp(false)
	r.e.Config.Set("replicaof", "", true) // CONFIG GET/REWRITE
}

func (r *Replica) stale(gen int64) bool { return r.gen.Load() != gen }

// run keeps a link to the master until ctx is done: connect, sync,
// stream; after a failure, retry every second.
func (r *Replica) run(ctx context.Context, gen int64, host string, port int, done chan struct{}) {
	defer close(done)
	for {
		err := r.link(ctx, gen, host, port)
		r.mu.Lock()
		if !r.stale(gen) {
			if r.linkUp {
				r.downSince = time.Now()
			}
			r.state, r.linkUp = stateConnect, false
			r.e.SetMasterLinkUp(false)
			r.readOffset.Store(r.offset.Load())
		}
		r.mu.Unlock()
		if ctx.Err() != nil || r.stale(gen) {
			return
		}
		r.logf("MASTER <-> REPLICA link with %s:%d: %v", host, port, err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (r *Replica) setState(gen int64, s string) {
	r.mu.Lock()
	if !r.stale(gen) {
		r.state = s
	}
	r.mu.Unlock()
}

var errStale = errors.New("replication link replaced")

// errPSYNCRefused is an error reply to PSYNC.
var errPSYNCRefused = errors.New("unexpected reply to PSYNC from master")

// link runs one connection to the master.
func (r *Replica) link(ctx context.Context, gen int64, host string, port int) error {
	r.setState(gen, stateConnecting)
	timeout := time.Duration(r.e.Config.Int("repl-timeout")) * time.Second
	d := net.Dialer{Timeout: timeout}
	nc, err := d.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	defer stop()
	defer nc.Close()
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	conn := &ioConn{Conn: nc, timeout: timeout, lastIO: &r.lastIO}
	br := bufio.NewReaderSize(conn, 64<<10)
	r.logf("MASTER <-> REPLICA sync started")
	r.setState(gen, stateHandshake)

	fo := r.failoverPSYNC()
	full, masterID, masterOff, err := r.handshake(conn, br, fo)
	if fo && (err == nil || errors.Is(err, errPSYNCRefused)) {
		// As Redis's syncWithMaster: the target's answer to PSYNC
		// FAILOVER decides (other failures retry the connection).
		r.failoverHandshakeDone(gen, err == nil)
	}
	if err != nil {
		return err
	}
	if full {
		r.setState(gen, stateSync)
		if err := r.fullSync(gen, br, masterID, masterOff); err != nil {
			return err
		}
	}
	r.mu.Lock()
	if r.stale(gen) {
		r.mu.Unlock()
		return errStale
	}
	r.state, r.linkUp = stateConnected, true
	r.e.SetMasterLinkUp(true)
	r.mu.Unlock()
	return r.stream(ctx, gen, conn, br)
}

// command sends one command and reads its reply.
func command(w io.Writer, br *bufio.Reader, args ...string) (resp.Value, error) {
	if _, err := w.Write(resp.AppendCommand(nil, args...)); err != nil {
		return resp.Value{}, err
	}
	return resp.ReadReply(br)
}

// handshake runs PING, AUTH, REPLCONF and PSYNC; it reports whether a
// full sync follows, with the master's replication ID and offset.
// With failover (FAILOVER in progress), PSYNC asks the master to take
// over: PSYNC <replid> <offset> FAILOVER.
func (r *Replica) handshake(conn net.Conn, br *bufio.Reader, failover bool) (full bool, id string, off int64, err error) {
	v, err := command(conn, br, "PING")
	if err != nil {
		return false, "", 0, err
	}
	// An error about authentication is fine at this point: AUTH follows.
	if v.Kind == resp.KindError && !strings.HasPrefix(v.Str, "NOAUTH") && !strings.HasPrefix(v.Str, "NOPERM") &&
		!strings.HasPrefix(v.Str, "ERR operation not permitted") {
		return false, "", 0, fmt.Errorf("error reply to PING from master: '%s'", v.Str)
	}
	if pass := r.e.Config.Get("masterauth"); pass != "" {
		args := []string{"AUTH", pass}
		if user := r.e.Config.Get("masteruser"); user != "" {
			args = []string{"AUTH", user, pass}
		}
		v, err := command(conn, br, args...)
		if err != nil {
			return false, "", 0, err
		}
		if v.Kind == resp.KindError {
			return false, "", 0, fmt.Errorf("unable to AUTH to MASTER: %s", v.Str)
		}
	}
	port := int(r.e.Config.Int("replica-announce-port"))
	if port == 0 {
		if r.opts.Port != nil {
			port = r.opts.Port()
		} else {
			port = int(r.e.Config.Int("port"))
		}
	}
	// Errors to REPLCONF are ignored, as Redis does (older masters).
	if _, err := command(conn, br, "REPLCONF", "listening-port", strconv.Itoa(port)); err != nil {
		return false, "", 0, err
	}
	if ip := r.e.Config.Get("replica-announce-ip"); ip != "" {
		if _, err := command(conn, br, "REPLCONF", "ip-address", ip); err != nil {
			return false, "", 0, err
		}
	}
	if _, err := command(conn, br, "REPLCONF", "capa", "eof", "capa", "psync2"); err != nil {
		return false, "", 0, err
	}
	r.mu.Lock()
	psyncID, psyncOff := "?", "-1"
	if r.synced {
		psyncID, psyncOff = r.replid, strconv.FormatInt(r.offset.Load()+1, 10)
	}
	r.mu.Unlock()
	r.logf("Trying a partial resynchronization (request %s:%s).", psyncID, psyncOff)
	psync := []string{"PSYNC", psyncID, psyncOff}
	if failover {
		psync = append(psync, "FAILOVER")
	}
	if _, err := conn.Write(resp.AppendCommand(nil, psync...)); err != nil {
		return false, "", 0, err
	}
	// A master that delays a diskless sync (repl-diskless-sync-delay, 5 s
	// by default) sends bare newlines to keep the link alive before it
	// answers PSYNC, as Redis's replica expects (PSYNC_WAIT_REPLY).
	for {
		b, err := br.Peek(1)
		if err != nil {
			return false, "", 0, err
		}
		if b[0] != '\n' && b[0] != '\r' {
			break
		}
		br.Discard(1)
	}
	v, err = resp.ReadReply(br)
	if err != nil {
		return false, "", 0, err
	}
	if v.Kind == resp.KindError {
		return false, "", 0, fmt.Errorf("%w: -%s", errPSYNCRefused, v.Str)
	}
	f := strings.Fields(v.Str)
	switch {
	case len(f) == 3 && f[0] == "FULLRESYNC":
		off, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || len(f[1]) != 40 {
			return false, "", 0, fmt.Errorf("bad reply to PSYNC from master: %q", v.Str)
		}
		r.logf("Full resync from master: %s:%d", f[1], off)
		return true, f[1], off, nil
	case len(f) >= 1 && f[0] == "CONTINUE":
		r.mu.Lock()
		if len(f) == 2 && len(f[1]) == 40 && f[1] != r.replid {
			// The master's ID changed (a failover): the old one is our
			// secondary ID, valid up to the current offset. Our own
			// replicas learn the new ID by reconnecting.
			r.replid2 = r.replid
			r.secondOffset = r.offset.Load() + 1
			r.replid = f[1]
			r.kickLinksLocked()
		}
		r.ensureBacklogLocked()
		r.mu.Unlock()
		r.logf("Successful partial resynchronization with master.")
		return false, "", 0, nil
	}
	return false, "", 0, fmt.Errorf("unexpected reply to PSYNC from master: %q", v.Str)
}

// ioConn refreshes the read deadline (repl-timeout) on every read and
// records when the master was last heard from; writes (ACKs from two
// goroutines) are serialized.
type ioConn struct {
	net.Conn
	timeout time.Duration
	lastIO  *atomic.Int64
	wmu     sync.Mutex
}

func (c *ioConn) Read(p []byte) (int, error) {
	c.Conn.SetReadDeadline(time.Now().Add(c.timeout))
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.lastIO.Store(time.Now().UnixMilli())
	}
	return n, err
}

func (c *ioConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.Conn.SetWriteDeadline(time.Now().Add(c.timeout))
	return c.Conn.Write(p)
}
