package server_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/server"
)

// With appendonly no, start-up loads dir/dbfilename as redis-server
// does: the data redis-server saved answers the same from Ordo; no file
// is no error, and a damaged one stops the start with the dataset empty.
func TestLoadDumpAtStart(t *testing.T) {
	dir := t.TempDir()
	r := redistest.StartRedis(t, "--dir", dir)
	rc := redistest.Dial(t, r.Addr)
	rc.Do("SET", "s", "v")
	rc.Do("RPUSH", "l", "a", "b", "c")
	rc.Do("ZADD", "z", "1", "m", "2", "n")
	rc.Do("HSET", "h", "f", "1")
	rc.Do("SELECT", "3")
	rc.Do("SADD", "set", "x", "y")
	rc.Do("SET", "t", "ttl", "EX", "1000")
	rc.Do("SAVE")

	o := redistest.StartOrdo(t, "dir", dir)
	if err := server.LoadDumpAtStart(o.Engine, t.Logf); err != nil {
		t.Fatal(err)
	}
	d := redistest.NewDiffWith(t, r.Addr, o.Addr)
	d.Do("DBSIZE")
	d.Do("GET", "s")
	d.Do("LRANGE", "l", "0", "-1")
	d.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")
	d.Do("HGETALL", "h")
	d.Do("SELECT", "3")
	d.Do("DBSIZE")
	d.DoSorted("SMEMBERS", "set")
	d.Do("GET", "t")
	d.Do("TTL", "t")

	empty := redistest.StartOrdo(t)
	if err := server.LoadDumpAtStart(empty.Engine, t.Logf); err != nil {
		t.Fatalf("no dump.rdb: %v", err)
	}
	bad := t.TempDir()
	data, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-12] ^= 0xff // the checksum fails
	if err := os.WriteFile(filepath.Join(bad, "dump.rdb"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	o2 := redistest.StartOrdo(t, "dir", bad)
	if err := server.LoadDumpAtStart(o2.Engine, t.Logf); err == nil {
		t.Error("a damaged dump.rdb loaded without error")
	}
	if n := redistest.Dial(t, o2.Addr).Do("DBSIZE").Int; n != 0 {
		t.Errorf("after a failed load DBSIZE = %d, want 0", n)
	}
}
