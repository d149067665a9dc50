package search_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kljensen/snowball"
	"github.com/ordo-db/ordo/internal/ds/geohash"
	"github.com/ordo-db/ordo/internal/resp"
)

// The brute-force model: random hashes and random writes (HSET, HDEL, DEL,
// expiry, RENAME, MOVE, SWAPDB, FLUSHDB, MULTI, Lua), random queries; the
// index's answer must equal a linear scan of the keyspace.

var (
	numPool = []string{"1", "2", "-3", "0", "-0.5", "1e3", "1000", "25500.12346", "25500.1234",
		"9007199254740992", "9007199254740993", "-9007199254740993", "inf", "-inf", "abc"}
	tagPool  = []string{"red", "Blue", "green", "grey", "a b", "RED"}
	wordPool = []string{"apple", "Banana", "cherry", "dates", "Elder", "fig", "grape", "run", "Running", "runs", "date"}
	// geoPool are "lon,lat" points around Paris, a few km apart.
	geoPool = []string{"2.3522,48.8566", "2.2945,48.8584", "2.3376,48.8606", "2.3499,48.8530", "2.4000,48.9000", "2.2000,48.8000", "-0.1276,51.5072"}
)

type mdoc map[string]string

func ratOrInf(s string) (*big.Rat, int, bool) {
	switch strings.ToLower(s) {
	case "inf", "+inf":
		return nil, 1, true
	case "-inf":
		return nil, -1, true
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || strings.ContainsAny(s, "/xX") {
		return nil, 0, false
	}
	return r, 0, true
}

func cmpNum(a, b string) int {
	ra, ia, _ := ratOrInf(a)
	rb, ib, _ := ratOrInf(b)
	if ia != 0 || ib != 0 {
		return cmpInt(ia, ib)
	}
	return ra.Cmp(rb)
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// indexed: a hash whose NUMERIC field is not a number is not indexed.
func indexed(sc mschema, d mdoc) bool {
	if !sc.numeric {
		return true
	}
	v, ok := d["n"]
	if !ok {
		return true
	}
	_, _, ok = ratOrInf(v)
	return ok
}

// geoKm is the distance between two "lon,lat" points in km, by Redis's
// haversine (the formula is geohash's; the model checks the index).
func geoKm(a, b string) float64 {
	p := func(s string) (float64, float64) {
		lon, lat, _ := strings.Cut(s, ",")
		x, _ := strconv.ParseFloat(lon, 64)
		y, _ := strconv.ParseFloat(lat, 64)
		return x, y
	}
	x1, y1 := p(a)
	x2, y2 := p(b)
	return geohash.Distance(x1, y1, x2, y2) / 1000
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == ' ' || r == ',' || r == '.' })
}

// mschema is what the query generator and the model know of an index.
type mschema struct {
	name          string
	prefixes      []string
	numeric       bool // has the NUMERIC field n
	caseSensitive bool // TAG field is case-sensitive
	tagAttr       string
	text          []string // TEXT fields
	geo           bool     // has the GEO field g
}

var (
	schemaI = mschema{name: "idx", prefixes: []string{"k:"}, numeric: true, tagAttr: "t", text: []string{"title", "body"}, geo: true}
	schemaJ = mschema{name: "j", prefixes: []string{"k:1", "x:"}, caseSensitive: true, tagAttr: "tag", text: []string{"title"}}
)

type mquery struct {
	q     string
	match func(d mdoc) bool
}

func genQuery(r *rand.Rand, sc mschema, depth int) mquery {
	if depth > 0 && r.IntN(3) == 0 {
		a, b := genQuery(r, sc, depth-1), genQuery(r, sc, depth-1)
		switch r.IntN(3) {
		case 0:
			return mquery{"(" + a.q + " " + b.q + ")", func(d mdoc) bool { return a.match(d) && b.match(d) }}
		case 1:
			return mquery{"(" + a.q + " | " + b.q + ")", func(d mdoc) bool { return a.match(d) || b.match(d) }}
		default:
			return mquery{"-" + a.q, func(d mdoc) bool { return !a.match(d) }}
		}
	}
	kind := r.IntN(8)
	if kind == 0 && !sc.numeric || kind == 5 && !sc.geo {
		kind = 1
	}
	switch kind {
	case 5:
		c := geoPool[r.IntN(len(geoPool))]
		lon, lat, _ := strings.Cut(c, ",")
		km := []float64{0.5, 2, 4, 8, 500}[r.IntN(5)]
		q := fmt.Sprintf("@g:[%s %s %v km]", lon, lat, km)
		return mquery{q, func(d mdoc) bool {
			v, ok := d["g"]
			if !ok {
				return false
			}
			return geoKm(c, v) <= km
		}}
	case 6:
		// A prefix of a pool word, in every TEXT field or one.
		w := strings.ToLower(wordPool[r.IntN(len(wordPool))])
		p := w[:1+r.IntN(3)]
		fields := sc.text
		q := p + "*"
		if r.IntN(2) == 0 {
			f := fields[r.IntN(len(fields))]
			fields = []string{f}
			q = "@" + f + ":" + q
		}
		return mquery{q, func(d mdoc) bool {
			for _, f := range fields {
				for _, x := range words(d[f]) {
					if strings.HasPrefix(x, p) {
						return true
					}
				}
			}
			return false
		}}
	case 7:
		// An exact phrase of two words: adjacent, in order, in one field.
		a := wordPool[r.IntN(len(wordPool))]
		b := wordPool[r.IntN(len(wordPool))]
		la, lb := strings.ToLower(a), strings.ToLower(b)
		return mquery{`"` + a + " " + b + `"`, func(d mdoc) bool {
			for _, f := range sc.text {
				ws := words(d[f])
				for i := 0; i+1 < len(ws); i++ {
					if ws[i] == la && ws[i+1] == lb {
						return true
					}
				}
			}
			return false
		}}
	case 0:
		lo, hi := numPool[r.IntN(len(numPool)-1)], numPool[r.IntN(len(numPool)-1)]
		loEx, hiEx := r.IntN(2) == 0, r.IntN(2) == 0
		q := "@n:["
		if loEx {
			q += "("
		}
		q += lo + " "
		if hiEx {
			q += "("
		}
		q += hi + "]"
		return mquery{q, func(d mdoc) bool {
			v, ok := d["n"]
			if !ok {
				return false
			}
			c1, c2 := cmpNum(v, lo), cmpNum(v, hi)
			return (c1 > 0 || !loEx && c1 == 0) && (c2 < 0 || !hiEx && c2 == 0)
		}}
	case 1:
		var alts []string
		var want []string
		prefix := ""
		for range 1 + r.IntN(2) {
			t := tagPool[r.IntN(len(tagPool))]
			alts = append(alts, strings.ReplaceAll(t, " ", "\\ "))
			if !sc.caseSensitive {
				t = strings.ToLower(t)
			}
			want = append(want, t)
		}
		if r.IntN(4) == 0 {
			prefix = "gr"
			alts = append(alts, "gr*")
		}
		return mquery{"@" + sc.tagAttr + ":{" + strings.Join(alts, " | ") + "}", func(d mdoc) bool {
			v, ok := d["t"]
			if !ok {
				return false
			}
			for _, t := range strings.Split(v, ",") {
				t = strings.TrimSpace(t)
				if !sc.caseSensitive {
					t = strings.ToLower(t)
				}
				if t != "" && (slices.Contains(want, t) || prefix != "" && strings.HasPrefix(t, prefix)) {
					return true
				}
			}
			return false
		}}
	case 2:
		return mquery{"*", func(mdoc) bool { return true }}
	default:
		w := wordPool[r.IntN(len(wordPool))]
		lw := strings.ToLower(w)
		fields := sc.text
		q := w
		if r.IntN(2) == 0 {
			f := fields[r.IntN(len(fields))]
			fields = []string{f}
			q = "@" + f + ":" + w
		}
		// RediSearch's expansion: the word, its stem as a word, and every
		// word whose stem (when it differs from the word) is the same.
		sw, _ := snowball.Stem(lw, "english", true)
		return mquery{q, func(d mdoc) bool {
			for _, f := range fields {
				for _, x := range words(d[f]) {
					sx, _ := snowball.Stem(x, "english", true)
					if x == lw || x == sw || sx != x && sx == sw {
						return true
					}
				}
			}
			return false
		}}
	}
}

func randHashArgs(r *rand.Rand) []string {
	var a []string
	if r.IntN(4) > 0 {
		a = append(a, "n", numPool[r.IntN(len(numPool))])
	}
	if r.IntN(3) > 0 {
		var ts []string
		for range 1 + r.IntN(3) {
			ts = append(ts, tagPool[r.IntN(len(tagPool))])
		}
		a = append(a, "t", strings.Join(ts, ","))
	}
	for _, f := range []string{"title", "body"} {
		if r.IntN(3) > 0 {
			var ws []string
			for range 1 + r.IntN(4) {
				ws = append(ws, wordPool[r.IntN(len(wordPool))])
			}
			a = append(a, f, strings.Join(ws, []string{" ", ", ", ". "}[r.IntN(3)]))
		}
	}
	if r.IntN(2) == 0 {
		a = append(a, "g", geoPool[r.IntN(len(geoPool))])
	}
	if len(a) == 0 {
		a = append(a, "other", "x")
	}
	return a
}

// scan is the linear model: every live hash of db 0.
func scan(c *client) map[string]mdoc {
	out := map[string]mdoc{}
	for _, k := range c.c.Do("KEYS", "*").Elems {
		v := c.c.Do("HGETALL", k.Str)
		if v.Kind == resp.KindError {
			continue // not a hash
		}
		d := mdoc{}
		for i := 0; i+1 < len(v.Elems); i += 2 {
			d[v.Elems[i].Str] = v.Elems[i+1].Str
		}
		out[k.Str] = d
	}
	return out
}

func TestModel(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runModel(t, seed) })
	}
}

func runModel(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 42))
	c, _ := newClient(t)
	if seed == 1 {
		c.do("DEBUG", "SET-ACTIVE-EXPIRE", "0") // expired keys linger until touched
	}
	key := func() string {
		if r.IntN(8) == 0 {
			return fmt.Sprintf("x:%d", r.IntN(5)) // outside the prefix
		}
		return fmt.Sprintf("k:%d", r.IntN(25))
	}
	hset := func() []string { return append([]string{"HSET", key()}, randHashArgs(r)...) }
	for range 10 {
		c.do(hset()...)
	}
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "k:", "SCHEMA",
		"n", "NUMERIC", "SORTABLE", "t", "TAG", "title", "TEXT", "body", "TEXT", "WEIGHT", "2", "g", "GEO")
	c.want("OK", "FT.CREATE", "j", "PREFIX", "2", "k:1", "x:", "SCHEMA",
		"t", "AS", "tag", "TAG", "CASESENSITIVE", "title", "TEXT", "SORTABLE")
	for step := range 800 {
		switch op := r.IntN(20); {
		case op < 7:
			c.do(hset()...)
		case op == 7:
			c.do("HDEL", key(), []string{"n", "t", "title", "body", "g"}[r.IntN(5)])
		case op == 8:
			c.do("DEL", key())
		case op == 9 && r.IntN(2) == 0:
			c.do("PEXPIREAT", key(), "1") // already past: deleted at once
		case op == 9:
			// Expires 1ms from now: after the pause it is past its TTL but,
			// with active expiry off (seed 1), not reaped.
			c.do("PEXPIRE", key(), "1")
			time.Sleep(3 * time.Millisecond)
		case op == 10:
			c.do("EXPIRE", key(), "1000")
		case op == 11:
			c.do("RENAME", key(), key())
		case op == 12:
			c.do("MOVE", key(), "1")
		case op == 13:
			c.do("SELECT", "1")
			c.do("MOVE", key(), "0")
			c.do("SELECT", "0")
		case op == 14:
			c.do("MULTI")
			c.do(hset()...)
			c.do("DEL", key())
			c.do(hset()...)
			c.do("EXEC")
		case op == 15:
			a := hset()
			c.do(append([]string{"EVAL", "redis.call('HSET', KEYS[1], unpack(ARGV)) return redis.call('HDEL', KEYS[1], 'title')", "1", a[1]}, a[2:]...)...)
		case op == 16 && r.IntN(10) == 0:
			c.do("SWAPDB", "0", "1")
		case op == 17 && r.IntN(20) == 0:
			c.do("FLUSHDB")
		case op == 18:
			c.do("SET", key(), "a string")
		default:
			c.do("HINCRBY", key(), "n", "1")
		}
		model := scan(c)
		for i := range 4 {
			sc := schemaI
			if i == 3 {
				sc = schemaJ
			}
			q := genQuery(r, sc, 3)
			var want []string
			for k, d := range model {
				covered := false
				for _, p := range sc.prefixes {
					covered = covered || strings.HasPrefix(k, p)
				}
				if covered && indexed(sc, d) && q.match(d) {
					want = append(want, k)
				}
			}
			slices.Sort(want)
			v := c.c.Do("FT.SEARCH", sc.name, q.q, "NOCONTENT", "LIMIT", "0", "1000")
			if v.Kind == resp.KindError {
				t.Fatalf("step %d: %s %s: %s", step, sc.name, q.q, v.Str)
			}
			var got []string
			for _, e := range v.Elems[1:] {
				got = append(got, e.Str)
			}
			slices.Sort(got)
			if v.Elems[0].Int != int64(len(want)) || !slices.Equal(got, want) {
				t.Fatalf("step %d: %s %s\n got %d %v\nwant %d %v\nmodel %v", step, sc.name, q.q, v.Elems[0].Int, got, len(want), want, model)
			}
		}
		// SORTBY n: the numeric values come in exact order, missing last.
		if step%10 == 0 {
			v := c.c.Do("FT.SEARCH", "idx", "*", "SORTBY", "n", "RETURN", "1", "n", "LIMIT", "0", "1000")
			var prev string
			seenMissing := false
			for i := 2; i < len(v.Elems); i += 2 {
				f := v.Elems[i].Elems
				if len(f) == 0 {
					seenMissing = true
					continue
				}
				if seenMissing || prev != "" && cmpNum(prev, f[1].Str) > 0 {
					t.Fatalf("step %d: SORTBY n out of order: %s", step, flat(v))
				}
				prev = f[1].Str
			}
		}
	}
}
