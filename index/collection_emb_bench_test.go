package index_test

// A collection on the embedded database: Put (one Lua swap), Get (a
// direct read through backend.HashReader) and Find returning 100 whole
// objects (ZRANGE BYLEX, then one in-process read of the hashes):
//
//	go test ./index/ -run '^$' -bench CollectionEmbedded -benchmem

import (
	"context"
	"strconv"
	"testing"

	"github.com/ordo-db/ordo"
	"github.com/ordo-db/ordo/index"
)

func BenchmarkCollectionEmbedded(b *testing.B) {
	db, err := ordo.Open(b.TempDir(), &ordo.Options{InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	c := benchCollection(db.Backend())
	for i := 0; i < 20000; i++ {
		putOne(b, c, i)
	}
	b.Run("put", func(b *testing.B) {
		i := 0
		for b.Loop() {
			putOne(b, c, i)
			i++
		}
	})
	b.Run("get", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, ok, err := c.Get(ctx, "P"+strconv.Itoa(i%20000)); !ok || err != nil {
				b.Fatal(ok, err)
			}
			i++
		}
	})
	b.Run("find100", func(b *testing.B) {
		i := 0
		for b.Loop() {
			ds, err := c.Find(ctx, "category", index.Where(i%50).Limit(0, 100))
			if err != nil || len(ds) != 100 {
				b.Fatal(len(ds), err)
			}
			i++
		}
	})
}
