package repl_test

import (
	"strconv"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

func streamWrites(t *testing.T, c *redistest.Conn, key string) {
	t.Helper()
	for i := 1; i <= 250; i++ {
		c.Do("XADD", key, strconv.Itoa(i)+"-*", "f", strconv.Itoa(i), "g", "x")
	}
	for _, cmd := range [][]string{
		{"XADD", key, "MAXLEN", "~", "120", "1000-*", "a", "b"},
		{"XGROUP", "CREATE", key, "g", "0"},
		{"XGROUP", "CREATE", key, "g2", "$"},
		{"XREADGROUP", "GROUP", "g", "c1", "COUNT", "3", "STREAMS", key, ">"},
		{"XREADGROUP", "GROUP", "g", "c2", "NOACK", "COUNT", "2", "STREAMS", key, ">"},
		{"XREADGROUP", "GROUP", "g", "c3", "COUNT", "4", "STREAMS", key, ">"},
		{"XAUTOCLAIM", key, "g", "c4", "0", "0", "COUNT", "2"},
		{"XGROUP", "CREATECONSUMER", key, "g2", "idle"},
		{"XTRIM", key, "MINID", "~", "0"},
	} {
		if v := c.Do(cmd...); v.Kind == resp.KindError {
			t.Fatalf("%q: %s", cmd, v.Str)
		}
	}
	first := c.Do("XRANGE", key, "-", "+", "COUNT", "1").Elems[0].Elems[0].Str
	c.Do("XDEL", key, first)
	c.Do("XACK", key, "g", first)
}

// streamState is what replicas must agree on: entries, metadata, groups
// and pending entries, without clock readings (delivery and seen times,
// which differ from one server to another).
func streamState(c *redistest.Conn, key string) string {
	v := c.Do("XINFO", "STREAM", key, "FULL", "COUNT", "0")
	blankTimes(&v)
	return v.String()
}

func blankTimes(v *resp.Value) {
	if v.Kind == resp.KindInt && v.Int > 1e12 {
		v.Int = 0
	}
	for i := range v.Elems {
		blankTimes(&v.Elems[i])
	}
}

// Streams reach a replica (redis-server and Ordo) by the full sync's RDB
// and by the propagated commands, with groups and pending entries as a
// redis-server replica of a redis-server master has them (Redis 7.0 does
// not propagate a group's entries-read with XREADGROUP's XCLAIMs, so a
// replica's may lag its master's: the same here).
func TestOrdoMasterStreams(t *testing.T) {
	want := map[string]string{}
	for _, pair := range [][2]string{{"redis", "redis"}, {"ordo", "redis"}, {"ordo", "ordo"}} {
		t.Run(pair[0]+"-to-"+pair[1], func(t *testing.T) {
			start := func(kind string) string {
				if kind == "redis" {
					return redistest.StartRedis(t).Addr
				}
				return redistest.StartOrdo(t).Addr
			}
			masterAddr := start(pair[0])
			master := redistest.Dial(t, masterAddr)
			streamWrites(t, master, "before")
			replica := redistest.Dial(t, start(pair[1]))
			replicaOf(t, replica, masterAddr)
			waitSynced(t, master, replica)
			streamWrites(t, master, "after")
			waitSynced(t, master, replica)
			for _, key := range []string{"before", "after"} {
				for role, c := range map[string]*redistest.Conn{"master": master, "replica": replica} {
					got := streamState(c, key)
					if w, ok := want[role+key]; !ok {
						want[role+key] = got
					} else if got != w {
						t.Errorf("%s %s:\n got  %s\n want %s", role, key, got, w)
					}
				}
			}
		})
	}
}
