package lock

import (
	"context"
	"strconv"
	"sync"

	"github.com/ordo-db/ordo/backend"
)

// Fence is the check a protected resource makes: it remembers the highest
// fencing token it has accepted and refuses lower ones. Equal tokens pass
// (one holder writes many times). Check and the write it guards must be
// one atomic step for the resource: use Do.
type Fence struct {
	mu      sync.Mutex
	highest int64
}

// Check accepts token if it is not lower than any token accepted before.
func (f *Fence) Check(token int64) error {
	return f.Do(token, func() error { return nil })
}

// Do runs write under the fence if token is current, and records token.
func (f *Fence) Do(token int64, write func() error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if token < f.highest {
		return ErrStaleToken
	}
	if err := write(); err != nil {
		return err
	}
	f.highest = token
	return nil
}

// Highest returns the highest token accepted.
func (f *Fence) Highest() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.highest
}

var fencedSetScript = backend.NewScript(`local t = tonumber(redis.call("get", KEYS[2]) or "0")
local n = tonumber(ARGV[1])
if n < t then return redis.error_reply("STALE fencing token " .. ARGV[1] .. " < " .. t) end
redis.call("set", KEYS[2], ARGV[1])
redis.call("set", KEYS[1], ARGV[2])
return 1`)

// FencedSet is a resource kept in Redis that checks fencing tokens
// itself: it SETs key to value only if token is not lower than the
// highest token used on key before (remembered in key+":fence-seen"), in
// one script. It returns ErrStaleToken otherwise. On Redis Cluster, give
// key a hash tag so both keys share a slot.
func FencedSet(ctx context.Context, node Node, key string, token int64, value string) error {
	_, err := node.Eval(ctx, fencedSetScript, []string{key, key + ":fence-seen"}, strconv.FormatInt(token, 10), value)
	if backend.HasCode(err, "STALE") {
		return ErrStaleToken
	}
	return err
}
