// Package geohash is a faithful port of Redis 7.0's geohash.c and
// geohash_helper.c, the arithmetic under the GEO commands: 52-bit
// interleaved hashes used as sorted-set scores, the 9-area neighbour
// search that covers a radius or box, and the haversine distance with
// Redis's earth radius.
//
// # Guarantees
//
//   - Bit-for-bit the results of Redis 7.0 on x86-64: floating-point
//     expressions are written so that Go evaluates them in the same order
//     and precision as the C code (explicit float64 conversions prevent
//     fused multiply-adds), and float-to-integer conversion of scores
//     follows x86-64's cvttsd2si, out-of-range values included.
//   - Distances use correctly rounded sin, cos and asin (double-double
//     arithmetic), which equal glibc's for all but about 0.1% of
//     arguments; there they differ in the last bit.
//   - DistanceBound and Around estimate distances with Go's math
//     functions and a bound on their difference from Distance (relative
//     1e-12 plus 1e-9 m; measured below 1e-15): a search decides most
//     points on the estimate and calls Distance only where the bound
//     leaves the answer in doubt, for the same answers (bound.go).
//   - Pure functions on values: safe for concurrent use, no allocation,
//     no package state beyond immutable tables.
//
// # Not safe
//
// Functions taking a *Shape read it and nothing else; sharing one Shape
// between goroutines is safe only while nobody writes it. Hashes with a
// Step above 32 or of 0 are rejected by Encode and Decode but not by the
// neighbour and alignment helpers, which assume a valid step.
package geohash

import "math"

// Limits of the WGS84 coordinates Redis accepts (EPSG:900913 / 3785),
// the step of the 52-bit hashes stored as scores, and the constants of
// the distance and step estimates.
const (
	StepMax = 26 // 26*2 = 52 bits

	LatMin  = -85.05112878
	LatMax  = 85.05112878
	LongMin = -180.0
	LongMax = 180.0

	EarthRadius = 6372797.560856 // meters
	MercatorMax = 20037726.37
)

// geoDR is C's (M_PI / 180.0), computed in double precision at run time
// as the C compiler does (a Go constant expression would be exact).
// Written once at package initialisation, never after.
var geoDR = func() float64 {
	pi := math.Pi
	return pi / 180.0
}()

func geoDegRad(ang float64) float64 { return ang * geoDR }
func geoRadDeg(ang float64) float64 { return ang / geoDR }

// Hash is geohash.c's GeoHashBits: Step bits of longitude and Step bits
// of latitude interleaved in the low 2*Step bits of Bits.
type Hash struct {
	Bits uint64
	Step uint8
}

// IsZero reports whether h is the zero hash, which marks a neighbour
// left out of a search.
func (h Hash) IsZero() bool { return h.Bits == 0 && h.Step == 0 }

// Align52Bits shifts h's bits to the top of 52 bits: the smallest score
// inside h's area.
func (h Hash) Align52Bits() uint64 {
	return h.Bits << (52 - uint(h.Step)*2)
}

// Range is a closed coordinate interval.
type Range struct{ Min, Max float64 }

// Area is a hash and the coordinates it covers.
type Area struct {
	Hash                Hash
	Longitude, Latitude Range
}

// Neighbors are the 8 hashes of the same step around a hash.
type Neighbors struct {
	North, East, West, South                   Hash
	NorthEast, SouthEast, NorthWest, SouthWest Hash
}

// Radius is the centre hash of a search, its area, and the neighbours
// still worth reading.
type Radius struct {
	Hash      Hash
	Area      Area
	Neighbors Neighbors
}

// The WGS84 ranges; never written.
var (
	wgs84LongRange = Range{LongMin, LongMax}
	wgs84LatRange  = Range{LatMin, LatMax}
)

// interleave64 puts the bits of x in the even positions and those of y in
// the odd ones.
func interleave64(xlo, ylo uint32) uint64 {
	B := [...]uint64{0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF}
	S := [...]uint{1, 2, 4, 8, 16}
	x, y := uint64(xlo), uint64(ylo)
	for i := 4; i >= 0; i-- {
		x = (x | (x << S[i])) & B[i]
		y = (y | (y << S[i])) & B[i]
	}
	return x | (y << 1)
}

// deinterleave64 reverses interleave64: x in the low 32 bits, y in the high.
func deinterleave64(interleaved uint64) uint64 {
	B := [...]uint64{0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF, 0x00000000FFFFFFFF}
	S := [...]uint{0, 1, 2, 4, 8, 16}
	x := interleaved
	y := interleaved >> 1
	for i := 0; i < 6; i++ {
		x = (x | (x >> S[i])) & B[i]
		y = (y | (y >> S[i])) & B[i]
	}
	return x | (y << 32)
}

// Encode is geohash.c's geohashEncode: the step-bit hash of (longitude,
// latitude) within the given ranges; ok is false for a step outside
// 1..32 or coordinates outside the ranges or the WGS84 limits.
func Encode(longRange, latRange Range, longitude, latitude float64, step uint8) (Hash, bool) {
	var h Hash
	if step > 32 || step == 0 || (latRange.Min == 0 && latRange.Max == 0) || (longRange.Min == 0 && longRange.Max == 0) {
		return h, false
	}
	if longitude > LongMax || longitude < LongMin || latitude > LatMax || latitude < LatMin {
		return h, false
	}
	h.Step = step
	if latitude < latRange.Min || latitude > latRange.Max || longitude < longRange.Min || longitude > longRange.Max {
		return h, false
	}
	latOffset := (latitude - latRange.Min) / (latRange.Max - latRange.Min)
	longOffset := (longitude - longRange.Min) / (longRange.Max - longRange.Min)
	scale := float64(uint64(1) << step)
	latOffset *= scale
	longOffset *= scale
	h.Bits = interleave64(uint32(latOffset), uint32(longOffset))
	return h, true
}

// EncodeWGS84 is Encode over the WGS84 ranges, geohashEncodeWGS84.
func EncodeWGS84(longitude, latitude float64, step uint8) (Hash, bool) {
	return Encode(wgs84LongRange, wgs84LatRange, longitude, latitude, step)
}

// Decode is geohash.c's geohashDecode (uint32 arithmetic included): the
// area h covers; ok is false for the zero hash or empty ranges.
func Decode(longRange, latRange Range, h Hash) (Area, bool) {
	var area Area
	if h.IsZero() || (latRange.Min == 0 && latRange.Max == 0) || (longRange.Min == 0 && longRange.Max == 0) {
		return area, false
	}
	area.Hash = h
	sep := deinterleave64(h.Bits)
	latScale := latRange.Max - latRange.Min
	longScale := longRange.Max - longRange.Min
	ilato := uint32(sep)
	ilono := uint32(sep >> 32)
	// C divides by 2^step; multiplying by its reciprocal, a power of two
	// too, gives the same bits (both exact scalings) without a division.
	inv := 1 / float64(uint64(1)<<h.Step)
	area.Latitude.Min = latRange.Min + float64(float64(ilato)*inv)*latScale
	area.Latitude.Max = latRange.Min + float64(float64(ilato+1)*inv)*latScale
	area.Longitude.Min = longRange.Min + float64(float64(ilono)*inv)*longScale
	area.Longitude.Max = longRange.Min + float64(float64(ilono+1)*inv)*longScale
	return area, true
}

// DecodeWGS84 is Decode over the WGS84 ranges, geohashDecodeWGS84.
func DecodeWGS84(h Hash) (Area, bool) {
	return Decode(wgs84LongRange, wgs84LatRange, h)
}

// DecodeToLongLat returns the centre of the hash's area, clamped
// to the valid coordinates.
func DecodeToLongLat(h Hash) (lon, lat float64, ok bool) {
	area, ok := DecodeWGS84(h)
	if !ok {
		return 0, 0, false
	}
	lon = (area.Longitude.Min + area.Longitude.Max) / 2
	if lon > LongMax {
		lon = LongMax
	}
	if lon < LongMin {
		lon = LongMin
	}
	lat = (area.Latitude.Min + area.Latitude.Max) / 2
	if lat > LatMax {
		lat = LatMax
	}
	if lat < LatMin {
		lat = LatMin
	}
	return lon, lat, true
}

// scoreBits converts a score to uint64 as x86-64 code compiled from C's
// (uint64_t)double does, out-of-range values included.
func scoreBits(f float64) uint64 {
	const two63 = 9223372036854775808.0
	cvtt := func(f float64) uint64 {
		if f != f || f >= two63 || f < -two63 {
			return 1 << 63
		}
		return uint64(int64(f))
	}
	if !(f >= two63) {
		return cvtt(f)
	}
	return cvtt(f-two63) ^ (1 << 63)
}

// DecodeScore is geo.c's decodeGeohash: the position a GEO sorted-set
// score stands for (a 52-bit hash, converted as x86-64 C code does).
func DecodeScore(score float64) (lon, lat float64, ok bool) {
	return DecodeToLongLat(Hash{Bits: scoreBits(score), Step: StepMax})
}

func moveX(h *Hash, d int) {
	if d == 0 {
		return
	}
	x := h.Bits & 0xaaaaaaaaaaaaaaaa
	y := h.Bits & 0x5555555555555555
	zz := uint64(0x5555555555555555) >> (64 - uint(h.Step)*2)
	if d > 0 {
		x = x + (zz + 1)
	} else {
		x = x | zz
		x = x - (zz + 1)
	}
	x &= uint64(0xaaaaaaaaaaaaaaaa) >> (64 - uint(h.Step)*2)
	h.Bits = x | y
}

func moveY(h *Hash, d int) {
	if d == 0 {
		return
	}
	x := h.Bits & 0xaaaaaaaaaaaaaaaa
	y := h.Bits & 0x5555555555555555
	zz := uint64(0xaaaaaaaaaaaaaaaa) >> (64 - uint(h.Step)*2)
	if d > 0 {
		y = y + (zz + 1)
	} else {
		y = y | zz
		y = y - (zz + 1)
	}
	y &= uint64(0x5555555555555555) >> (64 - uint(h.Step)*2)
	h.Bits = x | y
}

// NeighborsOf is geohash.c's geohashNeighbors: the 8 hashes of h's step
// around it (wrapping at the edges of the coordinate space).
func NeighborsOf(h Hash) Neighbors {
	n := Neighbors{h, h, h, h, h, h, h, h}
	move := func(b *Hash, dx, dy int) {
		moveX(b, dx)
		moveY(b, dy)
	}
	move(&n.East, 1, 0)
	move(&n.West, -1, 0)
	move(&n.South, 0, -1)
	move(&n.North, 0, 1)
	move(&n.NorthWest, -1, 1)
	move(&n.NorthEast, 1, 1)
	move(&n.SouthEast, 1, -1)
	move(&n.SouthWest, -1, -1)
	return n
}

// estimateStepsByRadius estimates the step of the 9 search areas.
func estimateStepsByRadius(rangeMeters, lat float64) uint8 {
	if rangeMeters == 0 {
		return 26
	}
	step := 1
	for rangeMeters < MercatorMax {
		rangeMeters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	if step < 1 {
		step = 1
	}
	if step > 26 {
		step = 26
	}
	return uint8(step)
}

// Shape is the search area: a circle of Radius, or a Width x Height box
// when Box is set, in units of Conversion meters, centred at (Lon, Lat).
type Shape struct {
	Box           bool
	Lon, Lat      float64
	Conversion    float64
	Radius        float64
	Width, Height float64
}

// BoundingBox is geohash_helper.c's geohashBoundingBox: the box
// {minLon, minLat, maxLon, maxLat} around the shape.
func BoundingBox(s *Shape) (bounds [4]float64) {
	longitude, latitude := s.Lon, s.Lat
	var height, width float64
	if s.Box {
		height = s.Conversion * (s.Height / 2)
		width = s.Conversion * (s.Width / 2)
	} else {
		height = s.Conversion * s.Radius
		width = s.Conversion * s.Radius
	}
	latDelta := geoRadDeg(height / EarthRadius)
	longDeltaTop := geoRadDeg(width / EarthRadius / geoCrCos(geoDegRad(latitude+latDelta)))
	longDeltaBottom := geoRadDeg(width / EarthRadius / geoCrCos(geoDegRad(latitude-latDelta)))
	if latitude < 0 {
		bounds[0] = longitude - longDeltaBottom
		bounds[2] = longitude + longDeltaBottom
	} else {
		bounds[0] = longitude - longDeltaTop
		bounds[2] = longitude + longDeltaTop
	}
	bounds[1] = latitude - latDelta
	bounds[3] = latitude + latDelta
	return bounds
}

// AreasByShape is geohash_helper.c's geohashCalculateAreasByShape: the
// centre area and its 8 neighbours covering the shape, the neighbours
// that cannot hold a match zeroed.
func AreasByShape(s *Shape) Radius {
	bounds := BoundingBox(s)
	minLon, minLat, maxLon, maxLat := bounds[0], bounds[1], bounds[2], bounds[3]
	longitude, latitude := s.Lon, s.Lat
	var radiusMeters float64
	if s.Box {
		hw, hh := s.Width/2, s.Height/2
		radiusMeters = math.Sqrt(float64(hw*hw) + float64(hh*hh))
	} else {
		radiusMeters = s.Radius
	}
	radiusMeters *= s.Conversion

	steps := estimateStepsByRadius(radiusMeters, latitude)
	hash, _ := Encode(wgs84LongRange, wgs84LatRange, longitude, latitude, steps)
	neighbors := NeighborsOf(hash)
	area, _ := Decode(wgs84LongRange, wgs84LatRange, hash)

	decrease := false
	north, _ := Decode(wgs84LongRange, wgs84LatRange, neighbors.North)
	south, _ := Decode(wgs84LongRange, wgs84LatRange, neighbors.South)
	east, _ := Decode(wgs84LongRange, wgs84LatRange, neighbors.East)
	west, _ := Decode(wgs84LongRange, wgs84LatRange, neighbors.West)
	if north.Latitude.Max < maxLat {
		decrease = true
	}
	if south.Latitude.Min > minLat {
		decrease = true
	}
	if east.Longitude.Max < maxLon {
		decrease = true
	}
	if west.Longitude.Min > minLon {
		decrease = true
	}
	if steps > 1 && decrease {
		steps--
		hash, _ = Encode(wgs84LongRange, wgs84LatRange, longitude, latitude, steps)
		neighbors = NeighborsOf(hash)
		area, _ = Decode(wgs84LongRange, wgs84LatRange, hash)
	}

	if steps >= 2 {
		if area.Latitude.Min < minLat {
			neighbors.South = Hash{}
			neighbors.SouthWest = Hash{}
			neighbors.SouthEast = Hash{}
		}
		if area.Latitude.Max > maxLat {
			neighbors.North = Hash{}
			neighbors.NorthEast = Hash{}
			neighbors.NorthWest = Hash{}
		}
		if area.Longitude.Min < minLon {
			neighbors.West = Hash{}
			neighbors.SouthWest = Hash{}
			neighbors.NorthWest = Hash{}
		}
		if area.Longitude.Max > maxLon {
			neighbors.East = Hash{}
			neighbors.SouthEast = Hash{}
			neighbors.NorthEast = Hash{}
		}
	}
	return Radius{Hash: hash, Area: area, Neighbors: neighbors}
}

// Distance is geohash_helper.c's geohashGetDistance: the haversine
// great-circle distance in meters, as Redis 7.0 computes it.
func Distance(lon1d, lat1d, lon2d, lat2d float64) float64 {
	lat1r := geoDegRad(lat1d)
	lon1r := geoDegRad(lon1d)
	lat2r := geoDegRad(lat2d)
	lon2r := geoDegRad(lon2d)
	u := geoCrSin((lat2r - lat1r) / 2)
	v := geoCrSin((lon2r - lon1r) / 2)
	a := float64(u*u) + float64(float64(float64(geoCrCos(lat1r)*geoCrCos(lat2r))*v)*v)
	return 2.0 * EarthRadius * geoCrAsin(math.Sqrt(a))
}

// DistanceIfInRectangle is geohashGetDistanceIfInRectangle: whether
// (x2,y2) lies in the widthM x heightM box centred at (x1,y1), and its
// distance from (x1,y1).
func DistanceIfInRectangle(widthM, heightM, x1, y1, x2, y2 float64) (float64, bool) {
	lonDistance := Distance(x2, y2, x1, y2)
	latDistance := Distance(x2, y2, x2, y1)
	if lonDistance > widthM/2 || latDistance > heightM/2 {
		return 0, false
	}
	return Distance(x1, y1, x2, y2), true
}

// ---- correctly rounded sin, cos and asin ----
//
// Go's math.Sin/Cos/Asin differ from glibc's in the last bit for about a
// quarter of the arguments, which shows in the full-precision distances
// GEOSEARCHSTORE STOREDIST stores. glibc's results are within 0.52 ulp,
// so they equal the correctly rounded value for all but about 0.1% of
// arguments: these functions compute in double-double arithmetic
// (about 106 bits) and round once.

// geoDd is an unevaluated sum hi+lo with |lo| <= ulp(hi)/2.
type geoDd struct{ hi, lo float64 }

func geoTwoSum(a, b float64) geoDd {
	s := a + b
	bb := s - a
	return geoDd{s, (a - (s - bb)) + (b - bb)}
}

func geoQuickTwoSum(a, b float64) geoDd {
	s := a + b
	return geoDd{s, b - (s - a)}
}

func geoTwoProd(a, b float64) geoDd {
	p := a * b
	return geoDd{p, math.FMA(a, b, -p)}
}

func geoDdAdd(a, b geoDd) geoDd {
	s := geoTwoSum(a.hi, b.hi)
	t := geoTwoSum(a.lo, b.lo)
	s.lo += t.hi
	s = geoQuickTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return geoQuickTwoSum(s.hi, s.lo)
}

func geoDdMul(a, b geoDd) geoDd {
	p := geoTwoProd(a.hi, b.hi)
	p.lo += a.hi*b.lo + a.lo*b.hi
	return geoQuickTwoSum(p.hi, p.lo)
}

var geoDdPio2 = [3]float64{0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54, -0x1.f1976b7ed8fbcp-110}

// Taylor coefficients: (-1)^n / (2n+1)! for sin, (-1)^n / (2n)! for cos.
// The first three of each are double-double; the tail is evaluated in
// double precision (its contribution is below 2^-12 of the result).
var (
	geoDdSinHead = [3]geoDd{
		{-0x1.5555555555555p-3, -0x1.5555555555555p-57},
		{0x1.1111111111111p-7, 0x1.1111111111111p-63},
		{-0x1.a01a01a01a01ap-13, -0x1.a01a01a01a01ap-73},
	}
	geoDdSinTail = [...]float64{0x1.71de3a556c734p-19, -0x1.ae64567f544e4p-26, 0x1.6124613a86d09p-33, -0x1.ae7f3e733b81fp-41,
		0x1.952c77030ad4ap-49, -0x1.2f49b46814157p-57, 0x1.71b8ef6dcf572p-66, -0x1.761b41316381ap-75, 0x1.3f3ccdd165fa9p-84, -0x1.d1ab1c2dccea3p-94}
	geoDdCosHead = [3]geoDd{
		{-0.5, 0},
		{0x1.5555555555555p-5, 0x1.5555555555555p-59},
		{-0x1.6c16c16c16c17p-10, 0x1.f49f49f49f49fp-65},
	}
	geoDdCosTail = [...]float64{0x1.a01a01a01a01ap-16, -0x1.27e4fb7789f5cp-22, 0x1.1eed8eff8d898p-29, -0x1.93974a8c07c9dp-37,
		0x1.ae7f3e733b81fp-45, -0x1.6827863b97d97p-53, 0x1.e542ba4020225p-62, -0x1.0ce396db7f853p-70, 0x1.f2cf01972f578p-80, -0x1.88e85fc6a4e5ap-89}
)

// geoDdReduce returns r = x - k*pi/2 (|r| <= pi/4) and k mod 4.
func geoDdReduce(x float64) (geoDd, int) {
	if math.Abs(x) <= math.Pi/4 {
		return geoDd{x, 0}, 0
	}
	k := math.RoundToEven(x * (2 / math.Pi))
	r := geoDd{x, 0}
	for _, p := range geoDdPio2 {
		r = geoDdAdd(r, geoTwoProd(-k, p))
	}
	return r, int(int64(k) & 3)
}

// geoDdPoly evaluates 1 + z*(head[0] + z*(head[1] + z*(head[2] + z*tail(z)))).
func geoDdPoly(z geoDd, head *[3]geoDd, tail []float64) geoDd {
	t := tail[len(tail)-1]
	for i := len(tail) - 2; i >= 0; i-- {
		t = tail[i] + z.hi*t
	}
	p := geoDdAdd(head[2], geoDdMul(z, geoDd{t, 0}))
	p = geoDdAdd(head[1], geoDdMul(z, p))
	p = geoDdAdd(head[0], geoDdMul(z, p))
	return geoDdAdd(geoDd{1, 0}, geoDdMul(z, p))
}

func geoDdSinKernel(r, r2 geoDd) geoDd {
	return geoDdMul(r, geoDdPoly(r2, &geoDdSinHead, geoDdSinTail[:]))
}
func geoDdCosKernel(r2 geoDd) geoDd { return geoDdPoly(r2, &geoDdCosHead, geoDdCosTail[:]) }

func geoDdNeg(a geoDd) geoDd { return geoDd{-a.hi, -a.lo} }

// geoDdSin and geoDdCos are sin(x) and cos(x) to about 100 bits for |x| < 2^20.
func geoDdSin(x float64) geoDd {
	r, k := geoDdReduce(x)
	r2 := geoDdMul(r, r)
	switch k {
	case 0:
		return geoDdSinKernel(r, r2)
	case 1:
		return geoDdCosKernel(r2)
	case 2:
		return geoDdNeg(geoDdSinKernel(r, r2))
	default:
		return geoDdNeg(geoDdCosKernel(r2))
	}
}

func geoDdCos(x float64) geoDd {
	r, k := geoDdReduce(x)
	r2 := geoDdMul(r, r)
	switch k {
	case 0:
		return geoDdCosKernel(r2)
	case 1:
		return geoDdNeg(geoDdSinKernel(r, r2))
	case 2:
		return geoDdNeg(geoDdCosKernel(r2))
	default:
		return geoDdSinKernel(r, r2)
	}
}

const geoDdLimit = 1 << 20

func geoCrSin(x float64) float64 {
	if !(math.Abs(x) < geoDdLimit) || x == 0 {
		return math.Sin(x)
	}
	s := geoDdSin(x)
	return s.hi + s.lo
}

func geoCrCos(x float64) float64 {
	if !(math.Abs(x) < geoDdLimit) {
		return math.Cos(x)
	}
	c := geoDdCos(x)
	return c.hi + c.lo
}

func geoCrAsin(x float64) float64 {
	if !(x > -1 && x < 1) || x == 0 {
		return math.Asin(x)
	}
	// Newton steps on sin(y) = x from Go's estimate (within a few ulp):
	// one is enough unless cos(y) is tiny (x next to 1).
	y := math.Asin(x)
	for i := 0; ; i++ {
		s, c := geoDdSin(y), geoDdCos(y)
		d := geoDdAdd(geoDd{x, 0}, geoDdNeg(s))
		y1 := y + d.hi/c.hi
		if i == 1 || math.Abs(c.hi) > 0x1p-8 {
			return y1
		}
		y = y1
	}
}
