package index_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo"
	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/backend/goredis"
	"github.com/ordo-db/ordo/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// backends returns every Backend an index must work on: the embedded
// database, ordo-server through go-redis, and redis-server through
// go-redis (RESP3, go-redis's default, so both reply shapes are exercised).
func backends(t *testing.T) map[string]backend.Backend {
	t.Helper()
	db, err := ordo.Open(t.TempDir(), &ordo.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r := redistest.StartRedis(t)
	o := redistest.StartOrdo(t)
	client := func(addr string, proto int) backend.Backend {
		c := redis.NewClient(&redis.Options{Addr: addr, Protocol: proto, DisableIdentity: proto == 2})
		t.Cleanup(func() { c.Close() })
		return goredis.New(c)
	}
	return map[string]backend.Backend{
		"embedded":      db.Backend(),
		"ordo-server":   client(o.Addr, 3),
		"redis-server":  client(r.Addr, 3),
		"redis-resp2":   client(r.Addr, 2),
		"redis-cluster": clusterBackend(t),
	}
}

// clusterBackend is a go-redis ClusterClient over the 3-master cluster
// shared by the whole test binary (redistest.SharedCluster).
func clusterBackend(t *testing.T) backend.Backend {
	t.Helper()
	cl := redistest.SharedCluster(t)
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs()})
	t.Cleanup(func() { c.Close() })
	return goredis.New(c)
}

func eachBackend(t *testing.T, f func(t *testing.T, ctx context.Context, b backend.Backend)) {
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			// Two backends share one redis-server: start each from empty.
			if _, err := b.Do(ctx, "FLUSHALL"); err != nil {
				t.Fatal(err)
			}
			f(t, ctx, b)
		})
	}
}
