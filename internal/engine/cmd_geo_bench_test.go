package engine_test

import (
	"github.com/ordo-db/ordo/internal/sysinfo"
	"math"
	"strconv"
	"testing"
)

// BenchmarkGeoSearch measures GEOSEARCH over 1,000,000 random points in a
// 1° square at the equator, the queries of the bench's space rows: boxes
// (BYBOX), discs (BYRADIUS ASC) and the k nearest (BYRADIUS ASC COUNT k)
// of about 100, 1,000 and 10,000 points, each iteration at another centre.
// cpu-ns/op is the process's CPU time (getrusage) per query, steadier
// than ns/op on a shared machine.
func BenchmarkGeoSearch(b *testing.B) {
	const n = 1_000_000
	const earthR = 6372797.560856
	call := benchCaller(b)
	rnd := uint64(1)
	next := func() float64 {
		rnd = rnd*6364136223846793005 + 1442695040888963407
		return float64(rnd>>11) / (1 << 53)
	}
	f := func(x float64) []byte { return strconv.AppendFloat(nil, x, 'f', -1, 64) }
	for i := 0; i < n; i += 1000 {
		a := [][]byte{[]byte("GEOADD"), []byte("geo")}
		for j := i; j < i+1000; j++ {
			a = append(a, f(next()), f(next()), []byte("p"+strconv.Itoa(j)))
		}
		call(a)
	}
	metres := func(deg float64) float64 { return deg * math.Pi / 180 * earthR }
	for _, kind := range []string{"box", "within", "nearest"} {
		for _, hits := range []int{100, 1000, 10000} {
			frac := float64(hits) / n
			size := math.Sqrt(frac)
			if kind != "box" {
				size = math.Sqrt(frac / math.Pi)
			}
			b.Run(kind+"-"+strconv.Itoa(hits), func(b *testing.B) {
				b.ReportAllocs()
				cpu0 := sysinfo.ProcessCPU()
				for b.Loop() {
					x, y := size+next()*(1-2*size), size+next()*(1-2*size)
					var a []string
					switch kind {
					case "box":
						a = []string{"GEOSEARCH", "geo", "FROMLONLAT", ff(x), ff(y), "BYBOX", ff(metres(size) * math.Cos(y*math.Pi/180)), ff(metres(size)), "m"}
					case "within":
						a = []string{"GEOSEARCH", "geo", "FROMLONLAT", ff(x), ff(y), "BYRADIUS", ff(metres(size)), "m", "ASC"}
					default:
						want := float64(hits) + 3*math.Sqrt(float64(hits)) + 2
						r := size * math.Sqrt(want/float64(hits))
						a = []string{"GEOSEARCH", "geo", "FROMLONLAT", ff(x), ff(y), "BYRADIUS", ff(metres(r)), "m", "ASC", "COUNT", strconv.Itoa(hits)}
					}
					args := make([][]byte, len(a))
					for i, s := range a {
						args[i] = []byte(s)
					}
					call(args)
				}
				b.ReportMetric(float64(sysinfo.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
