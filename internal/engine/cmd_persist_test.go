package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/aof"
	"github.com/ordo-db/ordo/internal/redistest"
)

// persistPair is a redis-server and an ordo-server, both with an AOF.
func persistPair(t *testing.T) *redistest.Diff {
	t.Helper()
	r := redistest.StartRedis(t, "--appendonly", "yes")
	o := redistest.StartOrdo(t, "appendonly", "yes")
	p, err := aof.Open(o.Engine, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(false) })
	return redistest.NewDiffWith(t, r.Addr, o.Addr)
}

func waitNoRewrite(t *testing.T, c *redistest.Conn) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		info := c.Do("INFO", "persistence").Str
		if strings.Contains(info, "aof_rewrite_in_progress:0") && strings.Contains(info, "rdb_bgsave_in_progress:0") &&
			strings.Contains(info, "aof_rewrite_scheduled:0") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("rewrite still running:\n%s", info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func infoFields(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\r\n") {
		if k, _, ok := strings.Cut(l, ":"); ok {
			out = append(out, k)
		}
	}
	return out
}

func TestPersistenceCommandReplies(t *testing.T) {
	d := persistPair(t)
	d.Do("SAVE", "x")
	d.Do("BGSAVE", "a", "b")
	d.Do("BGSAVE", "foo")
	d.Do("BGREWRITEAOF", "x")
	d.Do("LASTSAVE", "x")
	d.Do("SET", "k", "v")
	d.Do("SAVE")
	d.DoShape("LASTSAVE")
	waitNoRewrite(t, d.Redis)
	d.Do("BGREWRITEAOF")
	waitNoRewrite(t, d.Redis)
	waitNoRewrite(t, d.Ordo)
	d.Do("BGSAVE")
	waitNoRewrite(t, d.Redis)
	waitNoRewrite(t, d.Ordo)
	d.Do("GET", "k")
	// INFO persistence has Redis's fields, in Redis's order.
	want := strings.Join(infoFields(d.Redis.Do("INFO", "persistence").Str), " ")
	got := strings.Join(infoFields(d.Ordo.Do("INFO", "persistence").Str), " ")
	if got != want {
		t.Errorf("INFO persistence fields:\n redis: %s\n  ordo: %s", want, got)
	}
	for _, f := range []string{"aof_enabled:1", "aof_last_write_status:ok", "aof_last_bgrewrite_status:ok", "rdb_last_bgsave_status:ok"} {
		if !strings.Contains(d.Ordo.Do("INFO", "persistence").Str, f) {
			t.Errorf("ordo INFO persistence lacks %s", f)
		}
	}
}
