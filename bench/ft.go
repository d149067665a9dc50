package bench

// ---- index: RediSearch's FT.* on ordo-server against hand-made indexes ----
//
// redis-server has no FT.* (Debian's package carries no RediSearch), so
// each row compares ordo-server's index with what a Redis user builds by
// hand, the sorted set and sets the indexing documents describe, or with
// ordo-server itself without the index (the row's Base says which).

import (
	"bufio"
	"fmt"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

const (
	ftClients   = 8               // concurrent query clients
	ftQueryTime = 2 * time.Second // per measurement of the query rows
	ftPriceMax  = 100000          // prices are integers in [0, ftPriceMax)
	ftWidth     = 1000            // @price:[a a+ftWidth]: ~1% of the documents
	ftWords     = 5000            // vocabulary of the TEXT field
	ftColors    = 50              // distinct TAG values
)

var ftCreate = []string{"FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "item:", "SCHEMA",
	"name", "TEXT", "price", "NUMERIC", "color", "TAG"}

// ftDoc is document i: a name of two words, an integer price, a color.
func ftDoc(i int) (key, name, price, color string) {
	h := splitmix(uint64(i) + 7<<40)
	key = "item:" + strconv.Itoa(i)
	name = "w" + strconv.FormatUint(h%ftWords, 10) + " w" + strconv.FormatUint((h>>16)%ftWords, 10)
	price = strconv.FormatUint((h>>32)%ftPriceMax, 10)
	color = "c" + strconv.FormatUint((h>>48)%ftColors, 10)
	return
}

func ftHSET(i int, dst []byte) []byte {
	key, name, price, color := ftDoc(i)
	return resp.AppendCommand(dst, "HSET", key, "name", name, "price", price, "color", color)
}

// handIndex appends the hand-made index entries of document i: the price
// in a sorted set, the color and each name word in a set of keys.
func handIndex(i int, dst []byte, withSets bool) []byte {
	key, name, price, color := ftDoc(i)
	dst = resp.AppendCommand(dst, "ZADD", "idx:price", price, key)
	if withSets {
		dst = resp.AppendCommand(dst, "SADD", "idx:color:"+color, key)
		for _, w := range strings.Fields(name) {
			dst = resp.AppendCommand(dst, "SADD", "idx:name:"+w, key)
		}
	}
	return dst
}

// waitIndexed polls FT.INFO until the index's background scan is done.
func waitIndexed(s *server, idx string) error {
	for j := 0; j < 6000; j++ {
		v, err := s.do("FT.INFO", idx)
		if err != nil {
			return err
		}
		if v.Kind == resp.KindError {
			return fmt.Errorf("FT.INFO: %s", v.Str)
		}
		for k := 0; k+1 < len(v.Elems); k += 2 {
			if v.Elems[k].Str == "indexing" && v.Elems[k+1].Kind == resp.KindInt && v.Elems[k+1].Int == 0 {
				return nil
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("index still building after 60 s")
}

// parallelLoad sends n commands over conns connections, each pipelining
// its share, and returns the seconds until the last reply.
func parallelLoad(s *server, n, conns int, gen func(int, []byte) []byte) (float64, error) {
	var wg sync.WaitGroup
	errs := make([]error, conns)
	t0 := time.Now()
	for c := 0; c < conns; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			lo, hi := n*c/conns, n*(c+1)/conns
			bad, err := load(s, hi-lo, func(i int, dst []byte) []byte { return gen(lo+i, dst) })
			if err == nil && bad > 0 {
				err = fmt.Errorf("%d error replies", bad)
			}
			errs[c] = err
		}(c)
	}
	wg.Wait()
	el := time.Since(t0).Seconds()
	for _, err := range errs {
		if err != nil {
			return 0, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return el, nil
}

func indexRows(o Options, sel *regexp.Regexp, tmp string) []Result {
	docs := max(o.Elements/10, 1000)
	hsetName := fmt.Sprintf("%d HSET of 3 fields: FT index over them vs none (ordo-server)", o.N)
	searchName := fmt.Sprintf("FT.SEARCH @price:[a a+%d] LIMIT 0 10 vs ZRANGE BYSCORE + 10 HGETALL on redis-server (%d docs)", ftWidth, docs)
	searchOwnName := fmt.Sprintf("FT.SEARCH @price:[a a+%d] LIMIT 0 10 vs ZRANGE BYSCORE + 10 HGETALL on ordo-server (%d docs)", ftWidth, docs)
	memName := fmt.Sprintf("memory per field per document (%d docs, TEXT+NUMERIC+TAG)", docs)
	var out []Result
	if sel.MatchString("index " + hsetName) {
		out = append(out, ftHSETRow(o, tmp, hsetName))
	}
	if sel.MatchString("index "+searchName) || sel.MatchString("index "+searchOwnName) {
		out = append(out, ftSearchRows(o, tmp, docs, searchName, searchOwnName)...)
	}
	if sel.MatchString("index " + memName) {
		out = append(out, ftMemRow(o, tmp, docs, memName))
	}
	return out
}

// ftHSETRow: o.N HSETs of three fields over 4 pipelining connections into
// a fresh ordo-server, with and without an FT index over the fields;
// redis-server's unindexed rate is given in the notes.
func ftHSETRow(o Options, tmp, name string) Result {
	var plain, indexed, redis []float64
	var errs []string
	for i := 0; i < o.Repeat; i++ {
		for _, cfg := range []string{"redis", "ordo-indexed", "ordo"} {
			start := startOrdo
			if cfg == "redis" {
				start = startRedis
			}
			s, err := start(o, tmp)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			if cfg == "ordo-indexed" {
				if v, err := s.do(ftCreate...); err != nil || v.Str != "OK" {
					errs = append(errs, fmt.Sprintf("FT.CREATE: %v %s", err, v.Str))
					s.stop()
					continue
				}
			}
			el, err := parallelLoad(s, o.N, 4, ftHSET)
			s.stop()
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			rate := float64(o.N) / el
			switch cfg {
			case "redis":
				redis = append(redis, rate)
			case "ordo":
				plain = append(plain, rate)
			default:
				indexed = append(indexed, rate)
			}
		}
	}
	res := Result{Group: "index", Name: name, Unit: "HSET/s", Redis: median(plain), Ordo: median(indexed),
		HigherBetter: true, Base: "ordo-server without an index", Goal: 1 / 1.5,
		Extra: fmt.Sprintf("4 connections pipelining; redis-server without an index: %.0f HSET/s.", median(redis))}
	if len(errs) > 0 {
		res.Err = strings.Join(dedupe(errs), "; ")
	}
	o.Log("%-50s ordo plain %8.0f  indexed %8.0f  ratio %.2f %s", "index HSET", res.Redis, res.Ordo, res.Ratio(), res.Err)
	return res
}

// queryStats is one query measurement: the rate over all clients and
// the latency percentiles in milliseconds.
type queryStats struct{ rate, p50, p99 float64 }

// runQueries runs ftClients closed-loop clients for ftQueryTime, each
// calling query with its own connection and random source.
func runQueries(s *server, seed uint64, query func(c net.Conn, br *bufio.Reader, a int, buf []byte) ([]byte, error)) (queryStats, error) {
	type result struct {
		lat []time.Duration
		err error
	}
	results := make([]result, ftClients)
	var wg sync.WaitGroup
	deadline := time.Now().Add(ftQueryTime)
	t0 := time.Now()
	for c := 0; c < ftClients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			conn, err := net.Dial("tcp", s.addr)
			if err != nil {
				results[c].err = err
				return
			}
			defer conn.Close()
			br := bufio.NewReaderSize(conn, 64<<10)
			var buf []byte
			for k := uint64(0); time.Now().Before(deadline); k++ {
				a := int(splitmix(seed+uint64(c)<<32+k) % (ftPriceMax - ftWidth))
				q0 := time.Now()
				if buf, err = query(conn, br, a, buf[:0]); err != nil {
					results[c].err = err
					return
				}
				results[c].lat = append(results[c].lat, time.Since(q0))
			}
		}(c)
	}
	wg.Wait()
	el := time.Since(t0).Seconds()
	var all []time.Duration
	for _, r := range results {
		if r.err != nil {
			return queryStats{}, fmt.Errorf("%s: %w", s.name, r.err)
		}
		all = append(all, r.lat...)
	}
	if len(all) == 0 {
		return queryStats{}, fmt.Errorf("%s: no query finished", s.name)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	return queryStats{rate: float64(len(all)) / el, p50: ms(all[len(all)/2]), p99: ms(all[len(all)*99/100])}, nil
}

// ftQuery is FT.SEARCH idx "@price:[a b]" LIMIT 0 10: one round trip.
func ftQuery(c net.Conn, br *bufio.Reader, a int, buf []byte) ([]byte, error) {
	q := "@price:[" + strconv.Itoa(a) + " " + strconv.Itoa(a+ftWidth) + "]"
	buf = resp.AppendCommand(buf, "FT.SEARCH", "idx", q, "LIMIT", "0", "10")
	if _, err := c.Write(buf); err != nil {
		return buf, err
	}
	v, err := resp.ReadReply(br)
	if err == nil && (v.Kind != resp.KindArray || len(v.Elems) == 0 || int64(len(v.Elems)) != 1+2*min(v.Elems[0].Int, 10)) {
		err = fmt.Errorf("FT.SEARCH: unexpected reply %.200s", v.String())
	}
	return buf, err
}

// handQuery is the hand-made equivalent: ZRANGE BYSCORE LIMIT 0 10 for
// the keys, then their 10 HGETALL in one pipeline (two round trips).
func handQuery(c net.Conn, br *bufio.Reader, a int, buf []byte) ([]byte, error) {
	buf = resp.AppendCommand(buf, "ZRANGE", "idx:price", strconv.Itoa(a), strconv.Itoa(a+ftWidth), "BYSCORE", "LIMIT", "0", "10")
	if _, err := c.Write(buf); err != nil {
		return buf, err
	}
	v, err := resp.ReadReply(br)
	if err != nil {
		return buf, err
	}
	if v.Kind != resp.KindArray || len(v.Elems) > 10 {
		return buf, fmt.Errorf("ZRANGE: unexpected reply %.200s", v.String())
	}
	if len(v.Elems) == 0 {
		return buf, nil
	}
	buf = buf[:0]
	for _, k := range v.Elems {
		buf = resp.AppendCommand(buf, "HGETALL", k.Str)
	}
	if _, err := c.Write(buf); err != nil {
		return buf, err
	}
	var raw []byte
	for range v.Elems {
		if raw, err = resp.ReadRawReply(br, raw[:0]); err != nil {
			return buf, err
		}
		if len(raw) == 0 || raw[0] != '*' {
			return buf, fmt.Errorf("HGETALL: unexpected reply %q", raw)
		}
	}
	return buf, nil
}

// ftSearchRows loads docs documents into both servers, with the
// hand-made price index on both and the FT index on ordo-server, then
// measures the queries, alternating: redis hand-made, ordo FT.SEARCH,
// ordo hand-made.
func ftSearchRows(o Options, tmp string, docs int, name, ownName string) []Result {
	fail := func(err error) []Result {
		return []Result{{Group: "index", Name: name, Err: err.Error()}}
	}
	rs, ors, stop, err := startBoth(o, tmp)
	if err != nil {
		return fail(err)
	}
	defer stop()
	if v, err := ors.do(ftCreate...); err != nil || v.Str != "OK" {
		return fail(fmt.Errorf("FT.CREATE: %v %s", err, v.Str))
	}
	for _, s := range []*server{rs, ors} {
		if _, err := parallelLoad(s, docs, 2, func(i int, dst []byte) []byte {
			return handIndex(i, ftHSET(i, dst), false)
		}); err != nil {
			return fail(err)
		}
	}
	var rh, of, oh []queryStats
	var errs []string
	for i := 0; i < o.Repeat; i++ {
		seed := uint64(i) << 48
		for _, m := range []struct {
			s   *server
			q   func(net.Conn, *bufio.Reader, int, []byte) ([]byte, error)
			dst *[]queryStats
		}{{rs, handQuery, &rh}, {ors, ftQuery, &of}, {ors, handQuery, &oh}} {
			st, err := runQueries(m.s, seed, m.q)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			*m.dst = append(*m.dst, st)
		}
	}
	med := func(xs []queryStats) queryStats {
		var r, a, b []float64
		for _, x := range xs {
			r, a, b = append(r, x.rate), append(a, x.p50), append(b, x.p99)
		}
		return queryStats{median(r), median(a), median(b)}
	}
	mrh, mof, moh := med(rh), med(of), med(oh)
	lat := func(label string, q queryStats) string {
		return fmt.Sprintf("%s p50 %.2f ms, p99 %.2f ms", label, q.p50, q.p99)
	}
	note := fmt.Sprintf("%d clients; %s; %s; %s.", ftClients,
		lat("FT.SEARCH (ordo)", mof), lat("hand-made (redis)", mrh), lat("hand-made (ordo)", moh))
	r1 := Result{Group: "index", Name: name, Unit: "queries/s", Redis: mrh.rate, Ordo: mof.rate, HigherBetter: true, Extra: note}
	r2 := Result{Group: "index", Name: ownName, Unit: "queries/s", Redis: moh.rate, Ordo: mof.rate, HigherBetter: true,
		Base: "the hand-made queries on ordo-server", Extra: note}
	if len(errs) > 0 {
		r1.Err = strings.Join(dedupe(errs), "; ")
		r2.Err = r1.Err
	}
	o.Log("%-50s redis hand %8.0f  ordo FT %8.0f  ordo hand %8.0f q/s %s", "index FT.SEARCH", mrh.rate, mof.rate, moh.rate, r1.Err)
	return []Result{r1, r2}
}

// ftMemRow: the RSS a server grows by (each after MEMORY PURGE) when an
// index over docs loaded documents is built: FT.CREATE on ordo-server,
// the hand-made sorted set (price) and sets (color, each name word) on
// redis-server (and, for the notes, on ordo-server); per indexed field
// and document.
func ftMemRow(o Options, tmp string, docs int, name string) Result {
	var rv, ov, oh []float64
	var errs []string
	fields := float64(3 * docs)
	for i := 0; i < o.Repeat; i++ {
		for _, cfg := range []string{"redis", "ordo", "ordo-hand"} {
			start := startOrdo
			if cfg == "redis" {
				start = startRedis
			}
			s, err := start(o, tmp)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			delta, err := func() (float64, error) {
				if _, err := parallelLoad(s, docs, 2, ftHSET); err != nil {
					return 0, err
				}
				settle := func() float64 {
					s.do("MEMORY", "PURGE")
					time.Sleep(time.Second)
					return float64(s.rss())
				}
				before := settle()
				if cfg != "ordo" {
					if _, err := parallelLoad(s, docs, 2, func(i int, dst []byte) []byte { return handIndex(i, dst, true) }); err != nil {
						return 0, err
					}
				} else {
					if v, err := s.do(ftCreate...); err != nil || v.Str != "OK" {
						return 0, fmt.Errorf("FT.CREATE: %v %s", err, v.Str)
					}
					if err := waitIndexed(s, "idx"); err != nil {
						return 0, err
					}
				}
				return settle() - before, nil
			}()
			s.stop()
			if err != nil {
				errs = append(errs, s.name+": "+err.Error())
			} else if cfg == "redis" {
				rv = append(rv, delta)
			} else if cfg == "ordo" {
				ov = append(ov, delta)
			} else {
				oh = append(oh, delta)
			}
		}
	}
	res := Result{Group: "index", Name: name, Unit: "bytes", Redis: median(rv) / fields, Ordo: median(ov) / fields,
		Base: "redis-server's hand-made index (a sorted set for price, a set per color and per name word)",
		Extra: fmt.Sprintf("RSS growth after MEMORY PURGE: %.1f / %.1f MiB for %d documents; the same hand-made index on ordo-server: %.1f MiB, %.1f bytes per field per document.",
			median(rv)/(1<<20), median(ov)/(1<<20), docs, median(oh)/(1<<20), median(oh)/fields)}
	if len(errs) > 0 {
		res.Err = strings.Join(dedupe(errs), "; ")
	}
	o.Log("%-50s redis %6.1f B  ordo %6.1f B  ratio %.2f %s", "index memory per field per doc", res.Redis, res.Ordo, res.Ratio(), res.Err)
	return res
}
