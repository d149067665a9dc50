package geohash

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDistanceBound checks that Distance lies within the bound
// DistanceBound, LonDistanceBound and LatDistanceBound give, over random
// pairs at every scale from millimetres to antipodes, and that the
// estimates are far closer than the bound (so that searches rarely need
// Distance).
func TestDistanceBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	check := func(what string, exact, d, err float64) {
		t.Helper()
		if err < 0 {
			return
		}
		if math.Abs(exact-d) > err {
			t.Fatalf("%s: Distance %v, estimate %v ± %v", what, exact, d, err)
		}
		if exact > 1e-3 {
			worst = max(worst, math.Abs(exact-d)/exact)
		}
	}
	estimated := 0
	const n = 300000
	for i := 0; i < n; i++ {
		lon1 := LongMin + r.Float64()*(LongMax-LongMin)
		lat1 := LatMin + r.Float64()*(LatMax-LatMin)
		// Offsets from 1e-12 to 360 degrees, log-uniform.
		scale := math.Pow(10, -12+r.Float64()*14.5)
		lon2 := math.Max(LongMin, math.Min(LongMax, lon1+(r.Float64()*2-1)*scale))
		lat2 := math.Max(LatMin, math.Min(LatMax, lat1+(r.Float64()*2-1)*scale))
		if i%7 == 0 {
			lat2 = lat1
		}
		d, err := DistanceBound(lon1, lat1, lon2, lat2)
		if err >= 0 {
			estimated++
		}
		check("DistanceBound", Distance(lon1, lat1, lon2, lat2), d, err)
		d, err = LonDistanceBound(lon1, lon2, lat2)
		check("LonDistanceBound", Distance(lon2, lat2, lon1, lat2), d, err)
		d, err = LatDistanceBound(lat2, lat1)
		check("LatDistanceBound", Distance(lon2, lat2, lon2, lat1), d, err)
	}
	if worst > boundRel/100 {
		t.Errorf("largest relative difference %g: the bound %g has too little margin", worst, boundRel)
	}
	if estimated < n*3/4 {
		t.Errorf("only %d of %d pairs estimated", estimated, n)
	}
	t.Logf("largest relative difference %g; %d of %d estimated", worst, estimated, n)
}

func BenchmarkDistanceBound(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkF, _ = DistanceBound(13.361389, 38.115556, 15.087269+float64(i&1023)*1e-4, 37.502669)
	}
}

// TestAroundDecides checks that every test Around decides agrees with
// Distance compared to the limit, for limits at the exact distance, a few
// ulp either side, and a millionth off, at every scale, and that those a
// millionth off are decided without Distance.
func TestAroundDecides(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	decided, total := 0, 0
	for i := 0; i < 100000; i++ {
		lon1 := LongMin + r.Float64()*(LongMax-LongMin)
		lat1 := LatMin + r.Float64()*(LatMax-LatMin)
		scale := math.Pow(10, -12+r.Float64()*14.5)
		lon2 := math.Max(LongMin, math.Min(LongMax, lon1+(r.Float64()*2-1)*scale))
		lat2 := math.Max(LatMin, math.Min(LatMax, lat1+(r.Float64()*2-1)*scale))
		c := NewAround(lon1, lat1)
		exact := Distance(lon1, lat1, lon2, lat2)
		exactLon := Distance(lon2, lat2, lon1, lat2)
		exactLat := Distance(lon2, lat2, lon2, lat1)
		for _, f := range []float64{0, 1, -1, 4, -4, 1e6, -1e6} {
			var limits []float64
			for _, e := range []float64{exact, exactLon, exactLat} {
				l := e
				if f == 1e6 || f == -1e6 {
					l = e * (1 + f*1e-12)
				} else {
					for k := 0.0; k < math.Abs(f); k++ {
						l = math.Nextafter(l, math.Copysign(math.Inf(1), f))
					}
				}
				limits = append(limits, l)
			}
			lim := NewLimit(limits[0])
			beyond, ok, d, err := c.Beyond(&lim, lon2, lat2)
			if f == 1e6 || f == -1e6 {
				total++
				if ok {
					decided++
				}
			}
			if ok {
				if beyond != (exact > limits[0]) {
					t.Fatalf("Beyond(%v,%v -> %v,%v, %v): %v, Distance %v", lon1, lat1, lon2, lat2, limits[0], beyond, exact)
				}
				if !beyond && math.Abs(d-exact) > err {
					t.Fatalf("Beyond's estimate %v ± %v, Distance %v", d, err, exact)
				}
			}
			lim = NewLimit(limits[1])
			if beyond, ok := c.LonBeyond(&lim, lon2, lat2); ok && beyond != (exactLon > limits[1]) {
				t.Fatalf("LonBeyond(%v,%v -> %v,%v, %v): %v, Distance %v", lon1, lat1, lon2, lat2, limits[1], beyond, exactLon)
			}
			if beyond, ok := c.LatBeyond(limits[2], lat2); ok && beyond != (exactLat > limits[2]) {
				t.Fatalf("LatBeyond(%v -> %v, %v): %v, Distance %v", lat1, lat2, limits[2], beyond, exactLat)
			}
		}
	}
	if decided < total*9/10 {
		t.Errorf("only %d of %d limits 1e-6 away decided", decided, total)
	}
	// Limits of half the circumference and more, and infinite ones.
	c := NewAround(0, 0)
	for _, l := range []float64{math.Pi * EarthRadius, 3e7, math.Inf(1)} {
		lim := NewLimit(l)
		for _, p := range [][2]float64{{180, 0}, {179.9999, 0.0001}, {90, 0}, {0, 85}} {
			exact := Distance(0, 0, p[0], p[1])
			if beyond, ok, _, _ := c.Beyond(&lim, p[0], p[1]); ok && beyond != (exact > l) {
				t.Fatalf("Beyond(0,0 -> %v, %v): %v, Distance %v", p, l, beyond, exact)
			}
		}
	}
}
