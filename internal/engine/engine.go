// Package engine is Ordo's keyspace: databases, value types, expiry,
// transactions, blocking operations and the command table. It never sees
// a socket: callers hand it parsed arguments and a reply writer.
//
// # Concurrency model
//
// One mutex (Engine.Lock) guards the whole keyspace, and every command
// runs to completion while holding it, so each command, each MULTI/EXEC
// and each script is atomic exactly as in Redis, and the semantics of
// commands that touch many keys need no lock ordering. Both cores are
// used because everything around execution runs in parallel in the
// connection goroutines: reading from sockets, parsing requests, and
// flushing replies. The server takes the lock once per pipelined batch,
// not per command, so a pipeline of 16 pays for one acquisition. We chose
// this over key-sharded locks on purpose: Redis's single-threaded
// execution is the specification, and sharding would make MULTI, scripts
// and multi-key commands pay for lock ordering on every call.
//
// # Guarantees
//
//   - Handlers run only under the lock and write exactly one reply.
//   - Values stored in the keyspace never alias request buffers.
//   - Every change to the dataset goes through the Propagate hook (the AOF)
//     as commands whose replay yields the same data (effects, not requests).
//   - Every change to a key is reported once to the KeyObservers, inside the
//     command's atomic step (notify.go).
//   - Nothing is process-global: each Engine has its own command table
//     (built in New from the families list and the maker's extras, such as
//     internal/script's), configuration, expiry loop, memory accounting,
//     run id and statistics. Only immutable tables (Redis's command
//     metadata, configuration parameter definitions) are shared.
//   - Pub/Sub (cmd_pubsub.go) is the engine's own registry: a message is
//     appended to each subscriber's Outbox under the lock, so no message
//     published after an UNSUBSCRIBE reaches the client and messages keep
//     their publication order; appending never blocks, and an Outbox past
//     the pubsub output limit disconnects its client (outbox.go).
//     Keyspace notifications are a KeyObserver that publishes (notify.go).
//     Client-side caching (CLIENT TRACKING) is a KeyObserver too, delivering
//     invalidations through the same Outbox (tracking.go).
//   - The engine never sees a socket and never imports the layers above
//     it (server, embedded DB, persistence, scripting): they reach it
//     through typed hooks (Persister, SyncHook, Propagate, KeyObserver).
package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordo-db/ordo/internal/ds/mem"
	"github.com/ordo-db/ordo/internal/ds/zset"
	"github.com/ordo-db/ordo/internal/resp"
)

// Engine is one Ordo instance: its databases, clients, configuration and
// command table. Nothing in it is shared with another Engine in the same
// process: commands, configuration, expiry, memory accounting, run id and
// statistics are all per instance.
type Engine struct {
	mu   sync.Mutex
	dbs  []*DB
	cmds *Table

	acct *mem.Acct // counts what this engine's dicts and sorted sets map off-heap (mapped.go)

	Config *Config
	// Log receives the engine's and its persistence's messages; nil is
	// silent. Set it before serving.
	Log *slog.Logger

	clientsMu sync.Mutex
	clients   map[int64]*Client
	nextID    atomic.Int64

	// Propagate, when set, receives every change as a command to log, with
	// the database it applies to. It runs under the lock.
	Propagate func(db int, args [][]byte)
	// SyncHook, when set, is called by the server and the embedded DB
	// after releasing the lock and before writing replies: it returns once
	// the changes propagated so far are as durable as appendfsync requires
	// (group commit for appendfsync always), or when ctx is done (then
	// with ctx's error: the change stays queued for the log).
	SyncHook func(ctx context.Context) error
	// Persistence performs SAVE, BGSAVE, BGREWRITEAOF, LASTSAVE, DEBUG
	// RELOAD and INFO persistence; nil when the engine has none.
	Persistence Persister
	// Shutdown performs SHUTDOWN for the server; nil refuses it.
	Shutdown func(c *Ctx, save bool) error
	// Replication performs REPLICAOF, SYNC/PSYNC, REPLCONF, ROLE, WAIT
	// and INFO replication; nil for an engine without (cmd_repl.go).
	Replication Replication
	replica     atomic.Bool // a replica: read-only, no expiry of its own
	linkUp      atomic.Bool // a replica's link to its master is up

	observers      []KeyObserver   // keyspace-change hook (notify.go)
	stateRewriters []StateRewriter // non-key state for AOF rewrites (observe_read.go)

	acl *aclState // users and the ACL log (acl.go)

	pubsub     pubsubRegistry // channels and patterns (cmd_pubsub.go)
	obufLimits obufLimits     // client-output-buffer-limit's pubsub class (outbox.go)
	nkFlags    int            // notify-keyspace-events classes (notify.go)
	nkBuf      []byte         // keyspace notification channel scratch

	// blocking
	blocked   map[blockKey][]*Waiter
	readyKeys []blockKey
	readySet  map[blockKey]bool

	Stats      Stats
	errorStats map[string]int64 // INFO errorstats, under the lock (cmd_server.go)
	slowlog    []slowEntry      // SLOWLOG, newest first (cmdstats.go)
	slowID     int64
	StartTime  time.Time
	dirty      int64 // changes since the last save
	closed     chan struct{}
	closeOnce  sync.Once

	runID           string
	peakMem         atomic.Int64
	activeExpireOff atomic.Bool // DEBUG SET-ACTIVE-EXPIRE 0
	appendBuf       growBuf     // APPEND's growable buffers (cmd_string.go)
	gcRunning       atomic.Bool // a GC nudge is under way (mapped.go)

	// zsetMaxBytes bounds the member bytes of one sorted set
	// (zset.MaxMemberBytes; lowered by tests).
	zsetMaxBytes int64

	// scriptRun is the running script's state, read without the lock by
	// LockOrBusy (busy.go) and Unlock; marked by internal/script.
	scriptRun ScriptRun

	evict evictState // maxmemory-policy's pool (evict.go)

	snaps []*Snapshot // point-in-time snapshots being taken (snapshot.go)

	trk       trackingState // client-side caching (tracking.go)
	xaddProp  xaddProp      // XADD's rewritten arguments, reused (cmd_stream.go)
	current   *Client       // the client whose top-level command runs (Redis's current_client)
	executing int           // handlers running (nested in EXEC and scripts)
	runSeq    uint64        // handlers started, to tell one command's events from the next's

	// clock times commands (cmdstats.go): one clock read per command.
	clock cmdClock
	// nested holds the contexts of commands run inside another (Exec,
	// EXEC), one per nesting depth, reused: a Ctx escapes to the heap
	// (handlers are called indirectly), and a script's redis.call would
	// otherwise allocate one per call.
	nested      []*Ctx
	nestedDepth int

	pause   pauseState    // CLIENT PAUSE (pause.go)
	latency latencyState  // LATENCY's event series (latency.go)
	rdbBg   rdbBackground // BGSAVE's dump.rdb (bgsave.go)
}

// Stats are the counters INFO reports.
type Stats struct {
	Commands          atomic.Int64
	Connections       atomic.Int64
	RejectedConns     atomic.Int64
	ExpiredKeys       atomic.Int64
	EvictedKeys       atomic.Int64
	KeyspaceHits      atomic.Int64
	KeyspaceMisses    atomic.Int64
	NetInput          atomic.Int64
	NetOutput         atomic.Int64
	TotalErrorReplies atomic.Int64
	// CommandPanics counts handlers that panicked and were contained
	// (INFO stats ordo_command_panics; see invoke).
	CommandPanics atomic.Int64
}

// New returns an engine with cfg (nil for defaults) and starts its active
// expiry. Its command table holds every built-in family plus extra, in
// order (internal/script's scripting commands are one such family: the
// engine cannot import the package that runs Lua on top of it).
func New(cfg *Config, extra ...func(*Table)) *Engine {
	if cfg == nil {
		cfg = NewConfig()
	}
	e := &Engine{
		Config:    cfg,
		cmds:      newTable(),
		clients:   map[int64]*Client{},
		blocked:   map[blockKey][]*Waiter{},
		readySet:  map[blockKey]bool{},
		StartTime: time.Now(),
		closed:    make(chan struct{}),
		runID:     newRunID(),
		appendBuf: growBuf{m: map[uintptr]growEntry{}},
		acct:      mem.NewAcct(nil, nil),
	}
	e.acct = mem.NewAcct(nil, e.nudgeGC)
	e.zsetMaxBytes = zset.MaxMemberBytes
	e.pubsub.init()
	e.setKeyspaceEvents(cfg.Get("notify-keyspace-events"))
	e.setOutputLimits(cfg.Get("client-output-buffer-limit"))
	cfg.OnChange("client-output-buffer-limit", func(v string) error {
		e.setOutputLimits(v)
		return nil
	})
	cfg.OnChange("notify-keyspace-events", func(v string) error {
		e.setKeyspaceEvents(v)
		return nil
	})
	e.watchLatencyThreshold(cfg)
	e.rdbBg.lastSecs.Store(-1)
	for _, f := range extra {
		f(e.cmds)
	}
	e.acl = newACLState(e)
	n := int(cfg.Int("databases"))
	e.dbs = make([]*DB, n)
	for i := range e.dbs {
		e.dbs[i] = newDB(e, i)
	}
	go e.activeExpireLoop()
	go e.savePointLoop()
	return e
}

// Lookup returns the command named by args[0] (and args[1] for
// containers) in this engine's table, or nil.
func (e *Engine) Lookup(args [][]byte) *Command { return e.cmds.Lookup(args) }

// Commands returns this engine's command table (read-only).
func (e *Engine) Commands() map[string]*Command { return e.cmds.Commands() }

// Logf logs a message at info level if the engine has a logger.
func (e *Engine) Logf(format string, args ...any) {
	if e.Log != nil {
		e.Log.Info(fmt.Sprintf(format, args...))
	}
}

// Close stops background work.
// Blocked commands waiting in Wait return ErrClosed.
func (e *Engine) Close() { e.closeOnce.Do(func() { close(e.closed) }) }

// Done is closed when the engine is closed.
func (e *Engine) Done() <-chan struct{} { return e.closed }

// ErrClosed is returned by Wait when the engine closes under a blocked
// command.
var ErrClosed = errors.New("engine: closed")

// DBs returns the databases (for persistence; under the lock).
func (e *Engine) DBs() []*DB { return e.dbs }

// Dirty is the number of changes since the last save.
func (e *Engine) Dirty() int64 { return e.dirty }

// ResetDirty is called by persistence after a save.
func (e *Engine) ResetDirty() { e.dirty = 0 }

// Client is the state of one connection (or one embedded session).
type Client struct {
	ID            int64
	Name          string
	LibName       string
	LibVer        string
	Addr, LAddr   string
	FD            int
	Created       time.Time
	LastActive    atomic.Int64 // unix ms
	LastCmd       string
	DB            int
	Proto         int
	Authenticated bool
	Kind          string // "normal", "embedded", "script", "aof"
	user          *User  // the ACL user (nil: the default user)

	// Kill asks the connection to close; set by the server.
	Kill      func()
	killed    atomic.Bool
	closeNext bool // close after writing the current reply (QUIT)
	noEvict   bool // CLIENT NO-EVICT
	noTouch   bool // CLIENT NO-TOUCH
	// CLIENT REPLY OFF / SKIP state
	replyOff, replySkip, replySkipNext bool

	multi      bool
	multiErr   bool
	multiQueue []queued
	watched    []*watchKey
	dirtyCAS   bool

	waiter *Waiter

	subs     *clientSubs     // Pub/Sub subscriptions (cmd_pubsub.go)
	out      *Outbox         // output queue once subscribed (outbox.go)
	curW     *resp.Writer    // the top-level reply writer while the client runs a command
	replLink bool            // became a replica's link (SYNC/PSYNC; cmd_repl.go)
	trk      *clientTracking // CLIENT TRACKING state, nil until first enabled (tracking.go)
	woff     int64           // replication offset after its last propagated write (WAIT; cmd_repl.go)

	ctx Ctx // reused by every command of this client (see call)
	// lastCmd is the last command (without subcommands) the client ran:
	// a pipeline of one command skips the table lookup (lowercasing and
	// hashing the name) after the first.
	lastCmd *Command
}

type queued struct {
	cmd  *Command
	args [][]byte
}

// watchKey is one WATCHed key of one client (Redis's watchedKey), listed
// both in the client and in its database.
type watchKey struct {
	db  *DB
	key string
	cl  *Client
	// expired: the key was already logically expired (but still stored)
	// when WATCHed. As in Redis 7.0, its expiry is then not a change, nor
	// is its deletion; anything else that touches it is.
	expired bool
}

// NewClient registers a client. kind is "normal" for network clients.
func (e *Engine) NewClient(kind string) *Client {
	return e.NewConnClient(kind, "", "", nil)
}

// NewConnClient is NewClient for a network connection: its addresses and
// kill function are set before the client is listed, so CLIENT LIST and
// CLIENT KILL on other connections never read them half-written.
func (e *Engine) NewConnClient(kind, addr, laddr string, kill func()) *Client {
	cl := &Client{
		ID:            e.nextID.Add(1),
		Created:       time.Now(),
		Proto:         2,
		Kind:          kind,
		Authenticated: !e.DefaultUserNeedsAuth(),
		Addr:          addr,
		LAddr:         laddr,
		Kill:          kill,
	}
	cl.LastActive.Store(time.Now().UnixMilli())
	if kind == "aof" {
		cl.user = e.acl.super // replaying the log is not subject to ACLs
	}
	if kind == "normal" || kind == KindMaster {
		e.clientsMu.Lock()
		e.clients[cl.ID] = cl
		e.clientsMu.Unlock()
	}
	return cl
}

// RemoveClient forgets a client: its watches, its blocked wait, its entry.
// It takes the engine lock.
func (e *Engine) RemoveClient(cl *Client) {
	e.Lock()
	e.unwatchAll(cl)
	e.unsubscribeAll(cl)
	e.disableTracking(cl)
	if cl.waiter != nil {
		e.removeWaiter(cl.waiter)
	}
	e.Unlock()
	e.clientsMu.Lock()
	delete(e.clients, cl.ID)
	e.clientsMu.Unlock()
}

// Clients returns a snapshot of the connected clients, by ID order.
func (e *Engine) Clients() []*Client {
	e.clientsMu.Lock()
	defer e.clientsMu.Unlock()
	out := make([]*Client, 0, len(e.clients))
	for _, c := range e.clients {
		out = append(out, c)
	}
	sortClients(out)
	return out
}

// Killed reports whether CLIENT KILL targeted the client.
func (cl *Client) Killed() bool { return cl.killed.Load() }

// CloseAfterReply reports whether the connection must close once the
// pending replies are written (QUIT, protocol errors).
func (cl *Client) CloseAfterReply() bool { return cl.closeNext }

// Watching reports whether the client WATCHes keys.
func (cl *Client) Watching() bool { return len(cl.watched) > 0 }

// InMulti reports whether the client is inside MULTI.
func (cl *Client) InMulti() bool { return cl.multi }

// Blocked reports whether the client waits in a blocking command.
func (cl *Client) Blocked() bool { return cl.waiter != nil }

// Ctx is what a handler sees: the engine, the client, the arguments and
// the reply writer.
type Ctx struct {
	E      *Engine
	Client *Client
	DB     *DB
	Args   [][]byte
	Cmd    *Command
	W      *resp.Writer
	Now    int64 // unix ms, fixed for the command (and for a whole script)

	// NoBlock is set inside MULTI/EXEC and scripts: blocking commands
	// behave as their non-blocking forms.
	NoBlock bool
	// InScript is set while a script runs.
	InScript bool
	// OOM is set when used memory was over maxmemory as the command
	// started (Redis's server.script_oom for a script it runs).
	OOM bool

	block  *Waiter
	prop   [][][]byte // replacement propagation, if the handler set one
	lastEv KeyEvent   // the last key event reported (notify.go)
	evName string     // the event name set by SetEvent (notify.go)
	quiet  bool       // key events suppressed (notify.go)
	// readStats and noStats force a lookup to count, or not, in
	// keyspace_hits/misses (readLookup, notify.go).
	readStats, noStats bool
	dirty              int64
	// resolved is the command Call looked up, ran or not (cmdstats.go).
	resolved *Command
	// prop1 is prop's room for the usual single command, so that a
	// command rewriting its propagation (XADD's ID) allocates nothing.
	prop1 [1][][]byte
}

// Block is called by a handler that must wait for keys; the caller of
// Call waits on the returned Waiter with the lock released.
func (c *Ctx) Block(w *Waiter) { c.block = w }

// Propagate replaces what the command logs with args; call it once per
// command to log (SPOP logs SREM, SET EX logs SET PXAT ...). Without a
// call, a command that changed data logs its own arguments.
func (c *Ctx) Propagate(args ...[]byte) {
	if c.prop == nil {
		c.prop = c.prop1[:0]
	}
	c.prop = append(c.prop, args)
}

// PropagateStrings is Propagate with string arguments.
func (c *Ctx) PropagateStrings(args ...string) {
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	c.prop = append(c.prop, b)
}

// Dirty records n changes to the dataset by the current command.
func (c *Ctx) Dirty(n int) { c.dirty += int64(n) }

// Error replies with msg (which must start with an error code).
func (c *Ctx) Error(msg string) { c.W.Error(msg) }

// Call executes one request for cl, replying to w. The lock must be held.
// If the command must block, Call returns the Waiter to wait on; the
// reply is then written by Wait.
func (e *Engine) Call(cl *Client, args [][]byte, w *resp.Writer) *Waiter {
	start := w.Len()
	prevW := cl.curW
	cl.curW = w
	prevCur := e.current
	e.current = cl
	nowMs := e.clock.start()
	cl.LastActive.Store(nowMs) // CLIENT LIST's idle
	off0 := e.replOffset()
	wt := e.call(cl, args, w, nowMs)
	d := e.clock.stop()
	if off := e.replOffset(); off != off0 {
		cl.woff = off // WAIT waits for this client's last write (cmd_repl.go)
	}
	// A container resolved for an unknown subcommand is Redis's failed
	// lookup: no statistics.
	if c := &cl.ctx; c.resolved != nil && (c.resolved.Sub == nil || len(args) < 2) {
		e.recordCall(cl, c.resolved, args, c.Cmd != nil, w.IsErrorAt(start), d)
	}
	cl.curW = prevW
	e.afterCall(cl, w, start) // error statistics, CLIENT REPLY (cmd_server.go)
	if cl.trk != nil {
		// CLIENT CACHING applies to the next command (or transaction) only.
		if r := cl.ctx.resolved; cl.trk.flags&trkCaching != 0 && !cl.multi && (r == nil || !strings.HasPrefix(r.Name, "client|")) {
			cl.trk.flags &^= trkCaching
		}
	}
	if len(e.trk.pending) > 0 {
		// The client's own changes are announced after its reply.
		cl.curW = w
		e.flushPendingInvalidations(cl)
		cl.curW = prevW
	}
	e.current = prevCur
	if len(e.pause.ready) > 0 && prevCur == nil {
		e.runUnpaused() // commands CLIENT UNPAUSE released (pause.go)
	}
	return wt
}

// call runs one command for cl. nowMs is when it arrived (unix ms): its
// Ctx.Now.
func (e *Engine) call(cl *Client, args [][]byte, w *resp.Writer, nowMs int64) *Waiter {
	if len(e.trk.clients) > 0 {
		e.limitTrackingTable()
	}
	// The client's own Ctx is reused: a handler never keeps its *Ctx after
	// returning (blocking copies what it needs; EXEC and scripts run their
	// commands in separate contexts), and a fresh Ctx per command would be
	// one heap allocation per command, since handlers are called indirectly.
	c := &cl.ctx
	*c = Ctx{E: e, Client: cl, W: w, Args: args, Now: nowMs}
	cmd := cl.lastCmd
	if cmd == nil || !EqualFold(args[0], cmd.Name) {
		cmd = e.cmds.Lookup(args)
		if cmd == nil {
			c.rejectInMulti()
			w.Error(unknownCommand(args))
			return nil
		}
		if cmd.Sub == nil && strings.IndexByte(cmd.Name, '|') < 0 {
			cl.lastCmd = cmd
		}
	}
	c.resolved = cmd
	if !checkArity(cmd, len(args)) {
		e.reject(c, cmd, "ERR wrong number of arguments for '"+cmd.Name+"' command")
		return nil
	}
	if !cl.Authenticated && !cmd.Has(FlagNoAuth) {
		e.reject(c, cmd, "NOAUTH Authentication required.")
		return nil
	}
	if e.aclDenied(c, cmd) { // NOPERM (acl.go)
		c.rejectInMulti()
		return nil
	}
	oom := e.maxMemoryExceeded(c) // evicts first, as maxmemory-policy says (evict.go)
	c.OOM = oom
	// The flags of this call: a script's declared flags replace EVAL's
	// and FCALL's write, denyoom and stale ones (Redis's getCommandFlags).
	// They only matter over maxmemory or on a replica, so a script's
	// flags (EVAL hashes its body for them) are read only then.
	flags := cmd.Flags
	if cmd.CallFlags != nil && (oom || e.replica.Load()) {
		flags = cmd.CallFlags(e, args)
	}
	// A container resolved without its subcommand answers "unknown
	// subcommand" before this check, as Redis's lookup fails first.
	if cl.Proto == 2 && cl.subs != nil && cmd.Sub == nil && cl.subscribed() && !allowedSubscribed(cmd.Name) {
		c.rejectInMulti()
		msg := subscribedModeError(cmd.Name)
		if cmd.Name == "exec" {
			msg = "EXECABORT Transaction discarded because of: " + msg[len("ERR "):]
		}
		w.Error(msg)
		return nil
	}
	if e.replica.Load() {
		if e.readonlyRefused(cl, flags) {
			c.rejectInMulti()
			w.Error(ErrReadonlyReplica)
			return nil
		}
		if e.staleRefused(flags) {
			c.rejectInMulti()
			w.Error(ErrMasterDown)
			return nil
		}
	} else if e.noReplicasRefused(cl, cmd) { // min-replicas-to-write (cmd_repl.go)
		e.reject(c, cmd, ErrNoReplicas)
		return nil
	}
	if e.pause.typ != pauseOff && e.pauseCovers(cl, cmd, args, c.Now) {
		return e.postpone(c) // runs when the pause ends (pause.go)
	}
	if cl.multi && !isMultiControl(cmd.Name) {
		if cmd.Sub != nil && len(args) >= 2 {
			// An unknown subcommand: Redis's lookup fails, so the command
			// is refused now and EXEC aborts. The container's handler
			// writes that error (and nothing else: checked).
			start := w.Len()
			c.Cmd, c.DB = cmd, e.dbs[cl.DB]
			cmd.Handler(c)
			c.Cmd = nil
			if w.IsErrorAt(start) {
				c.rejectInMulti()
				return nil
			}
			w.Truncate(start)
		}
		if cmd.Has(FlagNoMulti) {
			c.rejectInMulti()
			w.Error("ERR Command not allowed inside a transaction")
			return nil
		}
		// Over maxmemory, Redis refuses to queue any command (queueing
		// itself consumes memory), not only denyoom ones.
		if cl.Kind != KindMaster && oom {
			c.rejectInMulti()
			w.Error(ErrOOM)
			return nil
		}
		cp := make([][]byte, len(args))
		for i, a := range args {
			cp[i] = append([]byte{}, a...) // never nil: "" is a key too
		}
		cl.multiQueue = append(cl.multiQueue, queued{cmd, cp})
		w.Simple("QUEUED")
		return nil
	}
	if flags&FlagDenyOOM != 0 && cl.Kind != KindMaster && oom {
		w.Error(ErrOOM)
		return nil
	}
	c.Cmd = cmd
	c.DB = e.dbs[cl.DB]
	cl.LastCmd = cmd.Name
	// total_commands_processed counts commands run (Redis's call()), not
	// those refused or queued.
	e.Stats.Commands.Add(1)
	e.run(c)
	return c.block
}

// run executes a resolved command and propagates its effects.
func (e *Engine) run(c *Ctx) {
	if !e.invoke(c) {
		return
	}
	if c.block != nil {
		e.enqueue(c, c.block)
		return
	}
	e.finish(c)
}

// invoke runs c's handler and reports whether it returned normally. A
// handler that panics must not take the server down nor leave the engine
// lock held (the lock is its caller's and stays held: the caller
// releases it as after any command): the panic is logged with the
// command's name and counted, whatever the handler wrote is replaced by
// an error reply, and nothing is propagated or blocked on.
func (e *Engine) invoke(c *Ctx) (ok bool) {
	start := c.W.Len()
	e.executing++
	e.runSeq++
	defer func() {
		e.executing--
		if !ok {
			e.contain(c, start, recover())
		}
	}()
	c.Cmd.Handler(c)
	if c.Client != nil && c.Client.trk != nil && c.Cmd.Has(FlagReadonly) {
		e.trackRead(c) // client-side caching (tracking.go)
	}
	return true
}

// ErrInternalPrefix starts the reply to a command whose handler panicked.
const ErrInternalPrefix = "ERR internal error executing '"

// contain finishes a command whose handler panicked with r (see invoke):
// the reply written from start on is dropped for an error reply.
func (e *Engine) contain(c *Ctx, start int, r any) {
	e.Stats.CommandPanics.Add(1)
	name := "?"
	if c.Cmd != nil {
		name = c.Cmd.Name
	}
	if e.Log != nil {
		e.Log.Error("command handler panicked; the command was answered with an error and not propagated",
			"command", name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	}
	c.W.Truncate(start)
	c.W.Error(ErrInternalPrefix + name + "'")
	c.block = nil
	c.dirty, c.prop = 0, nil
}

// finish propagates the effects of a completed command and serves any
// clients blocked on keys it made ready.
func (e *Engine) finish(c *Ctx) {
	if c.dirty > 0 {
		e.dirty += c.dirty
		// Commands run by a script propagate their own effects (Redis 7
		// replicates script effects, not scripts); internal/script
		// collects them and wraps them in MULTI/EXEC.
		if e.Propagate != nil {
			if c.prop != nil {
				for _, p := range c.prop {
					e.Propagate(c.DB.ID, p)
				}
			} else {
				e.Propagate(c.DB.ID, c.Args)
			}
		}
	}
	c.dirty, c.prop = 0, nil
	// Inside EXEC (NoBlock) waiters are served after the whole
	// transaction, when EXEC itself finishes.
	if len(e.readyKeys) > 0 && !c.InScript && !c.NoBlock && !c.Client.multi {
		e.serveReady()
	}
}

func checkArity(cmd *Command, n int) bool {
	if cmd.Arity >= 0 {
		return n == cmd.Arity
	}
	return n >= -cmd.Arity
}

func isMultiControl(name string) bool {
	switch name {
	case "exec", "discard", "multi", "watch", "quit", "reset":
		return true
	}
	return false
}

// rejectInMulti marks the transaction as failed when a command is
// refused while queueing, so that EXEC answers EXECABORT.
// reject answers a command refused before it runs (Redis's rejectCommand):
// an EXEC refused so discards the transaction and answers EXECABORT with
// the reason (without its ERR); any other command flags the transaction.
func (e *Engine) reject(c *Ctx, cmd *Command, msg string) {
	if cmd.Name == "exec" {
		e.discard(c.Client)
		c.W.Error("EXECABORT Transaction discarded because of: " + strings.TrimPrefix(msg, "ERR "))
		return
	}
	c.rejectInMulti()
	c.W.Error(msg)
}

func (c *Ctx) rejectInMulti() {
	if c.Client.multi {
		c.Client.multiErr = true
	}
}

// unknownCommand is Redis 7.0's message, with its 128-byte truncations.
func unknownCommand(args [][]byte) string {
	var list []byte
	for i := 1; i < len(args) && len(list) < 128; i++ {
		a := cString(args[i])
		if n := 128 - len(list); len(a) > n {
			a = a[:n]
		}
		list = append(list, '\'')
		list = append(list, a...)
		list = append(list, '\'', ' ')
	}
	return "ERR unknown command '" + truncate(string(cString(args[0])), 128) + "', with args beginning with: " + string(list)
}

// cString cuts b at its first NUL, as Redis's "%s" formatting does.
func cString(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}

// Exec runs a command for an internal caller (scripts, AOF replay, the
// embedded DB's transaction paths) with the lock already held.
func (e *Engine) Exec(c *Ctx, args [][]byte, w *resp.Writer) {
	cmd := e.cmds.Lookup(args)
	if cmd == nil {
		w.Error(unknownCommand(args))
		return
	}
	if !checkArity(cmd, len(args)) {
		w.Error("ERR wrong number of arguments for '" + cmd.Name + "' command")
		return
	}
	if c.InScript && e.replica.Load() && e.readonlyRefused(c.Client, cmd.Flags) {
		w.Error(ErrReadonlyReplica)
		return
	}
	if c.InScript && e.noReplicasRefused(c.Client, cmd) {
		w.Error(ErrNoReplicas)
		return
	}
	sub := e.enterNested()
	*sub = Ctx{E: e, Client: c.Client, DB: e.dbs[c.Client.DB], Args: args, Cmd: cmd, W: w,
		Now: c.Now, NoBlock: true, InScript: c.InScript, OOM: c.OOM}
	start, t0 := w.Len(), time.Now()
	e.run(sub)
	e.recordNested(sub, start, t0)
	if !c.InScript {
		c.dirty += sub.dirty
	}
	e.leaveNested(sub)
}

// enterNested returns the reusable context of the next nesting depth;
// leaveNested gives it back. A handler never keeps its *Ctx after
// returning (see call), and a panicking one is contained by invoke, so
// the pairs always match.
func (e *Engine) enterNested() *Ctx {
	if e.nestedDepth == len(e.nested) {
		e.nested = append(e.nested, new(Ctx))
	}
	c := e.nested[e.nestedDepth]
	e.nestedDepth++
	return c
}

func (e *Engine) leaveNested(c *Ctx) {
	*c = Ctx{} // drop the references (arguments, writer) it held
	e.nestedDepth--
}

// NowMs is the engine's clock.
func NowMs() int64 { return time.Now().UnixMilli() }

// activeExpireLoop deletes expired keys in the background, ten times a
// second, sampling as Redis does: it keeps going while more than a
// quarter of the sampled keys were expired, within a time budget.
func (e *Engine) activeExpireLoop() {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-e.closed:
			return
		case <-t.C:
		}
		// DEBUG SET-ACTIVE-EXPIRE 0; a replica waits for its master's DELs.
		if e.activeExpireOff.Load() || e.replica.Load() {
			continue
		}
		e.Lock()
		if e.paused(NowMs()) { // CLIENT PAUSE keeps the dataset still
			e.Unlock()
			continue
		}
		t0 := time.Now()
		deadline := t0.Add(2 * time.Millisecond)
		for _, db := range e.dbs {
			for db.expires.Len() > 0 {
				expired, sampled := db.activeExpireCycle(e, 20)
				if sampled == 0 || expired*4 < sampled || time.Now().After(deadline) {
					break
				}
			}
		}
		e.latencyEnd("expire-cycle", t0)
		e.Unlock()
	}
}

// randInt is a shared helper for random choices.
func randInt(n int) int { return rand.IntN(n) }
