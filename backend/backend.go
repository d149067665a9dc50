// Package backend is the contract between Ordo's client-side libraries
// (github.com/ordo-db/ordo/index, github.com/ordo-db/ordo/lock) and
// whatever runs their Redis commands: a Backend takes commands and gives
// back replies as plain Go values.
//
// The package uses the standard library only, so depending on it (or on
// lock, which depends on nothing else) links neither the embedded engine
// nor a Redis client. Implementations live next to what they adapt:
//
//   - github.com/ordo-db/ordo/backend/goredis: a go-redis v9 client
//     (ordo-server, Redis, Valkey; standalone or Redis Cluster);
//   - (*ordo.DB).Backend in github.com/ordo-db/ordo: the embedded
//     database, in-process.
//
// Every implementation normalizes replies the same way (see Backend), and
// returns every error reply as an *Error. A backend that runs in-process
// may also offer shortcuts, as optional interfaces (HashReader, Atomic):
// libraries use them when present and send commands otherwise, with the
// same results either way.
package backend

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"strings"
)

// Cmd is one command: name and arguments (string, []byte, integers,
// float64 are accepted).
type Cmd []any

// Result is the reply of one command in a batch: Val as normalized by
// Backend, or Err (an *Error for an error reply).
type Result struct {
	Val any
	Err error
}

// Backend runs Redis commands.
//
// Replies are normalized to plain Go values, whatever the protocol
// (RESP2 or RESP3) or the client:
//
//   - bulk and status replies: string;
//   - integers: int64; RESP3 booleans: int64 1 or 0;
//   - RESP3 doubles: float64;
//   - arrays and sets: []any; RESP3 maps: a flat []any of alternating
//     keys and values (the RESP2 shape, in no particular order);
//   - null: nil, with a nil error;
//   - an error reply: a nil value and an *Error; an error element inside
//     an array (EXEC, script replies): an *Error value in the []any.
//
// Any other error (transport, context) is returned as is.
type Backend interface {
	// Do runs one command.
	Do(ctx context.Context, args ...any) (any, error)
	// Pipeline runs commands in one round trip, not atomically. Error
	// replies are reported per command in the Results; the error is for
	// failures that leave no result trustworthy.
	Pipeline(ctx context.Context, cmds []Cmd) ([]Result, error)
	// Tx runs commands atomically (MULTI/EXEC). On Redis Cluster all their
	// keys must share a hash slot. A command refused while queued aborts
	// the transaction: nothing runs and Tx returns that command's *Error.
	Tx(ctx context.Context, cmds []Cmd) ([]Result, error)
	// Eval runs a Lua script atomically (EVALSHA, falling back to EVAL
	// when the server does not have it yet).
	Eval(ctx context.Context, s *Script, keys []string, args ...any) (any, error)
}

// Router is implemented by Backends that spread keys over several
// servers by hash slot (Redis Cluster). A keyless command (SCAN, DBSIZE,
// RANDOMKEY) sent with Do reaches one arbitrary server; DoAt sends it to
// the server that owns key's slot.
type Router interface {
	DoAt(ctx context.Context, key string, args ...any) (any, error)
}

// HashReader is implemented by Backends that read hashes in-process,
// with no command and no reply to encode (the embedded database). The
// index library uses it, when present, where it would send HGETALL: a
// Collection's point gets and the objects of its queries. It answers as
// HGETALL would, key by key.
type HashReader interface {
	// ReadHashes reads the hashes at keys, all at one instant (no write
	// in between), and calls fn for each, in order, with its index in
	// keys and its fields and values as alternating pairs (empty for a
	// key that does not exist or has expired). The strings are the
	// caller's to keep; the pairs slice is valid only during the call. A
	// key holding another type stops the read with an *Error (WRONGTYPE).
	ReadHashes(ctx context.Context, keys []string, fn func(i int, pairs []string)) error
}

// Atomic is implemented by Backends that can read and then write with
// nothing in between, in-process (the embedded database): what a Lua
// script does on a server, without the script. The index library uses
// it, when present, for a Collection's Put and Delete.
type Atomic interface {
	// Atomically calls plan with a View of the data as it is now, then
	// runs the commands plan returns as one transaction (MULTI/EXEC,
	// logged and replicated as one), with no other write in between:
	// nothing changes what plan saw before its commands run. An error from
	// plan is returned as is, and nothing runs; so is a command refused
	// while queued (its *Error), as in Tx. Otherwise the Results are
	// EXEC's, one per command. plan runs while the backend is held: it must
	// not call the backend, and may be called again if a write got in
	// between (CLIENT PAUSE).
	Atomically(ctx context.Context, plan func(v View) ([]Cmd, error)) ([]Result, error)
}

// View reads the data for Atomic's plan; it is valid only during plan.
// It reads as a command would, with no side effect: a key past its TTL
// is missing.
type View interface {
	// Type is the type of key as TYPE names it ("none": no such key).
	Type(key string) string
	// HGet returns the value of field in the hash at key (false when the
	// key or the field does not exist, or key is not a hash).
	HGet(key, field string) (string, bool)
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

// Run runs the script with do (a Backend's Do): EVALSHA, then EVAL if
// the server answers NOSCRIPT. Implementations of Backend.Eval use it.
func (s *Script) Run(ctx context.Context, do func(ctx context.Context, args ...any) (any, error), keys []string, args ...any) (any, error) {
	argv := make([]any, 0, 3+len(keys)+len(args))
	argv = append(argv, "EVALSHA", s.SHA, len(keys))
	for _, k := range keys {
		argv = append(argv, k)
	}
	argv = append(argv, args...)
	v, err := do(ctx, argv...)
	if HasCode(err, "NOSCRIPT") {
		eval := append([]any{"EVAL", s.Src}, argv[2:]...) // do may keep argv
		return do(ctx, eval...)
	}
	return v, err
}

// Error is an error reply from the server: "ERR ...", "WRONGTYPE ...",
// "NOSCRIPT ...", or whatever a script passed to redis.error_reply.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Code returns the error code: the first word of the message
// ("WRONGTYPE", "NOSCRIPT", "EXECABORT", "CROSSSLOT", "ERR").
func (e *Error) Code() string {
	code, _, _ := strings.Cut(e.Msg, " ")
	return code
}

// HasCode reports whether err is (or wraps) an *Error with this code.
func HasCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code() == code
}
