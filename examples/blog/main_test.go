package main

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo"
	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/backend/goredis"
	"github.com/ordo-db/ordo/index"
	"github.com/ordo-db/ordo/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// backends: the embedded database, ordo-server, redis-server (RESP3 and
// RESP2) and a 3-master Redis Cluster, each emptied first.
func backends(t *testing.T) map[string]backend.Backend {
	db, err := ordo.Open(t.TempDir(), &ordo.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r, o := redistest.Shared(t)
	cl := redistest.SharedCluster(t)
	for _, addr := range append(cl.Addrs(), r.Addr, o.Addr) {
		c := redis.NewClient(&redis.Options{Addr: addr})
		if err := c.FlushAll(context.Background()).Err(); err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	client := func(addr string, proto int) backend.Backend {
		c := redis.NewClient(&redis.Options{Addr: addr, Protocol: proto, DisableIdentity: proto == 2})
		t.Cleanup(func() { c.Close() })
		return goredis.New(c)
	}
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs()})
	t.Cleanup(func() { cc.Close() })
	return map[string]backend.Backend{
		"embedded":      db.Backend(),
		"ordo-server":   client(o.Addr, 3),
		"redis-server":  client(r.Addr, 3),
		"redis-resp2":   client(r.Addr, 2),
		"redis-cluster": goredis.New(cc),
	}
}

const wantOutput = `Categories of user 1000: [Daily IT]
Posts in category IT, newest first:
  P0003  2018-03-17:09:00:05  IT     Spring, Redis and Jedis
  P0001  2018-03-14:09:10:20  IT     NoSQL Modeling
Posts from 2018-03-14 to 2018-03-15, newest first:
  P0002  2018-03-15:12:30:10  Daily  Post to watch Black Panther
  P0001  2018-03-14:09:10:20  IT     NoSQL Modeling
`

func ids(docs []index.Doc) string {
	var s []string
	for _, d := range docs {
		s = append(s, d.ID)
	}
	return fmt.Sprint(s)
}

// The article's blog on every backend: its queries, then an edit and a
// delete that the indexes follow without any hand-written ZADD or ZREM.
func TestBlog(t *testing.T) {
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			if name != "redis-cluster" { // flushed once above, on every master
				if _, err := b.Do(ctx, "FLUSHALL"); err != nil {
					t.Fatal(err)
				}
			}
			var out bytes.Buffer
			if err := Run(ctx, b, &out); err != nil {
				t.Fatal(err)
			}
			if out.String() != wantOutput {
				t.Fatalf("output:\n%s\nwant:\n%s", out.String(), wantOutput)
			}
			bl := New(b)
			// The post hash is the article's HGETALL user:1000:P0001.
			o, ok, err := bl.Posts.Get(ctx, "P0001")
			want := index.Object{"categoryName": "IT", "title": "NoSQL Modeling", "date": "2018-03-14:09:10:20",
				"contents": "NoSQL Modeling is very difficult.", "attachment": "[]", "categoryID": "1",
				"user": "1000", "ts": "1521018620"}
			if err != nil || !ok || fmt.Sprint(o) != fmt.Sprint(want) {
				t.Errorf("P0001 = %v %v %v, want %v", o, ok, err, want)
			}

			// Move P0001 to Daily and to March 16th: both indexes follow.
			if err := bl.PutPost(ctx, Post{ID: "P0001", User: "1000", Category: "Daily", Title: "NoSQL Modeling",
				Date: date("2018-03-16:08:00:00"), Contents: "Revised."}); err != nil {
				t.Fatal(err)
			}
			docs, err := bl.PostsInCategory(ctx, "1000", "IT")
			if err != nil || ids(docs) != "[P0003]" {
				t.Errorf("IT after the move = %s %v", ids(docs), err)
			}
			docs, err = bl.PostsInCategory(ctx, "1000", "Daily")
			if err != nil || ids(docs) != "[P0001 P0002]" || docs[0].Fields["contents"] != "Revised." {
				t.Errorf("Daily after the move = %v %v", docs, err)
			}
			docs, err = bl.PostsBetween(ctx, "1000", date("2018-03-14:00:00:00"), date("2018-03-16:00:00:00"))
			if err != nil || ids(docs) != "[P0002]" {
				t.Errorf("14th-15th after the move = %s %v", ids(docs), err)
			}
			docs, err = bl.PostsBetween(ctx, "1000", date("2018-03-01:00:00:00"), date("2018-04-01:00:00:00"))
			if err != nil || ids(docs) != "[P0003 P0001 P0002]" {
				t.Errorf("March = %s %v", ids(docs), err)
			}

			// Delete P0003: gone from both indexes.
			if ok, err := bl.Posts.Delete(ctx, "P0003"); !ok || err != nil {
				t.Fatalf("delete P0003 = %v %v", ok, err)
			}
			docs, err = bl.PostsInCategory(ctx, "1000", "IT")
			if err != nil || len(docs) != 0 {
				t.Errorf("IT after the delete = %s %v", ids(docs), err)
			}
			docs, err = bl.PostsBetween(ctx, "1000", date("2018-03-01:00:00:00"), date("2018-04-01:00:00:00"))
			if err != nil || ids(docs) != "[P0001 P0002]" {
				t.Errorf("March after the delete = %s %v", ids(docs), err)
			}
			// Another user's posts never show up in user 1000's queries.
			if err := bl.AddCategory(ctx, "2000", 1, "IT"); err != nil {
				t.Fatal(err)
			}
			if err := bl.PutPost(ctx, Post{ID: "Q1", User: "2000", Category: "IT", Title: "Other",
				Date: date("2018-03-15:00:00:00")}); err != nil {
				t.Fatal(err)
			}
			docs, _ = bl.PostsBetween(ctx, "1000", date("2018-03-01:00:00:00"), date("2018-04-01:00:00:00"))
			if ids(docs) != "[P0001 P0002]" {
				t.Errorf("user 1000 sees %s", ids(docs))
			}
			docs, _ = bl.PostsInCategory(ctx, "2000", "IT")
			if ids(docs) != "[Q1]" {
				t.Errorf("user 2000's IT = %s", ids(docs))
			}
			if _, err := bl.PostsInCategory(ctx, "1000", "Travel"); err == nil {
				t.Error("a missing category is not an error")
			}
		})
	}
}
