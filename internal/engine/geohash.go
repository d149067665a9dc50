package engine

// Geohash helpers for the GEO commands: a faithful port of Redis 7.0's
// geohash.c and geohash_helper.c (52-bit interleaved hashes used as
// sorted-set scores, the 9-area neighbour search, the haversine distance
// with Redis's earth radius). Floating-point expressions are written so
// that Go evaluates them in the same order and precision as the C code
// (explicit float64 conversions prevent fused multiply-adds).

import "math"

const (
	geoStepMax = 26 // 26*2 = 52 bits

	geoLatMin  = -85.05112878
	geoLatMax  = 85.05112878
	geoLongMin = -180.0
	geoLongMax = 180.0

	geoEarthRadius = 6372797.560856
	geoMercatorMax = 20037726.37
)

// geoDR is C's (M_PI / 180.0), computed in double precision at run time
// as the C compiler does (a Go constant expression would be exact).
var geoDR = func() float64 {
	pi := math.Pi
	return pi / 180.0
}()

func geoDegRad(ang float64) float64 { return ang * geoDR }
func geoRadDeg(ang float64) float64 { return ang / geoDR }

type geoHashBits struct {
	bits uint64
	step uint8
}

func (h geoHashBits) isZero() bool { return h.bits == 0 && h.step == 0 }

type geoHashRange struct{ min, max float64 }

type geoHashArea struct {
	hash                geoHashBits
	longitude, latitude geoHashRange
}

type geoHashNeighbors struct {
	north, east, west, south                   geoHashBits
	northEast, southEast, northWest, southWest geoHashBits
}

type geoHashRadius struct {
	hash      geoHashBits
	area      geoHashArea
	neighbors geoHashNeighbors
}

var (
	geoLongRange = geoHashRange{geoLongMin, geoLongMax}
	geoLatRange  = geoHashRange{geoLatMin, geoLatMax}
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

// geohashEncode is geohash.c's geohashEncode; ok is false outside the
// supported coordinates.
func geohashEncode(longRange, latRange geoHashRange, longitude, latitude float64, step uint8) (geoHashBits, bool) {
	var h geoHashBits
	if step > 32 || step == 0 || (latRange.min == 0 && latRange.max == 0) || (longRange.min == 0 && longRange.max == 0) {
		return h, false
	}
	if longitude > geoLongMax || longitude < geoLongMin || latitude > geoLatMax || latitude < geoLatMin {
		return h, false
	}
	h.step = step
	if latitude < latRange.min || latitude > latRange.max || longitude < longRange.min || longitude > longRange.max {
		return h, false
	}
	latOffset := (latitude - latRange.min) / (latRange.max - latRange.min)
	longOffset := (longitude - longRange.min) / (longRange.max - longRange.min)
	scale := float64(uint64(1) << step)
	latOffset *= scale
	longOffset *= scale
	h.bits = interleave64(uint32(latOffset), uint32(longOffset))
	return h, true
}

func geohashEncodeWGS84(longitude, latitude float64, step uint8) (geoHashBits, bool) {
	return geohashEncode(geoLongRange, geoLatRange, longitude, latitude, step)
}

// geohashDecode is geohash.c's geohashDecode (uint32 arithmetic included).
func geohashDecode(longRange, latRange geoHashRange, h geoHashBits) (geoHashArea, bool) {
	var area geoHashArea
	if h.isZero() || (latRange.min == 0 && latRange.max == 0) || (longRange.min == 0 && longRange.max == 0) {
		return area, false
	}
	area.hash = h
	sep := deinterleave64(h.bits)
	latScale := latRange.max - latRange.min
	longScale := longRange.max - longRange.min
	ilato := uint32(sep)
	ilono := uint32(sep >> 32)
	div := float64(uint64(1) << h.step)
	area.latitude.min = latRange.min + float64(float64(ilato)*1.0/div)*latScale
	area.latitude.max = latRange.min + float64(float64(ilato+1)*1.0/div)*latScale
	area.longitude.min = longRange.min + float64(float64(ilono)*1.0/div)*longScale
	area.longitude.max = longRange.min + float64(float64(ilono+1)*1.0/div)*longScale
	return area, true
}

func geohashDecodeWGS84(h geoHashBits) (geoHashArea, bool) {
	return geohashDecode(geoLongRange, geoLatRange, h)
}

// geohashDecodeToLongLat returns the centre of the hash's area, clamped
// to the valid coordinates.
func geohashDecodeToLongLat(h geoHashBits) (lon, lat float64, ok bool) {
	area, ok := geohashDecodeWGS84(h)
	if !ok {
		return 0, 0, false
	}
	lon = (area.longitude.min + area.longitude.max) / 2
	if lon > geoLongMax {
		lon = geoLongMax
	}
	if lon < geoLongMin {
		lon = geoLongMin
	}
	lat = (area.latitude.min + area.latitude.max) / 2
	if lat > geoLatMax {
		lat = geoLatMax
	}
	if lat < geoLatMin {
		lat = geoLatMin
	}
	return lon, lat, true
}

// geoScoreBits converts a score to uint64 as x86-64 code compiled from C's
// (uint64_t)double does, out-of-range values included.
func geoScoreBits(f float64) uint64 {
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

// decodeGeohash is geo.c's decodeGeohash: the position of a score.
func decodeGeohash(score float64) (lon, lat float64, ok bool) {
	return geohashDecodeToLongLat(geoHashBits{bits: geoScoreBits(score), step: geoStepMax})
}

func geohashMoveX(h *geoHashBits, d int) {
	if d == 0 {
		return
	}
	x := h.bits & 0xaaaaaaaaaaaaaaaa
	y := h.bits & 0x5555555555555555
	zz := uint64(0x5555555555555555) >> (64 - uint(h.step)*2)
	if d > 0 {
		x = x + (zz + 1)
	} else {
		x = x | zz
		x = x - (zz + 1)
	}
	x &= uint64(0xaaaaaaaaaaaaaaaa) >> (64 - uint(h.step)*2)
	h.bits = x | y
}

func geohashMoveY(h *geoHashBits, d int) {
	if d == 0 {
		return
	}
	x := h.bits & 0xaaaaaaaaaaaaaaaa
	y := h.bits & 0x5555555555555555
	zz := uint64(0xaaaaaaaaaaaaaaaa) >> (64 - uint(h.step)*2)
	if d > 0 {
		y = y + (zz + 1)
	} else {
		y = y | zz
		y = y - (zz + 1)
	}
	y &= uint64(0x5555555555555555) >> (64 - uint(h.step)*2)
	h.bits = x | y
}

func geohashNeighbors(h geoHashBits) geoHashNeighbors {
	n := geoHashNeighbors{h, h, h, h, h, h, h, h}
	move := func(b *geoHashBits, dx, dy int) {
		geohashMoveX(b, dx)
		geohashMoveY(b, dy)
	}
	move(&n.east, 1, 0)
	move(&n.west, -1, 0)
	move(&n.south, 0, -1)
	move(&n.north, 0, 1)
	move(&n.northWest, -1, 1)
	move(&n.northEast, 1, 1)
	move(&n.southEast, 1, -1)
	move(&n.southWest, -1, -1)
	return n
}

// geohashEstimateStepsByRadius estimates the step of the 9 search areas.
func geohashEstimateStepsByRadius(rangeMeters, lat float64) uint8 {
	if rangeMeters == 0 {
		return 26
	}
	step := 1
	for rangeMeters < geoMercatorMax {
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

// geoShape is the search area: a circle of radius, or a width x height
// box, in units of conversion meters, centred at (lon, lat).
type geoShape struct {
	box           bool
	lon, lat      float64
	conversion    float64
	radius        float64
	width, height float64
	bounds        [4]float64
}

// geohashBoundingBox is geohash_helper.c's geohashBoundingBox.
func geohashBoundingBox(s *geoShape) {
	longitude, latitude := s.lon, s.lat
	var height, width float64
	if s.box {
		height = s.conversion * (s.height / 2)
		width = s.conversion * (s.width / 2)
	} else {
		height = s.conversion * s.radius
		width = s.conversion * s.radius
	}
	latDelta := geoRadDeg(height / geoEarthRadius)
	longDeltaTop := geoRadDeg(width / geoEarthRadius / geoCrCos(geoDegRad(latitude+latDelta)))
	longDeltaBottom := geoRadDeg(width / geoEarthRadius / geoCrCos(geoDegRad(latitude-latDelta)))
	if latitude < 0 {
		s.bounds[0] = longitude - longDeltaBottom
		s.bounds[2] = longitude + longDeltaBottom
	} else {
		s.bounds[0] = longitude - longDeltaTop
		s.bounds[2] = longitude + longDeltaTop
	}
	s.bounds[1] = latitude - latDelta
	s.bounds[3] = latitude + latDelta
}

// geohashCalculateAreasByShape computes the centre area and its 8
// neighbours covering the shape (useless neighbours zeroed).
func geohashCalculateAreasByShape(s *geoShape) geoHashRadius {
	geohashBoundingBox(s)
	minLon, minLat, maxLon, maxLat := s.bounds[0], s.bounds[1], s.bounds[2], s.bounds[3]
	longitude, latitude := s.lon, s.lat
	var radiusMeters float64
	if s.box {
		hw, hh := s.width/2, s.height/2
		radiusMeters = math.Sqrt(float64(hw*hw) + float64(hh*hh))
	} else {
		radiusMeters = s.radius
	}
	radiusMeters *= s.conversion

	steps := geohashEstimateStepsByRadius(radiusMeters, latitude)
	hash, _ := geohashEncode(geoLongRange, geoLatRange, longitude, latitude, steps)
	neighbors := geohashNeighbors(hash)
	area, _ := geohashDecode(geoLongRange, geoLatRange, hash)

	decrease := false
	north, _ := geohashDecode(geoLongRange, geoLatRange, neighbors.north)
	south, _ := geohashDecode(geoLongRange, geoLatRange, neighbors.south)
	east, _ := geohashDecode(geoLongRange, geoLatRange, neighbors.east)
	west, _ := geohashDecode(geoLongRange, geoLatRange, neighbors.west)
	if north.latitude.max < maxLat {
		decrease = true
	}
	if south.latitude.min > minLat {
		decrease = true
	}
	if east.longitude.max < maxLon {
		decrease = true
	}
	if west.longitude.min > minLon {
		decrease = true
	}
	if steps > 1 && decrease {
		steps--
		hash, _ = geohashEncode(geoLongRange, geoLatRange, longitude, latitude, steps)
		neighbors = geohashNeighbors(hash)
		area, _ = geohashDecode(geoLongRange, geoLatRange, hash)
	}

	if steps >= 2 {
		if area.latitude.min < minLat {
			neighbors.south = geoHashBits{}
			neighbors.southWest = geoHashBits{}
			neighbors.southEast = geoHashBits{}
		}
		if area.latitude.max > maxLat {
			neighbors.north = geoHashBits{}
			neighbors.northEast = geoHashBits{}
			neighbors.northWest = geoHashBits{}
		}
		if area.longitude.min < minLon {
			neighbors.west = geoHashBits{}
			neighbors.southWest = geoHashBits{}
			neighbors.northWest = geoHashBits{}
		}
		if area.longitude.max > maxLon {
			neighbors.east = geoHashBits{}
			neighbors.southEast = geoHashBits{}
			neighbors.northEast = geoHashBits{}
		}
	}
	return geoHashRadius{hash: hash, area: area, neighbors: neighbors}
}

func geohashAlign52Bits(h geoHashBits) uint64 {
	return h.bits << (52 - uint(h.step)*2)
}

// geohashGetDistance is the haversine great-circle distance in meters,
// as Redis 7.0 computes it.
func geohashGetDistance(lon1d, lat1d, lon2d, lat2d float64) float64 {
	lat1r := geoDegRad(lat1d)
	lon1r := geoDegRad(lon1d)
	lat2r := geoDegRad(lat2d)
	lon2r := geoDegRad(lon2d)
	u := geoCrSin((lat2r - lat1r) / 2)
	v := geoCrSin((lon2r - lon1r) / 2)
	a := float64(u*u) + float64(float64(float64(geoCrCos(lat1r)*geoCrCos(lat2r))*v)*v)
	return 2.0 * geoEarthRadius * geoCrAsin(math.Sqrt(a))
}

// geohashGetDistanceIfInRectangle reports whether (x2,y2) lies in the
// width_m x height_m box centred at (x1,y1), and its distance.
func geohashGetDistanceIfInRectangle(widthM, heightM, x1, y1, x2, y2 float64) (float64, bool) {
	lonDistance := geohashGetDistance(x2, y2, x1, y2)
	latDistance := geohashGetDistance(x2, y2, x2, y1)
	if lonDistance > widthM/2 || latDistance > heightM/2 {
		return 0, false
	}
	return geohashGetDistance(x1, y1, x2, y2), true
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
