package ordo

import (
	"context"
	"errors"
	"fmt"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/internal/engine"
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
	return value(b.db.Do(ctx, args...))
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
	for _, k := range keys {
		if all, _, err = db.peekFields(all, k, now, false); err != nil {
			return nil, nil, err
		}
		ends = append(ends, len(all))
	}
	return all, ends, nil
}
