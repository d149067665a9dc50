package search_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestGoRedisFTAggregate drives FT.AGGREGATE, aliases, FT.TAGVALS,
// dictionaries, synonyms and FT.EXPLAIN through go-redis's FT API, in
// RESP2 and RESP3.
func TestGoRedisFTAggregate(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprint("RESP", proto), func(t *testing.T) { goRedisFTAgg(t, proto) })
	}
}

func goRedisFTAgg(t *testing.T, proto int) {
	_, o := newClient(t)
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: o.Addr, Protocol: proto})
	defer rdb.Close()
	for i, d := range [][2]string{{"acme", "10"}, {"acme", "20"}, {"globex", "5"}} {
		rdb.HSet(ctx, fmt.Sprint("p:", i), "brand", d[0], "price", d[1])
	}
	err := rdb.FTCreate(ctx, "prod", &redis.FTCreateOptions{OnHash: true, Prefix: []any{"p:"}},
		&redis.FieldSchema{FieldName: "brand", FieldType: redis.SearchFieldTypeTag, Sortable: true},
		&redis.FieldSchema{FieldName: "price", FieldType: redis.SearchFieldTypeNumeric, Sortable: true},
	).Err()
	if err != nil {
		t.Fatal(err)
	}
	res, err := rdb.FTAggregateWithArgs(ctx, "prod", "*", &redis.FTAggregateOptions{
		Steps: []redis.FTAggregateStep{
			{GroupBy: &redis.FTAggregateGroupBy{Fields: []any{"@brand"}, Reduce: []redis.FTAggregateReducer{
				{Reducer: redis.SearchSum, Args: []any{"@price"}, As: "total"},
				{Reducer: redis.SearchCount, As: "n"},
			}}},
			{Apply: &redis.FTAggregateApply{Field: "@total / @n", As: "avg"}},
			{SortBy: &redis.FTAggregateSortByStep{Fields: []redis.FTAggregateSortBy{{FieldName: "@total", Desc: true}}}},
		},
	}).Result()
	if err != nil {
		t.Fatal(err)
	}
	want := []redis.AggregateRow{
		{Fields: map[string]any{"brand": "acme", "total": "30", "n": "2", "avg": "15"}},
		{Fields: map[string]any{"brand": "globex", "total": "5", "n": "1", "avg": "5"}},
	}
	if res.Total != 2 || !reflect.DeepEqual(res.Rows, want) {
		t.Fatalf("FT.AGGREGATE: %+v", res)
	}
	if err := rdb.FTAliasAdd(ctx, "prod", "products").Err(); err != nil {
		t.Fatal(err)
	}
	if vals, err := rdb.FTTagVals(ctx, "products", "brand").Result(); err != nil || !reflect.DeepEqual(vals, []string{"acme", "globex"}) {
		t.Fatalf("FT.TAGVALS: %v %v", vals, err)
	}
	if n, err := rdb.FTDictAdd(ctx, "d", "x", "y").Result(); err != nil || n != 2 {
		t.Fatalf("FT.DICTADD: %v %v", n, err)
	}
	if terms, err := rdb.FTDictDump(ctx, "d").Result(); err != nil || !reflect.DeepEqual(terms, []string{"x", "y"}) {
		t.Fatalf("FT.DICTDUMP: %v %v", terms, err)
	}
	if err := rdb.FTSynUpdate(ctx, "prod", "g", []any{"acme", "a"}).Err(); err != nil {
		t.Fatal(err)
	}
	if syn, err := rdb.FTSynDump(ctx, "prod").Result(); err != nil || len(syn) != 2 {
		t.Fatalf("FT.SYNDUMP: %v %v", syn, err)
	}
	if s, err := rdb.FTExplain(ctx, "prod", "@price:[1 (2]").Result(); err != nil || s != "NUMERIC {1.000000 <= @price < 2.000000}\n" {
		t.Fatalf("FT.EXPLAIN: %q %v", s, err)
	}
	if err := rdb.FTAliasDel(ctx, "products").Err(); err != nil {
		t.Fatal(err)
	}
}
