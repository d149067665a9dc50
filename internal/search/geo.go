package search

import (
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/ds/geohash"
)

// GEO fields hold "lon,lat" (or "lon lat"), longitude in [-180, 180] and
// latitude in Redis's GEO range; a radius query keeps the points whose
// distance from the centre (Redis's haversine, internal/ds/geohash, the
// one GEORADIUS uses) is at most the radius.

const geoLatMax = 85.05112878

func parseGeo(s string) (geoPoint, bool) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, ", ")
	if i < 0 {
		return geoPoint{}, false
	}
	lon, err1 := strconv.ParseFloat(strings.TrimSpace(s[:i]), 64)
	lat, err2 := strconv.ParseFloat(strings.TrimSpace(s[i+1:]), 64)
	if err1 != nil || err2 != nil || lon < -180 || lon > 180 || lat < -geoLatMax || lat > geoLatMax {
		return geoPoint{}, false
	}
	return geoPoint{lon, lat, true}, true
}

// geoUnit is the number of meters of a distance unit.
func geoUnit(u string) (float64, bool) {
	switch strings.ToLower(u) {
	case "m":
		return 1, true
	case "km":
		return 1000, true
	case "mi":
		return 1609.34, true
	case "ft":
		return 0.3048, true
	}
	return 0, false
}

// geoScan returns the documents whose point of field fi lies within
// radius meters of (lon, lat), in id order.
func (ix *index) geoScan(fi int, lon, lat, radius float64) []uint32 {
	var out []uint32
	for id, p := range ix.geos[fi] {
		if !p.ok {
			continue
		}
		if geohash.Distance(lon, lat, p.lon, p.lat) <= radius {
			out = append(out, uint32(id))
		}
	}
	return out
}
