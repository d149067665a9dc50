// Package index is Ordo's secondary-index library: typed indexes kept in
// Redis sorted sets and hashes, one value in Go and one call per
// operation. It writes the sorted-set and hash commands of the redis.io
// "Secondary indexing" patterns so that no one hand-builds
// "0056:0028.44:90" again.
//
// Every index speaks only Redis commands to a Backend, so the same code
// runs on the embedded database (ordo.Open), on ordo-server, and on any
// Redis or Valkey through go-redis, standalone or Redis Cluster. Changes
// that must stay together (an index entry and the data it points to) are
// applied atomically, with MULTI/EXEC or a Lua script, on every backend.
//
// Keys: an index named "ages" keeps its data under keys that carry a hash
// tag ("{ages}..."), so that on Redis Cluster every key an atomic update
// touches lives in one hash slot.
package index

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo"
)

// Cmd is one command: name and arguments (string, []byte, integers,
// float64 are accepted).
type Cmd []any

// Result is the reply of one command in a batch.
type Result struct {
	Val any // string, int64, float64, []any, map[string]any, or nil
	Err error
}

// Backend runs Redis commands for the indexes. Replies are normalized to
// plain Go values: string for bulk and status replies, int64, float64 for
// RESP3 doubles, []any for arrays, nil for null. A null reply is a nil
// value with a nil error; an error reply is an error.
type Backend interface {
	// Do runs one command.
	Do(ctx context.Context, args ...any) (any, error)
	// Pipeline runs commands in one round trip, not atomically.
	Pipeline(ctx context.Context, cmds []Cmd) ([]Result, error)
	// Tx runs commands atomically (MULTI/EXEC). On Redis Cluster all their
	// keys must share a hash slot.
	Tx(ctx context.Context, cmds []Cmd) ([]Result, error)
	// Eval runs a Lua script atomically (EVALSHA, falling back to EVAL).
	Eval(ctx context.Context, s *Script, keys []string, args ...any) (any, error)
}

// Script is a Lua script with its SHA1, loaded on first use.
type Script struct {
	Src string
	SHA string
}

// NewScript prepares a script.
func NewScript(src string) *Script {
	h := sha1.Sum([]byte(src))
	return &Script{Src: src, SHA: hex.EncodeToString(h[:])}
}

// ---- embedded ----

// Embedded is the Backend of an in-process ordo.DB.
type Embedded struct{ DB *ordo.DB }

// NewEmbedded returns the Backend of db.
func NewEmbedded(db *ordo.DB) *Embedded { return &Embedded{DB: db} }

func embeddedResult(r *ordo.Reply) (any, error) {
	v, err := r.Value()
	if err != nil {
		var e *ordo.Error
		if errors.As(err, &e) {
			return nil, redisError(e.Msg)
		}
		return nil, err
	}
	return v, nil
}

// Do implements Backend.
func (b *Embedded) Do(ctx context.Context, args ...any) (any, error) {
	return embeddedResult(b.DB.Do(ctx, args...))
}

// Pipeline implements Backend.
func (b *Embedded) Pipeline(ctx context.Context, cmds []Cmd) ([]Result, error) {
	out := make([]Result, len(cmds))
	c := b.DB.Conn()
	for i, cmd := range cmds {
		out[i].Val, out[i].Err = embeddedResult(c.Do(ctx, cmd...))
	}
	return out, nil
}

// Tx implements Backend.
func (b *Embedded) Tx(ctx context.Context, cmds []Cmd) ([]Result, error) {
	c := b.DB.Conn()
	if _, err := embeddedResult(c.Do(ctx, "MULTI")); err != nil {
		return nil, err
	}
	for _, cmd := range cmds {
		if _, err := embeddedResult(c.Do(ctx, cmd...)); err != nil {
			c.Do(ctx, "DISCARD")
			return nil, err
		}
	}
	v, err := embeddedResult(c.Do(ctx, "EXEC"))
	if err != nil {
		return nil, err
	}
	return execResults(v)
}

// Eval implements Backend.
func (b *Embedded) Eval(ctx context.Context, s *Script, keys []string, args ...any) (any, error) {
	return evalWith(ctx, b.Do, s, keys, args)
}

// ---- go-redis ----

// Redis is the Backend of a go-redis client: ordo-server, Redis or
// Valkey, standalone (*redis.Client) or cluster (*redis.ClusterClient).
type Redis struct{ C redis.UniversalClient }

// NewRedis returns the Backend of c.
func NewRedis(c redis.UniversalClient) *Redis { return &Redis{C: c} }

func goredisResult(v any, err error) (any, error) {
	if err == redis.Nil {
		return nil, nil
	}
	if err != nil {
		var re redis.Error
		if errors.As(err, &re) {
			return nil, redisError(re.Error())
		}
		return nil, err
	}
	return normalize(v), nil
}

// normalize turns go-redis's RESP3 shapes into the RESP2-like ones the
// indexes parse (maps become flat alternating arrays of strings).
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
	}
	return v
}

// Do implements Backend. On Redis Cluster, FLUSHALL and FLUSHDB go to
// every master (go-redis would send them to one node only).
func (b *Redis) Do(ctx context.Context, args ...any) (any, error) {
	if cc, ok := b.C.(*redis.ClusterClient); ok && len(args) > 0 {
		if name, _ := args[0].(string); strings.EqualFold(name, "flushall") || strings.EqualFold(name, "flushdb") {
			err := cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
				return c.Do(ctx, args...).Err()
			})
			if err != nil {
				return goredisResult(nil, err)
			}
			return "OK", nil
		}
	}
	return goredisResult(b.C.Do(ctx, args...).Result())
}

func (b *Redis) batch(ctx context.Context, p redis.Pipeliner, cmds []Cmd) ([]Result, error) {
	out := make([]*redis.Cmd, len(cmds))
	for i, c := range cmds {
		out[i] = p.Do(ctx, c...)
	}
	_, err := p.Exec(ctx)
	res := make([]Result, len(cmds))
	for i, c := range out {
		res[i].Val, res[i].Err = goredisResult(c.Result())
	}
	if err != nil && err != redis.Nil {
		var re redis.Error
		if !errors.As(err, &re) {
			return res, err // transport failure: nothing can be trusted
		}
	}
	return res, nil
}

// Pipeline implements Backend.
func (b *Redis) Pipeline(ctx context.Context, cmds []Cmd) ([]Result, error) {
	return b.batch(ctx, b.C.Pipeline(), cmds)
}

// Tx implements Backend.
func (b *Redis) Tx(ctx context.Context, cmds []Cmd) ([]Result, error) {
	res, err := b.batch(ctx, b.C.TxPipeline(), cmds)
	if err != nil {
		return nil, err
	}
	for _, r := range res {
		var e *Error
		// EXECABORT: a command was refused while queued; CROSSSLOT: the
		// cluster client refused a transaction over several slots. Either
		// way nothing ran.
		if errors.As(r.Err, &e) && (strings.HasPrefix(e.Msg, "EXECABORT") || strings.HasPrefix(e.Msg, "CROSSSLOT")) {
			return nil, e
		}
	}
	return res, nil
}

// Eval implements Backend.
func (b *Redis) Eval(ctx context.Context, s *Script, keys []string, args ...any) (any, error) {
	return evalWith(ctx, b.Do, s, keys, args)
}

// ---- shared ----

// Error is an error reply from the server.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func redisError(msg string) error { return &Error{Msg: msg} }

func evalWith(ctx context.Context, do func(context.Context, ...any) (any, error), s *Script, keys []string, args []any) (any, error) {
	argv := make([]any, 0, 3+len(keys)+len(args))
	argv = append(argv, "EVALSHA", s.SHA, len(keys))
	for _, k := range keys {
		argv = append(argv, k)
	}
	argv = append(argv, args...)
	v, err := do(ctx, argv...)
	var e *Error
	if errors.As(err, &e) && strings.HasPrefix(e.Msg, "NOSCRIPT") {
		argv[0], argv[1] = "EVAL", s.Src
		return do(ctx, argv...)
	}
	return v, err
}

func execResults(v any) ([]Result, error) {
	if v == nil {
		return nil, errors.New("index: transaction aborted (a watched key changed)")
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("index: unexpected EXEC reply %T", v)
	}
	out := make([]Result, len(arr))
	for i, x := range arr {
		if e, ok := x.(*ordo.Error); ok {
			out[i].Err = redisError(e.Msg)
			continue
		}
		out[i].Val = x
	}
	return out, nil
}

// firstErr returns the first error among batch results.
func firstErr(rs []Result) error {
	for _, r := range rs {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

// ---- reply parsing ----

func asString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	}
	return "", false
}

func asInt(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case string:
		return strconv.ParseInt(x, 10, 64)
	}
	return 0, fmt.Errorf("index: expected an integer reply, got %T", v)
}

func asFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int64:
		return float64(x), nil
	case string:
		return parseScore(x)
	}
	return 0, fmt.Errorf("index: expected a score, got %T", v)
}

func parseScore(s string) (float64, error) {
	switch s {
	case "inf", "+inf":
		return posInf, nil
	case "-inf":
		return negInf, nil
	}
	return strconv.ParseFloat(s, 64)
}

func asStrings(v any) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("index: expected an array reply, got %T", v)
	}
	out := make([]string, len(arr))
	for i, x := range arr {
		s, ok := asString(x)
		if !ok && x != nil {
			return nil, fmt.Errorf("index: expected strings, got %T", x)
		}
		out[i] = s
	}
	return out, nil
}

// asPairs parses member/score replies in both shapes: RESP2's flat
// [m1 s1 m2 s2] and RESP3's [[m1 s1] [m2 s2]].
func asPairs(v any) ([]string, []float64, error) {
	arr, ok := v.([]any)
	if !ok {
		if v == nil {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("index: expected an array reply, got %T", v)
	}
	if len(arr) > 0 {
		if _, nested := arr[0].([]any); nested {
			flat := make([]any, 0, 2*len(arr))
			for _, p := range arr {
				pp, _ := p.([]any)
				if len(pp) != 2 {
					return nil, nil, fmt.Errorf("index: malformed pair in reply")
				}
				flat = append(flat, pp...)
			}
			arr = flat
		}
	}
	if len(arr)%2 != 0 {
		return nil, nil, fmt.Errorf("index: odd member/score reply")
	}
	ms := make([]string, len(arr)/2)
	ss := make([]float64, len(arr)/2)
	for i := 0; i < len(arr); i += 2 {
		m, _ := asString(arr[i])
		s, err := asFloat(arr[i+1])
		if err != nil {
			return nil, nil, err
		}
		ms[i/2], ss[i/2] = m, s
	}
	return ms, ss, nil
}
