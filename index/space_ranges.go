package index

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// The decomposition of a region (a box, a ball, a ball minus a smaller
// one) into runs of Z-order codes.
//
// The space is split as a binary tree along the Z-order bits: each level
// halves one dimension, so every node is an aligned box whose codes are
// one contiguous run. Best first, the crossing node (partly inside the
// region) with the most volume outside the region is split, until
// spaceSplits(MaxRanges) splits are done or what the crossing nodes hold
// outside the region is under 1/64 of the region. The leaves, walked in
// Z order (children in code order, no sorting), form runs of covered
// leaves (inside or crossing) separated by gaps of leaves outside the
// region. If there are more runs than MaxRanges, the smallest gaps are
// filled: a gap's codes are all outside the region, and over the codes a
// gap's size is its volume, so filling the smallest ones adds the least
// to read. Each run is then one range read by the query and its members
// filtered exactly.

// region is what a query reads: classify tells whether the aligned box
// lo..hi (inclusive) is outside it (0), inside it (1), or crosses its
// border (2), and for 2 an estimate of the fraction of the box inside
// (it only orders the splits); contains is the exact test.
type region interface {
	classify(lo, hi []uint64) (kind int, in float64)
	contains(p []uint64) bool
	// volume is an estimate of the region's volume as a fraction of
	// the space (for the stopping rule).
	volume(side float64) float64
	// bounds sets lo and hi to a box holding the region (coordinates
	// at most maxc): the decomposition starts at the smallest tile
	// holding that box rather than at the whole space.
	bounds(lo, hi []uint64, maxc uint64)
}

type boxRegion struct{ lo, hi []uint64 }

func (b boxRegion) classify(lo, hi []uint64) (int, float64) {
	in, frac := true, 1.0
	for d := range lo {
		if hi[d] < b.lo[d] || lo[d] > b.hi[d] {
			return 0, 0
		}
		if lo[d] < b.lo[d] || hi[d] > b.hi[d] {
			in = false
		}
		frac *= (float64(min(hi[d], b.hi[d])-max(lo[d], b.lo[d])) + 1) / (float64(hi[d]-lo[d]) + 1)
	}
	if in {
		return 1, 1
	}
	return 2, frac
}

func (b boxRegion) contains(p []uint64) bool {
	for d := range p {
		if p[d] < b.lo[d] || p[d] > b.hi[d] {
			return false
		}
	}
	return true
}

func (b boxRegion) bounds(lo, hi []uint64, _ uint64) {
	copy(lo, b.lo)
	copy(hi, b.hi)
}

func (b boxRegion) volume(side float64) float64 {
	v := 1.0
	for d := range b.lo {
		v *= (float64(b.hi[d]-b.lo[d]) + 1) / side
	}
	return v
}

// ballRegion is the points at Euclidean distance ≤ r from c and, when
// inner ≥ 0, farther than inner (the shell Nearest reads when it widens
// its search). Distances are computed in float64 as dist does; a node is
// declared outside only with a margin, so rounding never drops a point
// the exact test would keep.
type ballRegion struct {
	c        []uint64
	r, inner float64
}

const ballSlack = 1e-9

func (b ballRegion) classify(lo, hi []uint64) (int, float64) {
	var near, far, frac float64
	frac = 1
	for d := range lo {
		c, l, h := float64(b.c[d]), float64(lo[d]), float64(hi[d])
		switch {
		case c < l:
			near += (l - c) * (l - c)
		case c > h:
			near += (c - h) * (c - h)
		}
		f := max(c-l, h-c)
		far += f * f
		// The overlap with the ball's bounding box, for the estimate.
		ov := min(h, c+b.r) - max(l, c-b.r) + 1
		frac *= max(ov, 0) / (h - l + 1)
	}
	r2 := b.r * b.r
	if near > r2*(1+ballSlack)+ballSlack {
		return 0, 0
	}
	if b.inner >= 0 && far < b.inner*b.inner*(1-ballSlack) {
		return 0, 0 // wholly inside the inner ball: read before
	}
	if far <= r2 && (b.inner < 0 || near > b.inner*b.inner) {
		return 1, 1
	}
	// Crossing: the more corners inside, the more of the box is.
	if len(lo) <= 8 {
		inside := 0
		for m := 0; m < 1<<len(lo); m++ {
			d2 := 0.0
			for d := range lo {
				x := float64(lo[d])
				if m>>d&1 == 1 {
					x = float64(hi[d])
				}
				x -= float64(b.c[d])
				d2 += x * x
			}
			if d2 <= r2 {
				inside++
			}
		}
		frac *= float64(1+inside) / float64(2+int(1)<<len(lo))
	} else {
		frac /= 2
	}
	return 2, frac
}

func (b ballRegion) contains(p []uint64) bool {
	d := dist(p, b.c)
	return d <= b.r && (b.inner < 0 || d > b.inner)
}

func (b ballRegion) bounds(lo, hi []uint64, maxc uint64) {
	// One past the radius each way: the classification's own margin.
	for d, c := range b.c {
		l, h := float64(c)-b.r-1, float64(c)+b.r+1
		lo[d], hi[d] = 0, maxc
		if l > 0 {
			lo[d] = uint64(l)
		}
		if h < float64(maxc) {
			hi[d] = uint64(h)
		}
	}
}

func (b ballRegion) volume(side float64) float64 {
	dims := float64(len(b.c))
	// Unit ball volume π^(d/2)/Γ(d/2+1), times r^d, over side^d.
	lg, _ := math.Lgamma(dims/2 + 1)
	v := math.Exp(dims/2*math.Log(math.Pi) - lg + dims*(math.Log(b.r+0.5)-math.Log(side)))
	return math.Min(v, 1)
}

// zTile is a node of the split tree. A child shares one corner with its
// parent (the first child the lower, the second the upper), so a split
// adds two corners to the arena and computes no corner from the depth.
type zTile struct {
	lo, hi int32   // its corners: arena[lo : lo+Dims], arena[hi : hi+Dims]
	depth  int32   // Z-order bits fixed
	kids   int32   // index of its first child (the second follows), or -1
	kind   int8    // 0 outside, 1 inside, 2 crossing
	out    float64 // crossing: its volume outside the region, as a fraction of the space
}

// spaceSplits is how many node splits a query with at most maxRanges
// ranges may spend. Measured on random 2-D boxes of 16 ranges: 3 splits
// per range and dimension cover 1.24x the box at the median (8: 1.20x,
// 2: 1.31x). The splits from the whole space down to the smallest tile
// holding the region are not spent: that tile is computed directly.
// BenchmarkSpaceDecompose (32 ranges, 192 splits): 34 µs of CPU before
// that, the stored corners and the keyed heap, 26 µs after, on a busy
// 2-core machine; a box of 16 ranges about 11 µs.
func spaceSplits(maxRanges, dims int) int { return 3 * maxRanges * dims }

// heapEnt is a crossing tile waiting to be split, with its key copied
// in so that sifting reads no tile.
type heapEnt struct {
	out float64
	i   int32
}

// decomp holds the buffers of one decomposition, reused through the
// Space's pool (a query allocates little, so the caller's GC runs little).
type decomp struct {
	s     *Space
	arena []uint64
	tiles []zTile
	heap  []heapEnt
	stack []int32
	runs  []zRun
	gaps  []float64
	order []int32
	keep  []bool
}

// getDecomp returns empty buffers from s's pool; release gives them back.
func (s *Space) getDecomp() *decomp {
	if z, ok := s.pool.Get().(*decomp); ok {
		return z
	}
	return &decomp{s: s}
}

func (s *Space) release(z *decomp) { s.pool.Put(z) }

func (z *decomp) corner(t zTile) []uint64 { return z.arena[t.lo : int(t.lo)+z.s.Dims] }

// upper is t's upper corner.
func (z *decomp) upper(t zTile) []uint64 { return z.arena[t.hi : int(t.hi)+z.s.Dims] }

// pow2neg is 2^-k for 0 ≤ k ≤ 1022, exactly (a tile's share of the space).
func pow2neg(k int32) float64 { return math.Float64frombits(uint64(1023-k) << 52) }

func (z *decomp) add(r region, lo, hi, depth int32) int32 {
	dims := int32(z.s.Dims)
	kind, in := r.classify(z.arena[lo:lo+dims], z.arena[hi:hi+dims])
	t := zTile{lo: lo, hi: hi, depth: depth, kids: -1, kind: int8(kind)}
	i := int32(len(z.tiles))
	if kind == 2 {
		t.out = (1 - in) * pow2neg(depth)
		z.push(heapEnt{t.out, i})
	}
	z.tiles = append(z.tiles, t)
	return i
}

func (z *decomp) push(e heapEnt) {
	z.heap = append(z.heap, e)
	h := z.heap
	j := len(h) - 1
	for j > 0 {
		p := (j - 1) / 2
		if h[j].out <= h[p].out {
			break
		}
		h[j], h[p] = h[p], h[j]
		j = p
	}
}

func (z *decomp) pop() int32 {
	h := z.heap
	top := h[0].i
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	j := 0
	for {
		l := 2*j + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && h[r].out > h[l].out {
			c = r
		}
		if h[c].out <= h[j].out {
			break
		}
		h[j], h[c] = h[c], h[j]
		j = c
	}
	z.heap = h
	return top
}

// startTile adds the smallest tile holding r's bounding box (the tiles
// around it are all outside r and would only be split away) and returns
// its depth.
func (z *decomp) startTile(r region) int32 {
	s := z.s
	dims, maxc := s.Dims, s.maxCoord()
	z.arena = append(z.arena[:0], make([]uint64, 2*dims)...)
	lo, hi := z.arena[:dims], z.arena[dims:]
	r.bounds(lo, hi, maxc)
	// Dimension d's first differing bit is Z-order bit lz*dims+d, where
	// lz counts its leading equal bits: the tile fixes the bits before
	// the first such bit over all dimensions.
	depth := dims * s.Bits
	for d := range dims {
		lz := s.Bits
		if x := lo[d] ^ hi[d]; x != 0 {
			lz = bits.LeadingZeros64(x) - (64 - s.Bits)
		}
		depth = min(depth, lz*dims+d)
	}
	for d := range dims {
		fixed := depth / dims
		if d < depth%dims {
			fixed++
		}
		free := maxc >> uint(fixed) // 0 when every bit is fixed
		lo[d] &^= free
		hi[d] = lo[d] | free
	}
	z.add(r, 0, int32(dims), int32(depth))
	return int32(depth)
}

// zRun is a run of covered codes, from the lower corner of tile first
// to the upper corner of tile last.
type zRun struct{ first, last int32 }

// decompose returns the runs covering r, at most maxRanges of them, in
// code order, and the tiles they refer to.
func (s *Space) decompose(r region, maxRanges int) (*decomp, []zRun) {
	z := s.getDecomp()
	budget := spaceSplits(maxRanges, s.Dims)
	z.tiles, z.heap = z.tiles[:0], z.heap[:0]
	z.startTile(r)
	total := int32(s.Dims * s.Bits)
	dims := int32(s.Dims)
	waste := 0.0
	if z.tiles[0].kind == 2 {
		waste = z.tiles[0].out
	}
	enough := r.volume(math.Ldexp(1, s.Bits)) / 64
	for splits := 0; splits < budget && len(z.heap) > 0 && waste > enough; splits++ {
		i := z.pop()
		t := z.tiles[i]
		waste -= t.out
		if t.depth == total {
			continue // one code left crossing by the ball's margin: read it
		}
		k := int(t.depth)
		d := k % s.Dims
		bit := uint64(1) << uint(s.Bits-1-k/s.Dims)
		// The first child's upper corner and the second's lower one.
		hi0, lo1 := int32(len(z.arena)), int32(len(z.arena))+dims
		z.arena = append(z.arena, z.arena[t.hi:t.hi+dims]...)
		z.arena = append(z.arena, z.arena[t.lo:t.lo+dims]...)
		z.arena[int(hi0)+d] &^= bit
		z.arena[int(lo1)+d] |= bit
		z.tiles[i].kids = int32(len(z.tiles))
		c0 := z.add(r, t.lo, hi0, t.depth+1)
		c1 := z.add(r, lo1, t.hi, t.depth+1)
		waste += z.tiles[c0].out + z.tiles[c1].out
	}
	// Walk the leaves in Z order: runs and the volume of each gap.
	runs, gaps := z.runs[:0], z.gaps[:0]
	gap := 0.0
	stack := append(z.stack[:0], 0)
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		t := z.tiles[i]
		if t.kids >= 0 {
			stack = append(stack, t.kids+1, t.kids)
			continue
		}
		if t.kind == 0 {
			gap += pow2neg(t.depth)
			continue
		}
		if len(runs) > 0 && gap == 0 {
			runs[len(runs)-1].last = i
			continue
		}
		if len(runs) > 0 {
			gaps = append(gaps, gap)
		}
		gap = 0
		runs = append(runs, zRun{i, i})
	}
	z.stack, z.runs, z.gaps = stack, runs, gaps
	if len(runs) <= maxRanges {
		return z, runs
	}
	// Keep the maxRanges-1 largest gaps, fill the others.
	order := z.order[:0]
	for i := range gaps {
		order = append(order, int32(i))
	}
	slices.SortFunc(order, func(a, b int32) int {
		if gaps[a] != gaps[b] {
			return cmp.Compare(gaps[b], gaps[a])
		}
		return cmp.Compare(a, b)
	})
	keep := append(z.keep[:0], make([]bool, len(gaps))...)
	for _, g := range order[:maxRanges-1] {
		keep[g] = true
	}
	z.order, z.keep = order, keep
	out := runs[:1]
	for i := 1; i < len(runs); i++ {
		if keep[i-1] {
			out = append(out, runs[i])
		} else {
			out[len(out)-1].last = runs[i].last
		}
	}
	return z, out
}
