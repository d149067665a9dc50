// Package ordo is the embedded Ordo database: the same engine and command
// table as ordo-server, opened in-process with no server and no socket.
//
//	db, err := ordo.Open("./data", nil)
//	defer db.Close()
//	n, err := db.Do(ctx, "HSET", "user:1", "age", "38").Int64()
//
// Every Redis command Ordo implements works through Do with Redis's
// semantics; error replies come back as *ordo.Error values and null
// replies as ErrNil, as go-redis users expect.
//
// # Guarantees
//
//   - DB is safe for concurrent use; each command is atomic, as in Redis.
//   - Several DBs in one process are independent: each has its own command
//     table, configuration, expiry, memory accounting and statistics.
//   - Do returns only once the change is as durable as Options.Sync asks,
//     or when its context is done (then with the context's error; the
//     change itself is applied and stays queued for the log).
//   - Close waits for the commands in progress, wakes blocked ones with
//     ErrClosed, and writes a snapshot; after it every call returns
//     ErrClosed.
//   - Nothing is printed: messages go to Options.Logger, if any.
//
// Commands that keep per-connection state (SELECT, MULTI, WATCH) need a
// Conn, which must be closed when no longer needed. Each Do is a fresh
// session of its own (see DB.Do).
//
// # No protocol in between
//
// A command through Go encodes and parses no RESP. Arguments given as
// strings or byte slices reach the engine as they are (no copy: the
// engine neither changes nor keeps an argument), and the reply is
// recorded as values while the command writes it (the engine's reply
// writer in value mode), then read by Reply: the same values the RESP
// bytes would have parsed to, in RESP2 and, after HELLO 3, RESP3.
//
// # Pub/Sub and keyspace notifications
//
// Subscribe, PSubscribe and SSubscribe return a Subscription whose
// channel C receives the messages published to it (by Publish, by any
// Conn, by scripts, or by ordo-server clients when the engine is served),
// in publication order, none after an Unsubscribe returns. With
// notify-keyspace-events set (Options.Config or CONFIG SET), keyspace
// notifications arrive the same way, on the __keyspace@<db>__:<key> and
// __keyevent@<db>__:<event> channels, with Redis 7.0's event names. A
// subscriber that stops reading never slows publishers down: past the
// pubsub client-output-buffer-limit its C is closed and Err returns
// ErrSlowSubscriber, as Redis disconnects such a client. Do refuses the
// SUBSCRIBE commands, whose replies are a stream.
//
// # Secondary indexes
//
// CreateIndex, DropIndex and Search give the engine's FT.* indexes a
// typed Go API: queries built from Go values (NumRange with exact decimal
// bounds, TagIn, Words, And, Or, Not, Missing...), evaluated in-process
// under the engine lock by FT.SEARCH's evaluator, results as Go values.
// An index is kept in step with every write in the write's own atomic
// step, so Search sees every change that returned before it.
package ordo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ordo-db/ordo/internal/aof"
	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
	"github.com/ordo-db/ordo/internal/script"
	"github.com/ordo-db/ordo/internal/search"
)

// DB is an open embedded database.
type DB struct {
	e   *engine.Engine
	aof *aof.AOF
	ft  *search.Handle // the engine's indexes, for Search

	// life is held shared by every call in progress and exclusively by
	// Close, so that Close never races a command.
	life   sync.RWMutex
	closed atomic.Bool

	// sessions holds Do's sessions between calls (see Do).
	sessions sync.Pool

	gets docSlab // GetDoc's copies (search.go), under the engine lock
}

// ErrClosed is returned after Close.
var ErrClosed = errors.New("ordo: database closed")

// Open opens (creating if needed) the database in dir. opts may be nil.
func Open(dir string, opts *Options) (*DB, error) {
	cfg, err := opts.engineConfig(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Get("dir"), 0o755); err != nil {
		return nil, fmt.Errorf("ordo: %w", err)
	}
	ft := search.NewHandle()
	e := engine.New(cfg, script.Register, ft.Register)
	if opts != nil {
		e.Log = opts.Logger
	}
	db := &DB{e: e, ft: ft}
	// Persistence: loads dir's data (unless InMemory) and logs every
	// change with the Sync policy; Close writes a snapshot.
	p, err := aof.Open(e, nil)
	if err != nil {
		e.Close()
		return nil, err
	}
	db.aof = p
	return db, nil
}

// Close waits for the commands in progress (blocked ones return
// ErrClosed), writes a snapshot and closes the database. It is safe to
// call more than once and concurrently with other calls.
func (db *DB) Close() error {
	if db.closed.Swap(true) {
		return nil
	}
	db.e.Close() // stops expiry and wakes blocked commands
	db.life.Lock()
	defer db.life.Unlock()
	return db.aof.Close(true)
}

// enter marks a call in progress; it fails once Close started.
func (db *DB) enter() bool {
	db.life.RLock()
	if db.closed.Load() {
		db.life.RUnlock()
		return false
	}
	return true
}

func (db *DB) leave() { db.life.RUnlock() }

// Do runs one command on database 0 and returns its reply.
//
// Each call is a session of its own, as a new connection: its own client
// ID, database 0, RESP2, no name, nothing left by an earlier call
// (SELECT, HELLO, CLIENT SETNAME, CLIENT REPLY, AUTH, MULTI, WATCH in one
// call end with it). Sessions are reused between calls once reset to
// that state, so a call allocates no session.
func (db *DB) Do(ctx context.Context, args ...any) *Reply {
	c := db.session()
	r := c.Do(ctx, args...)
	db.release(c)
	return r
}

// session returns a fresh session for one call, pooled or new.
func (db *DB) session() *Conn {
	if c, _ := db.sessions.Get().(*Conn); c != nil {
		return c
	}
	return db.newConn(true)
}

// release ends a Do session: back to the pool if it resets to a fresh
// session (engine.ResetSession) and holds no large buffers, else closed.
func (db *DB) release(c *Conn) {
	if c.w.Capacity() <= maxPooledBuffers && db.e.ResetSession(c.cl) {
		c.cl.Authenticated = true
		c.w.Proto = 2
		c.w.Reset()
		db.sessions.Put(c)
		return
	}
	c.close()
}

// maxPooledBuffers bounds the buffers a pooled session keeps, so that
// one large reply does not stay allocated.
const maxPooledBuffers = 64 << 10

// Conn is a session with its own state (selected database, MULTI, WATCH,
// RESP version), like one client connection. A Conn is not safe for
// concurrent use. Close it when done: it releases its WATCHes and its
// place in the engine (a Conn dropped without Close is released when the
// garbage collector finds it).
type Conn struct {
	db     *DB
	cl     *engine.Client
	w      resp.Writer // in value mode
	closed bool
	// argv and num are reused by each command's arguments.
	argv [][]byte
	num  []byte
	// cleanup releases the client if the Conn is dropped unclosed.
	cleanup runtime.Cleanup
}

// Conn opens a session.
func (db *DB) Conn() *Conn {
	c := db.newConn(true)
	e := db.e
	c.cleanup = runtime.AddCleanup(c, func(cl *engine.Client) { e.RemoveClient(cl) }, c.cl)
	return c
}

// newConn makes a session. values selects the writer's value mode (the
// reply is read with Writer.Value); without it the session writes RESP,
// which only the test comparing both paths uses.
func (db *DB) newConn(values bool) *Conn {
	cl := db.e.NewClient("embedded")
	cl.Authenticated = true
	c := &Conn{db: db, cl: cl, w: resp.Writer{Proto: 2}}
	if values {
		c.w.EnableValues()
	}
	return c
}

// Close ends the session: its WATCHes and MULTI are dropped. Calling it
// again does nothing.
func (c *Conn) Close() error {
	if c.closed {
		return nil
	}
	c.cleanup.Stop()
	c.close()
	return nil
}

func (c *Conn) close() {
	c.closed = true
	if c.cl.InMulti() || c.cl.Watching() {
		c.db.e.RemoveClient(c.cl)
	}
}

// errConnClosed is returned by a closed Conn.
var errConnClosed = errors.New("ordo: connection closed")

// Do runs one command in this session.
func (c *Conn) Do(ctx context.Context, args ...any) *Reply {
	v, err := c.doValue(ctx, args)
	if err != nil {
		return &Reply{err: err}
	}
	return newReply(v)
}

// errNoCommand is returned for a call without arguments.
var errNoCommand = errors.New("ordo: no command")

// doValue runs args and returns the reply.
func (c *Conn) doValue(ctx context.Context, args []any) (resp.Value, error) {
	if c.closed {
		return resp.Value{}, errConnClosed
	}
	if len(args) == 0 {
		return resp.Value{}, errNoCommand
	}
	// The arguments are viewed, not copied: the engine never changes an
	// argument nor keeps one (engine package doc).
	argv, num := c.argv[:0], c.num[:0]
	for _, a := range args {
		var b []byte
		b, num = appendArg(num, a)
		argv = append(argv, b)
	}
	err := c.run(ctx, argv)
	clear(argv) // no reference to the caller's memory kept
	c.argv, c.num = argv[:0], num[:0]
	if err != nil {
		return resp.Value{}, err
	}
	return c.reply()
}

// DoArgs runs a command given as byte slices (no conversion).
func (c *Conn) DoArgs(ctx context.Context, args [][]byte) *Reply {
	if c.closed {
		return &Reply{err: errConnClosed}
	}
	if len(args) == 0 {
		return &Reply{err: errNoCommand}
	}
	return c.do(ctx, args)
}

func (c *Conn) do(ctx context.Context, argv [][]byte) *Reply {
	if err := c.run(ctx, argv); err != nil {
		return &Reply{err: err}
	}
	v, err := c.reply()
	if err != nil {
		return &Reply{err: err}
	}
	return newReply(v)
}

// reply returns the last command's reply: values, with no RESP in
// between (Writer.Value).
func (c *Conn) reply() (resp.Value, error) {
	v, err := c.w.Value()
	if err != nil {
		return v, fmt.Errorf("ordo: reply: %w", err)
	}
	return v, nil
}

// run executes argv; its reply is then in c.w (valid until the next
// command).
func (c *Conn) run(ctx context.Context, argv [][]byte) error {
	if isSubscribe(argv[0]) {
		return errSubscribeDo
	}
	db := c.db
	if !db.enter() {
		return ErrClosed
	}
	defer db.leave()
	if err := ctx.Err(); err != nil {
		return err
	}
	e := db.e
	c.w.Reset()
	e.Lock()
	wt := e.Call(c.cl, argv, &c.w)
	hook := e.SyncHook
	e.Unlock()
	if wt != nil {
		if err := e.Wait(ctx, wt); err != nil {
			if errors.Is(err, engine.ErrClosed) {
				err = ErrClosed
			}
			return err
		}
	}
	if hook != nil {
		// appendfsync: no reply before its changes are durable enough.
		if err := hook(ctx); err != nil {
			return err
		}
	}
	return nil
}

// errSubscribeDo refuses the subscription commands in Do: a subscribed
// session receives messages, which DB.Subscribe delivers.
var errSubscribeDo = errors.New("ordo: use DB.Subscribe, PSubscribe or SSubscribe to subscribe")

func isSubscribe(name []byte) bool {
	return len(name) >= 9 && (bytes.EqualFold(name, []byte("subscribe")) ||
		bytes.EqualFold(name, []byte("psubscribe")) || bytes.EqualFold(name, []byte("ssubscribe")))
}

// appendArg converts a to a command argument: strings and byte slices as
// they are (a string viewed as bytes, not copied), numbers formatted into
// num, which it returns grown.
func appendArg(num []byte, a any) ([]byte, []byte) {
	var n int
	switch v := a.(type) {
	case string:
		if len(v) == 0 {
			return []byte{}, num // never nil: "" is a key too
		}
		return unsafe.Slice(unsafe.StringData(v), len(v)), num
	case []byte:
		return v, num
	case int:
		n = len(num)
		num = strconv.AppendInt(num, int64(v), 10)
	case int64:
		n = len(num)
		num = strconv.AppendInt(num, v, 10)
	default:
		return toArg(a), num
	}
	return num[n:len(num):len(num)], num
}

func toArg(a any) []byte {
	switch v := a.(type) {
	case string:
		return []byte(v)
	case []byte:
		return v
	case int:
		return strconv.AppendInt(nil, int64(v), 10)
	case int64:
		return strconv.AppendInt(nil, v, 10)
	case int32:
		return strconv.AppendInt(nil, int64(v), 10)
	case uint64:
		return strconv.AppendUint(nil, v, 10)
	case uint:
		return strconv.AppendUint(nil, uint64(v), 10)
	case uint32:
		return strconv.AppendUint(nil, uint64(v), 10)
	case float64:
		if math.IsInf(v, 1) {
			return []byte("+inf")
		}
		return resp.AppendDouble(nil, v)
	case float32:
		return resp.AppendDouble(nil, float64(v))
	case bool:
		if v {
			return []byte("1")
		}
		return []byte("0")
	case fmt.Stringer:
		return []byte(v.String())
	}
	return []byte(fmt.Sprint(a))
}
