package index

import (
	"math/rand/v2"
	"testing"
)

// Balls and shells (Within, Nearest's widening) cover every point of
// small spaces that the exact test keeps, in at most the ranges asked
// for, sorted and disjoint: checked by enumerating every point.
func TestSpaceBallRanges(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, shape := range [][2]int{{2, 6}, {3, 4}, {2, 33}} {
		dims, bits := shape[0], shape[1]
		s, _ := NewSpace(nil, "b", dims, bits)
		side := uint64(1) << min(bits, 6)
		for q := 0; q < 150; q++ {
			c := make([]uint64, dims)
			for d := range c {
				c[d] = r.Uint64N(side)
			}
			rad := r.Float64() * float64(side) / 2
			inner := -1.0
			if q%2 == 1 {
				inner = rad * r.Float64()
			}
			if q%10 == 0 {
				rad = float64(r.IntN(5)) // whole radii: points exactly on the sphere
				inner = float64(r.IntN(int(rad) + 1))
			}
			reg := ballRegion{c: c, r: rad, inner: inner}
			for _, maxR := range []int{1, 4, 16} {
				z, runs := s.decompose(reg, maxR)
				if len(runs) > maxR {
					t.Fatalf("%d runs for %d", len(runs), maxR)
				}
				type span struct{ lo, hi []byte }
				var spans []span
				for i, rn := range runs {
					sp := span{s.encode(z.corner(z.tiles[rn.first])), s.encode(z.upper(z.tiles[rn.last]))}
					if i > 0 && string(spans[i-1].hi) >= string(sp.lo) || string(sp.lo) > string(sp.hi) {
						t.Fatalf("runs not sorted and disjoint")
					}
					spans = append(spans, sp)
				}
				// Every point of the (low corner of the) space.
				p := make([]uint64, dims)
				for {
					if reg.contains(p) {
						code := string(s.encode(p))
						ok := false
						for _, sp := range spans {
							if code >= string(sp.lo) && code <= string(sp.hi) {
								ok = true
								break
							}
						}
						if !ok {
							t.Fatalf("%dx%d ball %v r %v inner %v, %d ranges: %v not covered", dims, bits, c, rad, inner, maxR, p)
						}
					}
					d := 0
					for d < dims {
						p[d]++
						if p[d] < side {
							break
						}
						p[d] = 0
						d++
					}
					if d == dims {
						break
					}
				}
				s.release(z)
			}
		}
	}
}
