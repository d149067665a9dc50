package engine_test

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// geoRun sends each space-separated command to both servers and compares
// the raw replies.
func geoRun(d *redistest.Diff, cmds ...string) {
	for _, c := range cmds {
		d.Do(strings.Fields(c)...)
	}
}

// geoBoth runs setup and cmds in RESP2 and then in RESP3.
func geoBoth(d *redistest.Diff, setup, cmds []string) {
	for _, proto := range []string{"2", "3"} {
		d.Both("FLUSHALL")
		d.Both("HELLO", proto)
		for _, s := range setup {
			d.Both(strings.Fields(s)...)
		}
		geoRun(d, cmds...)
	}
	d.Both("HELLO", "2")
}

func ff(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

var geoSicily = []string{
	"GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania",
	"GEOADD Sicily 12.758489 38.788135 edge1 17.241510 38.788135 edge2 14.0 37.0 mid",
}

func TestGeoAdd(t *testing.T) {
	d := redistest.NewDiff(t)
	geoBoth(d, nil, []string{
		"GEOADD g 13.361389 38.115556 Palermo", "GEOADD g 13.361389 38.115556 Palermo",
		"GEOADD g CH 13.361389 38.115556 Palermo 15.087269 37.502669 Catania",
		"GEOADD g CH 13.4 38.1 Palermo", "GEOADD g NX 1 1 Palermo 2 2 x", "GEOADD g XX 3 3 x 4 4 y",
		"GEOADD g XX CH 5 5 x 6 6 nosuch", "GEOADD g NX CH 1 1 Palermo 7 7 z",
		"GEOADD g NX XX 1 1 a", "GEOADD g GT 1 1 a", "GEOADD g CH CH CH", "GEOADD g 1 1 a 2",
		"GEOADD g 1 1", "GEOADD g 1", "GEOADD g", "GEOADD g x 1 a", "GEOADD g 1 y a", "GEOADD g nan 1 a",
		"GEOADD g 200 10 a", "GEOADD g 10 86 a", "GEOADD g -180.000001 0 a", "GEOADD g inf 1 a",
		"GEOADD g 1 -inf a", "GEOADD g 1e300 1 a", "GEOADD g 1 1 ok 500 2 bad", "EXISTS ok",
		"GEOADD g 180 85.05112878 max -180 -85.05112878 min 0 0 zero -0 -0 negzero",
		"GEOADD g 0x10 0x1 hex", "GEOADD g ' 1' 1 sp", "GEOADD g 1e1 1e-1 exp",
		"ZRANGE g 0 -1 WITHSCORES", "OBJECT ENCODING g",
		"SET s x", "GEOADD s 1 1 a", "GEOADD s 1000 1 a",
		"GEOADD nokey XX 1 1 a", "EXISTS nokey",
	})
}

func TestGeoPosDistHash(t *testing.T) {
	d := redistest.NewDiff(t)
	setup := append([]string{
		"ZADD raw -1 neg 0 zero 1e300 huge inf pinf -inf ninf 4503599627370496 two52 9007199254740993 big 123.75 frac",
		"SET s x",
	}, geoSicily...)
	geoBoth(d, setup, []string{
		"GEOPOS Sicily Palermo Catania nosuch edge1 edge2 mid", "GEOPOS Sicily", "GEOPOS nokey a b", "GEOPOS s a",
		"GEOPOS raw neg zero huge pinf ninf two52 big frac",
		"GEODIST Sicily Palermo Catania", "GEODIST Sicily Palermo Catania m", "GEODIST Sicily Palermo Catania KM",
		"GEODIST Sicily Palermo Catania ft", "GEODIST Sicily Palermo Catania Mi", "GEODIST Sicily Palermo Catania yd",
		"GEODIST Sicily Palermo Catania km extra", "GEODIST Sicily Palermo nosuch", "GEODIST Sicily nosuch Palermo km",
		"GEODIST nokey a b", "GEODIST nokey a b xx", "GEODIST s a b", "GEODIST s a b zz", "GEODIST Sicily Palermo Palermo",
		"GEODIST Sicily a", "GEODIST raw neg huge", "GEODIST raw zero two52 km",
		"GEOHASH Sicily Palermo Catania nosuch edge1 edge2 mid", "GEOHASH Sicily", "GEOHASH nokey a", "GEOHASH s a",
		"GEOHASH raw zero two52 frac",
	})
}

func TestGeoSearchErrors(t *testing.T) {
	d := redistest.NewDiff(t)
	setup := append([]string{"SET s x"}, geoSicily...)
	geoBoth(d, setup, []string{
		// GEORADIUS
		"GEORADIUS Sicily 15 37 200 km", "GEORADIUS Sicily 15 37 200 km WITHDIST WITHCOORD WITHHASH ASC",
		"GEORADIUS Sicily 15 37 200", "GEORADIUS Sicily 15 37 x km", "GEORADIUS Sicily 15 37 -1 km",
		"GEORADIUS Sicily 15 37 1 kms", "GEORADIUS Sicily x 37 1 km", "GEORADIUS Sicily 15 95 1 km",
		"GEORADIUS Sicily 15 37 200 km COUNT", "GEORADIUS Sicily 15 37 200 km COUNT 0",
		"GEORADIUS Sicily 15 37 200 km COUNT -1", "GEORADIUS Sicily 15 37 200 km COUNT x",
		"GEORADIUS Sicily 15 37 200 km ANY", "GEORADIUS Sicily 15 37 200 km COUNT 1 ANY",
		"GEORADIUS Sicily 15 37 200 km FOO", "GEORADIUS Sicily 15 37 200 km STORE",
		"GEORADIUS Sicily 15 37 200 km STORE d WITHDIST", "GEORADIUS Sicily 15 37 200 km STOREDIST d WITHHASH",
		"GEORADIUS Sicily 15 37 200 km FROMMEMBER Palermo", "GEORADIUS Sicily 15 37 200 km BYRADIUS 1 km",
		"GEORADIUS s 15 37 200 km", "GEORADIUS nokey 15 37 200 km", "GEORADIUS nokey 15 37 -2 km",
		"GEORADIUS nokey 15 37 200 km STORE d", "GEORADIUS s 500 37 200 km",
		"GEORADIUS_RO Sicily 15 37 200 km STORE d", "GEORADIUS_RO Sicily 15 37 200 km STOREDIST d",
		"GEORADIUS_RO Sicily 15 37 200 km DESC",
		// GEORADIUSBYMEMBER
		"GEORADIUSBYMEMBER Sicily Palermo 200 km", "GEORADIUSBYMEMBER Sicily nosuch 200 km",
		"GEORADIUSBYMEMBER Sicily Palermo x km", "GEORADIUSBYMEMBER Sicily nosuch x km",
		"GEORADIUSBYMEMBER nokey nosuch x kmm", "GEORADIUSBYMEMBER nokey nosuch 1 km STORE d",
		"GEORADIUSBYMEMBER nokey nosuch 1 km WITHDIST STORE d", "GEORADIUSBYMEMBER nokey a 1 km COUNT 0",
		"GEORADIUSBYMEMBER s a 1 km", "GEORADIUSBYMEMBER_RO Sicily Palermo 200 km STORE d",
		"GEORADIUSBYMEMBER_RO Sicily Palermo 200 km WITHDIST",
		// GEOSEARCH
		"GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 200 km", "GEOSEARCH Sicily BYRADIUS 200 km ASC",
		"GEOSEARCH Sicily FROMLONLAT 15 37 ASC", "geoSearch Sicily FROMLONLAT 15 37 count 2",
		"GeoSearch Sicily BYBOX 1 1 km COUNT 2",
		"GEOSEARCH Sicily FROMMEMBER Palermo FROMLONLAT 15 37 BYRADIUS 1 km",
		"GEOSEARCH Sicily FROMLONLAT 15 37 FROMMEMBER Palermo BYRADIUS 1 km",
		"GEOSEARCH Sicily FROMMEMBER Palermo FROMMEMBER Catania BYRADIUS 100 km",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km BYBOX 1 1 km",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1 km BYRADIUS 1 km",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km BYRADIUS 300 km",
		"GEOSEARCH Sicily FROMMEMBER nosuch BYRADIUS 1 km", "GEOSEARCH Sicily FROMMEMBER",
		"GEOSEARCH Sicily FROMLONLAT 15 BYRADIUS 1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX x 1 km",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 x km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX -1 1 km",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 -1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1 yd",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS nan km", "GEOSEARCH Sicily FROMLONLAT 200 37 BYRADIUS 1 km",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km STORE d", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km STOREDIST",
		"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km ANY", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km COUNT 0 ANY",
		"GEOSEARCH s FROMLONLAT 15 37 BYRADIUS 1 km", "GEOSEARCH nokey FROMMEMBER x BYRADIUS 1 km",
		"GEOSEARCH nokey FROMMEMBER x", "GEOSEARCH nokey BYBOX 1 1 km FROMLONLAT 500 1",
		"GEOSEARCH nokey FROMMEMBER x BYRADIUS 1 km WITHDIST ANY",
		// GEOSEARCHSTORE
		"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km", "ZRANGE d 0 -1 WITHSCORES",
		"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km STOREDIST", "ZRANGE d 0 -1 WITHSCORES",
		"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km WITHDIST",
		"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km STORE x",
		"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 1 m", "EXISTS d",
		"GEOSEARCHSTORE s Sicily FROMLONLAT 15 37 BYRADIUS 200 km", "TYPE s",
		"GEOSEARCHSTORE d s FROMLONLAT 15 37 BYRADIUS 200 km", "SET d x",
		"GEOSEARCHSTORE d nokey FROMLONLAT 15 37 BYRADIUS 200 km", "EXISTS d",
		"GEOSEARCHSTORE d Sicily BYRADIUS 200 km", "GEOSEARCHSTORE d Sicily FROMMEMBER Palermo",
		// STORE forms of GEORADIUS
		"GEORADIUS Sicily 15 37 200 km STORE d2 COUNT 2", "ZRANGE d2 0 -1 WITHSCORES",
		"GEORADIUS Sicily 15 37 200 km STOREDIST d2 DESC", "ZRANGE d2 0 -1 WITHSCORES", "OBJECT ENCODING d2",
		"GEORADIUSBYMEMBER Sicily Palermo 500 km STORE d3 STOREDIST d4", "EXISTS d3", "ZRANGE d4 0 -1 WITHSCORES",
		"EXPIRE d4 100", "GEORADIUSBYMEMBER Sicily Palermo 500 km STORE d4", "TTL d4",
		"GEORADIUS Sicily 0 0 1 m STORE d4", "EXISTS d4",
	})
}

// TestGeoSearchShapes checks the reply shapes of every option combination
// in RESP2 and RESP3.
func TestGeoSearchShapes(t *testing.T) {
	d := redistest.NewDiff(t)
	var cmds []string
	opts := []string{"", "WITHDIST", "WITHHASH", "WITHCOORD", "WITHDIST WITHHASH", "WITHCOORD WITHDIST WITHHASH", "WITHHASH WITHCOORD"}
	for _, o := range opts {
		for _, tail := range []string{"", "ASC", "DESC", "COUNT 2", "COUNT 2 DESC", "COUNT 3 ANY", "COUNT 1 ANY ASC"} {
			cmds = append(cmds,
				"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 300 km "+o+" "+tail,
				"GEOSEARCH Sicily FROMMEMBER mid BYBOX 400 400 km "+o+" "+tail,
				"GEORADIUS Sicily 15 37 300000 m "+o+" "+tail,
				"GEORADIUSBYMEMBER_RO Sicily Palermo 150 mi "+o+" "+tail,
			)
		}
	}
	cmds = append(cmds, "GEORADIUS Sicily 15 37 300 ft WITHDIST", "GEOSEARCH Sicily FROMLONLAT 0 0 BYBOX 1 1 m WITHCOORD")
	geoBoth(d, geoSicily, cmds)
}

type geoPt struct {
	name     string
	lon, lat float64
}

// geoLoad adds the points to key on both servers, in batches.
func geoLoad(d *redistest.Diff, key string, pts []geoPt) {
	for i := 0; i < len(pts); i += 100 {
		args := []string{"GEOADD", key}
		for _, p := range pts[i:min(i+100, len(pts))] {
			args = append(args, ff(p.lon), ff(p.lat), p.name)
		}
		d.Do(args...)
	}
}

func randLon(r *rand.Rand, c, spread float64) float64 {
	return math.Max(-180, math.Min(180, c+(r.Float64()*2-1)*spread))
}

func randLat(r *rand.Rand, c, spread float64) float64 {
	return math.Max(-85.05112878, math.Min(85.05112878, c+(r.Float64()*2-1)*spread))
}

// TestGeoSearchRandom compares searches over random points, radii and
// boxes, in both encodings, everywhere on the globe (poles, the
// antimeridian, huge radii), with every ordering option.
func TestGeoSearchRandom(t *testing.T) {
	d := redistest.NewDiff(t)
	seed := uint64(7)
	if v, err := strconv.ParseUint(os.Getenv("GEO_SEED"), 10, 64); err == nil {
		seed = v // GEO_SEED=n explores other random cases
	}
	t.Logf("GEO_SEED=%d", seed)
	r := rand.New(rand.NewPCG(seed, 11))
	type cluster struct{ lon, lat, spread float64 }
	clusters := []cluster{
		{13.4, 38.1, 2}, {0, 0, 1}, {179.5, 10, 1}, {-179.5, -10, 1}, {0, 84, 1}, {20, -84, 1},
		{-74, 40.7, 0.05}, {100, 60, 30}, {0, 0, 180},
	}
	var small, big []geoPt
	for i := 0; i < 100; i++ {
		c := clusters[i%len(clusters)]
		small = append(small, geoPt{"s" + strconv.Itoa(i), randLon(r, c.lon, c.spread), randLat(r, c.lat, c.spread)})
	}
	for i := 0; i < 3000; i++ {
		c := clusters[i%len(clusters)]
		big = append(big, geoPt{"b" + strconv.Itoa(i), randLon(r, c.lon, c.spread), randLat(r, c.lat, c.spread)})
	}
	// Points at the same place (ties in distance) and exact duplicates.
	for i := 0; i < 20; i++ {
		p := geoPt{"dup" + strconv.Itoa(i), 13.5, 38.2}
		if i%2 == 1 {
			p.lon, p.lat = 13.5+float64(i)*1e-7, 38.2
		}
		big = append(big, p)
		small = append(small, p)
	}
	geoLoad(d, "small", small)
	geoLoad(d, "big", big)
	d.Do("OBJECT", "ENCODING", "small")
	d.Do("OBJECT", "ENCODING", "big")

	units := []string{"m", "km", "ft", "mi"}
	toMeters := map[string]float64{"m": 1, "km": 1000, "ft": 0.3048, "mi": 1609.34}
	for iter := 0; iter < 600; iter++ {
		key := "big"
		pts := big
		if iter%3 == 0 {
			key, pts = "small", small
		}
		c := clusters[r.IntN(len(clusters))]
		var from []string
		var cmd []string
		p := pts[r.IntN(len(pts))]
		if r.IntN(3) == 0 {
			from = []string{"FROMMEMBER", p.name}
		} else {
			from = []string{"FROMLONLAT", ff(randLon(r, c.lon, c.spread)), ff(randLat(r, c.lat, c.spread))}
		}
		unit := units[r.IntN(len(units))]
		meters := math.Pow(10, 1+r.Float64()*6.5) // 10 m .. 30000 km
		if r.IntN(20) == 0 {
			meters = 0
		}
		dist := strconv.FormatFloat(meters/toMeters[unit], 'f', 3, 64)
		box := r.IntN(2) == 0
		var by []string
		if box {
			h := strconv.FormatFloat(meters/toMeters[unit]*(0.2+r.Float64()*2), 'f', 3, 64)
			by = []string{"BYBOX", dist, h, unit}
		} else {
			by = []string{"BYRADIUS", dist, unit}
		}
		var opts []string
		if r.IntN(2) == 0 {
			opts = append(opts, "WITHDIST")
		}
		if r.IntN(3) == 0 {
			opts = append(opts, "WITHCOORD")
		}
		if r.IntN(3) == 0 {
			opts = append(opts, "WITHHASH")
		}
		switch r.IntN(4) {
		case 1:
			opts = append(opts, "ASC")
		case 2:
			opts = append(opts, "DESC")
		}
		if r.IntN(2) == 0 {
			opts = append(opts, "COUNT", strconv.Itoa(1+r.IntN(30)))
			if r.IntN(4) == 0 {
				opts = append(opts, "ANY")
			}
		}
		switch iter % 4 {
		case 0, 1:
			cmd = append(append(append([]string{"GEOSEARCH", key}, from...), by...), opts...)
		case 2:
			if box {
				cmd = append(append(append([]string{"GEOSEARCH", key}, from...), by...), opts...)
			} else if from[0] == "FROMMEMBER" {
				cmd = append(append([]string{"GEORADIUSBYMEMBER", key, from[1]}, by[1:]...), opts...)
			} else {
				cmd = append(append([]string{"GEORADIUS", key, from[1], from[2]}, by[1:]...), opts...)
			}
		case 3:
			var store []string
			for _, o := range opts {
				if !strings.HasPrefix(o, "WITH") {
					store = append(store, o)
				}
			}
			storedist := r.IntN(2) == 0
			if storedist {
				store = append(store, "STOREDIST")
			}
			cmd = append(append(append([]string{"GEOSEARCHSTORE", "dst", key}, from...), by...), store...)
			d.Do(cmd...)
			if storedist {
				geoCheckDistances(t, d, "dst")
			} else {
				d.Do("ZRANGE", "dst", "0", "-1", "WITHSCORES")
			}
			continue
		}
		d.Do(cmd...)
	}
}

// TestGeoSearchBorder puts the radius at a member's exact printed
// distance and a hair either side, so that members on the border are
// included or excluded exactly as Redis decides.
func TestGeoSearchBorder(t *testing.T) {
	d := redistest.NewDiff(t)
	r := rand.New(rand.NewPCG(3, 5))
	var pts []geoPt
	for i := 0; i < 400; i++ {
		pts = append(pts, geoPt{"p" + strconv.Itoa(i), randLon(r, 2.35, 0.5), randLat(r, 48.85, 0.5)})
	}
	geoLoad(d, "paris", pts)
	for iter := 0; iter < 60; iter++ {
		center := pts[r.IntN(len(pts))]
		other := pts[r.IntN(len(pts))]
		v := d.Do("GEODIST", "paris", center.name, other.name)
		dm, err := strconv.ParseFloat(v.Str, 64)
		if err != nil {
			t.Fatalf("GEODIST: %v", v)
		}
		for _, delta := range []float64{-0.0001, 0, 0.0001, 0.00005} {
			rad := strconv.FormatFloat(dm+delta, 'f', 5, 64)
			d.Do("GEOSEARCH", "paris", "FROMMEMBER", center.name, "BYRADIUS", rad, "m", "WITHDIST", "ASC")
			d.Do("GEOSEARCH", "paris", "FROMMEMBER", center.name, "BYBOX", rad, rad, "m", "DESC", "COUNT", "7")
			d.Do("GEORADIUS", "paris", ff(center.lon), ff(center.lat), rad, "m", "ASC")
		}
	}
}

// TestGeoRESP3 checks GEOPOS/GEODIST/GEOSEARCH reply types after HELLO 3
// (coordinates as RESP3 doubles, distances as bulk strings).
func TestGeoRESP3(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Both("HELLO", "3")
	defer d.Both("HELLO", "2")
	geoRun(d, geoSicily...)
	v := d.Do("GEOPOS", "Sicily", "Palermo", "nosuch")
	if len(v.Elems) != 2 || v.Elems[1].Kind != resp.KindNull || len(v.Elems[0].Elems) != 2 || v.Elems[0].Elems[0].Kind != resp.KindDouble {
		t.Fatalf("GEOPOS in RESP3: %s", redistest.Canonical(v, false))
	}
	d.Do("GEODIST", "Sicily", "Palermo", "nosuch")
	d.Do("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "WITHCOORD", "WITHDIST", "WITHHASH")
}

// TestGeoAddPropagation checks that GEOADD is applied through ZADD: the
// scores are the 52-bit geohashes, and MULTI/EXEC with GEO works.
func TestGeoInTransaction(t *testing.T) {
	d := redistest.NewDiff(t)
	geoRun(d, "MULTI", "GEOADD g 1 2 a 3 4 b", "GEOSEARCH g FROMLONLAT 2 3 BYRADIUS 500 km ASC WITHDIST",
		"GEORADIUS g 2 3 500 km STORE d", "GEOPOS d a", "EXEC", "ZSCORE g a", "ZSCORE d b")
}

// geoCheckDistances compares a STOREDIST result: the same members in the
// same order, and distances equal to the last bit or, where glibc's sin,
// cos or asin are not correctly rounded (about 0.1% of arguments, see
// internal/ds/geohash), within a few ulps.
func geoCheckDistances(t *testing.T, d *redistest.Diff, key string) {
	t.Helper()
	want, _, _ := resp.ParseReply(d.Redis.DoRaw("ZRANGE", key, "0", "-1", "WITHSCORES"))
	got, _, _ := resp.ParseReply(d.Ordo.DoRaw("ZRANGE", key, "0", "-1", "WITHSCORES"))
	if len(want.Elems) != len(got.Elems) {
		t.Fatalf("ZRANGE %s: redis %d elements, ordo %d", key, len(want.Elems), len(got.Elems))
	}
	for i := 0; i < len(want.Elems); i += 2 {
		if want.Elems[i].Str != got.Elems[i].Str {
			t.Fatalf("ZRANGE %s [%d]: redis %q, ordo %q", key, i, want.Elems[i].Str, got.Elems[i].Str)
		}
		w, _ := strconv.ParseFloat(want.Elems[i+1].Str, 64)
		g, _ := strconv.ParseFloat(got.Elems[i+1].Str, 64)
		if w != g {
			if math.Abs(w-g) > 4*math.Abs(math.Nextafter(w, math.Inf(1))-w) {
				t.Fatalf("ZRANGE %s %q: redis %v, ordo %v", key, want.Elems[i].Str, w, g)
			}
			t.Logf("ZRANGE %s %q: redis %v, ordo %v (last-bit difference)", key, want.Elems[i].Str, w, g)
		}
	}
}

// TestGeoSearchStoreOntoSource stores a search's result onto its own
// source key (the replies point into the source set until the new one
// replaces it), in both encodings, and searches a large set with many
// points at the same distance (ties in the sort, full and COUNT).
func TestGeoSearchStoreOntoSource(t *testing.T) {
	d := redistest.NewDiff(t)
	var big []geoPt
	for i := 0; i < 400; i++ {
		big = append(big, geoPt{"g" + strconv.Itoa(i), 13 + float64(i%20)*0.01, 38 + float64(i/20)*0.01})
	}
	// Mirror images about (13.1, 38.1): equal distances.
	for i := 0; i < 30; i++ {
		off := float64(i+1) * 0.003
		big = append(big, geoPt{"e" + strconv.Itoa(i), 13.1 + off, 38.1}, geoPt{"w" + strconv.Itoa(i), 13.1 - off, 38.1})
	}
	geoLoad(d, "big", big)
	geoRun(d, geoSicily...)
	geoRun(d,
		"OBJECT ENCODING big", "OBJECT ENCODING Sicily",
		"GEOSEARCH big FROMLONLAT 13.1 38.1 BYRADIUS 20 km ASC WITHDIST",
		"GEOSEARCH big FROMLONLAT 13.1 38.1 BYRADIUS 20 km DESC WITHDIST COUNT 25",
		"GEOSEARCH big FROMLONLAT 13.1 38.1 BYBOX 9 3 km ASC COUNT 40 WITHDIST WITHCOORD",
		"GEOSEARCH big FROMMEMBER g0 BYBOX 10 10 km",
		"GEOSEARCH big FROMMEMBER g0 BYRADIUS 10 km COUNT 7 ANY WITHDIST",
		"GEOSEARCHSTORE big2 big FROMLONLAT 13.1 38.1 BYRADIUS 5 km STOREDIST", "ZRANGE big2 0 -1 WITHSCORES",
		"GEOSEARCHSTORE big big FROMLONLAT 13.1 38.1 BYRADIUS 5 km", "ZRANGE big 0 -1 WITHSCORES",
		"GEORADIUS big 13.1 38.1 3 km STORE big COUNT 20", "ZRANGE big 0 -1 WITHSCORES",
		"GEOSEARCHSTORE Sicily Sicily FROMLONLAT 15 37 BYRADIUS 200 km STOREDIST", "ZRANGE Sicily 0 -1 WITHSCORES",
		"GEORADIUS Sicily 15 37 200 km STORE Sicily", "EXISTS Sicily",
	)
}
