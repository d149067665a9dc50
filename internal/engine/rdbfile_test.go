package engine_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/aof"
	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/rdb"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/server"
)

// fillForRDB builds every dumpCase on both servers plus keys with
// expiries and keys in other databases.
func fillForRDB(d *redistest.Diff) {
	for _, c := range dumpCases() {
		c.setup(d)
	}
	setupStreams(d)
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
	d.Ordo.Do("JSON.SET", "json-is-an-aux-field", "$", `{"a":1}`)
	if got := d.Ordo.Do("DUMP", "json-is-an-aux-field"); got.Str != engine.ErrDumpUnsupported {
		t.Fatalf("DUMP of a JSON value: %v", got)
	}
	if got := d.Ordo.Do("SAVE"); got.Str != "OK" {
		t.Fatalf("SAVE: %v", got)
	}
	dir := o.Engine.Config.Get("dir")
	if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
		t.Fatal(err)
	}
	d.Ordo.Do("DEL", "json-is-an-aux-field")
	r2 := redistest.StartRedis(t, "--dir", dir, "--dbfilename", "dump.rdb")
	d2 := redistest.NewDiffWith(t, r2.Addr, o.Addr)
	if n := d2.Redis.Do("DBSIZE").Int; n == 0 {
		t.Fatal("redis-server loaded nothing from Ordo's dump.rdb")
	}
	compareDatasets(t, d2)
}

// TestRDBFileJSONDocuments: JSON documents in Ordo's dump.rdb (aux
// fields, engine/rdbaux.go) come back, with their TTLs, when Ordo loads
// the file; redis-server, which has no JSON type, loads the file without
// them.
func TestRDBFileJSONDocuments(t *testing.T) {
	o := redistest.StartOrdo(t, "appendonly", "yes")
	p, err := aof.Open(o.Engine, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(false) })
	c := redistest.Dial(t, o.Addr)
	c.Do("JSON.SET", "doc", "$", `{"a":[1,2,{"b":"x"}],"n":1.5e300}`)
	c.Do("JSON.SET", "ttl", "$", `"s"`)
	c.Do("PEXPIREAT", "ttl", "99999999999000")
	c.Do("SELECT", "4")
	c.Do("JSON.SET", "in4", "$", `[true,null]`)
	c.Do("SET", "plain", "v")
	c.Do("SELECT", "0")
	if got := c.Do("SAVE"); got.Str != "OK" {
		t.Fatalf("SAVE: %v", got)
	}
	file := filepath.Join(o.Engine.Config.Get("dir"), "dump.rdb")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	o2 := redistest.StartOrdo(t)
	o2.Engine.Lock()
	st, err := o2.Engine.LoadRDB(bytes.NewReader(data))
	o2.Engine.Unlock()
	if err != nil || st.Keys != 4 {
		t.Fatalf("LoadRDB: %+v, %v", st, err)
	}
	c2 := redistest.Dial(t, o2.Addr)
	for _, q := range [][]string{{"JSON.GET", "doc"}, {"JSON.GET", "ttl"}, {"PEXPIRETIME", "ttl"}, {"TYPE", "doc"}} {
		if want, got := c.Do(q...), c2.Do(q...); want.String() != got.String() {
			t.Errorf("%v: saved %v, loaded %v", q, want, got)
		}
	}
	c2.Do("SELECT", "4")
	if got := c2.Do("JSON.GET", "in4"); got.Str != "[true,null]" {
		t.Errorf("JSON.GET in4 in database 4: %v", got)
	}
	r := redistest.StartRedis(t, "--dir", filepath.Dir(file), "--dbfilename", "dump.rdb")
	rc := redistest.Dial(t, r.Addr)
	rc.Do("SELECT", "4")
	if got := rc.Do("KEYS", "*"); len(got.Elems) != 1 || got.Elems[0].Str != "plain" {
		t.Fatalf("redis-server on Ordo's dump.rdb, database 4: %v", got)
	}
}

// TestLoadRDBRefusals: what Redis refuses to load, LoadRDB refuses.
func TestLoadRDBRefusals(t *testing.T) {
	o := redistest.StartOrdo(t)
	file := func(db int, keys ...string) []byte {
		var buf bytes.Buffer
		w := rdb.NewWriter(&buf, true)
		w.SelectDB(db, uint64(len(keys)), 0)
		for _, k := range keys {
			w.Entry([]byte(k), &rdb.Value{Kind: rdb.KindString, Str: []byte("v")}, -1)
		}
		w.Close()
		return buf.Bytes()
	}
	for _, tc := range []struct {
		data []byte
		want string
	}{
		{file(0, "a", "b", "a"), `duplicated key "a" in database 0`},
		{file(16, "a"), "uses database 16"},
		{[]byte("REDIS0011"), "can't handle RDB format version"},
		{[]byte("RUBIS0010"), "not an RDB file"},
	} {
		o.Engine.Lock()
		_, err := o.Engine.LoadRDB(bytes.NewReader(tc.data))
		for _, db := range o.Engine.DBs() {
			db.Flush()
		}
		o.Engine.Unlock()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadRDB: %v, want an error with %q", err, tc.want)
		}
	}
}

// BenchmarkLoadRDB measures loading an RDB file of 100,000 keys of every
// type (strings, small hashes, sets, sorted sets and lists).
func BenchmarkLoadRDB(b *testing.B) {
	var buf bytes.Buffer
	w := rdb.NewWriter(&buf, true)
	const n = 100000
	w.SelectDB(0, n, 0)
	for i := 0; i < n; i++ {
		k := []byte("key:" + strconv.Itoa(i))
		var v *rdb.Value
		switch i % 5 {
		case 0:
			v = &rdb.Value{Kind: rdb.KindString, Str: []byte("value:" + strconv.Itoa(i))}
		case 1:
			v = &rdb.Value{Kind: rdb.KindHash, Compact: true, Elems: [][]byte{[]byte("name"), []byte("x"), []byte("age"), []byte("42")}}
		case 2:
			v = &rdb.Value{Kind: rdb.KindSet, Compact: true, Elems: [][]byte{[]byte("1"), []byte("2"), []byte("3")}}
		case 3:
			v = &rdb.Value{Kind: rdb.KindZSet, Compact: true, Elems: [][]byte{[]byte("a"), []byte("b")}, Scores: []float64{1, 2.5}}
		default:
			v = &rdb.Value{Kind: rdb.KindList, Elems: [][]byte{[]byte("x"), []byte("y"), []byte("z")}}
		}
		w.Entry(k, v, -1)
	}
	w.Close()
	o := redistest.StartOrdo(b)
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o.Engine.Lock()
		for _, db := range o.Engine.DBs() {
			db.Flush()
		}
		if _, err := o.Engine.LoadRDB(bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
		o.Engine.Unlock()
	}
}
