package engine_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// The differential fuzz test runs a fixed number of random commands by
// default (a fixed seed: the same sequence every run); longer runs:
//
//	go test -run TestDifferentialFuzz ./internal/engine -fuzz.n 200000 -fuzz.seed 7
var (
	fuzzN    = flag.Int("fuzz.n", 4000, "commands TestDifferentialFuzz sends")
	fuzzSeed = flag.Uint64("fuzz.seed", 1, "seed of TestDifferentialFuzz")
)

// fuzzGen makes random commands whose replies do not depend on time,
// randomness or hash order (or are compared unordered): edge integers
// and floats, binary and empty arguments, wrong types, wrong arities.
type fuzzGen struct{ r *rand.Rand }

func (g *fuzzGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

var (
	fuzzKeys = []string{"s", "s2", "z", "z2", "l", "l2", "h", "str", "n", "none", ""}
	fuzzMems = []string{"a", "b", "c", "d", "1", "2", "-1", "10", "-0", "", "\x00", "\xff\xfe", "x\r\ny",
		strings.Repeat("m", 70), "9223372036854775807", "3.0"}
	fuzzInts = []string{"0", "1", "2", "3", "-1", "-2", "5", "10", "100", "2147483647", "2147483648", "4294967297",
		"9223372036854775807", "9223372036854775806", "-9223372036854775808", "-9223372036854775807",
		"9223372036854775808", "1.5", "abc", "", " 1", "+1", "0x10", "1e3", "-0", "01"}
	fuzzFloats = []string{"0", "-0", "1", "-1.5", "2.5", "inf", "-inf", "+inf", "nan", "1e308", "-1e308", "1e400",
		"abc", "", "0.1", "1e-320", "9007199254740993", "3", " 2", "0x10", "(1"}
	fuzzScoreBounds = []string{"-inf", "+inf", "(1", "1", "(-0", "0", "-0", "abc", "(", "nan", "2.5", "(inf"}
	fuzzLexBounds   = []string{"-", "+", "[a", "(a", "[", "(", "a", "", "[\xff", "(c"}
)

func (g *fuzzGen) key() string { return fuzzKeys[g.r.IntN(len(fuzzKeys))] }
func (g *fuzzGen) mem() string { return fuzzMems[g.r.IntN(len(fuzzMems))] }
func (g *fuzzGen) num() string { return fuzzInts[g.r.IntN(len(fuzzInts))] }
func (g *fuzzGen) flt() string { return fuzzFloats[g.r.IntN(len(fuzzFloats))] }
func (g *fuzzGen) sb() string  { return fuzzScoreBounds[g.r.IntN(len(fuzzScoreBounds))] }
func (g *fuzzGen) lb() string  { return fuzzLexBounds[g.r.IntN(len(fuzzLexBounds))] }

func (g *fuzzGen) lon() string {
	return g.pick("0", "1.5", "-180", "180", "181", "13.361389", "-0", "abc", "nan", "inf", "0x10")
}

func (g *fuzzGen) lat() string {
	return g.pick("0", "1.5", "85.05112878", "-85.05112878", "85.06", "38.115556", "-0", "1e-300", "abc")
}

// expiry is an expiry option whose effect does not depend on when it
// runs: absolute times, or relative ones that are refused.
func (g *fuzzGen) expiry() []string {
	if g.r.IntN(2) == 0 {
		return s(g.pick("EX", "PX"), g.pick("0", "-1", "9223372036854775807", "abc"))
	}
	return s(g.pick("EXAT", "PXAT"), g.pick("4000000000", "1", "0", "9223372036854775807", "-1"))
}

// some repeats f 0 to 3 times (never 0 when atLeastOne).
func (g *fuzzGen) some(atLeastOne bool, f func() []string) []string {
	n := g.r.IntN(4)
	if atLeastOne && n == 0 {
		n = 1
	}
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, f()...)
	}
	return out
}

func (g *fuzzGen) maybe(xs ...string) []string {
	if g.r.IntN(3) == 0 {
		return xs
	}
	return nil
}

// numkeys returns a numkeys argument (usually the true count, sometimes
// an edge integer) followed by the keys.
func (g *fuzzGen) numkeys() []string {
	keys := g.some(true, func() []string { return []string{g.key()} })
	n := fmt.Sprint(len(keys))
	if g.r.IntN(4) == 0 {
		n = g.num()
	}
	return append([]string{n}, keys...)
}

type fuzzCmd struct {
	sorted bool // reply compared with array elements unordered
	gen    func(g *fuzzGen) []string
}

func cat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func s(xs ...string) []string { return xs }

var fuzzCmds = []fuzzCmd{
	// strings
	{false, func(g *fuzzGen) []string {
		return cat(s("SET", g.key(), g.mem()), g.maybe(g.pick("NX", "XX", "GET", "KEEPTTL")), g.maybe(g.expiry()...))
	}},
	{false, func(g *fuzzGen) []string { return s("GET", g.key()) }},
	{false, func(g *fuzzGen) []string { return s("APPEND", g.key(), g.mem()) }},
	{false, func(g *fuzzGen) []string { return s("STRLEN", g.key()) }},
	{false, func(g *fuzzGen) []string { return s(g.pick("INCR", "DECR"), g.key()) }},
	{false, func(g *fuzzGen) []string { return s(g.pick("INCRBY", "DECRBY"), g.key(), g.num()) }},
	{false, func(g *fuzzGen) []string { return s("INCRBYFLOAT", g.key(), g.flt()) }},
	{false, func(g *fuzzGen) []string { return s("GETRANGE", g.key(), g.num(), g.num()) }},
	{false, func(g *fuzzGen) []string {
		return s("SETRANGE", g.key(), g.pick("0", "1", "5", "-1", "2147483648", "abc"), g.mem())
	}},
	{false, func(g *fuzzGen) []string {
		return cat(s("GETEX", g.key()), g.maybe(g.pick("PERSIST")), g.maybe(g.expiry()...))
	}},
	{false, func(g *fuzzGen) []string { return s("GETDEL", g.key()) }},
	{false, func(g *fuzzGen) []string {
		return cat(s("MSET"), g.some(true, func() []string { return s(g.key(), g.mem()) }))
	}},
	{false, func(g *fuzzGen) []string { return cat(s("MGET"), g.some(true, func() []string { return s(g.key()) })) }},
	// lists
	{false, func(g *fuzzGen) []string {
		return cat(s(g.pick("LPUSH", "RPUSH", "LPUSHX", "RPUSHX"), g.key()), g.some(true, func() []string { return s(g.mem()) }))
	}},
	{false, func(g *fuzzGen) []string { return cat(s(g.pick("LPOP", "RPOP"), g.key()), g.maybe(g.num())) }},
	{false, func(g *fuzzGen) []string { return s("LRANGE", g.key(), g.num(), g.num()) }},
	{false, func(g *fuzzGen) []string { return s("LINDEX", g.key(), g.num()) }},
	{false, func(g *fuzzGen) []string { return s("LSET", g.key(), g.num(), g.mem()) }},
	{false, func(g *fuzzGen) []string {
		return s("LINSERT", g.key(), g.pick("BEFORE", "AFTER", "X"), g.mem(), g.mem())
	}},
	{false, func(g *fuzzGen) []string { return s("LREM", g.key(), g.num(), g.mem()) }},
	{false, func(g *fuzzGen) []string { return s("LTRIM", g.key(), g.num(), g.num()) }},
	{false, func(g *fuzzGen) []string {
		return cat(s("LPOS", g.key(), g.mem()), g.maybe("RANK", g.num()), g.maybe("COUNT", g.num()), g.maybe("MAXLEN", g.num()))
	}},
	{false, func(g *fuzzGen) []string { return s("LLEN", g.key()) }},
	{false, func(g *fuzzGen) []string {
		return s("LMOVE", g.key(), g.key(), g.pick("LEFT", "RIGHT"), g.pick("LEFT", "RIGHT", "UP"))
	}},
	{false, func(g *fuzzGen) []string { return s("RPOPLPUSH", g.key(), g.key()) }},
	{false, func(g *fuzzGen) []string {
		return cat(s("LMPOP"), g.numkeys(), s(g.pick("LEFT", "RIGHT", "MIN")), g.maybe("COUNT", g.num()))
	}},
	{false, func(g *fuzzGen) []string {
		return cat(s("BLMPOP", g.pick("0.01", "-1", "abc", "1e400")), g.numkeys(), s(g.pick("LEFT", "RIGHT")), g.maybe("COUNT", g.num()))
	}},
	{false, func(g *fuzzGen) []string {
		return s(g.pick("BLPOP", "BRPOP"), g.key(), g.pick("0.01", "-1", "abc", "inf"))
	}},
	// hashes
	{false, func(g *fuzzGen) []string {
		return cat(s(g.pick("HSET", "HMSET"), g.key()), g.some(true, func() []string { return s(g.mem(), g.mem()) }))
	}},
	{false, func(g *fuzzGen) []string { return s(g.pick("HGET", "HEXISTS", "HSTRLEN"), g.key(), g.mem()) }},
	{false, func(g *fuzzGen) []string {
		return cat(s("HDEL", g.key()), g.some(true, func() []string { return s(g.mem()) }))
	}},
	{false, func(g *fuzzGen) []string {
		return cat(s("HMGET", g.key()), g.some(true, func() []string { return s(g.mem()) }))
	}},
	{false, func(g *fuzzGen) []string { return s("HINCRBY", g.key(), g.mem(), g.num()) }},
	{false, func(g *fuzzGen) []string { return s("HINCRBYFLOAT", g.key(), g.mem(), g.flt()) }},
	{false, func(g *fuzzGen) []string { return s("HSETNX", g.key(), g.mem(), g.mem()) }},
	{false, func(g *fuzzGen) []string { return s("HLEN", g.key()) }},
	{true, func(g *fuzzGen) []string { return s(g.pick("HKEYS", "HVALS", "HGETALL"), g.key()) }},
	// sets
	{false, func(g *fuzzGen) []string {
		return cat(s(g.pick("SADD", "SREM"), g.key()), g.some(true, func() []string { return s(g.mem()) }))
	}},
	{false, func(g *fuzzGen) []string { return s(g.pick("SCARD"), g.key()) }},
	{false, func(g *fuzzGen) []string { return s("SISMEMBER", g.key(), g.mem()) }},
	{false, func(g *fuzzGen) []string {
		return cat(s("SMISMEMBER", g.key()), g.some(true, func() []string { return s(g.mem()) }))
	}},
	{true, func(g *fuzzGen) []string {
		return cat(s(g.pick("SMEMBERS", "SINTER", "SUNION", "SDIFF")), g.some(true, func() []string { return s(g.key()) }))
	}},
	{false, func(g *fuzzGen) []string {
		return cat(s(g.pick("SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"), g.key()), g.some(true, func() []string { return s(g.key()) }))
	}},
	{false, func(g *fuzzGen) []string { return cat(s("SINTERCARD"), g.numkeys(), g.maybe("LIMIT", g.num())) }},
	{false, func(g *fuzzGen) []string { return s("SMOVE", g.key(), g.key(), g.mem()) }},
	// sorted sets
	{false, func(g *fuzzGen) []string {
		return cat(s("ZADD", g.key()), g.maybe(g.pick("NX", "XX", "GT", "LT")), g.maybe("CH"), g.maybe("INCR"),
			g.some(true, func() []string { return s(g.flt(), g.mem()) }))
	}},
	{false, func(g *fuzzGen) []string { return s("ZINCRBY", g.key(), g.flt(), g.mem()) }},
	{false, func(g *fuzzGen) []string {
		return cat(s("ZREM", g.key()), g.some(true, func() []string { return s(g.mem()) }))
	}},
	{false, func(g *fuzzGen) []string { return s("ZCARD", g.key()) }},
	{false, func(g *fuzzGen) []string { return s(g.pick("ZSCORE", "ZRANK", "ZREVRANK"), g.key(), g.mem()) }},
	{false, func(g *fuzzGen) []string {
		return cat(s("ZMSCORE", g.key()), g.some(true, func() []string { return s(g.mem()) }))
	}},
	{false, func(g *fuzzGen) []string { return s("ZCOUNT", g.key(), g.sb(), g.sb()) }},
	{false, func(g *fuzzGen) []string { return s("ZLEXCOUNT", g.key(), g.lb(), g.lb()) }},
	{false, func(g *fuzzGen) []string {
		switch g.r.IntN(3) {
		case 0:
			return cat(s("ZRANGE", g.key(), g.num(), g.num()), g.maybe("REV"), g.maybe("WITHSCORES"))
		case 1:
			return cat(s("ZRANGE", g.key(), g.sb(), g.sb(), "BYSCORE"), g.maybe("REV"), g.maybe("LIMIT", g.num(), g.num()), g.maybe("WITHSCORES"))
		}
		return cat(s("ZRANGE", g.key(), g.lb(), g.lb(), "BYLEX"), g.maybe("REV"), g.maybe("LIMIT", g.num(), g.num()))
	}},
	{false, func(g *fuzzGen) []string {
		return cat(s(g.pick("ZRANGEBYSCORE", "ZREVRANGEBYSCORE"), g.key(), g.sb(), g.sb()), g.maybe("WITHSCORES"), g.maybe("LIMIT", g.num(), g.num()))
	}},
	{false, func(g *fuzzGen) []string {
		return cat(s(g.pick("ZRANGEBYLEX", "ZREVRANGEBYLEX"), g.key(), g.lb(), g.lb()), g.maybe("LIMIT", g.num(), g.num()))
	}},
	{false, func(g *fuzzGen) []string {
		return cat(s("ZRANGESTORE", g.key(), g.key(), g.num(), g.num()), g.maybe("REV"))
	}},
	{false, func(g *fuzzGen) []string { return s("ZREMRANGEBYRANK", g.key(), g.num(), g.num()) }},
	{false, func(g *fuzzGen) []string { return s("ZREMRANGEBYSCORE", g.key(), g.sb(), g.sb()) }},
	{false, func(g *fuzzGen) []string { return s("ZREMRANGEBYLEX", g.key(), g.lb(), g.lb()) }},
	{false, func(g *fuzzGen) []string { return cat(s(g.pick("ZPOPMIN", "ZPOPMAX"), g.key()), g.maybe(g.num())) }},
	{false, func(g *fuzzGen) []string {
		return s(g.pick("BZPOPMIN", "BZPOPMAX"), g.key(), g.pick("0.01", "-1", "abc", "nan"))
	}},
	{false, func(g *fuzzGen) []string {
		return cat(s("ZMPOP"), g.numkeys(), s(g.pick("MIN", "MAX", "LEFT")), g.maybe("COUNT", g.num()))
	}},
	{false, func(g *fuzzGen) []string {
		return cat(s("BZMPOP", g.pick("0.01", "-1", "abc")), g.numkeys(), s(g.pick("MIN", "MAX")), g.maybe("COUNT", g.num()))
	}},
	{false, func(g *fuzzGen) []string {
		nk := g.numkeys()
		w := g.maybe("WEIGHTS")
		if w != nil {
			for i := 1; i < len(nk); i++ {
				w = append(w, g.flt())
			}
		}
		return cat(s(g.pick("ZUNION", "ZINTER", "ZDIFF")), nk, w, g.maybe("AGGREGATE", g.pick("SUM", "MIN", "MAX", "AVG")), g.maybe("WITHSCORES"))
	}},
	{false, func(g *fuzzGen) []string {
		nk := g.numkeys()
		w := g.maybe("WEIGHTS")
		if w != nil {
			for i := 1; i < len(nk); i++ {
				w = append(w, g.flt())
			}
		}
		return cat(s(g.pick("ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"), g.key()), nk, w, g.maybe("AGGREGATE", g.pick("SUM", "MIN", "MAX")))
	}},
	{false, func(g *fuzzGen) []string { return cat(s("ZINTERCARD"), g.numkeys(), g.maybe("LIMIT", g.num())) }},
	// geo (searches without ASC/DESC or COUNT compared unordered)
	{false, func(g *fuzzGen) []string {
		return cat(s("GEOADD", g.key()), g.maybe(g.pick("NX", "XX")), g.maybe("CH"),
			g.some(true, func() []string { return s(g.lon(), g.lat(), g.mem()) }))
	}},
	{false, func(g *fuzzGen) []string {
		return cat(s(g.pick("GEOPOS", "GEOHASH"), g.key()), g.some(true, func() []string { return s(g.mem()) }))
	}},
	{false, func(g *fuzzGen) []string {
		return cat(s("GEODIST", g.key(), g.mem(), g.mem()), g.maybe(g.pick("m", "km", "ft", "mi", "KM", "x")))
	}},
	{true, func(g *fuzzGen) []string {
		from := s("FROMMEMBER", g.mem())
		if g.r.IntN(2) == 0 {
			from = s("FROMLONLAT", g.lon(), g.lat())
		}
		by := s("BYRADIUS", g.pick("0", "1", "100", "5000", "-1", "abc"), g.pick("km", "m", "mi"))
		if g.r.IntN(2) == 0 {
			by = s("BYBOX", g.pick("0", "10", "1000", "-1"), g.pick("0", "10", "1000", "abc"), g.pick("km", "ft"))
		}
		head := s("GEOSEARCH", g.key())
		if g.r.IntN(3) == 0 {
			head = s("GEOSEARCHSTORE", g.key(), g.key())
		}
		return cat(head, from, by, g.maybe("WITHDIST"), g.maybe("WITHHASH"),
			g.maybe("WITHCOORD"), g.maybe("STOREDIST"), g.maybe(g.pick("ASC", "DESC")), g.maybe("COUNT", g.num()))
	}},
	// keys (no relative expiry short enough to matter: replies must not
	// depend on time)
	{false, func(g *fuzzGen) []string {
		return cat(s(g.pick("DEL", "EXISTS", "UNLINK", "TOUCH")), g.some(true, func() []string { return s(g.key()) }))
	}},
	{false, func(g *fuzzGen) []string { return s("TYPE", g.key()) }},
	{false, func(g *fuzzGen) []string { return s(g.pick("RENAME", "RENAMENX"), g.key(), g.key()) }},
	{false, func(g *fuzzGen) []string { return cat(s("COPY", g.key(), g.key()), g.maybe("REPLACE")) }},
	{false, func(g *fuzzGen) []string {
		return cat(s(g.pick("EXPIREAT", "PEXPIREAT"), g.key(), g.pick("1", "0", "-1", "4000000000", "4000000000000", "9223372036854775807", "abc")),
			g.maybe(g.pick("NX", "XX", "GT", "LT")))
	}},
	{false, func(g *fuzzGen) []string {
		return s(g.pick("EXPIRE", "PEXPIRE"), g.key(), g.pick("-1", "0", "9223372036854775807", "-9223372036854775808", "abc"))
	}},
	{false, func(g *fuzzGen) []string { return s(g.pick("EXPIRETIME", "PEXPIRETIME", "PERSIST"), g.key()) }},
	{false, func(g *fuzzGen) []string { return s("DBSIZE") }},
	// transactions
	{false, func(g *fuzzGen) []string { return s(g.pick("MULTI", "EXEC", "DISCARD", "UNWATCH")) }},
	{false, func(g *fuzzGen) []string { return cat(s("WATCH"), g.some(true, func() []string { return s(g.key()) })) }},
	// scripts
	{false, func(g *fuzzGen) []string {
		body := g.pick("return #KEYS", "return redis.call('get', KEYS[1])", "return tonumber(ARGV[1])",
			"return redis.pcall('incr', KEYS[1])", "return redis.call('zadd', KEYS[1], ARGV[1], 'q')",
			"return {KEYS[1], ARGV[1]}", "return redis.call('lrange', KEYS[1], 0, -1)")
		return cat(s("EVAL", body), g.numkeys(), g.some(false, func() []string { return s(g.pick(g.num(), g.flt(), g.mem())) }))
	}},
	// key extraction
	{false, func(g *fuzzGen) []string {
		return cat(s("COMMAND", "GETKEYS", g.pick("ZUNION", "ZINTERSTORE", "LMPOP", "BZMPOP", "SINTERCARD", "EVAL", "ZMPOP")),
			g.maybe("dst"), g.maybe("0"), g.numkeys(), g.maybe("MIN"))
	}},
}

// TestDifferentialFuzz sends random command sequences to redis-server
// and Ordo: every reply must be the same, and the server alive at the
// end (see fuzzN and fuzzSeed for longer runs).
func TestDifferentialFuzz(t *testing.T) {
	d := redistest.NewDiff(t)
	// Keys given a time in the past linger until looked up: no active
	// expiry removing them at moments that differ between the servers.
	d.Do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	defer func() {
		d.Both("DISCARD") // a failure may leave a transaction open
		d.Both("DEBUG", "SET-ACTIVE-EXPIRE", "1")
	}()
	seed := *fuzzSeed
	g := &fuzzGen{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
	var recent []string
	show := func(args []string) string { return fmt.Sprintf("%q", args) }
	defer func() {
		if t.Failed() { // a reply that never came (Fatal in ReadRaw) included
			t.Logf("seed %d; last commands:\n%s", seed, strings.Join(recent, "\n"))
		}
	}()
	for i := 0; i < *fuzzN; i++ {
		c := fuzzCmds[g.r.IntN(len(fuzzCmds))]
		args := c.gen(g)
		switch g.r.IntN(25) {
		case 0: // one argument fewer
			if len(args) > 1 {
				args = args[:len(args)-1]
			}
		case 1: // one more (not for blocking commands: it could become
			// their timeout, and 0 blocks forever)
			if !strings.HasPrefix(args[0], "B") {
				args = append(args, g.mem())
			}
		case 2: // unknown command or another spelling
			args[0] = strings.ToLower(args[0])
			if g.r.IntN(2) == 0 {
				args[0] += "x"
			}
		}
		if fuzzIsLex(args) && !fuzzSameScores(d, args[1]) {
			continue // lex ranges over different scores: unspecified, Redis's answer depends on its skiplist's levels
		}
		recent = append(recent, show(args))
		if len(recent) > 60 {
			recent = recent[1:]
		}
		want := d.Redis.DoRaw(args...)
		got := d.Ordo.DoRaw(args...)
		same := bytes.Equal(want, got)
		if !same && c.sorted {
			wv, _, _ := resp.ParseReply(want)
			gv, _, _ := resp.ParseReply(got)
			same = redistest.Canonical(wv, true) == redistest.Canonical(gv, true)
		}
		if !same {
			t.Fatalf("seed %d, command %d: %s\n redis: %q\n  ordo: %q\nlast commands:\n%s\nkeys:\n%s",
				seed, i, show(args), want, got, strings.Join(recent, "\n"), fuzzDump(d))
		}
	}
	d.Both("DISCARD")
	d.Do("PING")
	d.Do("DBSIZE")
	for _, k := range fuzzKeys {
		d.Do("TYPE", k)
	}
}

// fuzzDump shows the keys on both servers (after a mismatch).
func fuzzDump(d *redistest.Diff) string {
	d.Both("DISCARD")
	var b strings.Builder
	for _, k := range fuzzKeys {
		for _, c := range []*redistest.Conn{d.Redis, d.Ordo} {
			typ := c.Do("TYPE", k).Str
			var v resp.Value
			switch typ {
			case "string":
				v = c.Do("GET", k)
			case "list":
				v = c.Do("LRANGE", k, "0", "-1")
			case "set":
				v = c.Do("SMEMBERS", k)
			case "zset":
				v = c.Do("ZRANGE", k, "0", "-1", "WITHSCORES")
			case "hash":
				v = c.Do("HGETALL", k)
			}
			fmt.Fprintf(&b, "%q %s %s %s\n", k, typ, c.Do("OBJECT", "ENCODING", k).Str, redistest.Canonical(v, false))
		}
	}
	return b.String()
}

// fuzzIsLex reports a lex-range command.
func fuzzIsLex(args []string) bool {
	switch strings.ToUpper(args[0]) {
	case "ZLEXCOUNT", "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZREMRANGEBYLEX":
		return len(args) > 1
	}
	for _, a := range args {
		if strings.EqualFold(a, "BYLEX") {
			return len(args) > 1
		}
	}
	return false
}

// fuzzSameScores reports whether the members of the sorted set at key
// (if it is one) all have the same score, asking both servers (so that
// both look the key up alike) and reading Redis's replies. Inside MULTI
// it cannot tell: false.
func fuzzSameScores(d *redistest.Diff, key string) bool {
	var lo, hi resp.Value
	for _, c := range []*redistest.Conn{d.Ordo, d.Redis} {
		lo = c.Do("ZRANGE", key, "0", "0", "WITHSCORES")
		hi = c.Do("ZRANGE", key, "-1", "-1", "WITHSCORES")
	}
	if lo.Kind == resp.KindError {
		return true // not a sorted set: WRONGTYPE either way
	}
	if lo.Kind != resp.KindArray || hi.Kind != resp.KindArray {
		return false
	}
	return len(lo.Elems) < 2 || lo.Elems[1].Str == hi.Elems[1].Str
}
