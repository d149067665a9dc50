// Package goredis adapts a go-redis v9 client to backend.Backend: Ordo's
// index and lock packages then run on ordo-server, Redis or Valkey,
// standalone (*redis.Client) or Redis Cluster (*redis.ClusterClient).
//
//	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
//	b := goredis.New(rdb)
//
// Replies are normalized as backend.Backend documents (RESP3 maps become
// flat arrays, booleans become 0/1), redis.Nil becomes a nil reply, and
// every error reply becomes a *backend.Error.
package goredis

import (
	"context"
	"errors"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo/backend"
)

// New returns the Backend of c. For a *redis.ClusterClient it also
// implements backend.Router, and FLUSHALL and FLUSHDB go to every master
// (go-redis would send them to one node only).
func New(c redis.UniversalClient) backend.Backend {
	if cc, ok := c.(*redis.ClusterClient); ok {
		return &cluster{client{c}, cc}
	}
	return &client{c}
}

type client struct{ c redis.UniversalClient }

// result converts a go-redis reply.
func result(v any, err error) (any, error) {
	if err == redis.Nil {
		return nil, nil
	}
	if err != nil {
		var re redis.Error
		if errors.As(err, &re) {
			return nil, &backend.Error{Msg: re.Error()}
		}
		return nil, err
	}
	return normalize(v), nil
}

// normalize turns go-redis's RESP3 shapes into the RESP2-like ones
// backend.Backend promises.
func normalize(v any) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
		return x
	case map[any]any:
		out := make([]any, 0, 2*len(x))
		for k, val := range x {
			out = append(out, normalize(k), normalize(val))
		}
		return out
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	case redis.Error: // an error element of an array (EXEC, scripts)
		return &backend.Error{Msg: x.Error()}
	}
	return v
}

func (b *client) Do(ctx context.Context, args ...any) (any, error) {
	return result(b.c.Do(ctx, args...).Result())
}

func (b *client) batch(ctx context.Context, p redis.Pipeliner, cmds []backend.Cmd) ([]backend.Result, error) {
	out := make([]*redis.Cmd, len(cmds))
	for i, c := range cmds {
		out[i] = p.Do(ctx, c...)
	}
	_, err := p.Exec(ctx)
	res := make([]backend.Result, len(cmds))
	for i, c := range out {
		res[i].Val, res[i].Err = result(c.Result())
	}
	if err != nil && err != redis.Nil {
		var re redis.Error
		if !errors.As(err, &re) {
			return res, err // transport failure: nothing can be trusted
		}
	}
	return res, nil
}

func (b *client) Pipeline(ctx context.Context, cmds []backend.Cmd) ([]backend.Result, error) {
	return b.batch(ctx, b.c.Pipeline(), cmds)
}

func (b *client) Tx(ctx context.Context, cmds []backend.Cmd) ([]backend.Result, error) {
	res, err := b.batch(ctx, b.c.TxPipeline(), cmds)
	if err != nil {
		return nil, err
	}
	for _, r := range res {
		// EXECABORT: a command was refused while queued; CROSSSLOT: the
		// cluster client refused a transaction over several slots. Either
		// way nothing ran.
		var e *backend.Error
		if errors.As(r.Err, &e) && (e.Code() == "EXECABORT" || e.Code() == "CROSSSLOT") {
			return nil, e
		}
	}
	return res, nil
}

func (b *client) Eval(ctx context.Context, s *backend.Script, keys []string, args ...any) (any, error) {
	return s.Run(ctx, b.Do, keys, args...)
}

type cluster struct {
	client
	cc *redis.ClusterClient
}

func (b *cluster) Do(ctx context.Context, args ...any) (any, error) {
	if len(args) > 0 {
		if name, _ := args[0].(string); strings.EqualFold(name, "flushall") || strings.EqualFold(name, "flushdb") {
			err := b.cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
				return c.Do(ctx, args...).Err()
			})
			if err != nil {
				return result(nil, err)
			}
			return "OK", nil
		}
	}
	return b.client.Do(ctx, args...)
}

// Eval is redefined so that the script's EVALSHA/EVAL go through the
// cluster's Do.
func (b *cluster) Eval(ctx context.Context, s *backend.Script, keys []string, args ...any) (any, error) {
	return s.Run(ctx, b.Do, keys, args...)
}

// DoAt implements backend.Router: it runs a command on the master that
// owns key's hash slot.
func (b *cluster) DoAt(ctx context.Context, key string, args ...any) (any, error) {
	node, err := b.cc.MasterForKey(ctx, key)
	if err != nil {
		return nil, err
	}
	return result(node.Do(ctx, args...).Result())
}
