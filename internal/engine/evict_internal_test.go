package engine

import (
	"strconv"
	"strings"
	"testing"
)

// TestEvictPoolOldestFirst: under allkeys-lru, a key accessed after it
// entered the eviction pool is not evicted on the idle time it was
// sampled with. Every eviction takes the least recently accessed key of
// the pool (by the keys' clocks when it evicts), so the keys of a hot set
// read after a round filled the pool with them outlive the cold keys
// sampled next to them. (Redis's pool keeps a sampled key's idle time:
// there the hot keys that were in the pool go first.)
func TestEvictPoolOldestFirst(t *testing.T) {
	// The round that fills the pool, the reads and the evictions within one
	// second of the clock (as in a busy second of a server), or seconds apart.
	t.Run("one second", func(t *testing.T) { evictPoolOldestFirst(t, 10_000, 10_300, 10_600) })
	t.Run("seconds apart", func(t *testing.T) { evictPoolOldestFirst(t, 10_000, 20_000, 30_000) })
}

func evictPoolOldestFirst(t *testing.T, fill, read, evict int64) {
	e := New(nil)
	defer e.Close()
	if err := e.Config.Set("maxmemory-policy", "allkeys-lru", false); err != nil {
		t.Fatal(err)
	}
	db := e.dbs[0]
	const t0 = int64(1_700_000_000_000) // unix ms
	at := func(ms int64) *Ctx { return &Ctx{E: e, DB: db, Now: t0 + ms} }
	const n = 1000
	c := at(0)
	for i := range n {
		c.Set([]byte("k"+strconv.Itoa(i)), StringValue(strings.Repeat("v", 100)), false)
	}
	// A round fills the pool (and takes one key out of it).
	if _, _, ok := e.poolCandidate(at(fill), "allkeys-lru", true); !ok {
		t.Fatal("no candidate")
	}
	hot := map[string]bool{}
	for _, ent := range e.evict.pool {
		if ent.used {
			hot[ent.key] = true
		}
	}
	if len(hot) < 4 {
		t.Fatalf("%d keys in the pool", len(hot))
	}
	for i := 0; i < n; i += 10 { // and a tenth of the others
		hot["k"+strconv.Itoa(i)] = true
	}
	c = at(read)
	for k := range hot {
		if _, ok := c.Lookup([]byte(k)); !ok {
			t.Fatalf("%s missing", k)
		}
	}
	c = at(evict)
	access := func(key string) int64 { return c.lruAccessMs(db.keyMeta(key)) }
	for i := range 200 {
		db2, key, ok := e.poolCandidate(c, "allkeys-lru", true)
		if !ok {
			t.Fatal("no candidate")
		}
		for _, ent := range e.evict.pool {
			if ent.used && db.keys.Has(ent.key) && access(ent.key) < access(key) { // not a ghost
				t.Fatalf("eviction %d took %s, accessed at %d, over %s of the pool, accessed at %d",
					i, key, access(key), ent.key, access(ent.key))
			}
		}
		if hot[key] {
			t.Fatalf("eviction %d took %s of the hot set", i, key)
		}
		e.evictKey(db2, key)
	}
}

// TestLRUClockFraction: two reads within one second are ordered for the
// eviction pool (Ordo's 1/256 s), while OBJECT IDLETIME's seconds see
// them as Redis does, equal.
func TestLRUClockFraction(t *testing.T) {
	e := New(nil)
	defer e.Close()
	const t0 = int64(1_700_000_000_000) // a whole second, unix ms
	at := func(ms int64) *Ctx { return &Ctx{E: e, DB: e.dbs[0], Now: t0 + ms} }
	early, late := at(100).touchMeta(0), at(700).touchMeta(0)
	now := at(900)
	if a, b := now.lruAccessMs(early), now.lruAccessMs(late); !(a < b) || b > t0+900 || a < t0 {
		t.Fatalf("access times %d, %d (t0 %d): the later read must be later, both within the second", a-t0, b-t0, t0)
	}
	if a, b := now.idleMs(early), now.idleMs(late); a != b || a != 0 {
		t.Fatalf("idle %d, %d ms: OBJECT IDLETIME must read whole seconds, as Redis", a, b)
	}
	if got := at(2900).idleMs(early); got != 2000 {
		t.Fatalf("idle after 2.8 s = %d ms, want 2000 (seconds, as Redis)", got)
	}
}
