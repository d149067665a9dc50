package index_test

// A collection on the embedded database: Put (one Lua swap), Get (a
// direct read through backend.HashReader) and Find returning 100 whole
// objects (ZRANGE BYLEX, then one in-process read of the hashes). The
// "portable" rows run the same on the same database through the
// portable path only (Lua swap, HGETALL round trips), for comparison:
//
//	go test ./index/ -run '^$' -bench CollectionEmbedded -benchmem

import (
	"context"
	"strconv"
	"testing"

	"github.com/ordo-db/ordo"
	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index"
)

func BenchmarkCollectionEmbedded(b *testing.B) {
	db, err := ordo.Open(b.TempDir(), &ordo.Options{InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, path := range []string{"", "portable-"} {
		var b0 backend.Backend = db.Backend()
		if path != "" {
			b0 = portableOnly{b0} // no HashReader, no Atomic
		}
		c := benchCollection(b0)
		if path == "" {
			for i := 0; i < 20000; i++ {
				putOne(b, c, i)
			}
		}
		b.Run(path+"put", func(b *testing.B) {
			i := 0
			for b.Loop() {
				putOne(b, c, i)
				i++
			}
		})
		b.Run(path+"get", func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, ok, err := c.Get(ctx, "P"+strconv.Itoa(i%20000)); !ok || err != nil {
					b.Fatal(ok, err)
				}
				i++
			}
		})
		b.Run(path+"find100", func(b *testing.B) {
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
}

// portableOnly hides a backend's optional interfaces.
type portableOnly struct{ backend.Backend }
