package dict

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ordo-db/ordo/internal/ds/mem"
	"github.com/ordo-db/ordo/internal/sysinfo"
)

// BenchmarkDict measures the Dict alone with 1,000,000 elements loaded,
// keys picked at random (tables and entries out of cache, as on a real
// server): Get and overwriting Set of string values, Has on a set, and
// insert+delete of a new key. The engine-level view of the same paths is
// internal/engine's BenchmarkDictCommands. cpu-ns/op is the process's
// CPU time per operation (the collector's included).
func BenchmarkDict(b *testing.B) {
	const n = 1_000_000
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "key:" + strconv.Itoa(i)
	}
	acct := mem.NewAcct(nil, nil)
	ds := New[string](acct)
	dt := New[struct{}](acct)
	dv := New[Value](acct)
	for i, k := range keys {
		ds.Set(k, "value:"+strconv.Itoa(i))
		dt.Set(k, struct{}{})
		dv.Set(k, Value{s: k})
	}
	rng := rand.New(rand.NewPCG(1, 1))
	run := func(name string, fn func(i int)) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := sysinfo.ProcessCPU()
			for i := 0; i < b.N; i++ {
				fn(rng.IntN(n))
			}
			// CPU time, not wall time, is what a shared machine lets us compare.
			b.ReportMetric(float64(sysinfo.ProcessCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
	run("get", func(i int) { ds.Get(keys[i]) })
	run("set", func(i int) { ds.Set(keys[i], keys[(i+1)%n]) })
	run("has", func(i int) { dt.Has(keys[i]) })
	run("value-get", func(i int) { dv.Get(keys[i]) })
	run("set-new-delete", func(i int) {
		k := keys[i] + ":new"
		ds.Set(k, "v")
		ds.Delete(k)
	})
}
