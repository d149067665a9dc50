package search_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestGoRedisFT drives the indexes with go-redis's FT API, in RESP2 and
// in RESP3 (go-redis's default; Ordo answers RESP2 shapes, which go-redis
// parses under both).
func TestGoRedisFT(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprint("RESP", proto), func(t *testing.T) { goRedisFT(t, proto) })
	}
}

func goRedisFT(t *testing.T, proto int) {
	_, o := newClient(t)
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: o.Addr, Protocol: proto})
	defer rdb.Close()
	rdb.HSet(ctx, "user:1", "name", "Ada Lovelace", "age", "36", "city", "London")
	rdb.HSet(ctx, "user:2", "name", "Alan Turing", "age", "41", "city", "Wilmslow|London")
	rdb.HSet(ctx, "user:3", "name", "Grace Hopper", "age", "85", "city", "Arlington")
	err := rdb.FTCreate(ctx, "users", &redis.FTCreateOptions{OnHash: true, Prefix: []any{"user:"}},
		&redis.FieldSchema{FieldName: "name", FieldType: redis.SearchFieldTypeText, Sortable: true},
		&redis.FieldSchema{FieldName: "age", FieldType: redis.SearchFieldTypeNumeric, Sortable: true},
		&redis.FieldSchema{FieldName: "city", FieldType: redis.SearchFieldTypeTag, Separator: "|"},
	).Err()
	if err != nil {
		t.Fatal(err)
	}
	res, err := rdb.FTSearchWithArgs(ctx, "users", "@city:{london} @age:[$min +inf]", &redis.FTSearchOptions{
		Params: map[string]any{"min": 40}, DialectVersion: 2, WithScores: true,
		SortBy: []redis.FTSearchSortBy{{FieldName: "age", Desc: true}},
	}).Result()
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || len(res.Docs) != 1 || res.Docs[0].ID != "user:2" || res.Docs[0].Fields["name"] != "Alan Turing" || res.Docs[0].Score == nil {
		t.Fatalf("got %+v", res)
	}
	res, err = rdb.FTSearchWithArgs(ctx, "users", "*", &redis.FTSearchOptions{
		NoContent: true, SortBy: []redis.FTSearchSortBy{{FieldName: "age", Asc: true}}, LimitOffset: 1, Limit: 2,
	}).Result()
	if err != nil || res.Total != 3 || len(res.Docs) != 2 || res.Docs[0].ID != "user:2" || res.Docs[1].ID != "user:3" {
		t.Fatalf("got %+v, %v", res, err)
	}
	res, err = rdb.FTSearchWithArgs(ctx, "users", "grace", &redis.FTSearchOptions{
		Return: []redis.FTSearchReturn{{FieldName: "age", As: "years"}},
	}).Result()
	if err != nil || res.Total != 1 || res.Docs[0].Fields["years"] != "85" || len(res.Docs[0].Fields) != 1 {
		t.Fatalf("got %+v, %v", res, err)
	}
	info, err := rdb.FTInfo(ctx, "users").Result()
	if err != nil {
		t.Fatal(err)
	}
	if info.IndexName != "users" || info.NumDocs != 3 || len(info.Attributes) != 3 || info.Attributes[2].Type != "TAG" || info.PercentIndexed != 1 {
		t.Fatalf("FT.INFO: %+v", info)
	}
	list, err := rdb.FT_List(ctx).Result()
	if err != nil || len(list) != 1 || list[0] != "users" {
		t.Fatalf("FT._LIST: %v %v", list, err)
	}
	if err := rdb.FTDropIndexWithArgs(ctx, "users", &redis.FTDropIndexOptions{DeleteDocs: true}).Err(); err != nil {
		t.Fatal(err)
	}
	if n := rdb.Exists(ctx, "user:1", "user:2", "user:3").Val(); n != 0 {
		t.Fatalf("DD left %d documents", n)
	}
	if err := rdb.FTInfo(ctx, "users").Err(); err == nil || err.Error() != "Unknown Index name" {
		t.Fatalf("FT.INFO of a dropped index: %v", err)
	}
}
