package ordo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// Backend returns db as a backend.Backend, for the index and lock
// packages: index.NewCollection(db.Backend(), ...), lock.New(db.Backend(), ...).
// Commands go through the public API (Do, Conn); replies are normalized
// as backend.Backend documents. It is also a backend.HashReader: hashes
// are read under the engine lock, with no command and no RESP.
func (db *DB) Backend() backend.Backend { return embedded{db} }

type embedded struct{ db *DB }

// value converts a reply: error replies are already *backend.Error
// (ordo.Error is backend.Error).
func value(r *Reply) (any, error) {
	v, err := r.Value()
	if err != nil {
		return nil, err
	}
	return normalize(v), nil
}

// normalize gives RESP3 shapes (a Conn after HELLO 3) their RESP2 form.
func normalize(v any) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
	case map[string]any:
		out := make([]any, 0, 2*len(x))
		for k, val := range x {
			out = append(out, k, normalize(val))
		}
		return out
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	}
	return v
}

func (b embedded) Do(ctx context.Context, args ...any) (any, error) {
	c := b.db.session()
	v, err := c.doValue(ctx, args)
	b.db.release(c)
	if err != nil {
		return nil, err
	}
	if v.Kind == resp.KindError {
		return nil, &Error{Msg: v.Str}
	}
	return normalize(toGo(v)), nil
}

func (b embedded) Pipeline(ctx context.Context, cmds []backend.Cmd) ([]backend.Result, error) {
	out := make([]backend.Result, len(cmds))
	c := b.db.Conn()
	defer c.Close()
	for i, cmd := range cmds {
		out[i].Val, out[i].Err = value(c.Do(ctx, cmd...))
	}
	return out, nil
}

func (b embedded) Tx(ctx context.Context, cmds []backend.Cmd) ([]backend.Result, error) {
	c := b.db.Conn()
	defer c.Close()
	if _, err := value(c.Do(ctx, "MULTI")); err != nil {
		return nil, err
	}
	for _, cmd := range cmds {
		if _, err := value(c.Do(ctx, cmd...)); err != nil {
			c.Do(ctx, "DISCARD")
			return nil, err
		}
	}
	v, err := value(c.Do(ctx, "EXEC"))
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, errors.New("ordo: transaction aborted (a watched key changed)")
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("ordo: unexpected EXEC reply %T", v)
	}
	out := make([]backend.Result, len(arr))
	for i, x := range arr {
		if e, ok := x.(*backend.Error); ok {
			out[i].Err = e
			continue
		}
		out[i].Val = x
	}
	return out, nil
}

func (b embedded) Eval(ctx context.Context, s *backend.Script, keys []string, args ...any) (any, error) {
	return s.Run(ctx, b.Do, keys, args...)
}

// ReadHashes reads every key under one hold of the engine lock, then
// calls fn with nothing held (fn may use the database, even close it).
func (b embedded) ReadHashes(ctx context.Context, keys []string, fn func(i int, pairs []string)) error {
	var small [8]int // a point get allocates no ends
	all, ends, err := b.db.readHashes(ctx, keys, small[:0])
	if err != nil {
		return err
	}
	start := 0
	for i, end := range ends {
		fn(i, all[start:end:end])
		start = end
	}
	return nil
}

// readHashes reads the hashes at keys into one slice of pairs; ends[i]
// is where key i's pairs end.
func (db *DB) readHashes(ctx context.Context, keys []string, ends []int) (all []string, _ []int, err error) {
	if !db.enter() {
		return nil, nil, ErrClosed
	}
	defer db.leave()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	now := engine.NowMs()
	db.e.Lock()
	defer db.e.Unlock()
	var sb strings.Builder // the small hashes' bytes
	for _, k := range keys {
		if all, _, err = db.peekFields(all, &sb, k, now, false); err != nil {
			return nil, nil, err
		}
		ends = append(ends, len(all))
	}
	return all, ends, nil
}

// Atomically plans under the engine lock, then WATCHes the keys the plan
// read and runs its commands in MULTI/EXEC, in that same hold of the lock
// unless a command has to wait: every command goes through the engine's
// normal path (statistics, keyspace events, tracking, replica and memory
// checks; the log gets the transaction as one record). A command can
// wait only under CLIENT PAUSE: the lock is released meanwhile, and the
// WATCH makes EXEC abort if a write got in, so the plan runs again on the
// new data (so it does when the WATCH itself waited).
func (b embedded) Atomically(ctx context.Context, plan func(v backend.View) ([]backend.Cmd, error)) ([]backend.Result, error) {
	db := b.db
	if !db.enter() {
		return nil, ErrClosed
	}
	defer db.leave()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := db.newConn(true) // a fresh one per attempt: no WATCH left over
		res, again, err := c.atomically(ctx, plan)
		c.close()
		if !again {
			return res, err
		}
	}
}

// atomically is one attempt of Atomically; again asks for another (EXEC
// aborted by a watched key, or the WATCH waited).
func (c *Conn) atomically(ctx context.Context, plan func(v backend.View) ([]backend.Cmd, error)) (res []backend.Result, again bool, err error) {
	e := c.db.e
	v := &view{db: c.db, now: engine.NowMs()}
	// call runs one command with the lock held, waiting (lock released)
	// if it must; waited reports that.
	call := func(args ...[]byte) (r resp.Value, waited bool, err error) {
		c.w.Reset()
		if wt := e.Call(c.cl, args, &c.w); wt != nil {
			e.Unlock()
			err = e.Wait(ctx, wt) // writes the reply into c.w
			e.Lock()
			if errors.Is(err, engine.ErrClosed) {
				err = ErrClosed
			}
			if err != nil {
				return r, true, err
			}
			waited = true
		}
		r, perr := c.w.Value()
		if perr != nil {
			return r, waited, fmt.Errorf("ordo: reply: %w", perr)
		}
		if r.Kind == resp.KindError && string(args[0]) != "EXEC" {
			return r, waited, &Error{Msg: r.Str}
		}
		return r, waited, nil
	}
	var exec resp.Value
	var hook func(context.Context) error
	ran := false
	func() {
		e.Lock()
		defer e.Unlock() // also if plan panics
		var cmds []backend.Cmd
		if cmds, err = plan(v); err != nil || len(cmds) == 0 {
			return
		}
		if len(v.keys) > 0 {
			var waited bool
			if _, waited, err = call(append([][]byte{[]byte("WATCH")}, v.keys...)...); err != nil || waited {
				again = waited && err == nil // the plan may be stale: plan again
				return
			}
		}
		if _, _, err = call([]byte("MULTI")); err != nil {
			return
		}
		for _, cmd := range cmds {
			argv := make([][]byte, len(cmd))
			for i, a := range cmd {
				argv[i] = toArg(a)
			}
			if _, _, err = call(argv...); err != nil { // refused while queued
				call([]byte("DISCARD"))
				return
			}
		}
		if exec, _, err = call([]byte("EXEC")); err == nil {
			ran, hook = true, e.SyncHook
		}
	}()
	if err != nil || !ran {
		return nil, again, err
	}
	if hook != nil {
		if err := hook(ctx); err != nil {
			return nil, false, err
		}
	}
	switch exec.Kind {
	case resp.KindError:
		return nil, false, &Error{Msg: exec.Str}
	case resp.KindNull:
		return nil, true, nil // a watched key changed: plan again
	}
	res = make([]backend.Result, len(exec.Elems))
	for i, x := range exec.Elems {
		if x.Kind == resp.KindError {
			res[i].Err = &Error{Msg: x.Str}
			continue
		}
		res[i].Val = normalize(toGo(x))
	}
	return res, false, nil
}

// view is the backend.View of Atomically: reads with Peek, under the
// lock, remembering the keys read (for WATCH).
type view struct {
	db   *DB
	now  int64
	keys [][]byte
}

func (v *view) peek(key string) (engine.Value, bool) {
	if !slices.ContainsFunc(v.keys, func(k []byte) bool { return string(k) == key }) {
		v.keys = append(v.keys, []byte(key))
	}
	val, at, ok := v.db.e.Peek(0, key)
	if !ok || (at >= 0 && at <= v.now) {
		return engine.Value{}, false
	}
	return val, true
}

func (v *view) Type(key string) string {
	val, ok := v.peek(key)
	if !ok {
		return "none"
	}
	return val.TypeName()
}

func (v *view) HGet(key, field string) (string, bool) {
	val, ok := v.peek(key)
	if !ok {
		return "", false
	}
	if h, _ := val.Obj().(*engine.Hash); h != nil {
		return h.Get(field)
	}
	return "", false
}
