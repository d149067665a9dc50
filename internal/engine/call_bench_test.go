package engine

import (
	"strconv"
	"testing"

	"github.com/ordo-db/ordo/internal/resp"
)

// BenchmarkCall measures the per-command cost of dispatch (lookup, arity,
// context, reply) on SET and GET, without the network.
func BenchmarkCall(b *testing.B) {
	e := New(nil)
	defer e.Close()
	cl := e.NewClient("embedded")
	w := &resp.Writer{Proto: 2}
	keys := make([][]byte, 1024)
	for i := range keys {
		keys[i] = []byte("key:" + strconv.Itoa(i))
	}
	set, get := []byte("SET"), []byte("GET")
	val := []byte("value")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.Reset()
		e.Lock()
		e.Call(cl, [][]byte{set, keys[i&1023], val}, w)
		e.Call(cl, [][]byte{get, keys[i&1023]}, w)
		e.Unlock()
	}
}
