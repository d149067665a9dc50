package engine

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ordo-db/ordo/internal/resp"
)

// BenchmarkDictCommands measures the engine's cost per command (no
// network) on the paths the Dict serves, with 1,000,000 elements loaded
// first so that tables and entries are out of cache as on a real server:
// SET/GET on the keyspace, HSET/HGET on one hash, SADD/SISMEMBER on one
// set, the keys picked at random.
func BenchmarkDictCommands(b *testing.B) {
	const n = 1_000_000
	e := New(nil)
	defer e.Close()
	cl := e.NewClient("embedded")
	w := &resp.Writer{Proto: 2}
	call := func(args ...[]byte) {
		w.Reset()
		e.Lock()
		e.Call(cl, args, w)
		e.Unlock()
	}
	keys := make([][]byte, n)
	vals := make([][]byte, n)
	for i := range keys {
		keys[i] = []byte("key:" + strconv.Itoa(i))
		vals[i] = []byte("value:" + strconv.Itoa(i))
	}
	set, get := []byte("SET"), []byte("GET")
	hset, hget, h := []byte("HSET"), []byte("HGET"), []byte("h")
	sadd, sism, s := []byte("SADD"), []byte("SISMEMBER"), []byte("s")
	for i := range keys {
		call(set, keys[i], vals[i])
		call(hset, h, keys[i], vals[i])
		call(sadd, s, keys[i])
	}
	rng := rand.New(rand.NewPCG(1, 1))
	run := func(name string, fn func(i int)) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				fn(rng.IntN(n))
			}
		})
	}
	run("set", func(i int) { call(set, keys[i], vals[(i+1)%n]) })
	run("get", func(i int) { call(get, keys[i]) })
	run("hset", func(i int) { call(hset, h, keys[i], vals[(i+1)%n]) })
	run("hget", func(i int) { call(hget, h, keys[i]) })
	run("sadd", func(i int) { call(sadd, s, keys[i]) })
	run("sismember", func(i int) { call(sism, s, keys[i]) })
	run("set-new-del", func(i int) {
		k := []byte("new:" + strconv.Itoa(i))
		call(set, k, vals[i])
		call([]byte("DEL"), k)
	})
}
