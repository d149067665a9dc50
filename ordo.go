// Package ordo is the embedded Ordo database: the same engine and command
// table as ordo-server, opened in-process with no server and no socket.
//
//	db, err := ordo.Open("./data")
//	defer db.Close()
//	n, err := db.Do(ctx, "HSET", "user:1", "age", "38").Int()
//
// Every Redis command Ordo implements works through Do with Redis's
// semantics; error replies come back as *ordo.Error values. DB is safe
// for concurrent use: each command is atomic. Commands that keep
// per-connection state (SELECT, MULTI, WATCH) need a Conn.
package ordo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/internal/aof"
	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
	// Scripting registers EVAL, EVALSHA and SCRIPT in the engine.
	_ "github.com/ordo-db/ordo/internal/script"
)

// Options configure Open. Config takes redis.conf parameter names
// ("appendfsync": "always", "maxmemory": "1gb", ...).
type Options struct {
	Config map[string]string
}

// DB is an open embedded database.
type DB struct {
	e      *engine.Engine
	aof    *aof.AOF
	closed bool
	mu     sync.Mutex
}

// Open opens (creating if needed) the database in dir.
func Open(dir string, opts ...Options) (*DB, error) {
	cfg := engine.NewConfig()
	if err := cfg.Set("dir", dir, true); err != nil {
		return nil, err
	}
	for _, o := range opts {
		for k, v := range o.Config {
			if err := cfg.Set(k, v, true); err != nil {
				return nil, fmt.Errorf("ordo: option %s: %w", k, err)
			}
		}
	}
	if err := os.MkdirAll(cfg.Get("dir"), 0o755); err != nil {
		return nil, fmt.Errorf("ordo: %w", err)
	}
	e := engine.New(cfg)
	db := &DB{e: e}
	// Persistence: loads dir's data (appendonly yes, the default) and logs
	// every change with the appendfsync policy; Close writes a snapshot.
	p, err := aof.Open(e, nil)
	if err != nil {
		e.Close()
		return nil, err
	}
	db.aof = p
	return db, nil
}

// Engine exposes the engine to Ordo's own packages (server, index backends).
func (db *DB) Engine() *engine.Engine { return db.e }

// Close flushes and closes the database.
func (db *DB) Close() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return nil
	}
	db.closed = true
	err := db.aof.Close(true)
	db.e.Close()
	return err
}

// Do runs one command on database 0 and returns its reply.
func (db *DB) Do(ctx context.Context, args ...any) *Reply {
	// A fresh session per call: no state leaks from one Do to the next.
	return db.Conn().Do(ctx, args...)
}

// Conn is a session with its own state (selected database, MULTI, WATCH,
// RESP version), like one client connection. A Conn is not safe for
// concurrent use.
type Conn struct {
	db *DB
	cl *engine.Client
	w  resp.Writer
}

// Conn opens a session.
func (db *DB) Conn() *Conn {
	cl := db.e.NewClient("embedded")
	cl.Authenticated = true
	return &Conn{db: db, cl: cl, w: resp.Writer{Proto: 2}}
}

// ErrClosed is returned after Close.
var ErrClosed = errors.New("ordo: database closed")

// Do runs one command in this session.
func (c *Conn) Do(ctx context.Context, args ...any) *Reply {
	if c.db.closed {
		return &Reply{err: ErrClosed}
	}
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = toArg(a)
	}
	if len(argv) == 0 {
		return &Reply{err: errors.New("ordo: no command")}
	}
	e := c.db.e
	c.w.Reset()
	e.Lock()
	wt := e.Call(c.cl, argv, &c.w)
	hook := e.SyncHook
	e.Unlock()
	if wt != nil {
		if err := e.Wait(ctx, wt); err != nil {
			return &Reply{err: err}
		}
	}
	if hook != nil {
		hook() // appendfsync: no reply before its changes are durable enough
	}
	v, _, err := resp.ParseReply(c.w.Buf)
	if err != nil {
		return &Reply{err: fmt.Errorf("ordo: reply: %w", err)}
	}
	return newReply(v)
}

// DoArgs runs a command given as byte slices (no conversion).
func (c *Conn) DoArgs(ctx context.Context, args [][]byte) *Reply {
	a := make([]any, len(args))
	for i, x := range args {
		a[i] = x
	}
	return c.Do(ctx, a...)
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
	case float64:
		if math.IsInf(v, 1) {
			return []byte("+inf")
		}
		return resp.AppendDouble(nil, v)
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

// Error is an error reply from a command ("ERR ...", "WRONGTYPE ..."):
// the same type as backend.Error.
type Error = backend.Error

// ErrNil is returned by Reply accessors when the reply is null.
var ErrNil = errors.New("ordo: nil")

// Reply is a command's reply.
type Reply struct {
	V   resp.Value
	err error
}

func newReply(v resp.Value) *Reply {
	if v.Kind == resp.KindError {
		return &Reply{V: v, err: &Error{Msg: v.Str}}
	}
	return &Reply{V: v}
}

// Err returns the error reply or failure, if any.
func (r *Reply) Err() error { return r.err }

// Value returns the reply as a Go value: string, int64, float64, bool,
// nil, []any, or map[string]any for RESP3 maps.
func (r *Reply) Value() (any, error) {
	if r.err != nil {
		return nil, r.err
	}
	return toGo(r.V), nil
}

func toGo(v resp.Value) any {
	switch v.Kind {
	case resp.KindNull:
		return nil
	case resp.KindError: // an element of an EXEC or script reply
		return &Error{Msg: v.Str}
	case resp.KindInt:
		return v.Int
	case resp.KindBool:
		return v.Int != 0
	case resp.KindDouble:
		f, _ := strconv.ParseFloat(v.Str, 64)
		return f
	case resp.KindArray, resp.KindSet, resp.KindPush:
		out := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			out[i] = toGo(e)
		}
		return out
	case resp.KindMap:
		m := make(map[string]any, len(v.Elems)/2)
		for i := 0; i+1 < len(v.Elems); i += 2 {
			m[v.Elems[i].Str] = toGo(v.Elems[i+1])
		}
		return m
	}
	return v.Str
}

// Text returns a string reply.
func (r *Reply) Text() (string, error) {
	if r.err != nil {
		return "", r.err
	}
	switch r.V.Kind {
	case resp.KindNull:
		return "", ErrNil
	case resp.KindInt:
		return strconv.FormatInt(r.V.Int, 10), nil
	case resp.KindArray, resp.KindMap, resp.KindSet:
		return "", fmt.Errorf("ordo: reply is an array, not a string")
	}
	return r.V.Str, nil
}

// Int returns an integer reply (or a string that holds an integer).
func (r *Reply) Int() (int64, error) {
	if r.err != nil {
		return 0, r.err
	}
	switch r.V.Kind {
	case resp.KindInt, resp.KindBool:
		return r.V.Int, nil
	case resp.KindNull:
		return 0, ErrNil
	}
	return strconv.ParseInt(r.V.Str, 10, 64)
}

// Float returns a double reply (or a string that holds one).
func (r *Reply) Float() (float64, error) {
	if r.err != nil {
		return 0, r.err
	}
	switch r.V.Kind {
	case resp.KindInt:
		return float64(r.V.Int), nil
	case resp.KindNull:
		return 0, ErrNil
	}
	return strconv.ParseFloat(r.V.Str, 64)
}

// Strings returns an array reply as strings (null elements become "").
func (r *Reply) Strings() ([]string, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.V.Kind == resp.KindNull {
		return nil, ErrNil
	}
	out := make([]string, len(r.V.Elems))
	for i, e := range r.V.Elems {
		if e.Kind == resp.KindInt {
			out[i] = strconv.FormatInt(e.Int, 10)
		} else {
			out[i] = e.Str
		}
	}
	return out, nil
}

// IsNil reports whether the reply is null.
func (r *Reply) IsNil() bool { return r.err == nil && r.V.Kind == resp.KindNull }
