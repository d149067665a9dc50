package bench

// ---- space: index.Space against GEOADD and GEOSEARCH, on each server ----
//
// The same 1,000,000 random points are loaded into each server twice: as
// GEOADD (1,000 points per command, pipelined) and through index.Space's
// PutMany, 2 dimensions of 26 bits (GEO's own precision: a 52-bit
// geohash). The points are uniform over a square of 1 degree by 1 degree
// at the equator (longitude and latitude 0..1), where a degree is the same
// length both ways (to 0.015%), so a box or disc in degrees holds the same
// points as one in metres. Each query row compares Space with GEOSEARCH
// on the same server, one client, closed loop, over the same centers.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index"
	"github.com/ordo-db/ordo/internal/sysinfo"
)

const (
	spaceBits   = 26
	spaceSpan   = 1.0                     // degrees: points in [0, spaceSpan)²
	spaceEarthR = 6372797.560856          // metres, Redis's geohash_helper.c
	spaceGeoKey = "geo"                   // GEOADD's sorted set
	spaceName   = "pts"                   // index.Space's name
	spaceTime   = 1500 * time.Millisecond // per measurement and method, at most
)

var spaceHits = []int{100, 1000, 10000}

// spacePoint is point i: longitude and latitude in [0, spaceSpan).
func spacePoint(i int) (x, y float64) {
	h1, h2 := splitmix(uint64(i)+11<<40), splitmix(uint64(i)+13<<40)
	return float64(h1>>11) / (1 << 53) * spaceSpan, float64(h2>>11) / (1 << 53) * spaceSpan
}

func spaceID(i int) string { return "p" + strconv.Itoa(i) }

// rawBackend is a backend.Backend over one RESP2 connection, with no
// client library in between: the same thin client for Space and for
// GEOSEARCH.
type rawBackend struct {
	c   net.Conn
	br  *bufio.Reader
	buf []byte
	tmp []byte
}

func dialRaw(addr string) (*rawBackend, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &rawBackend{c: c, br: bufio.NewReaderSize(c, 1<<20)}, nil
}

func (r *rawBackend) Close() error { return r.c.Close() }

func appendArg(dst []byte, a any) []byte {
	var s string
	switch x := a.(type) {
	case string:
		s = x
	case []byte:
		s = string(x)
	case int:
		s = strconv.Itoa(x)
	case int64:
		s = strconv.FormatInt(x, 10)
	case uint64:
		s = strconv.FormatUint(x, 10)
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		s = fmt.Sprint(x)
	}
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(s)), 10)
	dst = append(dst, "\r\n"...)
	dst = append(dst, s...)
	return append(dst, "\r\n"...)
}

// readAny reads one RESP2 reply as backend.Backend normalizes it
// (error elements inside arrays as *backend.Error values).
func (r *rawBackend) readAny() (any, error) {
	ln, err := r.br.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	if len(ln) < 3 || ln[len(ln)-2] != '\r' {
		return nil, fmt.Errorf("malformed reply %q", ln)
	}
	body := ln[1 : len(ln)-2]
	switch ln[0] {
	case '+':
		return string(body), nil
	case '-':
		return &backend.Error{Msg: string(body)}, nil
	case ':':
		return strconv.ParseInt(string(body), 10, 64)
	case '$':
		n, err := strconv.Atoi(string(body))
		if err != nil || n < 0 {
			return nil, err
		}
		if cap(r.tmp) < n+2 {
			r.tmp = make([]byte, n+2)
		}
		b := r.tmp[:n+2]
		if _, err := io.ReadFull(r.br, b); err != nil {
			return nil, err
		}
		return string(b[:n]), nil
	case '*':
		n, err := strconv.Atoi(string(body))
		if err != nil || n < 0 {
			return nil, err
		}
		out := make([]any, n)
		for i := range out {
			if out[i], err = r.readAny(); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("unexpected reply %q", ln)
}

func (r *rawBackend) Pipeline(ctx context.Context, cmds []backend.Cmd) ([]backend.Result, error) {
	r.buf = r.buf[:0]
	for _, c := range cmds {
		r.buf = append(r.buf, '*')
		r.buf = strconv.AppendInt(r.buf, int64(len(c)), 10)
		r.buf = append(r.buf, "\r\n"...)
		for _, a := range c {
			r.buf = appendArg(r.buf, a)
		}
	}
	if _, err := r.c.Write(r.buf); err != nil {
		return nil, err
	}
	out := make([]backend.Result, len(cmds))
	for i := range cmds {
		v, err := r.readAny()
		if err != nil {
			return nil, err
		}
		if e, ok := v.(*backend.Error); ok {
			out[i].Err = e
		} else {
			out[i].Val = v
		}
	}
	return out, nil
}

func (r *rawBackend) Do(ctx context.Context, args ...any) (any, error) {
	res, err := r.Pipeline(ctx, []backend.Cmd{args})
	if err != nil {
		return nil, err
	}
	return res[0].Val, res[0].Err
}

func (r *rawBackend) Tx(ctx context.Context, cmds []backend.Cmd) ([]backend.Result, error) {
	all := append(append([]backend.Cmd{{"MULTI"}}, cmds...), backend.Cmd{"EXEC"})
	res, err := r.Pipeline(ctx, all)
	if err != nil {
		return nil, err
	}
	for _, q := range res[1 : len(res)-1] {
		if q.Err != nil {
			return nil, q.Err
		}
	}
	exec := res[len(res)-1]
	if exec.Err != nil {
		return nil, exec.Err
	}
	arr, _ := exec.Val.([]any)
	out := make([]backend.Result, len(arr))
	for i, v := range arr {
		if e, ok := v.(*backend.Error); ok {
			out[i].Err = e
		} else {
			out[i].Val = v
		}
	}
	return out, nil
}

func (r *rawBackend) Eval(ctx context.Context, s *backend.Script, keys []string, args ...any) (any, error) {
	return s.Run(ctx, r.Do, keys, args...)
}

// spaceGeoadd loads the points with GEOADD of 1,000 points per command,
// pipelined whole, and returns the seconds to the last reply.
func spaceGeoadd(s *server, n int) (float64, error) {
	const per = 1000
	t0 := time.Now()
	bad, err := load(s, (n+per-1)/per, func(c int, dst []byte) []byte {
		lo, hi := c*per, min((c+1)*per, n)
		dst = append(dst, '*')
		dst = strconv.AppendInt(dst, int64(2+3*(hi-lo)), 10)
		dst = append(dst, "\r\n"...)
		dst = appendArg(dst, "GEOADD")
		dst = appendArg(dst, spaceGeoKey)
		for i := lo; i < hi; i++ {
			x, y := spacePoint(i)
			dst = appendArg(dst, x)
			dst = appendArg(dst, y)
			dst = appendArg(dst, spaceID(i))
		}
		return dst
	})
	el := time.Since(t0).Seconds()
	if err == nil && bad > 0 {
		err = fmt.Errorf("GEOADD: %d error replies", bad)
	}
	return el, err
}

// spaceLoad times the two loads on s, each into an empty server (the
// other's data deleted and MEMORY PURGE run first): GEOADD of 1,000
// points per command, pipelined, and Space.PutMany of the same points;
// then loads GEOADD's again (untimed) for the queries. It also returns
// the server's own seconds in GEOADD and in ZADD (INFO commandstats).
func spaceLoad(s *server, n int, pts []index.SpacePoint) (geo, space, geoUS, spaceUS float64, err error) {
	b, err := dialRaw(s.addr)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	defer b.Close()
	ctx := context.Background()
	empty := func() error {
		if _, err := b.Do(ctx, "DEL", spaceGeoKey, "{"+spaceName+"}:z", "{"+spaceName+"}:ids"); err != nil {
			return err
		}
		if _, err := b.Do(ctx, "MEMORY", "PURGE"); err != nil {
			return err
		}
		_, err := b.Do(ctx, "CONFIG", "RESETSTAT")
		return err
	}
	usec := func(cmd string) (float64, error) {
		st, err := commandUsec(b)
		return st[cmd] / 1e6, err
	}
	if err := empty(); err != nil {
		return 0, 0, 0, 0, err
	}
	if geo, err = spaceGeoadd(s, n); err != nil {
		return 0, 0, 0, 0, err
	}
	if geoUS, err = usec("geoadd"); err != nil {
		return 0, 0, 0, 0, err
	}
	if err := empty(); err != nil {
		return 0, 0, 0, 0, err
	}
	sp, err := index.NewSpace(b, spaceName, 2, spaceBits)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	t0 := time.Now()
	if err := sp.PutMany(ctx, pts...); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("PutMany: %w", err)
	}
	space = time.Since(t0).Seconds()
	if spaceUS, err = usec("zadd"); err != nil {
		return 0, 0, 0, 0, err
	}
	if _, err := spaceGeoadd(s, n); err != nil {
		return 0, 0, 0, 0, err
	}
	for _, key := range []string{spaceGeoKey, "{" + spaceName + "}:z"} {
		if v, err := b.Do(ctx, "ZCARD", key); err != nil || v != int64(n) {
			return 0, 0, 0, 0, fmt.Errorf("ZCARD %s = %v (%v), want %d", key, v, err, n)
		}
	}
	return geo, space, geoUS, spaceUS, nil
}

// spaceQuery is one query of a measurement: a center in degrees and a
// size (the box's side or the disc's radius in degrees, or k).
type spaceQuery struct {
	x, y, size float64
	k          int
}

// spaceLat is one measurement: latencies (ms), points returned, members
// read, ranges.
type spaceLat struct {
	lat                   []float64
	hits, scanned, ranges int
	serverUS              float64 // the server's own time per query, µs
	clientUS              float64 // this process's CPU time per query, µs
}

func (l spaceLat) pct(p float64) float64 {
	if len(l.lat) == 0 {
		return 0
	}
	s := append([]float64(nil), l.lat...)
	sort.Float64s(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// spaceQueries returns the queries of a kind ("box", "within",
// "nearest") expected to return hits of n points: centers far enough
// from the edges that the whole region lies in the square.
func spaceQueries(kind string, hits, n, count int, seed uint64) []spaceQuery {
	frac := float64(hits) / float64(n)
	var size float64
	switch kind {
	case "box":
		size = spaceSpan * math.Sqrt(frac)
	default:
		size = spaceSpan * math.Sqrt(frac/math.Pi)
	}
	margin := size
	if kind == "box" {
		margin = size / 2
	}
	qs := make([]spaceQuery, count)
	for i := range qs {
		u := float64(splitmix(seed+uint64(i))>>11) / (1 << 53)
		v := float64(splitmix(seed+uint64(i)+1<<50)>>11) / (1 << 53)
		qs[i] = spaceQuery{x: margin + u*(spaceSpan-2*margin), y: margin + v*(spaceSpan-2*margin), size: size, k: hits}
	}
	return qs
}

func metres(deg float64) float64 { return deg * math.Pi / 180 * spaceEarthR }

// spaceOne runs query q through Space (geo false) or GEOSEARCH (geo
// true) and returns the points returned and Space's stats.
func spaceOne(b *rawBackend, sp *index.Space, kind string, geo bool, q spaceQuery) (int, index.SpaceStats, error) {
	ctx := context.Background()
	sc := index.Scale{Min: 0, Max: spaceSpan, Bits: spaceBits}
	var st index.SpaceStats
	var err error
	if geo {
		var v any
		switch kind {
		case "box":
			w := metres(q.size) * math.Cos(q.y*math.Pi/180)
			v, err = b.Do(ctx, "GEOSEARCH", spaceGeoKey, "FROMLONLAT", q.x, q.y, "BYBOX", w, metres(q.size), "m")
		case "within":
			v, err = b.Do(ctx, "GEOSEARCH", spaceGeoKey, "FROMLONLAT", q.x, q.y, "BYRADIUS", metres(q.size), "m", "ASC")
		case "nearest":
			// Redis needs a radius: the one expected to hold as many
			// points as Space's first guess (k + 3√k + 2).
			want := float64(q.k) + 3*math.Sqrt(float64(q.k)) + 2
			r := q.size * math.Sqrt(want/float64(q.k))
			v, err = b.Do(ctx, "GEOSEARCH", spaceGeoKey, "FROMLONLAT", q.x, q.y, "BYRADIUS", metres(r), "m", "ASC", "COUNT", q.k)
		}
		arr, _ := v.([]any)
		return len(arr), st, err
	}
	var hits []index.PointHit
	switch kind {
	case "box":
		x0, x1 := sc.Bounds(q.x-q.size/2, q.x+q.size/2)
		y0, y1 := sc.Bounds(q.y-q.size/2, q.y+q.size/2)
		hits, st, err = sp.BoxStats(ctx, []uint64{x0, y0}, []uint64{x1, y1})
	case "within":
		hits, st, err = sp.WithinStats(ctx, []uint64{sc.Coord(q.x), sc.Coord(q.y)}, q.size/sc.Step())
	case "nearest":
		hits, st, err = sp.Nearest(ctx, []uint64{sc.Coord(q.x), sc.Coord(q.y)}, q.k)
	}
	return len(hits), st, err
}

// commandUsec reads INFO commandstats: the microseconds spent in each
// command (lower-case name).
func commandUsec(b *rawBackend) (map[string]float64, error) {
	v, err := b.Do(context.Background(), "INFO", "commandstats")
	if err != nil {
		return nil, err
	}
	str, _ := v.(string)
	out := map[string]float64{}
	for _, ln := range strings.Split(str, "\r\n") {
		name, rest, ok := strings.Cut(ln, ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		for _, f := range strings.Split(rest, ",") {
			if x, ok := strings.CutPrefix(f, "usec="); ok {
				out[strings.TrimPrefix(name, "cmdstat_")], _ = strconv.ParseFloat(x, 64)
			}
		}
	}
	return out, nil
}

// runSpace runs the queries through GEOSEARCH and through Space in
// turns (query 1 by each, then query 2 ...: both see the same machine),
// for at most spaceTime, and returns both measurements with the server's
// own time per query (INFO commandstats, reset before).
func runSpace(b *rawBackend, sp *index.Space, kind string, qs []spaceQuery) (geo, space spaceLat, err error) {
	if _, err := b.Do(context.Background(), "CONFIG", "RESETSTAT"); err != nil {
		return geo, space, err
	}
	deadline := time.Now().Add(2 * spaceTime)
	for i, q := range qs {
		if i >= 20 && time.Now().After(deadline) {
			break
		}
		for _, g := range []bool{i%2 == 0, i%2 == 1} {
			c0, t0 := sysinfo.ProcessCPU(), time.Now()
			n, st, err := spaceOne(b, sp, kind, g, q)
			el, cpu := float64(time.Since(t0))/1e6, sysinfo.ProcessCPU()-c0
			if err != nil {
				return geo, space, fmt.Errorf("%s: %w", map[bool]string{true: "GEOSEARCH", false: "Space"}[g], err)
			}
			l := &space
			if g {
				l = &geo
			}
			l.lat = append(l.lat, el)
			l.clientUS += float64(cpu) / 1e3
			l.hits += n
			l.scanned += st.Scanned
			l.ranges += st.Ranges
		}
	}
	us, err := commandUsec(b)
	if err != nil {
		return geo, space, err
	}
	geo.serverUS = us["geosearch"] / float64(max(len(geo.lat), 1))
	space.serverUS = (us["zrange"] + us["zcard"]) / float64(max(len(space.lat), 1))
	geo.clientUS /= float64(max(len(geo.lat), 1))
	space.clientUS /= float64(max(len(space.lat), 1))
	return geo, space, nil
}

func spaceRows(o Options, sel *regexp.Regexp, tmp string) []Result {
	n := o.Elements
	servers := []string{"redis-server", "ordo-server"}
	loadName := func(srv string) string {
		return fmt.Sprintf("load %d points: Space.PutMany vs GEOADD of 1,000 a command, on %s", n, srv)
	}
	queryName := func(kind string, hits int, pct, srv string) string {
		what := map[string]string{"box": "box", "within": "Within", "nearest": "Nearest"}[kind]
		return fmt.Sprintf("%s of %d hits, %s, on %s", what, hits, pct, srv)
	}
	scanName := func(kind string, hits int) string {
		return fmt.Sprintf("%s of %d hits: members read per point returned", kind, hits)
	}
	decompName := "box decomposition (up to 32 ranges), p99"
	kinds := []string{"box", "within", "nearest"}
	want := func(name string) bool { return sel.MatchString("space " + name) }
	selected := want(decompName)
	for _, srv := range servers {
		selected = selected || want(loadName(srv))
		for _, k := range kinds {
			for _, h := range spaceHits {
				selected = selected || want(queryName(k, h, "p50", srv)) || want(queryName(k, h, "p99", srv)) || want(scanName(k, h))
			}
		}
	}
	if !selected {
		return nil
	}
	fail := func(err error) []Result { return []Result{{Group: "space", Name: "setup", Err: err.Error()}} }
	rs, ors, stop, err := startBoth(o, tmp)
	if err != nil {
		return fail(err)
	}
	defer stop()
	byName := map[string]*server{"redis-server": rs, "ordo-server": ors}
	sc := index.Scale{Min: 0, Max: spaceSpan, Bits: spaceBits}
	pts := make([]index.SpacePoint, n)
	for i := range pts {
		x, y := spacePoint(i)
		pts[i] = index.SpacePoint{ID: spaceID(i), Point: []uint64{sc.Coord(x), sc.Coord(y)}}
	}
	var out []Result
	add := func(r Result) {
		if want(r.Name) {
			out = append(out, r)
		}
	}
	// Loads, alternating servers; the last one stays for the queries.
	loads := map[string][4][]float64{} // GEOADD, PutMany: seconds, then server seconds
	var errs []string
	for i := 0; i < o.Repeat; i++ {
		for _, srv := range servers {
			g, sp, gs, ss, err := spaceLoad(byName[srv], n, pts)
			if err != nil {
				errs = append(errs, srv+": "+err.Error())
				continue
			}
			l := loads[srv]
			l[0], l[1], l[2], l[3] = append(l[0], g), append(l[1], sp), append(l[2], gs), append(l[3], ss)
			loads[srv] = l
			o.Log("space load on %-12s GEOADD %6.2f s  PutMany %6.2f s  (server time %.2f / %.2f s)", srv, g, sp, gs, ss)
		}
	}
	for _, srv := range servers {
		l := loads[srv]
		r := Result{Group: "space", Name: loadName(srv), Unit: "seconds", Redis: median(l[0]), Ordo: median(l[1]),
			Base:  "GEOADD on the same server",
			Extra: fmt.Sprintf("2 dimensions of %d bits, codes as scores: one ZADD of 1,000 points a command, 64 commands a round trip; GEOADD pipelined whole. Server time (INFO commandstats): GEOADD %.2f s, ZADD %.2f s.", spaceBits, median(l[2]), median(l[3]))}
		if len(errs) > 0 {
			r.Err = strings.Join(dedupe(errs), "; ")
		}
		add(r)
	}
	if len(errs) > 0 {
		return out
	}
	pts = nil
	runtime.GC() // the loads' garbage, not the queries', would be collected during the queries
	conns := map[string]*rawBackend{}
	spaces := map[string]*index.Space{}
	for _, srv := range servers {
		b, err := dialRaw(byName[srv].addr)
		if err != nil {
			return append(out, fail(err)...)
		}
		defer b.Close()
		conns[srv] = b
		sp, _ := index.NewSpace(b, spaceName, 2, spaceBits)
		spaces[srv] = sp
	}
	// The decomposition alone, in this process: each box timed 3 times;
	// the p99 of each box's fastest is the computation's own tail (which
	// box), not the machine's preemptions, reported from the first times.
	if want(decompName) {
		sp := spaces["redis-server"]
		var best, first []float64
		for _, h := range spaceHits {
			for _, q := range spaceQueries("box", h, n, 2000, uint64(h)<<32) {
				x0, x1 := sc.Bounds(q.x-q.size/2, q.x+q.size/2)
				y0, y1 := sc.Bounds(q.y-q.size/2, q.y+q.size/2)
				b := math.Inf(1)
				for j := range 3 {
					t0 := time.Now()
					sp.Ranges([]uint64{x0, y0}, []uint64{x1, y1})
					el := float64(time.Since(t0)) / 1e6
					if j == 0 {
						first = append(first, el)
					}
					b = math.Min(b, el)
				}
				best = append(best, b)
			}
		}
		lb, lf := spaceLat{lat: best}, spaceLat{lat: first}
		add(Result{Group: "space", Name: decompName, Unit: "ms", Redis: 0.2, Ordo: lb.pct(0.99),
			Base: "the goal, 0.2 ms",
			Extra: fmt.Sprintf("%d boxes of 100 to 10,000 hits, in the bench process, each timed 3 times: p50 %.4f ms, p99 %.4f ms of each box's fastest; of the first times (preemptions included) p50 %.4f ms, p99 %.4f ms.",
				len(best), lb.pct(0.5), lb.pct(0.99), lf.pct(0.5), lf.pct(0.99))})
	}
	for _, kind := range kinds {
		for _, h := range spaceHits {
			picked := false
			for _, srv := range servers {
				picked = picked || want(queryName(kind, h, "p50", srv)) || want(queryName(kind, h, "p99", srv))
			}
			if !picked && !want(scanName(kind, h)) {
				continue
			}
			count := map[int]int{100: 3000, 1000: 1000, 10000: 300}[h]
			res := map[string][2][]spaceLat{} // server → [geo, space] per repeat
			var errs []string
			for i := 0; i < o.Repeat; i++ {
				qs := spaceQueries(kind, h, n, count, uint64(i)<<40|uint64(h))
				for _, srv := range servers {
					g, l, err := runSpace(conns[srv], spaces[srv], kind, qs)
					if err != nil {
						errs = append(errs, fmt.Sprintf("%s: %v", srv, err))
						continue
					}
					r := res[srv]
					r[0], r[1] = append(r[0], g), append(r[1], l)
					res[srv] = r
				}
			}
			med := func(ls []spaceLat, p float64) float64 {
				var xs []float64
				for _, l := range ls {
					switch {
					case p == -2:
						xs = append(xs, l.clientUS)
					case p < 0:
						xs = append(xs, l.serverUS)
					default:
						xs = append(xs, l.pct(p))
					}
				}
				return median(xs)
			}
			sum := func(ls []spaceLat) (q, hits, scanned, ranges int) {
				for _, l := range ls {
					q, hits, scanned, ranges = q+len(l.lat), hits+l.hits, scanned+l.scanned, ranges+l.ranges
				}
				return
			}
			var allHits, allScanned int
			for _, srv := range servers {
				g, s := res[srv][0], res[srv][1]
				gq, gh, _, _ := sum(g)
				sq, sh, ss, sr := sum(s)
				allHits, allScanned = allHits+sh, allScanned+ss
				note := fmt.Sprintf("p50 %.3f / %.3f ms, p99 %.3f / %.3f ms; server time per query (INFO commandstats) %.0f / %.0f µs; the bench's CPU per query (its client: sending, reading the reply and, for Space, the decomposition and filtering) %.0f / %.0f µs; points returned per query %.0f / %.0f; Space: %.2f members read per point, %.1f ranges; %d / %d queries, in turns.",
					med(g, 0.5), med(s, 0.5), med(g, 0.99), med(s, 0.99), med(g, -1), med(s, -1), med(g, -2), med(s, -2),
					float64(gh)/float64(max(gq, 1)), float64(sh)/float64(max(sq, 1)),
					float64(ss)/float64(max(sh, 1)), float64(sr)/float64(max(sq, 1)), gq, sq)
				base := map[string]string{"box": "GEOSEARCH BYBOX", "within": "GEOSEARCH BYRADIUS ASC", "nearest": "GEOSEARCH BYRADIUS ASC COUNT k"}[kind] + " on the same server"
				r50 := Result{Group: "space", Name: queryName(kind, h, "p50", srv), Unit: "ms", Redis: med(g, 0.5), Ordo: med(s, 0.5), Base: base, Extra: note}
				r99 := Result{Group: "space", Name: queryName(kind, h, "p99", srv), Unit: "ms", Redis: med(g, 0.99), Ordo: med(s, 0.99), Base: base, Extra: note, Goal: 2}
				if len(errs) > 0 {
					r50.Err = strings.Join(dedupe(errs), "; ")
					r99.Err = r50.Err
				}
				add(r50)
				add(r99)
				o.Log("space %-8s %5d hits on %-12s p50 %7.3f / %7.3f ms  p99 %7.3f / %7.3f ms  server %6.0f / %6.0f µs  client %6.0f / %6.0f µs  read/hit %.2f %s",
					kind, h, srv, r50.Redis, r50.Ordo, r99.Redis, r99.Ordo, med(g, -1), med(s, -1), med(g, -2), med(s, -2), float64(ss)/float64(max(sh, 1)), r50.Err)
			}
			add(Result{Group: "space", Name: scanName(kind, h), Unit: "members/point", Redis: 1,
				Ordo: float64(allScanned) / float64(max(allHits, 1)), Goal: 2,
				Base: "one member per point returned", Extra: "Space on both servers, every query of the rows above."})
		}
	}
	return out
}
