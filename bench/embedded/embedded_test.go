package embedded

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/ordo-db/ordo/internal/sysinfo"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo"
	"github.com/ordo-db/ordo/index"
	"github.com/tidwall/buntdb"
)

// The data: N objects {name, city, age, score}; 20 cities, ages 18..77,
// so "city X, age 30..40" matches about 900 objects (LIMIT 100).
const (
	N       = 100_000
	nCities = 20
)

// policy is the sync policy of both stores: "everysec" (a log file,
// fsync once a second: ordo.SyncEverySec, buntdb.EverySecond) or "memory"
// (nothing on disk). ORDO_BENCH_SYNC picks it; everysec by default.
func policy() string {
	if p := os.Getenv("ORDO_BENCH_SYNC"); p != "" {
		return p
	}
	return "everysec"
}

type obj struct {
	Name  string `json:"name"`
	City  string `json:"city"`
	Age   int    `json:"age"`
	Score string `json:"score"`
}

func object(i int) obj {
	return obj{
		Name:  "user" + strconv.Itoa(i),
		City:  "city" + strconv.Itoa(i%nCities),
		Age:   18 + (i/nCities)%60,
		Score: strconv.Itoa(i*7919%100000) + "." + strconv.Itoa(i%100),
	}
}

// store is one side of the comparison.
type store interface {
	put(i int)
	query(city string) int // objects returned
	get(i int) bool
	close()
}

// --- Ordo: hashes with an engine index (TAG city, NUMERIC age, NUMERIC
// score); a put is one HSET, the query the typed Search, a get GetDoc.

type ordoStore struct {
	db  *ordo.DB
	ctx context.Context
}

func openOrdo(dir string) *ordoStore {
	s := openHashes(dir)
	err := s.db.CreateIndex(s.ctx, ordo.IndexSpec{Name: "users", Prefixes: []string{"u:"}, Fields: []ordo.IndexField{
		ordo.TagField("city"), ordo.NumericField("age").Sorted(), ordo.NumericField("score"),
	}})
	if err != nil {
		panic(err)
	}
	return s
}

// openHashes is Ordo without the index: the same hashes alone (the
// memory breakdown's keyspace part).
func openHashes(dir string) *ordoStore {
	o := &ordo.Options{Sync: ordo.SyncEverySec}
	if policy() == "memory" {
		o = &ordo.Options{InMemory: true}
	}
	db, err := ordo.Open(dir, o)
	if err != nil {
		panic(err)
	}
	return &ordoStore{db: db, ctx: context.Background()}
}

func (s *ordoStore) put(i int) {
	o := object(i)
	if err := s.db.Do(s.ctx, "HSET", "u:"+strconv.Itoa(i), "name", o.Name, "city", o.City, "age", o.Age, "score", o.Score).Err(); err != nil {
		panic(err)
	}
}

func (s *ordoStore) query(city string) int {
	r, err := s.db.Search(s.ctx, "users", ordo.And(ordo.TagIn("city", city), ordo.NumRange("age", "30", "40")),
		ordo.SearchOptions{Limit: 100, SortBy: []ordo.SortKey{{Field: "age"}}})
	if err != nil {
		panic(err)
	}
	return len(r.Docs)
}

// get is GetDoc: a direct lookup of the hash, all its fields copied out
// (the same answer as HGETALL, without a command or RESP).
func (s *ordoStore) get(i int) bool {
	d, ok, err := s.db.GetDoc(s.ctx, "u:"+strconv.Itoa(i))
	return err == nil && ok && len(d.Fields) == 8
}

func (s *ordoStore) close() { s.db.Close() }

// --- Ordo through the index library: an index.Collection on the
// embedded database (db.Backend()), with BuntDB's two indexes exactly: a
// numeric index on score and a (city, age) composite index, queried as
// BuntDB is (city = X, 30 <= age <= 40, first 100 in index order, whole
// objects). Put is the collection's atomic swap, get Collection.Get.

type collStore struct {
	db  *ordo.DB
	c   *index.Collection
	ctx context.Context
}

func openColl(dir string) *collStore {
	o := &ordo.Options{Sync: ordo.SyncEverySec}
	if policy() == "memory" {
		o = &ordo.Options{InMemory: true}
	}
	db, err := ordo.Open(dir, o)
	if err != nil {
		panic(err)
	}
	c := index.NewCollection(db.Backend(), "u",
		index.NumericIndex("score", "score"),
		index.CompositeIndex("city_age", index.Field{Name: "city", Type: index.String}, index.Field{Name: "age", Type: index.Int}))
	return &collStore{db: db, c: c, ctx: context.Background()}
}

func (s *collStore) put(i int) {
	o := object(i)
	_, err := s.c.Put(s.ctx, strconv.Itoa(i), index.Object{"name": o.Name, "city": o.City, "age": strconv.Itoa(o.Age), "score": o.Score})
	if err != nil {
		panic(err)
	}
}

func (s *collStore) query(city string) int {
	ds, err := s.c.Find(s.ctx, "city_age", index.Where(city).Between(30, 40).Limit(0, 100))
	if err != nil {
		panic(err)
	}
	return len(ds)
}

func (s *collStore) get(i int) bool {
	o, ok, err := s.c.Get(s.ctx, strconv.Itoa(i))
	return err == nil && ok && len(o) == 4
}

func (s *collStore) close() { s.db.Close() }

// --- BuntDB: JSON values with a numeric index on score and a (city, age)
// composite index; the query is AscendRange over the composite index.

type buntStore struct{ db *buntdb.DB }

func openBunt(dir string) *buntStore {
	path := ":memory:"
	if policy() != "memory" {
		path = filepath.Join(dir, "bunt.db")
	}
	db, err := buntdb.Open(path)
	if err != nil {
		panic(err)
	}
	cfg := buntdb.Config{SyncPolicy: buntdb.EverySecond, AutoShrinkPercentage: 100, AutoShrinkMinSize: 32 << 20}
	if err := db.SetConfig(cfg); err != nil {
		panic(err)
	}
	if err := db.CreateIndex("score", "u:*", buntdb.IndexJSON("score")); err != nil {
		panic(err)
	}
	if err := db.CreateIndex("city_age", "u:*", buntdb.IndexJSON("city"), buntdb.IndexJSON("age")); err != nil {
		panic(err)
	}
	return &buntStore{db: db}
}

func (s *buntStore) put(i int) {
	b, _ := json.Marshal(object(i))
	err := s.db.Update(func(tx *buntdb.Tx) error {
		_, _, err := tx.Set("u:"+strconv.Itoa(i), string(b), nil)
		return err
	})
	if err != nil {
		panic(err)
	}
}

func (s *buntStore) query(city string) int {
	n := 0
	err := s.db.View(func(tx *buntdb.Tx) error {
		return tx.AscendRange("city_age", `{"city":"`+city+`","age":30}`, `{"city":"`+city+`","age":41}`, func(k, v string) bool {
			n++
			return n < 100
		})
	})
	if err != nil {
		panic(err)
	}
	return n
}

func (s *buntStore) get(i int) bool {
	ok := false
	s.db.View(func(tx *buntdb.Tx) error {
		v, err := tx.Get("u:" + strconv.Itoa(i))
		ok = err == nil && v != ""
		return nil
	})
	return ok
}

func (s *buntStore) close() { s.db.Close() }

func open(kind, dir string) store {
	switch kind {
	case "ordo":
		return openOrdo(dir)
	case "coll":
		return openColl(dir)
	case "hashes":
		return openHashes(dir)
	}
	return openBunt(dir)
}

func load(s store) {
	for i := range N {
		s.put(i)
	}
}

// --- go test -bench: one benchmark per row and store.

func benchRow(b *testing.B, kind, row string) {
	s := open(kind, b.TempDir())
	defer s.close()
	if row != "put" {
		load(s)
	}
	b.ResetTimer()
	c0 := int64(sysinfo.ProcessCPU())
	defer func() { b.ReportMetric(float64(int64(sysinfo.ProcessCPU())-c0)/float64(b.N), "cpu-ns/op") }()
	i := 0
	for b.Loop() {
		switch row {
		case "put":
			s.put(i % N)
		case "query":
			if n := s.query("city" + strconv.Itoa(i%nCities)); n != 100 {
				b.Fatalf("%s query returned %d", kind, n)
			}
		case "get":
			if !s.get(i * 7 % N) {
				b.Fatal("get missed")
			}
		}
		i++
	}
}

func BenchmarkPutOrdo(b *testing.B)   { benchRow(b, "ordo", "put") }
func BenchmarkPutBunt(b *testing.B)   { benchRow(b, "bunt", "put") }
func BenchmarkQueryOrdo(b *testing.B) { benchRow(b, "ordo", "query") }
func BenchmarkQueryBunt(b *testing.B) { benchRow(b, "bunt", "query") }
func BenchmarkGetOrdo(b *testing.B)   { benchRow(b, "ordo", "get") }
func BenchmarkGetBunt(b *testing.B)   { benchRow(b, "bunt", "get") }
func BenchmarkPutColl(b *testing.B)   { benchRow(b, "coll", "put") }
func BenchmarkQueryColl(b *testing.B) { benchRow(b, "coll", "query") }
func BenchmarkGetColl(b *testing.B)   { benchRow(b, "coll", "get") }

// TestSameAnswers: both stores return the same objects for the query
// (the comparison is of equal work).
func TestSameAnswers(t *testing.T) {
	t.Setenv("ORDO_BENCH_SYNC", "memory")
	o, bu := openOrdo(t.TempDir()), openBunt(t.TempDir())
	defer o.close()
	defer bu.close()
	for i := range 2000 {
		o.put(i)
		bu.put(i)
	}
	r, err := o.db.Search(o.ctx, "users", ordo.And(ordo.TagIn("city", "city3"), ordo.NumRange("age", "30", "40")),
		ordo.SearchOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var ko, kb []string
	for _, d := range r.Docs {
		ko = append(ko, d.Key)
	}
	bu.db.View(func(tx *buntdb.Tx) error {
		return tx.AscendRange("city_age", `{"city":"city3","age":30}`, `{"city":"city3","age":41}`, func(k, v string) bool {
			kb = append(kb, k)
			return true
		})
	})
	// The collection returns BuntDB's objects in BuntDB's order: (city,
	// age, then key; its ids are the keys without "u:").
	co := openColl(t.TempDir())
	defer co.close()
	for i := range 2000 {
		co.put(i)
	}
	ds, err := co.c.Find(co.ctx, "city_age", index.Where("city3").Between(30, 40))
	if err != nil {
		t.Fatal(err)
	}
	var kc []string
	for _, d := range ds {
		kc = append(kc, "u:"+d.ID)
		if o := object(mustAtoi(t, d.ID)); d.Fields["city"] != o.City || d.Fields["name"] != o.Name {
			t.Fatalf("collection object %s = %v", d.ID, d.Fields)
		}
	}
	if !slices.Equal(kc, kb) {
		t.Fatalf("collection %v\nbuntdb %v", kc, kb)
	}
	slices.Sort(ko)
	slices.Sort(kb)
	if len(ko) == 0 || !slices.Equal(ko, kb) {
		t.Fatalf("ordo %d objects, buntdb %d", len(ko), len(kb))
	}
}

func mustAtoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// --- Memory: each store loads the N objects alone in a child process,
// which reports its RSS and live heap after a GC.

func TestMain(m *testing.M) {
	if kind := os.Getenv("ORDO_BENCH_MEMCHILD"); kind != "" {
		dir, _ := os.MkdirTemp("", "embmem")
		s := open(kind, dir)
		if os.Getenv("ORDO_BENCH_MEMEMPTY") == "" {
			load(s)
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Printf("MEM %d %d %d %d\n", rss(), ms.HeapInuse, ms.HeapIdle-ms.HeapReleased, ms.Sys-ms.HeapSys)
		if o, ok := s.(*ordoStore); ok {
			printOrdoMemory(o)
		}
		s.close()
		os.RemoveAll(dir)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n << 10
		}
	}
	return 0
}

func memOf(t *testing.T, kind string) (rssB, heap int64) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "ORDO_BENCH_MEMCHILD="+kind)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "MEM ") {
			fmt.Sscan(l[4:], &rssB, &heap)
		}
	}
	return
}

// TestSideBySide (ORDO_BENCH=1; ORDO_BENCH_COUNT rounds, 5 by default)
// measures every row for the three stores (BuntDB; Ordo with an FT index;
// Ordo through index.Collection), alternating, and prints each row's
// medians and the ratios to BuntDB (rates: higher is better for Ordo;
// memory: lower is). Each rate is printed twice: per second of wall time,
// and per second of the process's CPU time (collections included), which
// a machine shared with other jobs disturbs far less.
func TestSideBySide(t *testing.T) {
	if os.Getenv("ORDO_BENCH") == "" {
		t.Skip("set ORDO_BENCH=1 (and go test -timeout 30m) to run the comparison")
	}
	count := 5
	if c, err := strconv.Atoi(os.Getenv("ORDO_BENCH_COUNT")); err == nil && c > 0 {
		count = c
	}
	rows := []string{"put", "query", "get"}
	rate := map[string][]float64{} // kind+row: per wall second; "cpu"+kind+row: per CPU second
	for range count {
		for _, kind := range []string{"bunt", "ordo", "coll"} {
			// put: N indexed puts into a new store, timed as a whole; then
			// query and get on that loaded store.
			st := open(kind, t.TempDir())
			t0, c0 := time.Now(), sysinfo.ProcessCPU()
			load(st)
			rate[kind+"put"] = append(rate[kind+"put"], N/time.Since(t0).Seconds())
			rate["cpu"+kind+"put"] = append(rate["cpu"+kind+"put"], N/(sysinfo.ProcessCPU()-c0).Seconds())
			for _, row := range rows[1:] {
				var cpu time.Duration // of the last (measured) run
				r := testing.Benchmark(func(b *testing.B) {
					i := 0
					c0 := sysinfo.ProcessCPU()
					defer func() { cpu = sysinfo.ProcessCPU() - c0 }()
					for b.Loop() {
						if row == "query" {
							if n := st.query("city" + strconv.Itoa(i%nCities)); n != 100 {
								b.Fatalf("%s query returned %d", kind, n)
							}
						} else if !st.get(i * 7 % N) {
							b.Fatal("get missed")
						}
						i++
					}
				})
				rate[kind+row] = append(rate[kind+row], float64(r.N)/r.T.Seconds())
				rate["cpu"+kind+row] = append(rate["cpu"+kind+row], float64(r.N)/cpu.Seconds())
			}
			st.close()
		}
	}
	med := func(v []float64) float64 {
		slices.Sort(v)
		return v[len(v)/2]
	}
	fmt.Printf("embedded, %d objects, sync %s, median of %d, GOMAXPROCS %d\n", N, policy(), count, runtime.GOMAXPROCS(0))
	fmt.Printf("Ordo: hashes with an FT index (HSET, Search, GetDoc); Collection: index.Collection on the embedded DB\n")
	fmt.Printf("%-28s %14s %14s %9s %14s %9s\n", "row", "BuntDB", "Ordo", "Ordo/Bunt", "Collection", "Coll/Bunt")
	for _, per := range []string{"", "cpu"} {
		for _, row := range rows {
			b, o, c := med(rate[per+"bunt"+row]), med(rate[per+"ordo"+row]), med(rate[per+"coll"+row])
			name := map[string]string{"put": "indexed put", "query": "range query, 100 objects", "get": "point get"}[row]
			if per == "cpu" {
				name += ", CPU"
			}
			fmt.Printf("%-28s %12.0f/s %12.0f/s %8.2fx %12.0f/s %8.2fx\n", name, b, o, o/b, c, c/b)
		}
	}
	mem := map[string][2][]float64{}
	for range min(count, 3) {
		for _, kind := range []string{"bunt", "ordo", "coll"} {
			r, h := memOf(t, kind)
			m := mem[kind]
			m[0], m[1] = append(m[0], float64(r)), append(m[1], float64(h))
			mem[kind] = m
		}
	}
	for i, what := range []string{"RSS after load", "Go heap in use after load"} {
		b, o, c := med(mem["bunt"][i]), med(mem["ordo"][i]), med(mem["coll"][i])
		fmt.Printf("%-28s %12.1fMB %12.1fMB %8.2fx %12.1fMB %8.2fx\n", what, b/1e6, o/1e6, o/b, c/1e6, c/b)
	}
}
