package engine

import (
	"strconv"
	"testing"

	"github.com/ordo-db/ordo/internal/resp"
	"github.com/ordo-db/ordo/internal/sysinfo"
)

// BenchmarkXAdd measures XADD with a generated ID (3 small fields), the
// propagation hook set as with an AOF, without the network.
func BenchmarkXAdd(b *testing.B) {
	e := New(nil)
	defer e.Close()
	e.Propagate = func(int, [][]byte) {}
	cl := e.NewClient("embedded")
	w := &resp.Writer{Proto: 2}
	args := [][]byte{[]byte("XADD"), []byte("s"), []byte("*"), []byte("name"), []byte("alice"),
		[]byte("age"), []byte("31"), []byte("city"), []byte("paris")}
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		e.Lock()
		e.Call(cl, args, w)
		e.Unlock()
	}
}

// BenchmarkXAddMaxlen is the bench's XADD row: XADD bench:s MAXLEN ~
// 100000 * name alice n <random>, the process's CPU time per command.
func BenchmarkXAddMaxlen(b *testing.B) {
	e := New(nil)
	defer e.Close()
	cl := e.NewClient("embedded")
	w := &resp.Writer{Proto: 2}
	args := [][]byte{[]byte("XADD"), []byte("bench:s"), []byte("MAXLEN"), []byte("~"), []byte("100000"),
		[]byte("*"), []byte("name"), []byte("alice"), []byte("n"), nil}
	vals := make([][]byte, 4096)
	for i := range vals {
		vals[i] = []byte(strconv.Itoa(i * 7919 % 1000000))
	}
	for i := 0; i < 200000; i++ { // a full stream: every XADD trims
		args[9] = vals[i%len(vals)]
		w.Reset()
		e.Lock()
		e.Call(cl, args, w)
		e.Unlock()
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := sysinfo.ProcessCPU()
	for i := 0; i < b.N; i++ {
		args[9] = vals[i%len(vals)]
		w.Reset()
		e.Lock()
		e.Call(cl, args, w)
		e.Unlock()
	}
	b.ReportMetric(float64(sysinfo.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkXReadGroupAck measures XADD of one entry, a consumer's
// XREADGROUP of it, and its XACK.
func BenchmarkXReadGroupAck(b *testing.B) {
	e := New(nil)
	defer e.Close()
	e.Propagate = func(int, [][]byte) {}
	cl := e.NewClient("embedded")
	w := &resp.Writer{Proto: 2}
	call := func(args ...string) {
		a := make([][]byte, len(args))
		for i, s := range args {
			a[i] = []byte(s)
		}
		w.Reset()
		e.Lock()
		e.Call(cl, a, w)
		e.Unlock()
	}
	call("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
	add := [][]byte{[]byte("XADD"), []byte("s"), []byte("*"), []byte("f"), []byte("v")}
	read := [][]byte{[]byte("XREADGROUP"), []byte("GROUP"), []byte("g"), []byte("c"), []byte("COUNT"), []byte("1"),
		[]byte("STREAMS"), []byte("s"), []byte(">")}
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		e.Lock()
		e.Call(cl, add, w)
		v, _, _ := resp.ParseReply(w.Buf)
		e.Call(cl, read, w)
		e.Call(cl, [][]byte{[]byte("XACK"), []byte("s"), []byte("g"), []byte(v.Str)}, w)
		e.Unlock()
	}
}

// BenchmarkXRange measures XRANGE - + COUNT 10 on a stream of 100000
// entries (the bench row's read).
func BenchmarkXRange(b *testing.B) {
	e := New(nil)
	defer e.Close()
	cl := e.NewClient("embedded")
	w := &resp.Writer{Proto: 2}
	add := [][]byte{[]byte("XADD"), []byte("s"), []byte("*"), []byte("name"), []byte("alice"), []byte("n"), []byte("12345")}
	e.Lock()
	for i := 0; i < 100000; i++ {
		w.Reset()
		e.Call(cl, add, w)
	}
	e.Unlock()
	args := [][]byte{[]byte("XRANGE"), []byte("s"), []byte("-"), []byte("+"), []byte("COUNT"), []byte("10")}
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		e.Lock()
		e.Call(cl, args, w)
		e.Unlock()
	}
}
