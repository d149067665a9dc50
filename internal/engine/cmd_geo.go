package engine

// GEO commands on sorted sets: GEOADD, GEOPOS, GEODIST, GEOHASH,
// GEOSEARCH, GEOSEARCHSTORE, GEORADIUS, GEORADIUSBYMEMBER and their _RO
// forms, ported from Redis 7.0's geo.c. A position is stored as the
// sorted-set score of its member: a 52-bit interleaved geohash (see
// internal/ds/geohash), so a search reads the score ranges of 9 geohash
// areas and keeps the points whose distance passes the shape test.
//
// Speed with Redis's exact replies: Redis's distances need sin, cos and
// asin rounded as glibc rounds them, which geohash.Distance reproduces in
// double-double arithmetic (about a microsecond a distance). A search
// decides each point on an estimate with a proven bound instead
// (geohash.Around: Go's math functions, a few ulp off) and calls Distance
// only when the estimate cannot tell: a point within a hair of the
// border, two distances within a hair of each other in the sort, a
// WITHDIST whose "%.4f" the bound leaves in doubt, and STOREDIST's full
// doubles. The ranges are read with zset.ScoreRange, members are views
// into the set (nothing changes it while the command runs), and a box
// search that neither sorts nor replies distances computes none.

import (
	"slices"
	"sort"
	"strconv"

	"github.com/ordo-db/ordo/internal/ds/geohash"
)

// GEO error replies, exactly as Redis 7.0 writes them.
const (
	ErrGeoUnit         = "ERR unsupported unit provided. please use M, KM, FT, MI"
	ErrGeoRadius       = "ERR need numeric radius"
	ErrGeoRadiusNeg    = "ERR radius cannot be negative"
	ErrGeoWidth        = "ERR need numeric width"
	ErrGeoHeight       = "ERR need numeric height"
	ErrGeoBoxNeg       = "ERR height or width cannot be negative"
	ErrGeoMember       = "ERR could not decode requested zset member"
	ErrGeoCount        = "ERR COUNT must be > 0"
	ErrGeoAnyCount     = "ERR the ANY argument requires COUNT argument"
	ErrGeoStoreOpts    = "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
	ErrGeoSearchStore  = "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
	ErrGeoFromPrefix   = "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for "
	ErrGeoByPrefix     = "ERR exactly one of BYRADIUS and BYBOX can be specified for "
	ErrGeoLonLatPrefix = "ERR invalid longitude,latitude pair "
)

func registerGeo(t *Table) {
	t.register("geoadd", geoaddCommand)
	t.register("geopos", geoposCommand)
	t.register("geodist", geodistCommand)
	t.register("geohash", geohashCommand)
	t.register("georadius", func(c *Ctx) { georadiusGeneric(c, 1, geoRadiusCoords) })
	t.register("georadiusbymember", func(c *Ctx) { georadiusGeneric(c, 1, geoRadiusMember) })
	t.register("georadius_ro", func(c *Ctx) { georadiusGeneric(c, 1, geoRadiusCoords|geoNoStore) })
	t.register("georadiusbymember_ro", func(c *Ctx) { georadiusGeneric(c, 1, geoRadiusMember|geoNoStore) })
	t.register("geosearch", func(c *Ctx) { georadiusGeneric(c, 1, geoSearch) })
	t.register("geosearchstore", func(c *Ctx) { georadiusGeneric(c, 2, geoSearch|geoSearchStore) })
}

// ---- argument helpers ----

// geoLonLatArg parses args[i], args[i+1] as a longitude,latitude pair.
func geoLonLatArg(c *Ctx, i int) (lon, lat float64, ok bool) {
	if lon, ok = parseZFloat(c.Args[i]); !ok {
		c.Error(ErrNotFloat)
		return
	}
	if lat, ok = parseZFloat(c.Args[i+1]); !ok {
		c.Error(ErrNotFloat)
		return
	}
	if lon < geohash.LongMin || lon > geohash.LongMax || lat < geohash.LatMin || lat > geohash.LatMax {
		c.Error(ErrGeoLonLatPrefix + cFormatF6(lon) + "," + cFormatF6(lat))
		return 0, 0, false
	}
	return lon, lat, true
}

// cFormatF6 is C's printf("%f").
func cFormatF6(f float64) string {
	switch {
	case f > 1.7976931348623157e308:
		return "inf"
	case f < -1.7976931348623157e308:
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// geoUnit returns the meters in one unit, or replies with an error.
func geoUnit(c *Ctx, b []byte) (float64, bool) {
	switch {
	case EqualFold(b, "m"):
		return 1, true
	case EqualFold(b, "km"):
		return 1000, true
	case EqualFold(b, "ft"):
		return 0.3048, true
	case EqualFold(b, "mi"):
		return 1609.34, true
	}
	c.Error(ErrGeoUnit)
	return -1, false
}

// geoDistanceArg parses "<radius> <unit>" at args[i].
func geoDistanceArg(c *Ctx, i int) (radius, conversion float64, ok bool) {
	if radius, ok = parseZFloat(c.Args[i]); !ok {
		c.Error(ErrGeoRadius)
		return
	}
	if radius < 0 {
		c.Error(ErrGeoRadiusNeg)
		return 0, 0, false
	}
	conversion, ok = geoUnit(c, c.Args[i+1])
	return
}

// geoBoxArg parses "<width> <height> <unit>" at args[i].
func geoBoxArg(c *Ctx, i int) (width, height, conversion float64, ok bool) {
	if width, ok = parseZFloat(c.Args[i]); !ok {
		c.Error(ErrGeoWidth)
		return
	}
	if height, ok = parseZFloat(c.Args[i+1]); !ok {
		c.Error(ErrGeoHeight)
		return
	}
	if height < 0 || width < 0 {
		c.Error(ErrGeoBoxNeg)
		return 0, 0, 0, false
	}
	conversion, ok = geoUnit(c, c.Args[i+2])
	return
}

// geoMemberPos is the position of member in z.
func geoMemberPos(z *ZSet, member []byte) (lon, lat float64, ok bool) {
	score, ok := z.s.Score(member)
	if !ok {
		return 0, 0, false
	}
	return geohash.DecodeScore(score)
}

// appendGeoDistance is "%.4f" (distances).
func appendGeoDistance(dst []byte, d float64) []byte {
	switch {
	case d > 1.7976931348623157e308:
		return append(dst, "inf"...)
	case d < -1.7976931348623157e308:
		return append(dst, "-inf"...)
	case d != d:
		return append(dst, "nan"...)
	}
	return strconv.AppendFloat(dst, d, 'f', 4, 64)
}

func writeGeoDistance(c *Ctx, d float64) {
	var tmp [64]byte
	c.W.Bulk(appendGeoDistance(tmp[:0], d))
}

// appendHumanDouble is Redis's ld2string(LD_STR_HUMAN) of a double:
// "%.17Lf" with trailing zeros (and a trailing dot) removed, "-0" as "0".
func appendHumanDouble(dst []byte, d float64) []byte {
	start := len(dst)
	switch {
	case d > 1.7976931348623157e308:
		return append(dst, "inf"...)
	case d < -1.7976931348623157e308:
		return append(dst, "-inf"...)
	case d != d:
		return append(dst, "nan"...)
	}
	dst = strconv.AppendFloat(dst, d, 'f', 17, 64)
	j := len(dst)
	for dst[j-1] == '0' {
		j--
	}
	if dst[j-1] == '.' {
		j--
	}
	dst = dst[:j]
	if string(dst[start:]) == "-0" {
		dst = append(dst[:start], '0')
	}
	return dst
}

// writeGeoCoord writes a coordinate as addReplyHumanLongDouble does.
func writeGeoCoord(c *Ctx, d float64) {
	var tmp [400]byte
	b := appendHumanDouble(tmp[:0], d)
	c.W.DoubleText(b)
}

// ---- GEOADD ----

// geoaddCommand turns GEOADD key [NX|XX] [CH] lon lat member ... into
// ZADD key [NX|XX] [CH] score member ... and runs ZADD, as Redis does (the
// ZADD form is also what gets propagated).
func geoaddCommand(c *Ctx) {
	xx, nx := false, false
	longidx := 2
	for ; longidx < len(c.Args); longidx++ {
		switch {
		case c.ArgIs(longidx, "nx"):
			nx = true
		case c.ArgIs(longidx, "xx"):
			xx = true
		case c.ArgIs(longidx, "ch"):
		default:
			goto done
		}
	}
done:
	if (len(c.Args)-longidx)%3 != 0 || (xx && nx) {
		c.Error(ErrSyntax)
		return
	}
	elements := (len(c.Args) - longidx) / 3
	args := make([][]byte, 0, longidx+2*elements)
	args = append(args, []byte("zadd"))
	args = append(args, c.Args[1:longidx]...)
	for i := 0; i < elements; i++ {
		lon, lat, ok := geoLonLatArg(c, longidx+3*i)
		if !ok {
			return
		}
		h, _ := geohash.EncodeWGS84(lon, lat, geohash.StepMax)
		bits := h.Align52Bits()
		args = append(args, strconv.AppendUint(nil, bits, 10), c.Args[longidx+3*i+2])
	}
	c.Args = args
	zaddGeneric(c, false)
}

// ---- GEOPOS, GEODIST, GEOHASH ----

func geoposCommand(c *Ctx) {
	z, ok := zsetRead(c, c.Args[1])
	if !ok {
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, m := range c.Args[2:] {
		if z == nil {
			c.W.NullArray()
			continue
		}
		lon, lat, ok := geoMemberPos(z, m)
		if !ok {
			c.W.NullArray()
			continue
		}
		c.W.Array(2)
		writeGeoCoord(c, lon)
		writeGeoCoord(c, lat)
	}
}

func geodistCommand(c *Ctx) {
	toMeter := 1.0
	if len(c.Args) == 5 {
		var ok bool
		if toMeter, ok = geoUnit(c, c.Args[4]); !ok {
			return
		}
	} else if len(c.Args) > 5 {
		c.Error(ErrSyntax)
		return
	}
	z, ok := zsetRead(c, c.Args[1])
	if !ok {
		return
	}
	if z == nil {
		c.W.Null()
		return
	}
	s1, ok1 := z.s.Score(c.Args[2])
	s2, ok2 := z.s.Score(c.Args[3])
	if !ok1 || !ok2 {
		c.W.Null()
		return
	}
	lon1, lat1, ok1 := geohash.DecodeScore(s1)
	lon2, lat2, ok2 := geohash.DecodeScore(s2)
	if !ok1 || !ok2 {
		c.W.Null()
		return
	}
	writeGeoDistance(c, geohash.Distance(lon1, lat1, lon2, lat2)/toMeter)
}

const geoAlphabet = "0123456789bcdefghjkmnpqrstuvwxyz"

func geohashCommand(c *Ctx) {
	z, ok := zsetRead(c, c.Args[1])
	if !ok {
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, m := range c.Args[2:] {
		if z == nil {
			c.W.Null()
			continue
		}
		score, ok := z.s.Score(m)
		if !ok {
			c.W.Null()
			continue
		}
		lon, lat, ok := geohash.DecodeScore(score)
		if !ok {
			c.W.Null()
			continue
		}
		// Re-encode with the standard latitude range -90..90.
		h, _ := geohash.Encode(geohash.Range{Min: -180, Max: 180}, geohash.Range{Min: -90, Max: 90}, lon, lat, 26)
		var buf [11]byte
		for i := 0; i < 11; i++ {
			idx := 0
			if i < 10 {
				idx = int((h.Bits >> (52 - (uint(i)+1)*5)) & 0x1f)
			}
			buf[i] = geoAlphabet[idx]
		}
		c.W.Bulk(buf[:])
	}
}

// ---- GEORADIUS and GEOSEARCH ----

const (
	geoRadiusCoords = 1 << iota // search around coordinates
	geoRadiusMember             // search around a member
	geoNoStore                  // no STORE/STOREDIST (the _RO forms)
	geoSearch                   // GEOSEARCH arguments
	geoSearchStore              // GEOSEARCHSTORE (STOREDIST flag only)
)

const (
	geoSortNone = iota
	geoSortAsc
	geoSortDesc
)

// geoPoint is a match of a search. Its distance from the centre is kept
// as an estimate dist with a bound err on its distance from Redis's exact
// value (geohash.DistanceBound); err is 0 once dist is exact, and
// negative while no distance is known (a box search that neither sorts
// nor returns distances needs none). member is a view into the sorted
// set, which nothing changes while the command runs.
type geoPoint struct {
	dist, err float64
	score     float64
	member    []byte
	idx       int // order found: equal distances keep it, as Redis's stable sort
}

// geoQuery is one search: the shape, the points found, and whether it
// needs their distances.
type geoQuery struct {
	s        *geohash.Shape
	ga       []geoPoint
	needDist bool // the box search estimates distances (to sort or reply them)
	limit    int  // stop at this many points (ANY), 0 for all

	around geohash.Around // distance estimates from the centre
	lim    geohash.Limit  // the radius, or half the box's width
	halfH  float64        // half the box's height, meters
}

func newGeoQuery(s *geohash.Shape, needDist bool, limit int) *geoQuery {
	g := &geoQuery{s: s, needDist: needDist, limit: limit, around: geohash.NewAround(s.Lon, s.Lat)}
	if s.Box {
		g.lim = geohash.NewLimit(s.Width * s.Conversion / 2)
		g.halfH = s.Height * s.Conversion / 2
	} else {
		g.lim = geohash.NewLimit(s.Radius * s.Conversion)
	}
	return g
}

// exact makes p.dist Redis's distance.
func (g *geoQuery) exact(p *geoPoint) {
	if p.err == 0 {
		return
	}
	lon, lat, _ := geohash.DecodeScore(p.score)
	p.dist = geohash.Distance(g.s.Lon, g.s.Lat, lon, lat)
	p.err = 0
}

// add keeps the point of score if the shape contains it, as Redis's
// geoWithinShape decides: on the estimates where they decide, else on
// Redis's exact distances.
func (g *geoQuery) add(score float64, member []byte) {
	lon, lat, ok := geohash.DecodeScore(score)
	if !ok {
		return
	}
	s := g.s
	p := geoPoint{score: score, member: member, idx: len(g.ga), err: -1}
	if s.Box {
		// geohashGetDistanceIfInRectangle: the east-west distance along
		// the point's parallel (> width/2), then the north-south one
		// along its meridian (> height/2); the cheaper test first, as
		// both must pass.
		beyond, decided := g.around.LatBeyond(g.halfH, lat)
		if !decided {
			beyond = geohash.Distance(lon, lat, lon, s.Lat) > g.halfH
		}
		if beyond {
			return
		}
		beyond, decided = g.around.LonBeyond(&g.lim, lon, lat)
		if !decided {
			beyond = geohash.Distance(lon, lat, s.Lon, lat) > s.Width*s.Conversion/2
		}
		if beyond {
			return
		}
		if g.needDist {
			p.dist, p.err = g.around.Distance(lon, lat)
			if p.err < 0 {
				p.dist, p.err = geohash.Distance(s.Lon, s.Lat, lon, lat), 0
			}
		}
	} else {
		beyond, decided, d, err := g.around.Beyond(&g.lim, lon, lat)
		if !decided {
			d, err = geohash.Distance(s.Lon, s.Lat, lon, lat), 0
			beyond = d > s.Radius*s.Conversion
		}
		if beyond {
			return
		}
		p.dist, p.err = d, err
	}
	if len(g.ga) == cap(g.ga) {
		// Double: append's growth of 1.25 past 256 elements allocates
		// about 4.5 times the final slice for 10,000 matches.
		g.ga = slices.Grow(g.ga, max(len(g.ga), 16))
	}
	g.ga = append(g.ga, p)
}

// full reports whether an ANY search has its points.
func (g *geoQuery) full() bool {
	return g.limit > 0 && len(g.ga) >= g.limit
}

// inRange adds the points of z with min <= score < max that lie in the
// shape, stopping once the search is full.
func (g *geoQuery) inRange(z *ZSet, min, max float64) {
	z.s.ScoreRange(min, max, func(m []byte, score float64) bool {
		g.add(score, m)
		return !g.full()
	})
}

// allNeighbors searches the centre area and its 8 neighbours, as Redis's
// membersOfAllNeighbors.
func (g *geoQuery) allNeighbors(z *ZSet, n *geohash.Radius) {
	neighbors := [9]geohash.Hash{
		n.Hash,
		n.Neighbors.North, n.Neighbors.South, n.Neighbors.East, n.Neighbors.West,
		n.Neighbors.NorthEast, n.Neighbors.NorthWest, n.Neighbors.SouthEast, n.Neighbors.SouthWest,
	}
	lastProcessed := 0
	for i := range neighbors {
		if neighbors[i].IsZero() {
			continue
		}
		// A huge radius can make adjacent neighbours the same area.
		if lastProcessed != 0 && neighbors[i] == neighbors[lastProcessed] {
			continue
		}
		if g.full() {
			break
		}
		min := neighbors[i].Align52Bits()
		h := neighbors[i]
		h.Bits++
		max := h.Align52Bits()
		g.inRange(z, float64(min), float64(max))
		lastProcessed = i
	}
}

// appendDist appends p's distance in units of conversion meters as
// WITHDIST replies it ("%.4f"): from the estimate when both ends of its
// bound print the same, else from the exact distance.
func (g *geoQuery) appendDist(dst []byte, p *geoPoint, conversion float64) []byte {
	if p.err < 0 {
		g.exact(p)
	}
	if p.err > 0 {
		n := len(dst)
		dst = appendGeoDistance(dst, (p.dist-p.err)/conversion)
		hi := appendGeoDistance(dst, (p.dist+p.err)/conversion)
		if string(hi[len(dst):]) == string(dst[n:]) {
			return dst
		}
		dst = dst[:n]
		g.exact(p)
	}
	return appendGeoDistance(dst, p.dist/conversion)
}

func georadiusGeneric(c *Ctx, srcKeyIndex int, flags int) {
	var storekey []byte
	storedist := false

	z, ok := zsetRead(c, c.Args[srcKeyIndex])
	if !ok {
		return
	}

	var shape geohash.Shape
	var baseArgs int
	switch {
	case flags&geoRadiusCoords != 0:
		baseArgs = 6
		if shape.Lon, shape.Lat, ok = geoLonLatArg(c, 2); !ok {
			return
		}
		if shape.Radius, shape.Conversion, ok = geoDistanceArg(c, baseArgs-2); !ok {
			return
		}
	case flags&geoRadiusMember != 0 && z == nil:
		// No source key: parse the options anyway to know which reply to give.
		baseArgs = 5
	case flags&geoRadiusMember != 0:
		baseArgs = 5
		if shape.Lon, shape.Lat, ok = geoMemberPos(z, c.Args[2]); !ok {
			c.Error(ErrGeoMember)
			return
		}
		if shape.Radius, shape.Conversion, ok = geoDistanceArg(c, baseArgs-2); !ok {
			return
		}
	default: // geoSearch
		baseArgs = 2
		if flags&geoSearchStore != 0 {
			baseArgs = 3
			storekey = c.Args[1]
		}
	}

	withdist, withhash, withcoords := false, false, false
	frommember, fromloc, byradius, bybox := false, false, false, false
	sortOrder := geoSortNone
	anyFlag := false
	var count int64
	remaining := len(c.Args) - baseArgs
	for i := 0; i < remaining; i++ {
		j := baseArgs + i
		switch {
		case c.ArgIs(j, "withdist"):
			withdist = true
		case c.ArgIs(j, "withhash"):
			withhash = true
		case c.ArgIs(j, "withcoord"):
			withcoords = true
		case c.ArgIs(j, "any"):
			anyFlag = true
		case c.ArgIs(j, "asc"):
			sortOrder = geoSortAsc
		case c.ArgIs(j, "desc"):
			sortOrder = geoSortDesc
		case c.ArgIs(j, "count") && i+1 < remaining:
			if count, ok = c.IntArg(j + 1); !ok {
				return
			}
			if count <= 0 {
				c.Error(ErrGeoCount)
				return
			}
			i++
		case c.ArgIs(j, "store") && i+1 < remaining && flags&geoNoStore == 0 && flags&geoSearch == 0:
			storekey = c.Args[j+1]
			storedist = false
			i++
		case c.ArgIs(j, "storedist") && i+1 < remaining && flags&geoNoStore == 0 && flags&geoSearch == 0:
			storekey = c.Args[j+1]
			storedist = true
			i++
		case c.ArgIs(j, "storedist") && flags&geoSearch != 0 && flags&geoSearchStore != 0:
			storedist = true
		case c.ArgIs(j, "frommember") && i+1 < remaining && flags&geoSearch != 0 && !fromloc:
			if z == nil {
				frommember = true
				i++
				continue
			}
			if shape.Lon, shape.Lat, ok = geoMemberPos(z, c.Args[j+1]); !ok {
				c.Error(ErrGeoMember)
				return
			}
			frommember = true
			i++
		case c.ArgIs(j, "fromlonlat") && i+2 < remaining && flags&geoSearch != 0 && !frommember:
			if shape.Lon, shape.Lat, ok = geoLonLatArg(c, j+1); !ok {
				return
			}
			fromloc = true
			i += 2
		case c.ArgIs(j, "byradius") && i+2 < remaining && flags&geoSearch != 0 && !bybox:
			if shape.Radius, shape.Conversion, ok = geoDistanceArg(c, j+1); !ok {
				return
			}
			shape.Box = false
			byradius = true
			i += 2
		case c.ArgIs(j, "bybox") && i+3 < remaining && flags&geoSearch != 0 && !byradius:
			if shape.Width, shape.Height, shape.Conversion, ok = geoBoxArg(c, j+1); !ok {
				return
			}
			shape.Box = true
			bybox = true
			i += 3
		default:
			c.Error(ErrSyntax)
			return
		}
	}

	if storekey != nil && (withdist || withhash || withcoords) {
		if flags&geoSearchStore != 0 {
			c.Error(ErrGeoSearchStore)
		} else {
			c.Error(ErrGeoStoreOpts)
		}
		return
	}
	if flags&geoSearch != 0 && !(frommember || fromloc) {
		c.Error(ErrGeoFromPrefix + string(cString(c.Args[0])))
		return
	}
	if flags&geoSearch != 0 && !(byradius || bybox) {
		c.Error(ErrGeoByPrefix + string(cString(c.Args[0])))
		return
	}
	if anyFlag && count == 0 {
		c.Error(ErrGeoAnyCount)
		return
	}

	if z == nil {
		if storekey != nil {
			if c.Delete(storekey) {
				c.Dirty(1)
			}
			c.W.Int(0)
		} else {
			c.W.Array(0)
		}
		return
	}

	// COUNT without an order returns the nearest: sort ascending (not
	// needed with ANY).
	if count != 0 && sortOrder == geoSortNone && !anyFlag {
		sortOrder = geoSortAsc
	}

	areas := geohash.AreasByShape(&shape)
	limit := 0
	if anyFlag {
		limit = int(min(count, int64(z.s.Len())+1))
	}
	g := newGeoQuery(&shape, sortOrder != geoSortNone || withdist || storedist, limit)
	g.allNeighbors(z, &areas)
	ga := g.ga

	if len(ga) == 0 && storekey == nil {
		c.W.Array(0)
		return
	}

	resultLength := len(ga)
	returned := resultLength
	if count != 0 && int64(resultLength) >= count {
		returned = int(count)
	}

	if sortOrder != geoSortNone {
		g.sort(returned, sortOrder == geoSortDesc)
	}

	if storekey == nil {
		optionLength := 0
		if withdist {
			optionLength++
		}
		if withcoords {
			optionLength++
		}
		if withhash {
			optionLength++
		}
		var tmp [64]byte
		c.W.Array(returned)
		for i := 0; i < returned; i++ {
			gp := &ga[i]
			if optionLength > 0 {
				c.W.Array(optionLength + 1)
			}
			c.W.Bulk(gp.member)
			if withdist {
				c.W.Bulk(g.appendDist(tmp[:0], gp, shape.Conversion))
			}
			if withhash {
				c.W.Int(int64(gp.score))
			}
			if withcoords {
				lon, lat, _ := geohash.DecodeScore(gp.score)
				c.W.Array(2)
				writeGeoCoord(c, lon)
				writeGeoCoord(c, lat)
			}
		}
		return
	}

	if returned == 0 {
		if c.Delete(storekey) {
			c.Dirty(1)
		}
		c.W.Int(0)
		return
	}
	maxLen := 0
	for i := 0; i < returned; i++ {
		maxLen = max(maxLen, len(ga[i].member))
	}
	dst := newZSet(zlimits(c), returned, maxLen)
	for i := 0; i < returned; i++ {
		gp := &ga[i]
		score := gp.score
		if storedist {
			g.exact(gp)
			score = gp.dist / shape.Conversion
		}
		// Add copies the member out of the source set before SetKey
		// can replace it (STORE onto the source key).
		dst.s.Add(gp.member, score)
	}
	c.SetKey(storekey, ObjectValue(dst))
	c.Ready(storekey)
	c.Dirty(returned)
	c.W.Int(int64(returned))
}

// sort orders the points by distance as Redis does: a full sort is
// glibc's qsort, a merge sort (stable) for these element sizes, here a
// sort by (distance, order found); a partial one (COUNT smaller than the
// matches) is Redis's pqsort, whose order of equal distances is
// reproduced by porting it. Comparisons decide on the estimates when
// their bounds do not overlap, else on exact distances, so every
// comparison is the one Redis makes.
func (g *geoQuery) sort(returned int, desc bool) {
	cmpDist := func(a, b *geoPoint) int {
		if a.dist+a.err < b.dist-b.err {
			return -1
		}
		if a.dist-a.err > b.dist+b.err {
			return 1
		}
		g.exact(a)
		g.exact(b)
		if a.dist > b.dist {
			return 1
		} else if a.dist == b.dist {
			return 0
		}
		return -1
	}
	ga := g.ga
	if returned == len(ga) {
		sort.Sort(geoByDist{ga, cmpDist, desc})
		return
	}
	if desc {
		pqsort(ga, 0, len(ga), func(a, b *geoPoint) int { return -cmpDist(a, b) }, 0, returned-1)
		return
	}
	pqsort(ga, 0, len(ga), cmpDist, 0, returned-1)
}

// geoByDist sorts points by distance (cmp), then by the order found.
type geoByDist struct {
	ga   []geoPoint
	cmp  func(a, b *geoPoint) int
	desc bool
}

func (s geoByDist) Len() int      { return len(s.ga) }
func (s geoByDist) Swap(i, j int) { s.ga[i], s.ga[j] = s.ga[j], s.ga[i] }
func (s geoByDist) Less(i, j int) bool {
	a, b := &s.ga[i], &s.ga[j]
	r := s.cmp(a, b)
	if s.desc {
		r = -r
	}
	if r == 0 {
		return a.idx < b.idx
	}
	return r < 0
}

// pqsort is Redis's pqsort.c (NetBSD's qsort, Bentley & McIlroy, sorting
// only the partitions that intersect [lrange, rrange]), on indexes. Its
// order of equal elements is its own, which GEOSEARCH ... COUNT and
// SORT ... BY ... LIMIT show.
func pqsort[T any](a []T, base, n int, cmp func(a, b *T) int, lrange, rrange int) {
	swap := func(i, j int) { a[i], a[j] = a[j], a[i] }
	vecswap := func(i, j, k int) {
		for ; k > 0; k-- {
			swap(i, j)
			i++
			j++
		}
	}
	med3 := func(x, y, z int) int {
		if cmp(&a[x], &a[y]) < 0 {
			if cmp(&a[y], &a[z]) < 0 {
				return y
			}
			if cmp(&a[x], &a[z]) < 0 {
				return z
			}
			return x
		}
		if cmp(&a[y], &a[z]) > 0 {
			return y
		}
		if cmp(&a[x], &a[z]) < 0 {
			return x
		}
		return z
	}
	for {
		if n < 7 {
			for pm := base + 1; pm < base+n; pm++ {
				for pl := pm; pl > base && cmp(&a[pl-1], &a[pl]) > 0; pl-- {
					swap(pl, pl-1)
				}
			}
			return
		}
		pm := base + n/2
		if n > 7 {
			pl := base
			pn := base + n - 1
			if n > 40 {
				d := n / 8
				pl = med3(pl, pl+d, pl+2*d)
				pm = med3(pm-d, pm, pm+d)
				pn = med3(pn-2*d, pn-d, pn)
			}
			pm = med3(pl, pm, pn)
		}
		swap(base, pm)
		pa, pb := base+1, base+1
		pc, pd := base+n-1, base+n-1
		for {
			for pb <= pc {
				r := cmp(&a[pb], &a[base])
				if r > 0 {
					break
				}
				if r == 0 {
					swap(pa, pb)
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := cmp(&a[pc], &a[base])
				if r < 0 {
					break
				}
				if r == 0 {
					swap(pc, pd)
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			swap(pb, pc)
			pb++
			pc--
		}
		pn := base + n
		r := min(pa-base, pb-pa)
		vecswap(base, pb-r, r)
		r = min(pd-pc, pn-pd-1)
		vecswap(pb, pn-r, r)
		outside := func(lo, cnt int) bool {
			hi := lo + cnt - 1
			return (lrange < lo && rrange < lo) || (lrange > hi && rrange > hi)
		}
		if r = pb - pa; r > 1 {
			if !outside(base, r) {
				pqsort(a, base, r, cmp, lrange, rrange)
			}
		}
		if r = pd - pc; r > 1 {
			base = pn - r
			n = r
			if !outside(base, n) {
				continue
			}
		}
		return
	}
}
