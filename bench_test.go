package ordo_test

import (
	"context"
	"github.com/ordo-db/ordo/internal/sysinfo"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ordo-db/ordo"
)

// BenchmarkEmbedded measures commands through the embedded DB, the rows
// ordo-server's bench measures over the network (bench/README.md puts the
// two side by side): GET, SET, HSET, ZADD on random keys, fields and
// members out of 1,000,000 (redis-benchmark's -r 1000000), and ZRANGE
// BYSCORE with LIMIT 0 10 (the bench's ZRANGEBYSCORE row) on a sorted set
// of 100,000 members. Each row runs through DB.Do (a fresh session per
// call, from DB's pool) and through one Conn (a session kept, as a
// connection); one goroutine,
// no persistence (InMemory), so the figures are the in-process cost per
// command: ops/s = 1e9 / (ns/op). cpu-ns/op is the process's CPU time per
// command (collections included), which a machine shared with other jobs
// disturbs far less than the elapsed time.
func BenchmarkEmbedded(b *testing.B) {
	const keyspace = 1_000_000
	db, err := ordo.Open(b.TempDir(), &ordo.Options{InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	key := func(prefix string) string { return prefix + strconv.Itoa(rng.IntN(keyspace)) }
	// The keys the reads find: as the bench's SET row runs before GET.
	conn := db.Conn()
	defer conn.Close()
	for i := 0; i < keyspace; i += 4 {
		conn.Do(ctx, "SET", "key:"+strconv.Itoa(i), "xxx")
	}
	for i := 0; i < 100_000; i++ {
		conn.Do(ctx, "ZADD", "zr", rng.IntN(keyspace), "m:"+strconv.Itoa(i))
	}
	rows := []struct {
		name string
		args func() []any
	}{
		{"GET", func() []any { return []any{"GET", key("key:")} }},
		{"SET", func() []any { return []any{"SET", key("key:"), "xxx"} }},
		{"HSET", func() []any { return []any{"HSET", "myhash", key("element:"), "xxx"} }},
		{"ZADD", func() []any { return []any{"ZADD", "myz", rng.IntN(keyspace), key("m:")} }},
		{"ZRANGE BYSCORE LIMIT 10", func() []any {
			return []any{"ZRANGE", "zr", "100000", "+inf", "BYSCORE", "LIMIT", "0", "10"}
		}},
	}
	for _, r := range rows {
		b.Run(r.name+"/Do", func(b *testing.B) {
			b.ReportAllocs()
			cpu := sysinfo.ProcessCPU()
			for b.Loop() {
				if err := db.Do(ctx, r.args()...).Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(sysinfo.ProcessCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
		b.Run(r.name+"/Conn", func(b *testing.B) {
			b.ReportAllocs()
			cpu := sysinfo.ProcessCPU()
			for b.Loop() {
				if err := conn.Do(ctx, r.args()...).Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(sysinfo.ProcessCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
