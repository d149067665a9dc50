package repl_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// timeMs parses TIME's reply into milliseconds.
func timeMs(v resp.Value) int64 {
	s, _ := strconv.ParseInt(v.Elems[0].Str, 10, 64)
	us, _ := strconv.ParseInt(v.Elems[1].Str, 10, 64)
	return s*1000 + us/1000
}

// boundary sets keys expiring a few milliseconds ahead (on w) and asks c,
// pipelined between two TIMEs, whether each key exists; it returns what
// was seen when both TIMEs fell in the key's very millisecond, and when
// both fell after it.
func boundary(t *testing.T, prefix string, w, c *redistest.Conn) (atMs, afterMs []int64) {
	t.Helper()
	for attempt := 0; attempt < 200 && (len(atMs) == 0 || len(afterMs) == 0); attempt++ {
		at := timeMs(w.Do("TIME")) + 5
		key := prefix + strconv.Itoa(attempt)
		w.Do("SET", key, "v", "PXAT", strconv.FormatInt(at, 10))
		// On a replica the key may arrive late (a busy machine): a miss
		// counts only once c has shown the key.
		seen := false
		for !(len(atMs) > 0 && len(afterMs) > 0) {
			c.Send("TIME")
			c.Send("EXISTS", key)
			c.Send("TIME")
			t0, _, _ := resp.ParseReply(c.ReadRaw())
			ex, _, _ := resp.ParseReply(c.ReadRaw())
			t1, _, _ := resp.ParseReply(c.ReadRaw())
			a, b := timeMs(t0), timeMs(t1)
			if a < at && ex.Int == 1 {
				seen = true
			}
			if a == at && b == at && (seen || ex.Int == 1) {
				atMs = append(atMs, ex.Int)
			}
			if a > at {
				if b == a {
					afterMs = append(afterMs, ex.Int)
				}
				break
			}
			time.Sleep(50 * time.Microsecond)
		}
	}
	if len(atMs) == 0 || len(afterMs) == 0 {
		t.Skip("the machine is too busy to observe one millisecond")
	}
	return atMs, afterMs
}

// TestExpiryMillisecondBoundary: as Redis 7.0's keyIsExpired (now >
// when), a key is still there during its expiry millisecond and gone
// after it; on a replica too, which reports it gone without deleting it
// (it waits for the master's DEL).
func TestExpiryMillisecondBoundary(t *testing.T) {
	r := redistest.StartRedis(t)
	o := redistest.StartOrdo(t)
	for _, s := range []struct{ name, addr string }{{"redis", r.Addr}, {"ordo", o.Addr}} {
		c := redistest.Dial(t, s.addr)
		c.Do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
		at, after := boundary(t, s.name, c, c)
		for _, v := range at {
			if v != 1 {
				t.Errorf("%s: EXISTS during the key's expiry millisecond: %d, want 1", s.name, v)
			}
		}
		for _, v := range after {
			if v != 0 {
				t.Errorf("%s: EXISTS after the key's expiry millisecond: %d, want 0", s.name, v)
			}
		}
	}
	// An ordo-server replica of redis-server, the master's active expiry
	// off: the replica answers as Redis's replicas do and deletes nothing.
	m := redistest.Dial(t, r.Addr)
	m.Do("FLUSHALL")
	rep := redistest.Dial(t, o.Addr)
	rep.Do("FLUSHALL")
	replicaOf(t, rep, r.Addr)
	waitSynced(t, m, rep)
	rr := redistest.StartRedis(t)
	rrc := redistest.Dial(t, rr.Addr)
	replicaOf(t, rrc, r.Addr)
	waitSynced(t, m, rrc)
	for _, s := range []struct {
		name string
		c    *redistest.Conn
	}{{"ordo replica", rep}, {"redis replica", rrc}} {
		before := m.Do("DBSIZE").Int
		at, after := boundary(t, s.name, m, s.c)
		for _, v := range at {
			if v != 1 {
				t.Errorf("%s: EXISTS during the key's expiry millisecond: %d, want 1", s.name, v)
			}
		}
		for _, v := range after {
			if v != 0 {
				t.Errorf("%s: EXISTS after the key's expiry millisecond: %d, want 0", s.name, v)
			}
		}
		waitSynced(t, m, s.c)
		if got, want := s.c.Do("DBSIZE").Int, m.Do("DBSIZE").Int; got != want || want <= before {
			t.Errorf("%s: DBSIZE %d, master %d (before %d): a replica deletes nothing itself", s.name, got, want, before)
		}
	}
}
