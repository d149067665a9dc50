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

// TestGoRedisFTText: go-redis's full-text and GEO options (stemming,
// VERBATIM, SLOP/INORDER, INFIELDS, INKEYS, GEOFILTER, SCORER, PHONETIC).
func TestGoRedisFTText(t *testing.T) {
	_, o := newClient(t)
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: o.Addr, Protocol: 2})
	defer rdb.Close()
	rdb.HSet(ctx, "s:1", "title", "The running man", "body", "jumps over fences", "loc", "-0.1757,51.5156")
	rdb.HSet(ctx, "s:2", "title", "A man runs", "body", "running fast", "loc", "2.3522,48.8566")
	err := rdb.FTCreate(ctx, "stories", &redis.FTCreateOptions{OnHash: true, Prefix: []any{"s:"}},
		&redis.FieldSchema{FieldName: "title", FieldType: redis.SearchFieldTypeText, Weight: 2},
		&redis.FieldSchema{FieldName: "body", FieldType: redis.SearchFieldTypeText, PhoneticMatcher: "dm:en"},
		&redis.FieldSchema{FieldName: "loc", FieldType: redis.SearchFieldTypeGeo},
	).Err()
	if err != nil {
		t.Fatal(err)
	}
	ids := func(q string, opt *redis.FTSearchOptions) []string {
		t.Helper()
		opt.NoContent = true
		res, err := rdb.FTSearchWithArgs(ctx, "stories", q, opt).Result()
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var out []string
		for _, d := range res.Docs {
			out = append(out, d.ID)
		}
		return out
	}
	check := func(got []string, want ...string) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("got %v, want %v", got, want)
		}
	}
	check(ids("run", &redis.FTSearchOptions{SortBy: []redis.FTSearchSortBy{{FieldName: "title"}}}), "s:2", "s:1")
	check(ids("running", &redis.FTSearchOptions{Verbatim: true, InFields: []any{"title"}}), "s:1")
	check(ids("man running", &redis.FTSearchOptions{Slop: 0, InOrder: true}), "s:2") // "A man runs": a stop word, and a stem
	check(ids("running man", &redis.FTSearchOptions{Slop: 1, InOrder: true}), "s:1")
	check(ids("man", &redis.FTSearchOptions{InKeys: []any{"s:2", "s:9"}}), "s:2")
	check(ids("man", &redis.FTSearchOptions{GeoFilter: []redis.FTSearchGeoFilter{{FieldName: "loc", Longitude: 2.35, Latitude: 48.85, Radius: 5, Unit: "km"}}}), "s:2")
	check(ids("@body:fenses", &redis.FTSearchOptions{}), "s:1") // phonetic: FNSS
	res, err := rdb.FTSearchWithArgs(ctx, "stories", "man", &redis.FTSearchOptions{WithScores: true, Scorer: "BM25"}).Result()
	if err != nil || res.Total != 2 || res.Docs[0].Score == nil || *res.Docs[0].Score <= 0 {
		t.Fatalf("BM25: %+v %v", res, err)
	}
}
