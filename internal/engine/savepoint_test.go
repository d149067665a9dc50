package engine_test

import (
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
)

// Save points as Redis's: with save "1 3", three changes and more than a
// second since the last save start a BGSAVE that writes dump.rdb; INFO
// persistence's counters follow as redis-server's, fewer changes than a
// point asks for start nothing, and save "" turns them off. The file
// loads into redis-server with the data.
func TestSavePoints(t *testing.T) {
	r := redistest.StartRedis(t)
	o := redistest.StartOrdo(t)
	d := redistest.NewDiffWith(t, r.Addr, o.Addr)
	d.Do("CONFIG", "SET", "save", "1 3")
	d.Do("CONFIG", "GET", "save")
	d.Do("SET", "a", "1")
	d.Do("RPUSH", "l", "x", "y")
	d.Do("HSET", "h", "f", "v")
	fields := []string{"rdb_changes_since_last_save", "rdb_bgsave_in_progress", "rdb_last_bgsave_status", "rdb_saves", "rdb_last_bgsave_time_sec"}
	compare := func(when string) {
		t.Helper()
		for _, f := range fields {
			if a, b := statField(d.Redis, "persistence", f), statField(d.Ordo, "persistence", f); a != b {
				t.Errorf("%s: %s: redis %s, ordo %s", when, f, a, b)
			}
		}
	}
	for _, c := range []*redistest.Conn{d.Redis, d.Ordo} {
		deadline := time.Now().Add(20 * time.Second)
		for statField(c, "persistence", "rdb_saves") != "1" || statField(c, "persistence", "rdb_bgsave_in_progress") != "0" {
			if time.Now().After(deadline) {
				t.Fatalf("no BGSAVE from the save point: rdb_saves %s", statField(c, "persistence", "rdb_saves"))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	compare("after the save point")
	d.Do("SET", "b", "2")
	d.Do("DEL", "a")
	compare("two changes later")
	d.Do("CONFIG", "SET", "save", "")
	d.Do("CONFIG", "GET", "save")
	d.Do("LASTSAVE") // compared below with a tolerance
	r2 := redistest.StartRedis(t, "--dir", o.Engine.Config.Get("dir"), "--dbfilename", "dump.rdb")
	c2 := redistest.Dial(t, r2.Addr)
	l, a, h := c2.Do("LRANGE", "l", "0", "-1").String(), c2.Do("GET", "a").Str, c2.Do("HGET", "h", "f").Str
	if l != "1) \"x\"\n2) \"y\"" || a != "1" || h != "v" {
		t.Errorf("redis-server on the save point's dump.rdb: l=%q a=%q h.f=%q", l, a, h)
	}
}
