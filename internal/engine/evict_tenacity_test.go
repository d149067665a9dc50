package engine

import (
	"strconv"
	"testing"
	"time"
)

// maxmemory-eviction-tenacity as Redis 7.0's evict.c: the time limit of
// one eviction round (evictionTimeLimitUs), a round at tenacity 0 stops
// after 16 keys and reports that eviction goes on (the command is not
// refused), the background eviction then gets memory under the limit,
// and at tenacity 100 one round evicts all that is needed.
func TestEvictionTenacity(t *testing.T) {
	for _, c := range []struct {
		tenacity int64
		want     time.Duration
	}{{0, 0}, {1, 50 * time.Microsecond}, {10, 500 * time.Microsecond}, {11, 575 * time.Microsecond}, {100, -1}} {
		if got := evictionTimeLimit(c.tenacity); got != c.want {
			t.Errorf("tenacity %d: limit %v, want %v", c.tenacity, got, c.want)
		}
	}
	if got := evictionTimeLimit(99); got < 110*time.Second || got > 130*time.Second {
		t.Errorf("tenacity 99: limit %v, want about 2 minutes", got)
	}

	st := newSnapTester(t)
	st.do("CONFIG", "SET", "maxmemory-policy", "allkeys-random")
	fill := func() int64 {
		for i := 0; i < 5000; i++ {
			st.do("SET", "k"+strconv.Itoa(i), "some value of a few bytes "+strconv.Itoa(i))
		}
		st.e.Lock()
		defer st.e.Unlock()
		return st.e.UsedMemory()
	}
	used := fill()
	st.do("CONFIG", "SET", "maxmemory-eviction-tenacity", "0")
	st.e.Lock()
	st.e.Config.Set("maxmemory", strconv.FormatInt(used/2, 10), true)
	before := st.e.Stats.EvictedKeys.Load()
	r := st.e.performEvictions(NowMs())
	n := st.e.Stats.EvictedKeys.Load() - before
	st.e.Unlock()
	if r != evictRunning || n != 16 {
		t.Fatalf("tenacity 0: a round evicted %d keys with result %d, want 16 and evictRunning", n, r)
	}
	// A command now starts the background eviction and is not refused.
	if got := st.do("SET", "x", "y"); got != "+OK\r\n" {
		t.Fatalf("SET during eviction: %q", got)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		st.e.Lock()
		under, on := st.e.UsedMemory() <= used/2, st.e.evict.procOn
		st.e.Unlock()
		if under && !on {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background eviction did not get memory under maxmemory")
		}
		time.Sleep(5 * time.Millisecond)
	}

	st.do("CONFIG", "SET", "maxmemory", "0")
	st.do("FLUSHALL")
	used = fill()
	st.do("CONFIG", "SET", "maxmemory-eviction-tenacity", "100")
	st.e.Lock()
	st.e.Config.Set("maxmemory", strconv.FormatInt(used/2, 10), true)
	r = st.e.performEvictions(NowMs())
	over := st.e.UsedMemory() > used/2
	st.e.Unlock()
	if r != evictOK || over {
		t.Errorf("tenacity 100: result %d, over the limit %v; want evictOK, under", r, over)
	}
}
