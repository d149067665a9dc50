package engine_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/ordo-db/ordo/internal/aof"
	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/server"
)

// fillForRDB builds every dumpCase on both servers plus keys with
// expiries and keys in other databases.
func fillForRDB(d *redistest.Diff) {
	for _, c := range dumpCases() {
		c.setup(d)
	}
	d.Do("SET", "ttl:future", "v", "PXAT", "99999999999000")
	d.Do("HSET", "ttl:hash", "f", "v")
	d.Do("PEXPIREAT", "ttl:hash", "99999999999123")
	d.Do("SELECT", "3")
	d.Do("SET", "in-db-3", "x")
	d.Do("RPUSH", "list-in-db-3", "a", "b")
	d.Do("SELECT", "15")
	d.Do("ZADD", "z15", "1", "a")
	d.Do("SELECT", "0")
}

// compareDatasets compares every key of every database of the two
// servers: value, encoding and expiry.
func compareDatasets(t *testing.T, d *redistest.Diff) {
	t.Helper()
	for _, db := range []string{"0", "3", "15"} {
		d.Do("SELECT", db)
		d.Do("DBSIZE")
		keys := d.Redis.Do("KEYS", "*")
		var names []string
		for _, k := range keys.Elems {
			names = append(names, k.Str)
		}
		sort.Strings(names)
		if len(names) == 0 {
			t.Errorf("database %s is empty", db)
		}
		for _, k := range names {
			readBack(d, k)
			d.Do("PEXPIRETIME", k)
		}
	}
	d.Do("SELECT", "0")
}

// TestRDBFileFromRedis loads a dump.rdb written by redis-server's SAVE
// into Ordo (ordo-server --rdb-import) and reads everything back.
func TestRDBFileFromRedis(t *testing.T) {
	r := redistest.StartRedis(t)
	o := redistest.StartOrdo(t, "appendonly", "yes")
	p, err := aof.Open(o.Engine, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	d := redistest.NewDiffWith(t, r.Addr, o.Addr)
	fillForRDB(d)
	d.Redis.Do("SET", "expired", "x", "PXAT", "1000") // not stored: already expired
	d.Redis.Do("SAVE")
	d.Redis.Do("DEL", "expired") // (DBSIZE counts it until it is collected)
	file := filepath.Join(d.Redis.Do("CONFIG", "GET", "dir").Elems[1].Str, "dump.rdb")
	// Import needs an empty dataset.
	if err := server.ImportRDB(o.Engine, nil, file, t.Logf); err == nil {
		t.Fatal("import into a non-empty dataset accepted")
	}
	d.Ordo.Do("FLUSHALL")
	if err := server.ImportRDB(o.Engine, p, file, t.Logf); err != nil {
		t.Fatal(err)
	}
	compareDatasets(t, d)
	// The import was snapshotted: a server started on the same directory
	// (without a closing snapshot) has it all.
	if err := p.Close(false); err != nil {
		t.Fatal(err)
	}
	o2 := redistest.StartOrdo(t, "appendonly", "yes", "dir", o.Engine.Config.Get("dir"))
	p2, err := aof.Open(o2.Engine, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p2.Close(false) })
	compareDatasets(t, redistest.NewDiffWith(t, r.Addr, o2.Addr))
	// A corrupt file leaves nothing behind.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.rdb")
	os.WriteFile(bad, data[:len(data)/2], 0o644)
	d.Ordo.Do("FLUSHALL")
	if err := server.ImportRDB(o.Engine, nil, bad, t.Logf); err == nil {
		t.Fatal("truncated file imported")
	}
	if n := d.Ordo.Do("DBSIZE").Int; n != 0 {
		t.Fatalf("a failed import left %d keys", n)
	}
}

// TestRDBFileToRedis starts a redis-server on the dump.rdb written by
// Ordo's SAVE and compares its dataset with Ordo's.
func TestRDBFileToRedis(t *testing.T) {
	r := redistest.StartRedis(t)
	o := redistest.StartOrdo(t, "appendonly", "yes")
	p, err := aof.Open(o.Engine, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(false) })
	d := redistest.NewDiffWith(t, r.Addr, o.Addr)
	fillForRDB(d)
	d.Ordo.Do("JSON.SET", "json-is-skipped", "$", `{"a":1}`)
	if got := d.Ordo.Do("DUMP", "json-is-skipped"); got.Str != engine.ErrDumpUnsupported {
		t.Fatalf("DUMP of a JSON value: %v", got)
	}
	if got := d.Ordo.Do("SAVE"); got.Str != "OK" {
		t.Fatalf("SAVE: %v", got)
	}
	dir := o.Engine.Config.Get("dir")
	if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
		t.Fatal(err)
	}
	d.Ordo.Do("DEL", "json-is-skipped")
	r2 := redistest.StartRedis(t, "--dir", dir, "--dbfilename", "dump.rdb")
	d2 := redistest.NewDiffWith(t, r2.Addr, o.Addr)
	if n := d2.Redis.Do("DBSIZE").Int; n == 0 {
		t.Fatal("redis-server loaded nothing from Ordo's dump.rdb")
	}
	compareDatasets(t, d2)
}
