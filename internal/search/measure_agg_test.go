package search_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/ordo-db/ordo"
)

// TestMeasureAggregate prints FT.AGGREGATE latencies over 200,000 hashes
// (MEASURE=1 go test -run TestMeasureAggregate -v); it asserts nothing.
func TestMeasureAggregate(t *testing.T) {
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
	db.Do(ctx, "FT.CREATE", "i", "PREFIX", "1", "d:", "SCHEMA", "n", "NUMERIC", "SORTABLE", "t", "TAG", "title", "TEXT")
	for _, q := range [][]any{
		{"*", "GROUPBY", "1", "@t", "REDUCE", "COUNT", "0", "AS", "c", "REDUCE", "AVG", "1", "@n", "AS", "a"},
		{"@n:[0 10000]", "GROUPBY", "1", "@t", "REDUCE", "SUM", "1", "@n", "AS", "s"},
		{"*", "APPLY", "@n % 100", "AS", "m", "GROUPBY", "1", "@m", "REDUCE", "COUNT", "0", "AS", "c", "SORTBY", "2", "@c", "DESC", "MAX", "5"},
		{"word7", "LOAD", "1", "@title", "SORTBY", "2", "@n", "ASC", "LIMIT", "0", "10"},
	} {
		const R = 5
		st := time.Now()
		var rows int
		for range R {
			v, err := db.Do(ctx, append([]any{"FT.AGGREGATE", "i"}, q...)...).Slice()
			if err != nil {
				t.Fatal(err)
			}
			rows = len(v) - 1
		}
		t.Logf("%-60s %3d rows  %v/query", fmt.Sprint(q[:min(len(q), 6)]), rows, time.Since(st)/R)
	}
}

// TestMeasureCursor prints what an open cursor over 200,000 hashes holds
// and what its first chunk costs (MEASURE=1 go test -run
// TestMeasureCursor -v): a streamed pipeline keeps the matched keys, one
// with SORTBY keeps every row. It asserts nothing.
func TestMeasureCursor(t *testing.T) {
	if os.Getenv("MEASURE") == "" {
		t.Skip()
	}
	ctx := context.Background()
	db, _ := ordo.Open("", &ordo.Options{InMemory: true})
	defer db.Close()
	const N = 200000
	// The index first: each HSET indexes its hash (no background scan).
	db.Do(ctx, "FT.CREATE", "i", "PREFIX", "1", "d:", "SCHEMA", "n", "NUMERIC", "SORTABLE", "title", "TEXT")
	for i := range N {
		db.Do(ctx, "HSET", fmt.Sprintf("d:%d", i), "n", fmt.Sprint(i*7%100003), "title", fmt.Sprintf("word%d common", i%1000))
	}
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for _, q := range [][]any{
		{"*", "LOAD", "2", "@title", "@n", "WITHCURSOR", "COUNT", "10"},
		{"*", "LOAD", "2", "@title", "@n", "SORTBY", "2", "@n", "ASC", "MAX", fmt.Sprint(N), "WITHCURSOR", "COUNT", "10"},
	} {
		st := time.Now()
		v, err := db.Do(ctx, append([]any{"FT.AGGREGATE", "i"}, q...)...).Slice()
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(st)
		open := heap()
		db.Do(ctx, "FT.CURSOR", "DEL", "i", v[1])
		held := int64(open) - int64(heap())
		t.Logf("%-70s first chunk %v, cursor holds %.1f MB (%.0f B/doc)", fmt.Sprint(q), took, float64(held)/1e6, float64(held)/N)
	}
}
