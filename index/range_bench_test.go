package index_test

// Benchmarks at 1,000,000 entries on a private redis-server (not run by
// go test without -bench):
//
//	go test ./index/ -run '^$' -bench 'DecimalRange|CompositeRange|ShardedRange' -benchtime 2000x
//
// Each loads its data once (pipelined, about 10-30 s) and reports ns/op
// and round trips per operation ("rt/op").

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/backend/goredis"
	"github.com/ordo-db/ordo/index"
	"github.com/ordo-db/ordo/index/tuple"
	"github.com/ordo-db/ordo/internal/redistest"
)

const benchEntries = 1_000_000

// counting counts the round trips an index makes.
type counting struct {
	backend.Backend
	n atomic.Int64
}

func (c *counting) Do(ctx context.Context, args ...any) (any, error) {
	c.n.Add(1)
	return c.Backend.Do(ctx, args...)
}

func (c *counting) Pipeline(ctx context.Context, cmds []backend.Cmd) ([]backend.Result, error) {
	c.n.Add(1)
	return c.Backend.Pipeline(ctx, cmds)
}

func (c *counting) Tx(ctx context.Context, cmds []backend.Cmd) ([]backend.Result, error) {
	c.n.Add(1)
	return c.Backend.Tx(ctx, cmds)
}

func (c *counting) Eval(ctx context.Context, s *backend.Script, keys []string, args ...any) (any, error) {
	c.n.Add(1)
	return c.Backend.Eval(ctx, s, keys, args...)
}

// load sends commands in pipelines of 2,000.
func load(b *testing.B, c redis.UniversalClient, cmds [][]any) {
	b.Helper()
	ctx := context.Background()
	for len(cmds) > 0 {
		n := min(2000, len(cmds))
		p := c.Pipeline()
		for _, cmd := range cmds[:n] {
			p.Do(ctx, cmd...)
		}
		if _, err := p.Exec(ctx); err != nil {
			b.Fatal(err)
		}
		cmds = cmds[n:]
	}
}

// decKey is one key of the decimal benchmark: intPart.frac, with frac a
// 5-digit fraction (trailing zeros stripped, never 0: the article's layout
// cannot store integers).
type decKey struct{ ip, frac int }

func (k decKey) fracString() string {
	return strings.TrimRight(fmt.Sprintf("%05d", k.frac), "0")
}
func (k decKey) String() string { return strconv.Itoa(k.ip) + "." + k.fracString() }

// The BigDecimal article's two-level layout, queried as its find(from,
// to) does: ZRANGEBYSCORE of the integer parts, then per integer part a
// ZRANGEBYLEX of its fractions, then per key an LRANGE of its values.
func articleRange(ctx context.Context, b backend.Backend, from, to decKey) (map[string][]string, error) {
	v, err := b.Do(ctx, "ZRANGEBYSCORE", "price.zset", from.ip, to.ip)
	if err != nil {
		return nil, err
	}
	fkeys := v.([]any)
	sort.Slice(fkeys, func(i, j int) bool {
		a, _ := strconv.Atoi(strings.Split(fkeys[i].(string), ":")[1])
		c, _ := strconv.Atoi(strings.Split(fkeys[j].(string), ":")[1])
		return a < c
	})
	out := map[string][]string{}
	for i, fk := range fkeys {
		lo, hi := "-", "+"
		if i == 0 {
			lo = "[" + from.fracString()
		}
		if i == len(fkeys)-1 {
			hi = "[" + to.fracString()
		}
		fr, err := b.Do(ctx, "ZRANGEBYLEX", fk, lo, hi)
		if err != nil {
			return nil, err
		}
		ip := strings.Split(fk.(string), ":")[1]
		for _, f := range fr.([]any) {
			price := ip + "." + f.(string)
			l, err := b.Do(ctx, "LRANGE", "price.userid.list:"+price, 0, -1)
			if err != nil {
				return nil, err
			}
			for _, u := range l.([]any) {
				out[price] = append(out[price], u.(string))
			}
		}
	}
	return out, nil
}

// A range of 100 keys of a 1,000,000-key decimal map: DecimalMap (one
// ZRANGE BYLEX) against the article's two-level layout, same server.
func BenchmarkDecimalRange100(b *testing.B) {
	r := redistest.StartRedis(b)
	c := redis.NewClient(&redis.Options{Addr: r.Addr})
	defer c.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	const perInt = 100
	keys := make([]decKey, 0, benchEntries)
	for ip := 0; ip < benchEntries/perInt; ip++ {
		seen := map[int]bool{}
		for len(seen) < perInt {
			f := 1 + rng.IntN(99999)
			if f%10 == 0 || seen[f] {
				continue // keep fractions distinct once trailing zeros are stripped
			}
			seen[f] = true
			keys = append(keys, decKey{ip, f})
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].ip != keys[j].ip {
			return keys[i].ip < keys[j].ip
		}
		return keys[i].frac < keys[j].frac
	})
	// DecimalMap layout ({name}:dmap members Pack(decimal, seq, value)),
	// and the article's: price.zset, price.fraction.zset:<int>,
	// price.userid.list:<price>.
	var cmds [][]any
	zadd := []any{"ZADD", "{dm}:dmap"}
	fz := map[int][]any{}
	for i, k := range keys {
		m := tuple.MustPack(tuple.MustDecimal(k.String()), int64(i+1), "user"+strconv.Itoa(i))
		zadd = append(zadd, 0, string(m))
		if len(zadd) >= 2+2*1000 {
			cmds = append(cmds, zadd)
			zadd = []any{"ZADD", "{dm}:dmap"}
		}
		cmds = append(cmds, []any{"RPUSH", "price.userid.list:" + k.String(), "user" + strconv.Itoa(i)})
		fz[k.ip] = append(fz[k.ip], 0, k.fracString())
	}
	if len(zadd) > 2 {
		cmds = append(cmds, zadd)
	}
	cmds = append(cmds, []any{"SET", "{dm}:seq", len(keys)})
	for ip, members := range fz {
		fk := "price.fraction.zset:" + strconv.Itoa(ip)
		cmds = append(cmds, append([]any{"ZADD", fk}, members...), []any{"ZADD", "price.zset", ip, fk})
	}
	load(b, c, cmds)
	cmds = nil

	cb := &counting{Backend: goredis.New(c)}
	dm := index.NewDecimalMap(cb, "dm")
	// Both layouts answer the same range identically.
	from, to := keys[500_037], keys[500_136]
	got, err := dm.Range(ctx, index.Incl(from.String()), index.Incl(to.String()), 0)
	if err != nil || len(got) != 100 {
		b.Fatalf("DecimalMap range: %d keys, %v", len(got), err)
	}
	art, err := articleRange(ctx, cb, from, to)
	if err != nil || len(art) != 100 {
		b.Fatalf("article range: %d keys, %v", len(art), err)
	}
	for _, e := range got {
		if fmt.Sprint(art[e.Key.String()]) != fmt.Sprint(e.Values) {
			b.Fatalf("key %s: DecimalMap %v, article %v", e.Key, e.Values, art[e.Key.String()])
		}
	}
	starts := make([]int, 1024)
	for i := range starts {
		starts[i] = rng.IntN(len(keys) - 100)
	}
	b.Run("decimalmap", func(b *testing.B) {
		cb.n.Store(0)
		for i := 0; b.Loop(); i++ {
			s := starts[i%len(starts)]
			if _, err := dm.Range(ctx, index.Incl(keys[s].String()), index.Incl(keys[s+99].String()), 0); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cb.n.Load())/float64(b.N), "rt/op")
	})
	b.Run("article", func(b *testing.B) {
		cb.n.Store(0)
		for i := 0; b.Loop(); i++ {
			s := starts[i%len(starts)]
			if _, err := articleRange(ctx, cb, keys[s], keys[s+99]); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cb.n.Load())/float64(b.N), "rt/op")
	})
}

// Composite range queries over 1,000,000 entries (room int 0..999, price
// decimal 0.00..99.99, product id): "room = r and 10 ≤ price ≤ 30"
// (about 200 hits) and the same with LIMIT 10.
func BenchmarkCompositeRange(b *testing.B) {
	r := redistest.StartRedis(b)
	c := redis.NewClient(&redis.Options{Addr: r.Addr})
	defer c.Close()
	ctx := context.Background()
	cb := &counting{Backend: goredis.New(c)}
	ci := index.NewComposite(cb, "rooms", index.Field{Name: "room", Type: index.Int},
		index.Field{Name: "price", Type: index.Decimal}, index.Field{Name: "product", Type: index.String})
	zkey, hkey := ci.Keys()
	rng := rand.New(rand.NewPCG(3, 4))
	var cmds [][]any
	zadd, hset := []any{"ZADD", zkey}, []any{"HSET", hkey}
	for i := range benchEntries {
		id := strconv.Itoa(i)
		price := fmt.Sprintf("%d.%02d", rng.IntN(100), rng.IntN(100))
		m, err := ci.Member(id, i%1000, price, "p"+id)
		if err != nil {
			b.Fatal(err)
		}
		zadd = append(zadd, 0, m)
		hset = append(hset, id, m)
		if len(zadd) >= 2+2*1000 {
			cmds = append(cmds, zadd, hset)
			zadd, hset = []any{"ZADD", zkey}, []any{"HSET", hkey}
		}
	}
	if len(zadd) > 2 {
		cmds = append(cmds, zadd, hset)
	}
	load(b, c, cmds)
	cmds = nil
	if n, err := ci.Len(ctx); err != nil || n != benchEntries {
		b.Fatalf("loaded %d entries, %v", n, err)
	}
	for _, lim := range []int64{0, 10} {
		b.Run(fmt.Sprintf("limit=%d", lim), func(b *testing.B) {
			cb.n.Store(0)
			hits := 0
			for i := 0; b.Loop(); i++ {
				q := index.Where(i%1000).Between("10", "30")
				if lim > 0 {
					q = q.Limit(0, lim)
				}
				es, err := ci.Find(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				hits += len(es)
			}
			b.ReportMetric(float64(cb.n.Load())/float64(b.N), "rt/op")
			b.ReportMetric(float64(hits)/float64(b.N), "hits/op")
		})
	}
}

// A 1,000,000-entry numeric index in one sorted set against the same
// split into 8 shards (same standalone server: the fan-out and merge
// cost alone), for a page of 10 and a range of about 1,000 entries.
func BenchmarkShardedRange(b *testing.B) {
	r := redistest.StartRedis(b)
	c := redis.NewClient(&redis.Options{Addr: r.Addr})
	defer c.Close()
	ctx := context.Background()
	cb := &counting{Backend: goredis.New(c)}
	one := index.NewNumeric(cb, "{one}")
	sh := index.NewShardedNumeric(cb, "sh", 8)
	var cmds [][]any
	one1 := []any{"ZADD", one.Key}
	per := map[int][]any{}
	for i := range benchEntries {
		id := "u" + strconv.Itoa(i)
		score := float64(i % 100_000)
		one1 = append(one1, score, id)
		if len(one1) >= 2+2*1000 {
			cmds = append(cmds, one1)
			one1 = []any{"ZADD", one.Key}
		}
		s := sh.ShardOf(id)
		per[s] = append(per[s], score, id)
		if len(per[s]) >= 2000 {
			cmds = append(cmds, append([]any{"ZADD", sh.ShardKey(id)}, per[s]...))
			per[s] = nil
		}
	}
	if len(one1) > 2 {
		cmds = append(cmds, one1)
	}
	for s, p := range per {
		if len(p) > 0 {
			cmds = append(cmds, append([]any{"ZADD", sh.Shard(s).Key}, p...))
		}
	}
	load(b, c, cmds)
	type ranger interface {
		Range(context.Context, ...index.QueryOption) ([]index.Hit, error)
	}
	for _, ix := range []struct {
		name string
		r    ranger
	}{{"one", one}, {"sharded8", sh}} {
		for _, q := range []struct {
			name string
			opts func(i int) []index.QueryOption
		}{
			{"page10", func(i int) []index.QueryOption {
				return []index.QueryOption{index.Min(float64(i % 90_000)), index.Limit(0, 10)}
			}},
			{"range1000", func(i int) []index.QueryOption {
				lo := float64(i % 90_000)
				return []index.QueryOption{index.Between(lo, lo+99)}
			}},
		} {
			b.Run(ix.name+"/"+q.name, func(b *testing.B) {
				cb.n.Store(0)
				for i := 0; b.Loop(); i++ {
					if _, err := ix.r.Range(ctx, q.opts(i)...); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cb.n.Load())/float64(b.N), "rt/op")
			})
		}
	}
}
