package engine

// Read-only access for KeyObservers and engine extensions (internal/search)
// that must see a key's current value while the lock is held, without the
// side effects of Ctx.Lookup: no lazy expiry, no key event, no keyspace
// hit/miss statistics, no WATCH invalidation.

// Peek returns the value stored at key in database db and its absolute
// expiry in unix ms (-1 for none), even if that expiry has passed (the
// caller decides what an expired key means to it). Call it with the lock
// held; the value must not be changed, and a value that is not a string
// may change after the lock is released.
func (e *Engine) Peek(db int, key string) (v Value, expireAt int64, ok bool) {
	if db < 0 || db >= len(e.dbs) {
		return Value{}, -1, false
	}
	d := e.dbs[db]
	v, ok = d.keys.Get(key)
	if !ok {
		return Value{}, -1, false
	}
	expireAt = -1
	if d.expires.Len() > 0 {
		if at, has := d.expires.Get(key); has {
			expireAt = at
		}
	}
	return v, expireAt, true
}

// StateRewriter is engine-wide state that is not stored in keys (index
// definitions of internal/search) and must survive an AOF rewrite or a
// snapshot: Rewrite emits the commands that recreate it, each with the
// database it applies to. It is called with the lock held, at the start of
// the rewrite, before any key is dumped.
type StateRewriter interface {
	RewriteState(emit func(db int, args [][]byte))
}

// AddStateRewriter registers r for AOF rewrites and snapshots. Call it
// before the engine serves or with the lock held.
func (e *Engine) AddStateRewriter(r StateRewriter) { e.stateRewriters = append(e.stateRewriters, r) }

// RewriteState emits the commands recreating the registered state (lock
// held; used by persistence).
func (e *Engine) RewriteState(emit func(db int, args [][]byte)) {
	for _, r := range e.stateRewriters {
		r.RewriteState(emit)
	}
}

// PeekExpire returns the absolute expiry of key in database db in unix ms,
// or -1 (no TTL, or no such key), with Peek's guarantees: no lazy expiry,
// no event, no statistics. It costs nothing when db has no TTLs.
func (e *Engine) PeekExpire(db int, key string) int64 {
	if db < 0 || db >= len(e.dbs) || e.dbs[db].expires.Len() == 0 {
		return -1
	}
	if at, ok := e.dbs[db].expires.Get(key); ok {
		return at
	}
	return -1
}
