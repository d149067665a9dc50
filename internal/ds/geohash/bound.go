package geohash

import "math"

// Distances with a bound: Distance is exact to Redis's last bit but costs
// seven double-double evaluations of sin, cos and asin (about a
// microsecond); a search mostly needs only to know on which side of a
// radius, or of another point's distance, a distance lies. DistanceBound
// computes the same formula with Go's math functions (a few ulp from the
// correctly rounded value) and returns a bound on its distance from
// Distance's result; a caller that cannot decide within the bound calls
// Distance.

// Bounds of DistanceBound: relative to the distance, plus an absolute
// term for distances so small that u*u would lose bits to underflow.
// Measured (TestDistanceBound): the largest relative difference from
// Distance is below 1e-15; the bound keeps a margin of 1000.
const (
	boundRel = 1e-12
	boundAbs = 1e-9 // meters
)

// boundMaxA is the largest haversine a (the square of the sine of half
// the central angle) DistanceBound estimates: beyond, asin grows steep
// (near antipodal points), and rounding can even push a over 1, where
// Distance returns NaN.
const boundMaxA = 0.5

// boundMaxBeyond is the largest estimated a that can tell a point is
// beyond a limit: near 1, Distance's own a can round above 1, and its
// distance is then NaN, which Redis counts as within any limit.
const boundMaxBeyond = 0.99

// DistanceBound returns an estimate d of Distance(lon1d, lat1d, lon2d,
// lat2d) and err with |Distance(...) - d| <= err; err < 0 means no
// estimate (points about 10,000 km or more apart): call Distance.
func DistanceBound(lon1d, lat1d, lon2d, lat2d float64) (d, err float64) {
	lat1r := geoDegRad(lat1d)
	lon1r := geoDegRad(lon1d)
	lat2r := geoDegRad(lat2d)
	lon2r := geoDegRad(lon2d)
	u := math.Sin((lat2r - lat1r) / 2)
	v := math.Sin((lon2r - lon1r) / 2)
	a := u*u + math.Cos(lat1r)*math.Cos(lat2r)*v*v
	if !(a <= boundMaxA) {
		return 0, -1
	}
	d = 2.0 * EarthRadius * math.Asin(math.Sqrt(a))
	return d, d*boundRel + boundAbs
}

// LonDistanceBound is DistanceBound(lon1d, lat, lon2d, lat): the
// east-west distance along a parallel, the width test of a box search.
func LonDistanceBound(lon1d, lon2d, lat float64) (d, err float64) {
	c := math.Cos(geoDegRad(lat))
	v := math.Sin((geoDegRad(lon2d) - geoDegRad(lon1d)) / 2)
	a := c * c * v * v
	if !(a <= boundMaxA) {
		return 0, -1
	}
	d = 2.0 * EarthRadius * math.Asin(math.Sqrt(a))
	return d, d*boundRel + boundAbs
}

// LatDistanceBound is DistanceBound(lon, lat1d, lon, lat2d): the
// north-south distance along a meridian, the height test of a box search.
func LatDistanceBound(lat1d, lat2d float64) (d, err float64) {
	u := math.Sin((geoDegRad(lat2d) - geoDegRad(lat1d)) / 2)
	a := u * u
	if !(a <= boundMaxA) {
		return 0, -1
	}
	d = 2.0 * EarthRadius * math.Asin(math.Abs(u))
	return d, d*boundRel + boundAbs
}

// Around estimates distances from one centre, for a search that compares
// many points with it: the centre's cosine is computed once, and tests
// against a limit compare haversine values (Limit), so a point decided
// by its estimate costs no asin.
type Around struct {
	lonr, latr, cosLat float64
}

// NewAround returns the estimator for distances from (lon, lat).
func NewAround(lon, lat float64) Around {
	latr := geoDegRad(lat)
	return Around{lonr: geoDegRad(lon), latr: latr, cosLat: math.Cos(latr)}
}

// hav is the haversine a of Distance(centre, (lon, lat)), estimated.
func (c *Around) hav(lon, lat float64) float64 {
	lat2r := geoDegRad(lat)
	u := math.Sin((lat2r - c.latr) / 2)
	v := math.Sin((geoDegRad(lon) - c.lonr) / 2)
	return u*u + c.cosLat*math.Cos(lat2r)*v*v
}

// Distance is DistanceBound(centre, (lon, lat)).
func (c *Around) Distance(lon, lat float64) (d, err float64) {
	return havDistance(c.hav(lon, lat))
}

// Beyond reports whether Distance(centre, (lon, lat)) > l's limit, and
// whether the estimate decides it (when not, the caller computes
// Distance); when it does, d, err is the distance estimate if the
// point is within (the caller's next question).
func (c *Around) Beyond(l *Limit, lon, lat float64) (beyond, decided bool, d, err float64) {
	a := c.hav(lon, lat)
	switch {
	case a > l.hi && a < boundMaxBeyond:
		return true, true, 0, 0
	case a < l.lo:
		d, err = havDistance(a)
		return false, true, d, err
	}
	return false, false, 0, 0
}

// LonBeyond reports whether the east-west distance from (lon, lat) to
// the centre's meridian along the parallel lat (Distance(lon, lat,
// centre lon, lat), the width test of a box) is > l's limit, and whether
// the estimate decides it.
func (c *Around) LonBeyond(l *Limit, lon, lat float64) (beyond, decided bool) {
	cl := math.Cos(geoDegRad(lat))
	v := math.Sin((c.lonr - geoDegRad(lon)) / 2)
	a := cl * cl * v * v
	beyond = a > l.hi && a < boundMaxBeyond
	return beyond, beyond || a < l.lo
}

// LatBeyond reports whether the north-south distance from lat to the
// centre's parallel (Distance(lon, lat, lon, centre lat), the height test
// of a box) is > limit, and whether the estimate decides it: along a
// meridian the haversine distance is R·|Δlatitude| in radians, to a few
// ulp.
func (c *Around) LatBeyond(limit, lat float64) (beyond, decided bool) {
	d := EarthRadius * math.Abs(geoDegRad(lat)-c.latr)
	err := d*boundRel + boundAbs
	return d-err > limit, d-err > limit || d+err <= limit
}

func havDistance(a float64) (d, err float64) {
	if !(a <= boundMaxA) {
		return 0, -1
	}
	d = 2.0 * EarthRadius * math.Asin(math.Sqrt(a))
	return d, d*boundRel + boundAbs
}

// Limit is a distance limit as haversine values: a point whose estimated
// a is below lo is surely within the limit, above hi surely beyond.
type Limit struct{ lo, hi float64 }

// NewLimit returns the Limit of a distance in meters.
func NewLimit(limit float64) Limit {
	x := limit / (2 * EarthRadius)
	if !(x < 1.5) {
		// Near half the circumference or more (or infinite): every point
		// whose a is estimated is within it.
		return Limit{lo: boundMaxA * (1 - havRel), hi: math.Inf(1)}
	}
	s := math.Sin(x)
	at := s * s
	return Limit{lo: min(at*(1-havRel)-havAbs, boundMaxA*(1-havRel)), hi: at*(1+havRel) + havAbs}
}

// Margins of Limit: the estimated a and the exact one differ by a few
// ulp (relative), and so do the limit's a and the exact limit; havAbs
// keeps distances small enough to reach subnormal a out of the decided
// cases.
const (
	havRel = 1e-9
	havAbs = 1e-280
)
