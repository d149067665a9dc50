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

// BenchmarkCallPipeline measures dispatch when a client repeats one
// cheap command (a pipeline of GETs of one key, as redis-benchmark's rows
// send): the command table lookup is skipped after the first.
func BenchmarkCallPipeline(b *testing.B) {
	e := New(nil)
	defer e.Close()
	cl := e.NewClient("embedded")
	w := &resp.Writer{Proto: 2}
	args := [][]byte{[]byte("get"), []byte("k")}
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		e.Lock()
		for range 16 {
			e.Call(cl, args, w)
		}
		e.Unlock()
	}
}

// BenchmarkSetbit measures SETBIT on bitmaps of several sizes: a write
// copies the string (values are immutable), so its cost grows with the
// bitmap, where Redis writes in place.
func BenchmarkSetbit(b *testing.B) {
	for _, size := range []int{128, 8 << 10, 1 << 20} {
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			e := New(nil)
			defer e.Close()
			cl := e.NewClient("embedded")
			w := &resp.Writer{Proto: 2}
			key := []byte("bm")
			e.Lock()
			e.Call(cl, [][]byte{[]byte("SETBIT"), key, []byte(strconv.Itoa(size*8 - 1)), []byte("1")}, w)
			e.Unlock()
			offs := make([][]byte, 1024)
			for i := range offs {
				offs[i] = []byte(strconv.Itoa(i * 7919 % (size * 8)))
			}
			cmd := []byte("SETBIT")
			vals := [][]byte{[]byte("0"), []byte("1")}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w.Reset()
				e.Lock()
				e.Call(cl, [][]byte{cmd, key, offs[i&1023], vals[(i>>10)&1]}, w)
				e.Unlock()
			}
		})
	}
}

// BenchmarkPfadd measures PFADD of one element to a dense HLL: "new"
// elements mostly raise a register (the 12 KB string is copied), "seen"
// ones change nothing (no copy).
func BenchmarkPfadd(b *testing.B) {
	for _, mode := range []string{"new", "seen"} {
		b.Run(mode, func(b *testing.B) {
			e := New(nil)
			defer e.Close()
			cl := e.NewClient("embedded")
			w := &resp.Writer{Proto: 2}
			key, cmd := []byte("hll"), []byte("PFADD")
			e.Lock()
			for i := 0; i < 20000; i++ {
				e.Call(cl, [][]byte{cmd, key, []byte("seen:" + strconv.Itoa(i))}, w)
			}
			e.Unlock()
			eles := make([][]byte, 1024)
			for i := range eles {
				eles[i] = []byte(mode + ":" + strconv.Itoa(i))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w.Reset()
				e.Lock()
				e.Call(cl, [][]byte{cmd, key, eles[i&1023]}, w)
				e.Unlock()
			}
		})
	}
}

// BenchmarkBitop measures BITOP AND of two 1 MB strings.
func BenchmarkBitop(b *testing.B) {
	e := New(nil)
	defer e.Close()
	cl := e.NewClient("embedded")
	w := &resp.Writer{Proto: 2}
	e.Lock()
	e.Call(cl, [][]byte{[]byte("SETBIT"), []byte("a"), []byte("8388607"), []byte("1")}, w)
	e.Call(cl, [][]byte{[]byte("SETBIT"), []byte("b"), []byte("8388000"), []byte("1")}, w)
	e.Unlock()
	cmd := [][]byte{[]byte("BITOP"), []byte("AND"), []byte("d"), []byte("a"), []byte("b")}
	b.SetBytes(2 << 20)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.Reset()
		e.Lock()
		e.Call(cl, cmd, w)
		e.Unlock()
	}
}
