package engine_test

import (
	"testing"

	"github.com/ordo-db/ordo/internal/aof"
	"github.com/ordo-db/ordo/internal/redistest"
)

// BGSAVE writes dump.rdb in the background, with redis-server's reply and
// INFO persistence fields; redis-server started on that file has the same
// dataset.
func TestBgsaveWritesRDB(t *testing.T) {
	r := redistest.StartRedis(t)
	o := redistest.StartOrdo(t)
	d := redistest.NewDiffWith(t, r.Addr, o.Addr)
	fillForRDB(d)
	d.Do("BGSAVE", "x")
	d.Do("BGSAVE")
	waitNoRewrite(t, d.Redis)
	waitNoRewrite(t, d.Ordo)
	for _, f := range []string{"rdb_changes_since_last_save", "rdb_bgsave_in_progress", "rdb_last_bgsave_status", "rdb_saves"} {
		if a, b := statField(d.Redis, "persistence", f), statField(d.Ordo, "persistence", f); a != b {
			t.Errorf("%s: redis %s, ordo %s", f, a, b)
		}
	}
	if a, b := d.Redis.Do("LASTSAVE").Int, d.Ordo.Do("LASTSAVE").Int; b < a-5 || b > a+5 {
		t.Errorf("LASTSAVE: redis %d, ordo %d", a, b)
	}
	r2 := redistest.StartRedis(t, "--dir", o.Engine.Config.Get("dir"), "--dbfilename", "dump.rdb")
	d2 := redistest.NewDiffWith(t, r2.Addr, o.Addr)
	if n := d2.Redis.Do("DBSIZE").Int; n == 0 {
		t.Fatal("redis-server loaded nothing from Ordo's BGSAVE")
	}
	compareDatasets(t, d2)
}

// With the AOF layer, BGSAVE still answers as Redis and writes dump.rdb
// besides its own snapshot.
func TestBgsaveWithAOFWritesRDB(t *testing.T) {
	o := redistest.StartOrdo(t, "appendonly", "yes")
	p, err := aof.Open(o.Engine, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(false) })
	c := redistest.Dial(t, o.Addr)
	c.Do("SET", "k", "v")
	if got := string(c.DoRaw("BGSAVE")); got != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", got)
	}
	o.Engine.WaitRDBBackground()
	waitNoRewrite(t, c)
	r := redistest.StartRedis(t, "--dir", o.Engine.Config.Get("dir"), "--dbfilename", "dump.rdb")
	if got := redistest.Dial(t, r.Addr).Do("GET", "k").Str; got != "v" {
		t.Fatalf("redis-server on Ordo's dump.rdb: GET k = %q", got)
	}
}
