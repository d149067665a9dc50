package search_test

import (
	"context"
	"fmt"
	"os"
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
