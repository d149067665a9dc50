package engine_test

import (
	"github.com/ordo-db/ordo/internal/sysinfo"
	"strconv"
	"testing"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// BenchmarkZRangeByScore measures ZRANGE key min max BYSCORE WITHSCORES on
// a 1,000,000-member set, the reads index.Space issues: integer scores
// below 2^52 (int) or fractional ones (frac), ranges of about 100, 1,000
// and 10,000 members at random places, and ZCOUNT/ZCARD on the same set.
// cpu-ns/op is the process's CPU time (getrusage) per command, steadier
// than ns/op on a shared machine.
func BenchmarkZRangeByScore(b *testing.B) {
	const n = 1_000_000
	const span = 1 << 52
	call := benchCaller(b)
	rnd := uint64(1)
	next := func() uint64 {
		rnd = rnd*6364136223846793005 + 1442695040888963407
		return rnd >> 12 // below 2^52
	}
	for _, key := range []string{"int", "frac"} {
		for i := 0; i < n; i += 1000 {
			a := [][]byte{[]byte("ZADD"), []byte(key)}
			for j := i; j < i+1000; j++ {
				var sc []byte
				if key == "int" {
					sc = strconv.AppendUint(nil, next(), 10)
				} else {
					sc = strconv.AppendFloat(nil, float64(next())/(1<<20), 'g', -1, 64)
				}
				a = append(a, sc, []byte("p"+strconv.Itoa(j)))
			}
			call(a)
		}
	}
	bound := func(key string, x uint64) []byte {
		if key == "int" {
			return strconv.AppendUint(nil, x, 10)
		}
		return strconv.AppendFloat(nil, float64(x)/(1<<20), 'g', -1, 64)
	}
	for _, key := range []string{"int", "frac"} {
		for _, hits := range []int{100, 1000, 10000} {
			width := uint64(span) / n * uint64(hits)
			b.Run(key+"-"+strconv.Itoa(hits), func(b *testing.B) {
				b.ReportAllocs()
				cpu0 := sysinfo.ProcessCPU()
				for b.Loop() {
					lo := next() % (uint64(span) - width)
					call([][]byte{[]byte("ZRANGE"), []byte(key), bound(key, lo), bound(key, lo+width), []byte("BYSCORE"), []byte("WITHSCORES")})
				}
				b.ReportMetric(float64(sysinfo.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
	b.Run("int-100-limit10", func(b *testing.B) {
		width := uint64(span) / n * 100
		b.ReportAllocs()
		cpu0 := sysinfo.ProcessCPU()
		for b.Loop() {
			lo := next() % (uint64(span) - width)
			call([][]byte{[]byte("ZRANGEBYSCORE"), []byte("int"), bound("int", lo), bound("int", lo+width), []byte("WITHSCORES"), []byte("LIMIT"), []byte("0"), []byte("10")})
		}
		b.ReportMetric(float64(sysinfo.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	})
	b.Run("zcount-1000", func(b *testing.B) {
		width := uint64(span) / n * 1000
		b.ReportAllocs()
		cpu0 := sysinfo.ProcessCPU()
		for b.Loop() {
			lo := next() % (uint64(span) - width)
			call([][]byte{[]byte("ZCOUNT"), []byte("int"), bound("int", lo), bound("int", lo+width)})
		}
		b.ReportMetric(float64(sysinfo.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	})
	b.Run("zcard", func(b *testing.B) {
		b.ReportAllocs()
		a := [][]byte{[]byte("ZCARD"), []byte("int")}
		cpu0 := sysinfo.ProcessCPU()
		for b.Loop() {
			call(a)
		}
		b.ReportMetric(float64(sysinfo.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	})
}

// benchCaller returns a function that runs one command on a fresh engine
// (closed when b ends), as an embedded client would, discarding the reply.
func benchCaller(b *testing.B) func(a [][]byte) {
	e := engine.New(nil)
	b.Cleanup(e.Close)
	cl := e.NewClient("embedded")
	w := &resp.Writer{Proto: 2}
	return func(a [][]byte) {
		w.Reset()
		e.Lock()
		e.Call(cl, a, w)
		e.Unlock()
	}
}
