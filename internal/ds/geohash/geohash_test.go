package geohash

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
)

// Reference values below are Redis 7.0's: GEOADD scores, GEOPOS
// positions, GEOHASH strings and GEOSEARCHSTORE ... STOREDIST distances
// (km) for the same points.
var sicily = []struct {
	name     string
	lon, lat float64 // as given to GEOADD
	score    uint64  // ZSCORE after GEOADD
	posLon   float64 // GEOPOS
	posLat   float64
}{
	{"Palermo", 13.361389, 38.115556, 3479099956230698, 13.36138933897018433, 38.11555639549629859},
	{"Catania", 15.087269, 37.502669, 3479447370796909, 15.08726745843887329, 37.50266842333162032},
	{"SF", -122.4194, 37.7749, 1367859919124626, -122.41940170526504517, 37.77490001056577995},
	{"zero", 0, 0, 3377699720527872, 0.00000268220901489, 0.00000126736058093},
	{"ne", 179.9999, 85.05, 4503599627286694, 179.99990075826644897, 85.04999956172351006},
}

func TestEncodeWGS84(t *testing.T) {
	for _, p := range sicily {
		h, ok := EncodeWGS84(p.lon, p.lat, StepMax)
		if !ok {
			t.Fatalf("%s: not encoded", p.name)
		}
		if h.Step != StepMax {
			t.Fatalf("%s: step %d", p.name, h.Step)
		}
		if got := h.Align52Bits(); got != p.score {
			t.Errorf("%s: score %d, Redis %d", p.name, got, p.score)
		}
	}
}

func TestEncodeRejects(t *testing.T) {
	for _, c := range []struct {
		lon, lat float64
		step     uint8
	}{
		{0, 0, 0}, {0, 0, 33}, {180.1, 0, 26}, {-180.1, 0, 26}, {0, 85.06, 26}, {0, -85.06, 26},
		{math.NaN(), 0, 26},
	} {
		if h, ok := EncodeWGS84(c.lon, c.lat, c.step); ok && !math.IsNaN(c.lon) {
			t.Errorf("EncodeWGS84(%v, %v, %d) = %v, want rejected", c.lon, c.lat, c.step, h)
		}
	}
	if _, ok := Encode(Range{}, Range{Min: -90, Max: 90}, 0, 0, 26); ok {
		t.Error("empty longitude range accepted")
	}
	if _, ok := Decode(wgs84LongRange, wgs84LatRange, Hash{}); ok {
		t.Error("zero hash decoded")
	}
}

func TestDecodeScore(t *testing.T) {
	for _, p := range sicily {
		lon, lat, ok := DecodeScore(float64(p.score))
		// GEOPOS prints %.17f.
		if !ok || strconv.FormatFloat(lon, 'f', 17, 64) != strconv.FormatFloat(p.posLon, 'f', 17, 64) ||
			strconv.FormatFloat(lat, 'f', 17, 64) != strconv.FormatFloat(p.posLat, 'f', 17, 64) {
			t.Errorf("%s: DecodeScore = %v %v %v, Redis %v %v", p.name, lon, lat, ok, p.posLon, p.posLat)
		}
	}
}

// GEOHASH encodes over latitude -90..90; the strings are Redis's.
func TestGeohashStandardRange(t *testing.T) {
	const alphabet = "0123456789bcdefghjkmnpqrstuvwxyz"
	want := map[string]string{"Palermo": "sqc8b49rny0", "Catania": "sqdtr74hyu0", "SF": "9q8yyk8ytp0", "zero": "s0000000000"}
	for _, p := range sicily {
		w, ok := want[p.name]
		if !ok {
			continue
		}
		lon, lat, _ := DecodeScore(float64(p.score))
		h, ok := Encode(Range{Min: -180, Max: 180}, Range{Min: -90, Max: 90}, lon, lat, 26)
		if !ok {
			t.Fatalf("%s: not encoded", p.name)
		}
		var buf [11]byte
		for i := range buf {
			idx := 0
			if i < 10 {
				idx = int((h.Bits >> (52 - (uint(i)+1)*5)) & 0x1f)
			}
			buf[i] = alphabet[idx]
		}
		if string(buf[:]) != w {
			t.Errorf("%s: %s, Redis %s", p.name, buf[:], w)
		}
	}
}

func TestInterleaveRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 10000; i++ {
		x, y := r.Uint32(), r.Uint32()
		v := interleave64(x, y)
		if got := deinterleave64(v); got != uint64(x)|uint64(y)<<32 {
			t.Fatalf("deinterleave64(interleave64(%#x, %#x)) = %#x", x, y, got)
		}
		if v&0x5555555555555555 != interleave64(x, 0) || v&0xaaaaaaaaaaaaaaaa != interleave64(0, y) {
			t.Fatalf("interleave64(%#x, %#x) = %#x: bits not in place", x, y, v)
		}
	}
}

// The area of an encoded point contains it, and decoding then encoding
// the centre gives the same hash, at every step.
func TestEncodeDecode(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 20000; i++ {
		lon := LongMin + r.Float64()*(LongMax-LongMin)
		lat := LatMin + r.Float64()*(LatMax-LatMin)
		step := uint8(1 + r.Intn(StepMax))
		h, ok := EncodeWGS84(lon, lat, step)
		if !ok {
			t.Fatalf("EncodeWGS84(%v, %v, %d) rejected", lon, lat, step)
		}
		a, ok := DecodeWGS84(h)
		if !ok || a.Hash != h {
			t.Fatalf("DecodeWGS84(%v) = %v, %v", h, a, ok)
		}
		const eps = 1e-9
		if lon < a.Longitude.Min-eps || lon > a.Longitude.Max+eps || lat < a.Latitude.Min-eps || lat > a.Latitude.Max+eps {
			t.Fatalf("(%v, %v) step %d outside its area %+v", lon, lat, step, a)
		}
		clon, clat, _ := DecodeToLongLat(h)
		if h2, _ := EncodeWGS84(clon, clat, step); h2 != h {
			t.Fatalf("centre of %v encodes to %v", h, h2)
		}
	}
}

func TestNeighbors(t *testing.T) {
	h, _ := EncodeWGS84(13.361389, 38.115556, 20)
	n := NeighborsOf(h)
	area, _ := DecodeWGS84(h)
	dec := func(name string, b Hash) Area {
		t.Helper()
		a, ok := DecodeWGS84(b)
		if !ok || b.Step != h.Step {
			t.Fatalf("%s neighbour %v not decodable", name, b)
		}
		return a
	}
	same := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	check := func(name string, b Hash, dx, dy int) {
		t.Helper()
		a := dec(name, b)
		wlon := area.Longitude.Min + float64(dx)*(area.Longitude.Max-area.Longitude.Min)
		wlat := area.Latitude.Min + float64(dy)*(area.Latitude.Max-area.Latitude.Min)
		if !same(a.Longitude.Min, wlon) || !same(a.Latitude.Min, wlat) {
			t.Errorf("%s: area %+v, want corner (%v, %v)", name, a, wlon, wlat)
		}
	}
	check("north", n.North, 0, 1)
	check("south", n.South, 0, -1)
	check("east", n.East, 1, 0)
	check("west", n.West, -1, 0)
	check("northEast", n.NorthEast, 1, 1)
	check("northWest", n.NorthWest, -1, 1)
	check("southEast", n.SouthEast, 1, -1)
	check("southWest", n.SouthWest, -1, -1)

	// Moving there and back is the identity, wrapping at the edges.
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 5000; i++ {
		b := Hash{Step: uint8(1 + r.Intn(StepMax))}
		b.Bits = r.Uint64() & (1<<(2*uint(b.Step)) - 1)
		for _, d := range [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			m := b
			moveX(&m, d[0])
			moveY(&m, d[1])
			moveX(&m, -d[0])
			moveY(&m, -d[1])
			if m != b {
				t.Fatalf("move %v and back: %v -> %v", d, b, m)
			}
		}
	}
}

func TestEstimateSteps(t *testing.T) {
	for _, c := range []struct {
		meters, lat float64
		want        uint8
	}{
		{0, 0, 26}, {1, 0, 24}, {1000, 0, 14}, {5000, 70, 10}, {5000, 85, 9}, {1e8, 0, 1},
	} {
		if got := estimateStepsByRadius(c.meters, c.lat); got != c.want {
			t.Errorf("estimateStepsByRadius(%v, %v) = %d, want %d", c.meters, c.lat, got, c.want)
		}
	}
}

// Distances between the stored positions, as GEOSEARCHSTORE ... STOREDIST
// stores them in km (full precision).
func TestDistance(t *testing.T) {
	pos := map[string][2]float64{}
	for _, p := range sicily {
		lon, lat, _ := DecodeScore(float64(p.score))
		pos[p.name] = [2]float64{lon, lat}
	}
	for _, c := range []struct {
		from, to string
		km       float64
	}{
		{"Palermo", "Palermo", 0},
		{"Palermo", "Catania", 166.27415156960032},
		{"Palermo", "zero", 4454.7330204170848},
		{"Palermo", "ne", 6307.4851050691432},
		{"Palermo", "SF", 10441.392827408139},
	} {
		a, b := pos[c.from], pos[c.to]
		if got := Distance(a[0], a[1], b[0], b[1]) / 1000; got != c.km {
			t.Errorf("%s-%s: %v km, Redis %v", c.from, c.to, got, c.km)
		}
	}
	for _, c := range []struct {
		to string
		km float64
	}{{"zero", 1141.4108296385407}, {"Catania", 5524.7881267510038}, {"Palermo", 5543.2897025937946}, {"ne", 11700.985449554957}, {"SF", 13583.061119596236}} {
		b := pos[c.to]
		if got := Distance(0.5, -10.25, b[0], b[1]) / 1000; got != c.km {
			t.Errorf("(0.5,-10.25)-%s: %v km, Redis %v", c.to, got, c.km)
		}
	}
}

func TestDistanceIfInRectangle(t *testing.T) {
	// 400x400 km box around (15, 37): Catania and Palermo are inside.
	for _, c := range []struct {
		lon, lat float64
		in       bool
	}{{15.087269, 37.502669, true}, {13.361389, 38.115556, true}, {15, 39, false}, {12.5, 37, false}, {15, 37, true}} {
		d, ok := DistanceIfInRectangle(400000, 400000, 15, 37, c.lon, c.lat)
		if ok != c.in {
			t.Errorf("(%v, %v): in=%v, want %v", c.lon, c.lat, ok, c.in)
		}
		if ok && d != Distance(15, 37, c.lon, c.lat) {
			t.Errorf("(%v, %v): distance %v", c.lon, c.lat, d)
		}
	}
}

// Every point within the radius lies in one of the areas AreasByShape
// returns (the property the GEO search relies on).
func TestAreasByShapeCover(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for i := 0; i < 300; i++ {
		s := Shape{Lon: -170 + r.Float64()*340, Lat: -80 + r.Float64()*160, Conversion: 1000}
		if r.Intn(2) == 0 {
			s.Radius = math.Exp(r.Float64() * 8)
		} else {
			s.Box, s.Width, s.Height = true, math.Exp(r.Float64()*8), math.Exp(r.Float64()*8)
		}
		areas := AreasByShape(&s)
		cells := []Hash{areas.Hash, areas.Neighbors.North, areas.Neighbors.South, areas.Neighbors.East, areas.Neighbors.West,
			areas.Neighbors.NorthEast, areas.Neighbors.NorthWest, areas.Neighbors.SouthEast, areas.Neighbors.SouthWest}
		for j := 0; j < 200; j++ {
			lon := s.Lon + (r.Float64()*2-1)*20
			lat := s.Lat + (r.Float64()*2-1)*20
			h, ok := EncodeWGS84(lon, lat, StepMax)
			if !ok {
				continue
			}
			dlon, dlat, _ := DecodeScore(float64(h.Align52Bits()))
			var in bool
			if s.Box {
				_, in = DistanceIfInRectangle(s.Width*s.Conversion, s.Height*s.Conversion, s.Lon, s.Lat, dlon, dlat)
			} else {
				in = Distance(s.Lon, s.Lat, dlon, dlat) <= s.Radius*s.Conversion
			}
			if !in {
				continue
			}
			score := h.Align52Bits()
			covered := false
			for _, c := range cells {
				if c.IsZero() {
					continue
				}
				hi := c
				hi.Bits++
				if score >= c.Align52Bits() && score < hi.Align52Bits() {
					covered = true
					break
				}
			}
			if !covered {
				t.Fatalf("shape %+v: (%v, %v) within it but in none of the areas", s, dlon, dlat)
			}
		}
	}
}

// The double-double sin, cos and asin agree with math's to within a few
// ulps (math.Asin is itself a couple of ulps off at times, and more next
// to ±1, where the differential GEO tests against Redis cover asin).
func TestCorrectlyRounded(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	ulps := func(a, b float64) float64 {
		if a == b {
			return 0
		}
		return math.Abs(a-b) / math.Abs(math.Nextafter(b, math.Inf(1))-b)
	}
	for i := 0; i < 20000; i++ {
		x := (r.Float64()*2 - 1) * 10
		if u := ulps(geoCrSin(x), math.Sin(x)); u > 1 {
			t.Fatalf("sin(%v): %v vs %v", x, geoCrSin(x), math.Sin(x))
		}
		if u := ulps(geoCrCos(x), math.Cos(x)); u > 1 {
			t.Fatalf("cos(%v): %v vs %v", x, geoCrCos(x), math.Cos(x))
		}
		y := (r.Float64()*2 - 1) * 0.9
		if u := ulps(geoCrAsin(y), math.Asin(y)); u > 4 {
			t.Fatalf("asin(%v): %v vs %v", y, geoCrAsin(y), math.Asin(y))
		}
	}
}
