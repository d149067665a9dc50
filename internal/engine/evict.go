package engine

// # Eviction (maxmemory-policy)
//
// Redis 7.0's evict.c. When maxmemory is set and the engine's used memory
// (memory.go) exceeds it, every command first evicts keys until memory is
// back under the limit (Redis's performEvictions, run from processCommand
// before any command). If that fails, because the policy is noeviction or
// nothing is left to evict (a volatile-* policy with no key with a TTL),
// commands flagged denyoom, and any command queued in MULTI, get "OOM
// command not allowed when used memory > 'maxmemory'."; reads and
// deletions keep working. CONFIG SET maxmemory evicts at once, as Redis's
// updateMaxmemory does.
//
// The policies choose keys as Redis does, approximately:
//
//   - allkeys-random, volatile-random: a random key of all keys or of the
//     keys with a TTL, taking the databases in turn.
//   - allkeys-lru, volatile-lru, allkeys-lfu, volatile-lfu, volatile-ttl:
//     each round samples maxmemory-samples keys of every non-empty
//     database (of its keys with a TTL for volatile-*) into an eviction
//     pool of the 16 best candidates seen so far, kept across rounds
//     (evictionPoolPopulate), then deletes the best one still present.
//     A key's score is how long ago its last access was for LRU (the
//     access clock in lru.go, in seconds as Redis's), 255 minus its
//     decayed LFU counter for LFU (lfu-log-factor and lfu-decay-time,
//     lru.go), and the nearness of its expiry for volatile-ttl.
//
// Two changes to Redis's pool, so that what it evicts is what the keys'
// clocks say now, not when they were sampled (TestEvictPoolOldestFirst):
//
//   - The LRU score kept in the pool is the time of the key's last
//     access, where Redis keeps its idle time at sampling: an entry that
//     waited in the pool for a few rounds then compares with a fresh
//     sample as their accesses do.
//   - Before a key is evicted its score is read again; if it dropped (the
//     key was read since it was sampled, or its TTL moved away), the key
//     goes back in the pool at its new place and the next best is taken.
//     In Redis (and Ordo before) a key sampled and then read within the
//     same second was evicted on its old idle time.
//
// An evicted key is deleted like an expired one: WATCHes on it are
// invalidated, observers (keyspace notifications: "evicted", class e;
// client-side caching; indexes) see an "evicted" event, the deletion is
// propagated to the AOF as DEL, and INFO stats evicted_keys counts it.
//
// As Redis, one round of eviction is bounded in time by
// maxmemory-eviction-tenacity (evictionTimeLimitUs: 0 to 500 µs for 0 to
// 10, then 15% more per step, no limit at 100; checked every 16 keys):
// past it the command runs anyway (it is not refused: memory is being
// freed) and eviction goes on in the background (Redis's
// evictionTimeProc: a goroutine taking the lock for one round at a time,
// between commands) until memory is under the limit, nothing is left to
// evict, or a pause starts.
//
// Differences: sampling walks a few adjacent
// buckets of the key table from a random cursor, like dictGetSomeKeys.
// The pool and the database cursor of the random policies belong to the
// engine (Redis's are process globals).

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"time"

	"github.com/ordo-db/ordo/internal/ds/dict"
)

const evpoolSize = 16 // Redis's EVPOOL_SIZE

type evictEntry struct {
	idle uint64 // the score: the larger, the better a candidate
	key  string
	db   int
	used bool
}

// evictState is the engine's eviction pool and random-policy cursor.
type evictState struct {
	pool   [evpoolSize]evictEntry
	nextDB int
	procOn bool // the background eviction runs (evictionProc)
	// exceededSince is when used memory went over maxmemory without
	// eviction bringing it back (zero: it is not); exceededTotal sums the
	// ended periods (INFO's *_eviction_exceeded_time).
	exceededSince time.Time
	exceededTotal time.Duration
}

// noteEviction updates the exceeded-time figures after a round that
// ended with result (Redis's update_metrics in performEvictions).
func (s *evictState) noteEviction(result int) {
	switch {
	case result != evictOK && s.exceededSince.IsZero():
		s.exceededSince = time.Now()
	case result == evictOK && !s.exceededSince.IsZero():
		s.exceededTotal += time.Since(s.exceededSince)
		s.exceededSince = time.Time{}
	}
}

// exceededTimes returns INFO's total and current eviction exceeded time.
func (s *evictState) exceededTimes() (total, current time.Duration) {
	if !s.exceededSince.IsZero() {
		current = time.Since(s.exceededSince)
	}
	return s.exceededTotal + current, current
}

// Results of performEvictions, as Redis's.
const (
	evictOK      = iota // under the limit (or eviction is not allowed now)
	evictRunning        // over the limit, the rest is evicted in the background
	evictFail           // over the limit with nothing (allowed) to evict
)

// maxMemoryExceeded evicts keys as maxmemory-policy says while used
// memory exceeds maxmemory, and reports whether it still does (then
// denyoom commands are refused). Call it with the lock held.
func (e *Engine) maxMemoryExceeded(c *Ctx) bool {
	switch e.performEvictions(c.Now) {
	case evictFail:
		return true
	case evictRunning:
		e.startEvictionProc()
	}
	return false
}

// evictionTimeLimit is Redis's evictionTimeLimitUs for a tenacity of 0 to
// 100; negative: no limit.
func evictionTimeLimit(tenacity int64) time.Duration {
	switch {
	case tenacity <= 10:
		return time.Duration(50*tenacity) * time.Microsecond
	case tenacity < 100:
		return time.Duration(500*math.Pow(1.15, float64(tenacity)-10)) * time.Microsecond
	}
	return -1
}

// performEvictions is one round of Redis's performEvictions (the lock
// held; now in unix ms).
func (e *Engine) performEvictions(now int64) (result int) {
	limit := e.Config.hot().maxmemory
	if limit <= 0 {
		return evictOK // Redis does not call performEvictions then: no metrics
	}
	if e.UsedMemory() <= limit {
		if !e.evict.exceededSince.IsZero() {
			e.evict.noteEviction(evictOK)
		}
		return evictOK
	}
	if e.replica.Load() && e.Config.Bool("replica-ignore-maxmemory") {
		return evictOK // a replica follows its master's evictions (Redis's performEvictions)
	}
	if e.pausedNow(now) {
		return evictOK // no eviction during CLIENT PAUSE (Redis's isSafeToPerformEvictions)
	}
	defer func() { e.evict.noteEviction(result) }()
	policy := e.Config.Get("maxmemory-policy")
	if policy == "noeviction" {
		return evictFail
	}
	start := time.Now()
	defer e.latencyEnd("eviction-cycle", start)
	c := &Ctx{E: e, Now: now}
	timeLimit := evictionTimeLimit(e.Config.Int("maxmemory-eviction-tenacity"))
	allkeys := strings.HasPrefix(policy, "allkeys-")
	random := strings.HasSuffix(policy, "-random")
	for freed := 0; e.UsedMemory() > limit; {
		var db *DB
		var key string
		var ok bool
		if random {
			db, key, ok = e.randomCandidate(allkeys)
		} else {
			db, key, ok = e.poolCandidate(c, policy, allkeys)
		}
		if !ok {
			return evictFail
		}
		e.evictKey(db, key)
		if freed++; freed%16 == 0 && timeLimit >= 0 && time.Since(start) > timeLimit {
			return evictRunning
		}
	}
	return evictOK
}

// startEvictionProc starts the background eviction unless it runs (the
// lock held): rounds of performEvictions, one lock acquisition each, while
// they end over the time limit, as Redis's evictionTimeProc.
func (e *Engine) startEvictionProc() {
	if e.evict.procOn {
		return
	}
	e.evict.procOn = true
	go func() {
		for {
			select {
			case <-e.closed:
				e.Lock()
				e.evict.procOn = false
				e.Unlock()
				return
			default:
			}
			e.Lock()
			if e.performEvictions(NowMs()) != evictRunning {
				e.evict.procOn = false
				e.Unlock()
				return
			}
			e.Unlock()
			runtime.Gosched() // commands run between rounds
		}
	}()
}

// randomCandidate is performEvictions' choice for the random policies.
func (e *Engine) randomCandidate(allkeys bool) (*DB, string, bool) {
	for range e.dbs {
		e.evict.nextDB = (e.evict.nextDB + 1) % len(e.dbs)
		db := e.dbs[e.evict.nextDB]
		var k string
		var ok bool
		if allkeys {
			k, _, ok = db.keys.Random()
		} else {
			k, _, ok = db.expires.Random()
		}
		if ok {
			return db, strings.Clone(k), true
		}
	}
	return nil, "", false
}

// poolCandidate is performEvictions' choice for the LRU, LFU and TTL
// policies: populate the pool from every database, then take the best
// entry whose key still exists.
func (e *Engine) poolCandidate(c *Ctx, policy string, allkeys bool) (*DB, string, bool) {
	lfu := strings.HasSuffix(policy, "-lfu")
	ttl := policy == "volatile-ttl"
	samples := int(e.Config.Int("maxmemory-samples"))
	for {
		total := 0
		for i, db := range e.dbs {
			if allkeys {
				if n := db.keys.Len(); n > 0 {
					total += n
					sampleKeys(db.keys, samples, func(k string, _ Value) {
						e.poolInsert(i, k, e.score(c, db, k, lfu, false, 0))
					})
				}
			} else if n := db.expires.Len(); n > 0 {
				total += n
				sampleKeys(db.expires, samples, func(k string, at int64) {
					e.poolInsert(i, k, e.score(c, db, k, lfu, ttl, at))
				})
			}
		}
		if total == 0 {
			return nil, "", false
		}
		pool := &e.evict.pool
		for k := evpoolSize - 1; k >= 0; k-- {
			ent := pool[k]
			if !ent.used {
				continue
			}
			pool[k] = evictEntry{} // the rightmost entry: the pool stays packed on the left
			db := e.dbs[ent.db]
			score, present := e.currentScore(c, db, ent.key, allkeys, lfu, ttl)
			if !present {
				continue // a ghost: deleted since it was sampled
			}
			if score < ent.idle {
				// Accessed (or its TTL moved) since it was sampled: back
				// in the pool at its place now, and look again.
				e.poolInsert(ent.db, ent.key, score)
				k = evpoolSize
				continue
			}
			return db, ent.key, true
		}
	}
}

// currentScore is key's score now, and whether it is still a candidate
// (present, with a TTL for a volatile-* policy).
func (e *Engine) currentScore(c *Ctx, db *DB, key string, allkeys, lfu, ttl bool) (uint64, bool) {
	_, m, ok := db.keys.GetMeta(key)
	if !ok {
		return 0, false
	}
	var at int64
	if !allkeys {
		if at, ok = db.expires.Get(key); !ok {
			return 0, false
		}
	}
	var meta uint32
	if m != nil {
		meta = *m
	}
	return scoreOf(c, meta, lfu, ttl, at), true
}

// score is a sampled key's score in the pool: the higher, the sooner it
// is evicted.
func (e *Engine) score(c *Ctx, db *DB, key string, lfu, ttl bool, at int64) uint64 {
	if ttl {
		return scoreOf(c, 0, false, true, at)
	}
	return scoreOf(c, db.keyMeta(key), lfu, false, at)
}

// scoreOf is the score of a key with access clock m and expiry at. For
// LRU it is the time of the last access (the older, the higher), not
// the idle time Redis keeps: entries sampled in different rounds, at
// different times, then compare as the keys' accesses do.
func scoreOf(c *Ctx, m uint32, lfu, ttl bool, at int64) uint64 {
	switch {
	case ttl:
		return math.MaxUint64 - uint64(at)
	case lfu:
		return 255 - uint64(c.lfuDecr(m))
	}
	return uint64(math.MaxInt64 - c.lruAccessMs(m))
}

// poolInsert is evictionPoolPopulate's insertion: the pool is sorted by
// ascending idle, the best candidates on the right; a full pool drops its
// worst entry for a better one.
func (e *Engine) poolInsert(dbid int, key string, idle uint64) {
	pool := &e.evict.pool
	k := 0
	for k < evpoolSize && pool[k].used && pool[k].idle < idle {
		k++
	}
	switch {
	case k == 0 && pool[evpoolSize-1].used:
		return // worse than every candidate of a full pool
	case k < evpoolSize && !pool[k].used:
		// an empty slot: insert here
	case !pool[evpoolSize-1].used:
		copy(pool[k+1:], pool[k:evpoolSize-1]) // room on the right
	default:
		k-- // full: drop the worst (leftmost)
		copy(pool[:k], pool[1:k+1])
	}
	pool[k] = evictEntry{idle: idle, key: strings.Clone(key), db: dbid, used: true}
}

// sampleKeys calls fn for up to n entries of d, from adjacent buckets
// starting at a random one (Redis's dictGetSomeKeys), visiting at most
// 10n buckets. fn may read d but not change it.
func sampleKeys[V any](d *dict.Dict[V], n int, fn func(key string, v V)) {
	cursor := rand.Uint64()
	got := 0
	for steps := 0; got < n && steps < 10*n; steps++ {
		cursor = d.Scan(cursor, func(k string, v V) {
			if got < n {
				got++
				fn(k, v)
			}
		})
	}
}

// evictKey deletes an evicted key, as expireKey deletes an expired one.
func (e *Engine) evictKey(db *DB, key string) {
	if len(e.snaps) > 0 {
		e.snapCapture(db, key)
	}
	if old, ok := db.keys.Get(key); ok {
		db.used -= countedBytes(key, old)
	}
	db.keys.Delete(key)
	db.expires.Delete(key)
	e.shrinkKeys(db)
	db.expires.ShrinkIfNeeded()
	e.Stats.EvictedKeys.Add(1)
	db.touchWatched(key)
	if len(e.observers) > 0 {
		e.notify(KeyEvent{DB: db.ID, Key: key, Event: "evicted"})
	}
	if e.Propagate != nil {
		e.Propagate(db.ID, [][]byte{[]byte("DEL"), []byte(key)})
	}
	e.dirty++
}
