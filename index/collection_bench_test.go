package index_test

// Put throughput of a collection with three indexes (numeric, composite,
// ordered), each Put one atomic script that writes the object and swaps
// every index entry:
//
//	go test ./index/ -run '^$' -bench CollectionPut -benchtime 20000x
//
// Sub-benchmarks: the embedded DB, ordo-server and redis-server over
// go-redis (one client, sequential Puts: latency-bound), and both servers
// with 8 concurrent writers (throughput).

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo"
	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/backend/goredis"
	"github.com/ordo-db/ordo/index"
	"github.com/ordo-db/ordo/internal/redistest"
)

func benchCollection(b backend.Backend) *index.Collection {
	return index.NewCollection(b, "bposts",
		index.NumericIndex("time", "ts"),
		index.CompositeIndex("category",
			index.Field{Name: "categoryID", Type: index.Int},
			index.Field{Name: "ts", Type: index.Int}),
		index.OrderedIndex("title", "title"))
}

func putOne(b *testing.B, c *index.Collection, i int) {
	id := "P" + strconv.Itoa(i%100000)
	_, err := c.Put(context.Background(), id, index.Object{
		"title":      "post " + strconv.Itoa(i),
		"categoryID": strconv.Itoa(i % 50),
		"ts":         strconv.Itoa(1521018620 + i),
		"body":       "some text of a blog post",
	})
	if err != nil {
		b.Fatal(err)
	}
}

func BenchmarkCollectionPut(b *testing.B) {
	db, err := ordo.Open(b.TempDir(), &ordo.Options{InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	r := redistest.StartRedis(b)
	o := redistest.StartOrdo(b)
	clients := map[string]string{"ordo-server": o.Addr, "redis-server": r.Addr}
	b.Run("embedded", func(b *testing.B) {
		c := benchCollection(db.Backend())
		for i := 0; i < b.N; i++ {
			putOne(b, c, i)
		}
	})
	for _, name := range []string{"ordo-server", "redis-server"} {
		rc := redis.NewClient(&redis.Options{Addr: clients[name], PoolSize: 16})
		defer rc.Close()
		c := benchCollection(goredis.New(rc))
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				putOne(b, c, i)
			}
		})
		b.Run(name+"-8writers", func(b *testing.B) {
			b.SetParallelism(4) // 4 x GOMAXPROCS(2) = 8 writers
			var n atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					putOne(b, c, int(n.Add(1)))
				}
			})
		})
	}
}
