package search_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/ordo-db/ordo"
)

// TestMeasure prints index build time, memory and query latencies over
// 200,000 hashes (MEASURE=1 go test -run TestMeasure -v); it asserts nothing.
func TestMeasure(t *testing.T) {
	if os.Getenv("MEASURE") == "" {
		t.Skip()
	}
	ctx := context.Background()
	db, _ := ordo.Open("", &ordo.Options{InMemory: true})
	defer db.Close()
	const N = 200000
	tags := []string{"red", "green", "blue", "grey"}
	for i := range N {
		db.Do(ctx, "HSET", fmt.Sprintf("d:%d", i), "n", fmt.Sprint(i*7%100003), "t", tags[i%4], "title", fmt.Sprintf("word%d common", i%1000))
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	st := time.Now()
	db.Do(ctx, "FT.CREATE", "i", "PREFIX", "1", "d:", "SCHEMA", "n", "NUMERIC", "t", "TAG", "title", "TEXT")
	t.Logf("FT.CREATE over %d hashes returns in %v", N, time.Since(st))
	for { // the background scan
		v, _ := db.Do(ctx, "FT.INFO", "i").Slice()
		if fmt.Sprint(v[slices.Index(v, any("indexing"))+1]) == "0" {
			break
		}
		time.Sleep(time.Millisecond)
	}
	t.Logf("indexed in the background in %v", time.Since(st))
	runtime.GC()
	runtime.ReadMemStats(&m1)
	t.Logf("index heap: %.1f MB (%.0f B/doc)", float64(m1.HeapAlloc-m0.HeapAlloc)/1e6, float64(m1.HeapAlloc-m0.HeapAlloc)/N)
	for _, q := range []string{"@n:[1000 1100]", "@t:{red} @n:[0 50000]", "word7", "common", "*"} {
		st = time.Now()
		const R = 20
		var n int64
		for range R {
			v, _ := db.Do(ctx, "FT.SEARCH", "i", q, "NOCONTENT", "LIMIT", "0", "10").Slice()
			n = v[0].(int64)
		}
		t.Logf("%-24s %7d hits  %v/query", q, n, time.Since(st)/R)
	}
	st = time.Now()
	for i := range 20000 {
		db.Do(ctx, "HSET", fmt.Sprintf("d:%d", i), "n", fmt.Sprint(i))
	}
	t.Logf("20000 HSET with the index: %v/op (sync on next search included below)", time.Since(st)/20000)
	st = time.Now()
	db.Do(ctx, "FT.SEARCH", "i", "@n:[0 10]", "NOCONTENT")
	t.Logf("first search after them: %v", time.Since(st))
}
