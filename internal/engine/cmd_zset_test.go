package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// zrun sends each space-separated command to both servers and compares.
func zrun(d *redistest.Diff, cmds ...string) {
	for _, c := range cmds {
		d.Do(strings.Fields(c)...)
	}
}

// zboth runs each command in RESP2 and then in RESP3.
func zboth(t *testing.T, d *redistest.Diff, setup []string, cmds []string) {
	t.Helper()
	for _, proto := range []string{"2", "3"} {
		d.Both("FLUSHALL")
		d.Both("HELLO", proto)
		for _, s := range setup {
			d.Both(strings.Fields(s)...)
		}
		zrun(d, cmds...)
	}
	d.Both("HELLO", "2")
}

func TestZSetZAdd(t *testing.T) {
	d := redistest.NewDiff(t)
	zboth(t, d, nil, []string{
		"ZADD z 1 a", "ZADD z 2 b 3 c", "ZADD z 1 a", "ZADD z CH 5 a 2 b", "ZADD z NX 10 a 11 d",
		"ZADD z XX 20 a 21 e", "ZADD z XX CH 20 a 22 b", "ZADD z GT 1 a", "ZADD z GT CH 30 a",
		"ZADD z LT CH 25 a 1 f", "ZADD z LT 40 a", "ZADD z XX GT CH 50 a", "ZADD z XX LT CH 1 a",
		"ZADD z INCR 5 a", "ZADD z INCR NX 5 a", "ZADD z INCR XX 5 nosuch", "ZADD z INCR GT -100 a",
		"ZADD z INCR LT -100 a", "ZADD z INCR 1 new", "ZADD z nx incr 3 new2",
		"ZADD z NX XX 1 a", "ZADD z GT LT 1 a", "ZADD z GT NX 1 a", "ZADD z LT NX 1 a",
		"ZADD z INCR 1 a 2 b", "ZADD z 1", "ZADD z 1 a 2", "ZADD z x a", "ZADD z 1 a x b",
		"ZADD z nan a", "ZADD z inf a", "ZADD z -inf b", "ZADD z +inf c", "ZADD z 1e400 a",
		"ZADD z INCR -inf a", "ZADD z INCR +inf b", "ZSCORE z a",
		"ZADD z FOO 1 a", "ZADD z CH", "ZADD z NX XX", "ZADD z INCR NX XX 1 a 2 b",
		"ZADD z 0x10 hex", "ZADD z ' 1' sp", "ZADD z 1.5e3 e3", "ZADD z -0 neg0", "ZADD z 1_0 u",
		"ZRANGE z 0 -1 WITHSCORES", "ZCARD z", "ZCARD nosuch",
		"ZADD nokey XX 1 a", "EXISTS nokey", "ZADD nokey XX INCR 1 a", "EXISTS nokey",
		"SET s x", "ZADD s 1 a", "ZINCRBY s 1 a", "ZCARD s",
		"ZINCRBY z 2 a", "ZINCRBY z 2 brandnew", "ZINCRBY z x a", "ZINCRBY z nan a", "ZINCRBY zz 1.5 m",
		"ZINCRBY z -inf a", "ZINCRBY z +inf a", "ZINCRBY z 1", "ZINCRBY z 1 a b",
		"ZADD f 30.3 c", "ZRANGE f 0 -1 WITHSCORES", "ZADD f 0.1 d 1e-300 e 123456789012345678 g 1.7976931348623157e308 h",
		"ZRANGE f 0 -1 WITHSCORES", "ZSCORE f c", "ZMSCORE f c d nosuch", "ZMSCORE nosuch a b", "ZMSCORE s a",
		"ZSCORE nosuch a", "ZSCORE s a", "ZMSCORE f",
	})
}

func TestZSetEncodingAndConversion(t *testing.T) {
	d := redistest.NewDiff(t)
	zrun(d, "ZADD small 1 a 2 b", "OBJECT ENCODING small")
	args := []string{"ZADD", "big"}
	for i := 0; i < 129; i++ {
		args = append(args, strconv.Itoa(i), "m"+strconv.Itoa(i))
	}
	d.Do(args...)
	zrun(d, "OBJECT ENCODING big", "ZREMRANGEBYRANK big 0 100", "OBJECT ENCODING big", "ZCARD big")
	d.Do("ZADD", "long", "1", strings.Repeat("x", 65))
	zrun(d, "OBJECT ENCODING long", "ZADD grow 1 a", "OBJECT ENCODING grow")
	d.Do("ZADD", "grow", "2", strings.Repeat("y", 65))
	zrun(d, "OBJECT ENCODING grow")
	for i := 0; i < 128; i++ {
		d.Both("ZADD", "edge", strconv.Itoa(i), "e"+strconv.Itoa(i))
	}
	zrun(d, "OBJECT ENCODING edge", "ZADD edge 1 e1", "OBJECT ENCODING edge", "ZADD edge 1 new", "OBJECT ENCODING edge")
	// Stores choose the encoding from the result.
	zrun(d, "ZUNIONSTORE u 1 big", "OBJECT ENCODING u", "ZRANGESTORE r big 0 5", "OBJECT ENCODING r",
		"ZRANGESTORE r2 edge 0 -1", "OBJECT ENCODING r2", "ZINTERSTORE i 2 edge edge", "OBJECT ENCODING i")
	zrun(d, "CONFIG SET zset-max-listpack-entries 0", "ZADD zero 1 a", "OBJECT ENCODING zero",
		"CONFIG SET zset-max-listpack-entries 128", "TYPE zero")
}

func TestZSetRanges(t *testing.T) {
	d := redistest.NewDiff(t)
	setup := []string{"ZADD z 1 a 2 b 3 c 4 d 5 e 5 f 5 g -inf ninf +inf pinf 2.5 bb"}
	zboth(t, d, setup, []string{
		"ZRANGE z 0 -1", "ZRANGE z 0 -1 WITHSCORES", "ZRANGE z 2 4 withscores", "ZRANGE z -3 -1",
		"ZRANGE z -100 100", "ZRANGE z 5 2", "ZRANGE z 100 200", "ZRANGE z 0 0 REV", "ZRANGE z 0 -1 REV WITHSCORES",
		"ZREVRANGE z 0 2", "ZREVRANGE z 0 -1 WITHSCORES", "ZREVRANGE z 0 1 REV", "ZREVRANGE z a b",
		"ZRANGE z 1 3 BYSCORE", "ZRANGE z (1 3 BYSCORE", "ZRANGE z (1 (3 BYSCORE WITHSCORES",
		"ZRANGE z -inf +inf BYSCORE", "ZRANGE z 3 1 BYSCORE", "ZRANGE z 3 1 BYSCORE REV", "ZRANGE z (3 (1 BYSCORE REV",
		"ZRANGE z -inf +inf BYSCORE LIMIT 1 3", "ZRANGE z -inf +inf BYSCORE LIMIT 1 -1", "ZRANGE z -inf +inf BYSCORE LIMIT -1 3",
		"ZRANGE z -inf +inf BYSCORE LIMIT 0 0", "ZRANGE z -inf +inf BYSCORE LIMIT 100 1", "ZRANGE z +inf -inf BYSCORE REV LIMIT 2 2 WITHSCORES",
		"ZRANGE z 5 5 BYSCORE", "ZRANGE z (5 5 BYSCORE", "ZRANGE z 5 (5 BYSCORE", "ZRANGE z x 5 BYSCORE", "ZRANGE z 1 nan BYSCORE",
		"ZRANGE z ( (5 BYSCORE", "ZRANGE z 1e999 inf BYSCORE", "ZRANGE z -1e999 0 BYSCORE",
		"ZRANGE z 0 -1 LIMIT 0 1", "ZRANGE z - + BYLEX WITHSCORES", "ZRANGE z 0 1 BYSCORE BYLEX", "ZRANGE z 0 1 BYLEX BYSCORE",
		"ZRANGE z 0 1 REV REV", "ZRANGE z 0 1 foo", "ZRANGE z 0 1 LIMIT 0", "ZRANGE z 0 1 BYSCORE LIMIT x 1", "ZRANGE z 0 1 BYSCORE LIMIT 0 x",
		"ZRANGE z x 1", "ZRANGE z 0 y", "ZRANGE nosuch 0 -1", "ZRANGE nosuch a b", "ZRANGE nosuch 0 1 BYSCORE",
		"ZRANGEBYSCORE z 2 4", "ZRANGEBYSCORE z 2 4 WITHSCORES LIMIT 1 2", "ZRANGEBYSCORE z -inf +inf withscores",
		"ZRANGEBYSCORE z 2 4 REV", "ZRANGEBYSCORE z 2 4 BYLEX", "ZRANGEBYSCORE z a b", "ZRANGEBYSCORE z 2 4 LIMIT 1",
		"ZREVRANGEBYSCORE z 4 2", "ZREVRANGEBYSCORE z 2 4", "ZREVRANGEBYSCORE z +inf -inf WITHSCORES LIMIT 0 3",
		"ZREVRANGEBYSCORE z (5 (2", "ZCOUNT z 2 4", "ZCOUNT z (2 (4", "ZCOUNT z -inf +inf", "ZCOUNT z 5 1", "ZCOUNT z x 1",
		"ZCOUNT nosuch 0 1", "ZCOUNT z '' ''", "ZRANK z a", "ZRANK z pinf", "ZRANK z nosuch", "ZRANK nosuch a",
		"ZREVRANK z a", "ZREVRANK z pinf", "ZREVRANK z nosuch", "ZRANK z a WITHSCORE", "ZREVRANK z a withscore",
		"SET s x", "ZRANGE s 0 -1", "ZRANGEBYSCORE s 0 1", "ZCOUNT s 0 1", "ZRANK s a", "ZREVRANGE s 0 1",
		"ZRANGE s x y", "ZCOUNT s x y",
	})
}

func TestZSetLex(t *testing.T) {
	d := redistest.NewDiff(t)
	setup := []string{"ZADD z 0 a 0 aa 0 ab 0 b 0 ba 0 c 0 bit 0 bitter 0 biz"}
	zboth(t, d, setup, []string{
		"ZRANGE z - + BYLEX", "ZRANGE z [a (b BYLEX", "ZRANGE z [b + BYLEX", "ZRANGE z (a [b BYLEX",
		"ZRANGE z + - BYLEX", "ZRANGE z + - BYLEX REV", "ZRANGE z [c [a BYLEX REV", "ZRANGE z - + BYLEX LIMIT 2 3",
		"ZRANGE z - + BYLEX REV LIMIT 1 2", "ZRANGE z a b BYLEX", "ZRANGE z [a b BYLEX", "ZRANGE z ++ - BYLEX",
		"ZRANGE z -- + BYLEX", "ZRANGE z [ ( BYLEX", "ZRANGE z [ [ BYLEX", "ZRANGE z ( + BYLEX",
		"ZRANGEBYLEX z - +", "ZRANGEBYLEX z [aa [b", "ZRANGEBYLEX z - + LIMIT 0 2", "ZRANGEBYLEX z - + WITHSCORES",
		"ZRANGEBYLEX z a b", "ZREVRANGEBYLEX z + -", "ZREVRANGEBYLEX z [b [a", "ZREVRANGEBYLEX z (c (a LIMIT 1 10",
		"ZLEXCOUNT z - +", "ZLEXCOUNT z [a [b", "ZLEXCOUNT z (a (b", "ZLEXCOUNT z + -", "ZLEXCOUNT z a b", "ZLEXCOUNT nosuch - +",
		"ZREMRANGEBYLEX z [ba [biz", "ZRANGE z 0 -1", "ZREMRANGEBYLEX z a b", "ZREMRANGEBYLEX nosuch - +",
		"ZREMRANGEBYLEX z - +", "EXISTS z", "SET s x", "ZRANGEBYLEX s - +", "ZLEXCOUNT s - +", "ZREMRANGEBYLEX s - +",
	})
	// Binary members and \xff bounds.
	d.Do("ZADD", "bin", "0", "bit", "0", "bit\xff", "0", "bit\x00x", "0", "bitz", "0", "bi", "0", "\xff\xfe")
	d.Do("ZRANGE", "bin", "[bit", "[bit\xff", "BYLEX")
	d.Do("ZRANGE", "bin", "(bit", "(bit\xff", "BYLEX")
	d.Do("ZRANGE", "bin", "[\xff", "+", "BYLEX")
	d.Do("ZLEXCOUNT", "bin", "[bit\x00", "+")
}

func TestZSetRemRange(t *testing.T) {
	d := redistest.NewDiff(t)
	setup := []string{"ZADD z 1 a 2 b 3 c 4 d 5 e 6 f"}
	zrun(d, setup...)
	zrun(d, "ZREMRANGEBYRANK z 0 0", "ZREMRANGEBYRANK z -1 -1", "ZREMRANGEBYRANK z 5 1", "ZREMRANGEBYRANK z 10 20",
		"ZREMRANGEBYRANK z x 1", "ZRANGE z 0 -1 WITHSCORES", "ZREMRANGEBYSCORE z (2 4", "ZREMRANGEBYSCORE z x 1",
		"ZREMRANGEBYSCORE z 10 1", "ZRANGE z 0 -1", "ZREMRANGEBYSCORE z -inf +inf", "EXISTS z",
		"ZREMRANGEBYRANK nosuch 0 -1", "ZREMRANGEBYSCORE nosuch 0 1", "SET s x", "ZREMRANGEBYRANK s 0 1",
		"ZREMRANGEBYSCORE s 0 1", "ZREMRANGEBYRANK s x 1", "ZADD y 1 a 2 b", "ZREMRANGEBYRANK y 0 -1", "EXISTS y")
	zrun(d, "ZADD r 1 a 2 b 3 c", "ZREM r a x", "ZREM r a", "ZREM r b c d", "EXISTS r", "ZREM nosuch a", "ZREM s a", "ZREM r")
}

func TestZSetPop(t *testing.T) {
	d := redistest.NewDiff(t)
	setup := []string{"ZADD z 1 a 2 b 3 c 4 d 5 e", "SET s x"}
	zboth(t, d, setup, []string{
		"ZPOPMIN z", "ZPOPMAX z", "ZPOPMIN z 2", "ZPOPMAX z 0", "ZPOPMIN z -1", "ZPOPMIN z x", "ZPOPMIN z 1 2",
		"ZPOPMIN nosuch", "ZPOPMIN nosuch 3", "ZPOPMIN nosuch 0", "ZPOPMIN s", "ZPOPMIN s 0", "ZPOPMAX z 10", "EXISTS z",
		"ZADD m1 1 a 2 b 3 c", "ZADD m2 10 x",
		"ZMPOP 1 m1 MIN", "ZMPOP 2 nosuch m1 MAX COUNT 5", "ZMPOP 2 nosuch m2 MIN COUNT 1", "ZMPOP 1 nosuch MIN",
		"ZMPOP 0 m1 MIN", "ZMPOP -1 m1 MIN", "ZMPOP x m1 MIN", "ZMPOP 1 m1", "ZMPOP 1 m1 FOO", "ZMPOP 3 m1 MIN",
		"ZMPOP 1 m1 MIN COUNT 0", "ZMPOP 1 m1 MIN COUNT -1", "ZMPOP 1 m1 MIN COUNT x", "ZMPOP 1 m1 MIN COUNT",
		"ZMPOP 1 m1 MIN COUNT 1 COUNT 1", "ZMPOP 1 m1 MIN foo", "ZMPOP 2 s m1 MIN", "ZMPOP 1 s MIN",
		"BZPOPMIN nosuch 0.01", "BZPOPMAX nosuch s 0.01", "BZPOPMIN s 0", "BZPOPMIN z -1", "BZPOPMIN z x",
		"ZADD b1 1 a 2 b", "BZPOPMIN nosuch b1 0", "BZPOPMAX b1 0", "EXISTS b1",
		"BZMPOP 0.01 1 nosuch MIN", "ZADD b2 1 a 2 b 3 c", "BZMPOP 0 2 nosuch b2 MAX COUNT 2", "BZMPOP 0 1 b2 MIN",
		"BZMPOP -1 1 b2 MIN", "BZMPOP x 1 b2 MIN", "BZMPOP 0 0 b2 MIN", "BZMPOP 0 1 b2 FOO", "BZMPOP 0 x b2 MIN",
		"BZMPOP x 0 b2 MIN", "BZMPOP 0 1 s MIN",
		"MULTI", "BZPOPMIN nosuch 0", "BZMPOP 0 1 nosuch MIN", "EXEC",
	})
}

func TestZSetBlocking(t *testing.T) {
	r, o := redistest.Shared(t)
	for _, addr := range []string{r.Addr, o.Addr} {
		a := redistest.Dial(t, addr)
		b := redistest.Dial(t, addr)
		a.Do("FLUSHALL")
		a.Send("BZPOPMIN", "bq1", "bq2", "5")
		a.Send("PING")
		time.Sleep(100 * time.Millisecond)
		b.Do("ZADD", "bq2", "3", "x", "1", "y")
		got := string(a.ReadRaw())
		if got != "*3\r\n$3\r\nbq2\r\n$1\r\ny\r\n$1\r\n1\r\n" {
			t.Errorf("%s: BZPOPMIN served %q", addr, got)
		}
		a.ReadRaw()
		a.Send("BZMPOP", "5", "2", "bq3", "bq5", "MAX", "COUNT", "3")
		time.Sleep(100 * time.Millisecond)
		b.Do("ZADD", "bq3", "7", "p", "8", "q")
		got = string(a.ReadRaw())
		if got != "*2\r\n$3\r\nbq3\r\n*2\r\n*2\r\n$1\r\nq\r\n$1\r\n8\r\n*2\r\n$1\r\np\r\n$1\r\n7\r\n" {
			t.Errorf("%s: BZMPOP served %q", addr, got)
		}
		if v := b.Do("EXISTS", "bq3"); v.Int != 0 {
			t.Errorf("%s: emptied set still exists", addr)
		}
		a.Send("BZPOPMAX", "bq4", "0.2")
		if got := string(a.ReadRaw()); got != "*-1\r\n" {
			t.Errorf("%s: BZPOPMAX timeout %q", addr, got)
		}
	}
}

func TestZSetRandMember(t *testing.T) {
	d := redistest.NewDiff(t)
	zrun(d, "ZADD z 1 a 2 b 3 c 4 d 5 e", "SET s x")
	zrun(d, "ZRANDMEMBER nosuch", "ZRANDMEMBER nosuch 5", "ZRANDMEMBER nosuch -5 WITHSCORES", "ZRANDMEMBER z 0",
		"ZRANDMEMBER s", "ZRANDMEMBER s 1", "ZRANDMEMBER z x", "ZRANDMEMBER z 1 foo", "ZRANDMEMBER z 1 WITHSCORES x",
		"ZRANDMEMBER z -9223372036854775808", "ZRANDMEMBER z 9223372036854775807 WITHSCORES",
		"ZRANDMEMBER z -4611686018427387904 WITHSCORES", "ZRANDMEMBER z 10", "ZRANDMEMBER z 5 WITHSCORES")
	args := []string{"ZADD", "bigr"}
	for i := 0; i < 300; i++ {
		args = append(args, strconv.Itoa(i), "r"+strconv.Itoa(i))
	}
	d.Do(args...)
	zrun(d, "ZRANDMEMBER bigr 300", "ZRANDMEMBER bigr 1000 WITHSCORES")
	for _, c := range []string{"ZRANDMEMBER bigr 250", "ZRANDMEMBER bigr 20", "ZRANDMEMBER bigr -500"} {
		_, got := d.DoShape(strings.Fields(c)...)
		seen := map[string]bool{}
		for _, e := range got.Elems {
			if !strings.HasPrefix(e.Str, "r") {
				t.Errorf("%s: unexpected element %q", c, e.Str)
			}
			seen[e.Str] = true
		}
		if !strings.Contains(c, "-") && len(seen) != len(got.Elems) {
			t.Errorf("%s: %d distinct of %d", c, len(seen), len(got.Elems))
		}
	}
	for _, proto := range []string{"2", "3"} {
		d.Both("HELLO", proto)
		for _, c := range []string{"ZRANDMEMBER z", "ZRANDMEMBER z 3", "ZRANDMEMBER z -8", "ZRANDMEMBER z 3 WITHSCORES",
			"ZRANDMEMBER z -8 WITHSCORES", "ZRANDMEMBER z 1", "ZRANDMEMBER z -1 WITHSCORES"} {
			_, got := d.DoShape(strings.Fields(c)...)
			if strings.Contains(c, " 3") {
				seen := map[string]bool{}
				for _, e := range got.Elems {
					if e.Kind == resp.KindArray {
						e = e.Elems[0]
					}
					if !strings.Contains("abcde12345", e.Str) {
						t.Errorf("%s: unexpected element %q", c, e.Str)
					}
					seen[e.Str] = true
				}
				if (strings.Contains(c, "WITHSCORES") && proto == "2" && len(seen) != 6) || (!strings.Contains(c, "WITHSCORES") && len(seen) != 3) {
					t.Errorf("%s: distinct elements %v", c, seen)
				}
			}
		}
	}
	d.Both("HELLO", "2")
}

func TestZSetUnionInterDiff(t *testing.T) {
	d := redistest.NewDiff(t)
	setup := []string{"ZADD a 1 x 2 y 3 z", "ZADD b 10 y 20 z 30 w", "ZADD c 5 z", "SET str v", "ZADD inf +inf x -inf y"}
	zboth(t, d, setup, []string{
		"ZUNION 2 a b", "ZUNION 2 a b WITHSCORES", "ZUNION 2 a b WEIGHTS 2 3 WITHSCORES", "ZUNION 2 a b AGGREGATE MIN WITHSCORES",
		"ZUNION 2 a b AGGREGATE MAX WITHSCORES", "ZUNION 3 a b nosuch WITHSCORES", "ZUNION 2 a b AGGREGATE foo",
		"ZUNION 2 a b WEIGHTS 1", "ZUNION 2 a b WEIGHTS 1 x", "ZUNION 0 a", "ZUNION -1 a", "ZUNION x a", "ZUNION 3 a b",
		"ZUNION 2 a str", "ZUNION 2 a b foo", "ZUNION 2 a b WITHSCORES WITHSCORES", "ZUNION 1 inf WEIGHTS 0 WITHSCORES",
		"ZUNION 2 inf inf WITHSCORES", "ZUNION 2 inf inf WEIGHTS 1 -1 WITHSCORES",
		"ZINTER 2 a b", "ZINTER 2 a b WITHSCORES", "ZINTER 3 a b c WITHSCORES", "ZINTER 2 a b WEIGHTS 1 -1 AGGREGATE MAX WITHSCORES",
		"ZINTER 2 a nosuch", "ZINTER 2 a str", "ZINTER 1 a WITHSCORES",
		"ZDIFF 2 a b", "ZDIFF 2 a b WITHSCORES", "ZDIFF 1 a WITHSCORES", "ZDIFF 2 nosuch a", "ZDIFF 2 a b WEIGHTS 1 1",
		"ZDIFF 2 a b AGGREGATE SUM", "ZDIFF 3 a b c withscores",
		"ZINTERCARD 2 a b", "ZINTERCARD 3 a b c", "ZINTERCARD 2 a b LIMIT 1", "ZINTERCARD 2 a b LIMIT 0", "ZINTERCARD 2 a b LIMIT -1",
		"ZINTERCARD 2 a b LIMIT x", "ZINTERCARD 0 a", "ZINTERCARD 2 a", "ZINTERCARD 1 str", "ZINTERCARD 2 a b WITHSCORES",
		"ZINTERCARD 2 a nosuch",
		"ZUNIONSTORE d 2 a b", "ZRANGE d 0 -1 WITHSCORES", "ZUNIONSTORE d 2 a b WEIGHTS 1 2 AGGREGATE MAX", "ZRANGE d 0 -1 WITHSCORES",
		"ZUNIONSTORE d 2 a b WITHSCORES", "ZINTERSTORE d 2 a b", "ZRANGE d 0 -1 WITHSCORES", "ZINTERSTORE d 2 a nosuch", "EXISTS d",
		"ZDIFFSTORE d 2 a b", "ZRANGE d 0 -1 WITHSCORES", "ZDIFFSTORE d 2 a a", "EXISTS d", "ZUNIONSTORE a 2 a b", "ZRANGE a 0 -1 WITHSCORES",
		"ZUNIONSTORE d 0 a", "ZINTERSTORE str 1 b", "TYPE str", "ZDIFFSTORE d 1 str",
		"ZRANGESTORE d b 0 1", "ZRANGE d 0 -1 WITHSCORES", "ZRANGESTORE d b 0 1 WITHSCORES", "ZRANGESTORE d b 15 +inf BYSCORE",
		"ZRANGESTORE d b +inf 15 BYSCORE REV LIMIT 0 1", "ZRANGE d 0 -1 WITHSCORES", "ZRANGESTORE d b 5 1", "EXISTS d",
		"ZRANGESTORE d nosuch 0 -1", "ZRANGESTORE d str 0 -1", "ZRANGESTORE d b - + BYLEX", "ZRANGESTORE d b 0 -1 LIMIT 0 1",
	})
}

func TestZSetScan(t *testing.T) {
	d := redistest.NewDiff(t)
	zboth(t, d, []string{"ZADD z 1 a 2.5 b 30.3 c -inf d", "SET s x"}, []string{
		"ZSCAN z 0", "ZSCAN z 0 MATCH a*", "ZSCAN z 0 COUNT 1", "ZSCAN z 0 COUNT 0", "ZSCAN z 0 COUNT x",
		"ZSCAN z 0 TYPE zset", "ZSCAN z 0 MATCH", "ZSCAN z x", "ZSCAN z -1", "ZSCAN nosuch 0", "ZSCAN nosuch 0 COUNT 0",
		"ZSCAN s 0", "ZSCAN z 0 NOVALUES",
	})
	// A big set: every member exactly as Redis, whatever the cursor order.
	args := []string{"ZADD", "big"}
	for i := 0; i < 1000; i++ {
		args = append(args, strconv.Itoa(i%17)+".5", "member:"+strconv.Itoa(i))
	}
	d.Do(args...)
	for name, conn := range map[string]*redistest.Conn{"redis": d.Redis, "ordo": d.Ordo} {
		seen := map[string]string{}
		cursor := "0"
		for i := 0; i < 10000; i++ {
			v := conn.Do("ZSCAN", "big", cursor, "COUNT", "50")
			cursor = v.Elems[0].Str
			for k := 0; k+1 < len(v.Elems[1].Elems); k += 2 {
				seen[v.Elems[1].Elems[k].Str] = v.Elems[1].Elems[k+1].Str
			}
			if cursor == "0" {
				break
			}
		}
		if len(seen) != 1000 || seen["member:18"] != "1.5" {
			t.Errorf("%s: ZSCAN saw %d members, member:18=%q", name, len(seen), seen["member:18"])
		}
	}
}

func TestZSetWrongArity(t *testing.T) {
	d := redistest.NewDiff(t)
	for _, c := range []string{"ZADD", "ZADD k", "ZINCRBY k 1", "ZREM k", "ZCARD", "ZSCORE k", "ZMSCORE k", "ZRANK k",
		"ZREVRANK k", "ZCOUNT k 1", "ZLEXCOUNT k -", "ZRANGE k 0", "ZRANGESTORE d k 0", "ZREVRANGE k 0", "ZRANGEBYSCORE k 0",
		"ZREVRANGEBYSCORE k 0", "ZRANGEBYLEX k -", "ZREVRANGEBYLEX k +", "ZREMRANGEBYRANK k 0", "ZREMRANGEBYSCORE k 0",
		"ZREMRANGEBYLEX k -", "ZPOPMIN", "ZPOPMAX", "BZPOPMIN k", "BZPOPMAX k", "ZMPOP 1 k", "BZMPOP 0 1 k", "ZRANDMEMBER",
		"ZUNION 1", "ZINTER 1", "ZDIFF 1", "ZUNIONSTORE d 1", "ZINTERSTORE d 1", "ZDIFFSTORE d 1", "ZINTERCARD 1", "ZSCAN k"} {
		zrun(d, c)
	}
}

// TestZSetSeedExamples replays every sorted-set example of the source
// documents (shared/seeds 000, 002, 004).
func TestZSetSeedExamples(t *testing.T) {
	d := redistest.NewDiff(t)
	zrun(d, "ZADD myindex 25 Manuel", "ZADD myindex 18 Anna", "ZADD myindex 35 Jon", "ZADD myindex 67 Helen",
		"ZRANGE myindex 20 40 BYSCORE", "ZRANGE myindex 20 40 BYSCORE WITHSCORES", "ZCOUNT myindex 20 40",
		"ZRANGE myindex 40 20 BYSCORE REV")
	zrun(d, "ZADD user.age.index 38 1", "ZADD user.age.index 42 2", "ZADD user.age.index 33 3",
		"ZRANGE user.age.index 35 50 BYSCORE", "ZADD user.age.index 39 1", "ZRANGE user.age.index 0 -1 WITHSCORES")
	zrun(d, "DEL myindex", "ZADD myindex 0 baaa", "ZADD myindex 0 abbb", "ZADD myindex 0 aaaa", "ZADD myindex 0 bbbb",
		"ZRANGE myindex 0 -1", "ZRANGE myindex [a (b BYLEX", "ZRANGE myindex [b + BYLEX", "ZLEXCOUNT myindex [a (b")
	zrun(d, "DEL myindex", "ZADD myindex 0 banana", "ZADD myindex 0 bit", "ZADD myindex 0 bitter", "ZADD myindex 0 biz")
	d.Do("ZRANGE", "myindex", "[bit", "[bit\xff", "BYLEX")
	zrun(d, "DEL myindex", "ZADD myindex 0 banana:1", `ZRANGE myindex [banana: + BYLEX LIMIT 0 1`,
		"ZREM myindex 0 banana:1", "ZADD myindex 0 banana:2", "ZRANGE myindex [banana: + BYLEX LIMIT 0 10",
		"ZREM myindex banana:1", "ZADD myindex 0 banana:273:Banana", "ZRANGE myindex [banana: + BYLEX LIMIT 0 10")
	zrun(d, "DEL myindex", "ZADD myindex 0 mykey:myvalue", "ZRANGE myindex [mykey: + BYLEX LIMIT 0 1")
	zrun(d, "DEL myindex", "ZADD myindex 0 00324823481:foo", "ZADD myindex 0 12838349234:bar",
		"ZADD myindex 0 00000000111:zap", "ZRANGE myindex 0 -1")
	zrun(d, "DEL myindex", "ZADD myindex 0 0056:0028.44:90", "ZADD myindex 0 0034:0011.00:832",
		"ZRANGE myindex [0056:0010.00 [0056:0030.00 BYLEX", "ZRANGE myindex [0034: [0034:\xff BYLEX")
	zrun(d, "DEL myindex", "ZADD myindex 0 spo:antirez:is-friend-of:matteocollina",
		"ZADD myindex 0 sop:antirez:matteocollina:is-friend-of", "ZADD myindex 0 ops:matteocollina:is-friend-of:antirez",
		"ZADD myindex 0 osp:matteocollina:antirez:is-friend-of", "ZADD myindex 0 pso:is-friend-of:antirez:matteocollina",
		"ZADD myindex 0 pos:is-friend-of:matteocollina:antirez")
	d.Do("ZRANGE", "myindex", "[spo:antirez:is-friend-of:", "[spo:antirez:is-friend-of:\xff", "BYLEX")
	d.Do("ZRANGE", "myindex", "[sop:antirez:matteocollina:", "[sop:antirez:matteocollina:\xff", "BYLEX")
	d.Do("ZLEXCOUNT", "myindex", "[sop:antirez:", "[sop:antirez:\xff")
	zrun(d, "ZADD myzset 1 one", "ZADD myzset 1 uno", "ZADD myzset 2 two 3 three", "ZRANGE myzset 0 -1 WITHSCORES")
	zrun(d, "ZADD user:1000:category.index 1 P0001", "ZADD user:1000:time.index 1521080087 P0001",
		"ZADD user:1000:category.index 2 P0002", "ZADD user:1000:time.index 1521080201 P0002",
		"ZADD user:1000:category.index 1 P0003", "ZADD user:1000:time.index 1521080482 P0003",
		"ZRANGEBYSCORE user:1000:category.index 1 1", "ZRANGEBYSCORE user:1000:time.idex 1521080000 1521080400",
		"ZRANGEBYSCORE user:1000:time.index 1521080000 1521080400")
	zrun(d, "ZADD ss 30.3 c", "ZRANGE ss 0 -1 WITHSCORES")
}

// TestZSetRandomized drives both servers with random commands on small
// and large sets and compares every reply.
func TestZSetRandomized(t *testing.T) {
	d := redistest.NewDiff(t)
	rng := rand.New(rand.NewPCG(7, 7))
	member := func() string { return "m" + strconv.Itoa(rng.IntN(400)) }
	score := func() string {
		switch rng.IntN(6) {
		case 0:
			return "(" + strconv.Itoa(rng.IntN(40))
		case 1:
			return strconv.Itoa(rng.IntN(40)) + ".25"
		case 2:
			return []string{"-inf", "+inf", "0", "-1"}[rng.IntN(4)]
		}
		return strconv.Itoa(rng.IntN(40))
	}
	lex := func() string {
		switch rng.IntN(8) {
		case 0:
			return "-"
		case 1:
			return "+"
		case 2:
			return "(" + member()
		}
		m := member()
		return "[" + m[:min(len(m), 1+rng.IntN(3))]
	}
	keys := []string{"k1", "k2", "lex"}
	for i := 0; i < 3000; i++ {
		k := keys[rng.IntN(len(keys))]
		var cmd []string
		switch rng.IntN(14) {
		case 0, 1, 2:
			sc := strings.TrimPrefix(score(), "(")
			if k == "lex" {
				sc = "0"
			}
			cmd = []string{"ZADD", k, sc, member(), sc, member()}
		case 3:
			cmd = []string{"ZREM", k, member(), member()}
		case 4:
			cmd = []string{"ZRANGE", k, strconv.Itoa(rng.IntN(60) - 30), strconv.Itoa(rng.IntN(60) - 30), "WITHSCORES"}
		case 5:
			cmd = []string{"ZRANGEBYSCORE", k, score(), score(), "LIMIT", strconv.Itoa(rng.IntN(5)), strconv.Itoa(rng.IntN(8) - 1)}
		case 6:
			cmd = []string{"ZREVRANGEBYSCORE", k, score(), score(), "WITHSCORES"}
		case 7:
			cmd = []string{"ZRANGEBYLEX", "lex", lex(), lex()}
		case 8:
			cmd = []string{"ZREVRANGEBYLEX", "lex", lex(), lex(), "LIMIT", "1", "5"}
		case 9:
			cmd = []string{"ZCOUNT", k, score(), score()}
		case 10:
			cmd = []string{"ZLEXCOUNT", "lex", lex(), lex()}
		case 11:
			cmd = []string{"ZRANK", k, member()}
		case 12:
			inc := "1.5"
			if k == "lex" {
				inc = "0"
			}
			cmd = []string{"ZINCRBY", k, inc, member()}
		case 13:
			switch rng.IntN(4) {
			case 0:
				cmd = []string{"ZREMRANGEBYSCORE", k, score(), score()}
			case 1:
				cmd = []string{"ZREMRANGEBYLEX", "lex", lex(), lex()}
			case 2:
				cmd = []string{"ZPOPMIN", k, strconv.Itoa(rng.IntN(3))}
			default:
				cmd = []string{"ZREVRANK", k, member()}
			}
		}
		d.Do(cmd...)
		if t.Failed() {
			t.Fatalf("after %d commands (last %q)", i, cmd)
		}
	}
	for _, k := range keys {
		d.Do("ZRANGE", k, "0", "-1", "WITHSCORES")
		d.Do("OBJECT", "ENCODING", k)
	}
	_ = fmt.Sprint
}

// BenchmarkZSetCommands measures the engine's cost per command (no
// network): ZADD of random members into a growing set, and the
// ZRANGEBYLEX of the benchmark row on a 200000-member lex index.
func BenchmarkZSetCommands(b *testing.B) {
	e := engine.New(nil)
	defer e.Close()
	cl := e.NewClient("embedded")
	w := &resp.Writer{Proto: 2}
	call := func(args ...[]byte) {
		w.Reset()
		e.Lock()
		e.Call(cl, args, w)
		e.Unlock()
	}
	rng := rand.New(rand.NewPCG(1, 1))
	b.Run("zadd", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			n := strconv.Itoa(rng.IntN(1_000_000))
			call([]byte("ZADD"), []byte("myz"), []byte(n), []byte("m:"+n))
		}
	})
	for i := 0; i < 200000; i++ {
		call([]byte("ZADD"), []byte("lex"), []byte("0"), []byte("m:"+strconv.Itoa(rng.IntN(1_000_000))))
	}
	b.Run("zrangebylex", func(b *testing.B) {
		args := [][]byte{[]byte("ZRANGEBYLEX"), []byte("lex"), []byte("[m:5"), []byte("(m:6"), []byte("LIMIT"), []byte("0"), []byte("10")}
		for i := 0; i < b.N; i++ {
			call(args...)
		}
	})
}

// TestZSetPropagation checks that what sorted-set commands log replays to
// the same data: random writes (pops, stores, blocking pops served
// immediately and later) on one engine, the log replayed on another.
func TestZSetPropagation(t *testing.T) {
	src := engine.New(nil)
	defer src.Close()
	var log [][][]byte
	src.Propagate = func(db int, args [][]byte) {
		cp := make([][]byte, len(args))
		for i, a := range args {
			cp[i] = append([]byte(nil), a...)
		}
		log = append(log, cp)
	}
	cl := src.NewClient("embedded")
	call := callRaw
	rng := rand.New(rand.NewPCG(3, 3))
	keys := []string{"a", "b", "c"}
	k := func() string { return keys[rng.IntN(3)] }
	m := func() string { return "m" + strconv.Itoa(rng.IntN(60)) }
	for i := 0; i < 3000; i++ {
		switch rng.IntN(12) {
		case 0, 1, 2, 3:
			call(src, cl, "ZADD", k(), strconv.Itoa(rng.IntN(20)), m(), strconv.Itoa(rng.IntN(20)), m())
		case 4:
			call(src, cl, "ZINCRBY", k(), "2.5", m())
		case 5:
			call(src, cl, []string{"ZPOPMIN", "ZPOPMAX"}[rng.IntN(2)], k(), strconv.Itoa(rng.IntN(4)))
		case 6:
			call(src, cl, "ZMPOP", "2", k(), k(), []string{"MIN", "MAX"}[rng.IntN(2)], "COUNT", "2")
		case 7:
			call(src, cl, []string{"BZPOPMIN", "BZPOPMAX"}[rng.IntN(2)], k(), k(), "0.01")
		case 8:
			call(src, cl, "ZUNIONSTORE", k(), "2", k(), k(), "WEIGHTS", "2", "1")
		case 9:
			call(src, cl, "ZRANGESTORE", k(), k(), "1", "-2")
		case 10:
			call(src, cl, "ZREMRANGEBYSCORE", k(), strconv.Itoa(rng.IntN(20)), "("+strconv.Itoa(rng.IntN(30)))
		case 11:
			call(src, cl, "ZREM", k(), m(), m())
		}
	}
	// A blocking pop served by a later ZADD logs the pop.
	waiter := src.NewClient("normal")
	wb := [][]byte{[]byte("BZPOPMAX"), []byte("nothere"), []byte("0")}
	src.Lock()
	wt := src.Call(waiter, wb, &resp.Writer{Proto: 2})
	src.Unlock()
	if wt == nil {
		t.Fatal("BZPOPMAX on a missing key did not block")
	}
	call(src, cl, "ZADD", "nothere", "1", "x", "2", "y")
	if err := src.Wait(t.Context(), wt); err != nil {
		t.Fatal(err)
	}
	if len(log) < 100 {
		t.Fatalf("only %d commands logged", len(log))
	}
	dst := engine.New(nil)
	defer dst.Close()
	dcl := dst.NewClient("embedded")
	for _, args := range log {
		s := make([]string, len(args))
		for i, a := range args {
			s[i] = string(a)
		}
		if r := call(dst, dcl, s...); strings.HasPrefix(r, "-") {
			t.Fatalf("replaying %q: %s", s, r)
		}
	}
	for _, key := range append(keys, "nothere") {
		want := call(src, cl, "ZRANGE", key, "0", "-1", "WITHSCORES")
		if got := call(dst, dcl, "ZRANGE", key, "0", "-1", "WITHSCORES"); got != want {
			t.Errorf("%s after replay:\n got %q\nwant %q", key, got, want)
		}
	}
	if got := call(dst, dcl, "ZRANGE", "nothere", "0", "-1"); got != "*1\r\n$1\r\nx\r\n" {
		t.Errorf("served BZPOPMAX not replayed: %q", got)
	}
}

// TestZSetWithSetInputs: plain sets count as members with score 1.
func TestZSetWithSetInputs(t *testing.T) {
	d := redistest.NewDiff(t)
	zboth(t, d, []string{"SADD s1 a b c", "SADD s2 1 2 3", "ZADD z 5 a 7 d"}, []string{
		"ZUNION 2 s1 z WITHSCORES", "ZINTER 2 s1 z WITHSCORES", "ZDIFF 2 s1 z WITHSCORES", "ZDIFF 2 z s1 WITHSCORES",
		"ZINTERCARD 2 s1 z", "ZUNION 3 s1 s2 z WEIGHTS 2 3 4 WITHSCORES", "ZUNIONSTORE d 2 s2 s1", "ZRANGE d 0 -1 WITHSCORES",
		"ZINTERSTORE d 1 s2", "OBJECT ENCODING d", "ZRANGE s1 0 -1",
	})
}

// TestZSetBlockedServedFromReadyKey: a client blocked on several keys is
// served from the key that received data first, even when an earlier key
// of its list is filled in the same transaction.
func TestZSetBlockedServedFromReadyKey(t *testing.T) {
	r, o := redistest.Shared(t)
	for _, addr := range []string{r.Addr, o.Addr} {
		a := redistest.Dial(t, addr)
		b := redistest.Dial(t, addr)
		a.Do("FLUSHALL")
		a.Send("BZPOPMIN", "ka", "kb", "5")
		time.Sleep(100 * time.Millisecond)
		b.Do("MULTI")
		b.Do("ZADD", "kb", "1", "fromb")
		b.Do("ZADD", "ka", "1", "froma")
		b.Do("EXEC")
		if got := string(a.ReadRaw()); got != "*3\r\n$2\r\nkb\r\n$5\r\nfromb\r\n$1\r\n1\r\n" {
			t.Errorf("%s: served %q", addr, got)
		}
	}
}

// TestZSetRewrite: the commands a sorted set rewrites itself as (AOF
// rewrite, snapshots) rebuild the same set, encoding included.
func TestZSetRewrite(t *testing.T) {
	src := engine.New(nil)
	defer src.Close()
	dst := engine.New(nil)
	defer dst.Close()
	scl, dcl := src.NewClient("embedded"), dst.NewClient("embedded")
	call := func(e *engine.Engine, cl *engine.Client, args ...[]byte) string {
		w := &resp.Writer{Proto: 2}
		e.Lock()
		e.Call(cl, args, w)
		e.Unlock()
		return string(w.Buf)
	}
	b := func(s ...string) [][]byte {
		out := make([][]byte, len(s))
		for i, x := range s {
			out[i] = []byte(x)
		}
		return out
	}
	call(src, scl, b("ZADD", "small", "30.3", "c", "-inf", "n", "inf", "p", "-0", "z", "1e-300", "tiny")...)
	for i := 0; i < 1000; i++ {
		call(src, scl, b("ZADD", "big", strconv.Itoa(i%37)+".125", "m\x00"+strconv.Itoa(i))...)
	}
	n := 0
	src.Lock()
	src.DBs()[0].Each(engine.NowMs(), func(key string, v engine.Value, _ int64) bool {
		v.Obj().(engine.Typed).Rewrite(key, func(args [][]byte) {
			n++
			if len(args) > 2+2*64 {
				t.Errorf("rewrite batch of %d arguments", len(args))
			}
			cp := make([][]byte, len(args))
			for i, a := range args {
				cp[i] = append([]byte(nil), a...)
			}
			dst.Lock()
			dst.Call(dcl, cp, &resp.Writer{Proto: 2})
			dst.Unlock()
		})
		return true
	})
	src.Unlock()
	if n < 17 {
		t.Fatalf("%d rewrite commands", n)
	}
	for _, k := range []string{"small", "big"} {
		for _, q := range [][]byte{[]byte("ZRANGE"), []byte("OBJECT")} {
			args := b(string(q), k, "0", "-1", "WITHSCORES")
			if string(q) == "OBJECT" {
				args = b("OBJECT", "ENCODING", k)
			}
			if got, want := call(dst, dcl, args...), call(src, scl, args...); got != want {
				t.Errorf("%s %s after rewrite:\n got %.200q\nwant %.200q", q, k, got, want)
			}
		}
	}
}

// TestZSetWatch: commands that change nothing leave a WATCH intact;
// commands that change the set break it.
func TestZSetWatch(t *testing.T) {
	d := redistest.NewDiff(t)
	noops := []string{"ZADD z NX 5 a", "ZADD z XX 1 nosuch", "ZADD z 1 a", "ZREM z nosuch", "ZPOPMIN missing",
		"ZREMRANGEBYSCORE z 100 200", "ZREMRANGEBYLEX z [x [y", "ZREMRANGEBYRANK z 10 20", "ZUNIONSTORE z2 1 missing",
		"ZADD z GT 0 a", "ZADD z LT 9 a", "ZRANGESTORE z3 missing 0 -1"}
	changes := []string{"ZADD z 2 a", "ZINCRBY z 1 a", "ZREM z a", "ZPOPMAX z", "ZREMRANGEBYRANK z 0 0",
		"ZUNIONSTORE z 1 z", "ZADD z CH XX 3 a", "ZMPOP 1 z MIN", "BZPOPMIN z 0"}
	for _, c := range append(noops, changes...) {
		d.Both("FLUSHALL")
		d.Both("ZADD", "z", "1", "a", "2", "b")
		d.Both("WATCH", "z", "z2", "z3")
		zrun(d, c)
		zrun(d, "MULTI", "PING", "EXEC")
	}
}

// TestZSetLexSmallMixedScores: on a small set whose scores differ, lex
// ranges are Redis's listpack walk (first member >= min, then while <=
// max), which Ordo's small form reproduces.
func TestZSetLexSmallMixedScores(t *testing.T) {
	d := redistest.NewDiff(t)
	zrun(d, "ZADD z 0 a 1 zz 2 b 3 c 4 ba 5 d")
	for _, c := range []string{"ZRANGEBYLEX z [b [c", "ZRANGEBYLEX z - [b", "ZRANGEBYLEX z (a +", "ZLEXCOUNT z [b [d",
		"ZREVRANGEBYLEX z [d [b", "ZLEXCOUNT z - +", "ZRANGE z [a [c BYLEX LIMIT 1 2", "ZREMRANGEBYLEX z [b [c", "ZRANGE z 0 -1"} {
		zrun(d, c)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	bound := func() string {
		switch rng.IntN(6) {
		case 0:
			return "-"
		case 1:
			return "+"
		case 2:
			return "(" + string(rune('a'+rng.IntN(6)))
		}
		return "[" + string(rune('a'+rng.IntN(6)))
	}
	for i := 0; i < 300; i++ {
		d.Both("DEL", "r")
		args := []string{"ZADD", "r"}
		for j := 0; j < 1+rng.IntN(8); j++ {
			args = append(args, strconv.Itoa(rng.IntN(5)), string(rune('a'+rng.IntN(6)))+strings.Repeat("x", rng.IntN(2)))
		}
		d.Both(args...)
		a, b := bound(), bound()
		d.Do("ZRANGEBYLEX", "r", a, b)
		d.Do("ZREVRANGEBYLEX", "r", a, b)
		d.Do("ZLEXCOUNT", "r", a, b)
		d.Do("ZRANGE", "r", a, b, "BYLEX", "REV", "LIMIT", "1", "2")
		d.Do("ZREMRANGEBYLEX", "r", a, b)
		d.Do("ZRANGE", "r", "0", "-1")
		if t.Failed() {
			t.Fatalf("set %q", args)
		}
	}
}

// TestZSetKeyspace: COPY, RENAME, TYPE, OBJECT ENCODING, MEMORY USAGE and
// expiry of sorted sets, small and large.
func TestZSetKeyspace(t *testing.T) {
	d := redistest.NewDiff(t)
	args := []string{"ZADD", "big"}
	for i := 0; i < 300; i++ {
		args = append(args, strconv.Itoa(i%50), "b"+strconv.Itoa(i))
	}
	d.Do(args...)
	zrun(d, "ZADD small 1 a 2 b", "COPY big big2", "COPY small small2", "ZREM big2 b1 b2", "ZADD small2 9 z",
		"ZCARD big", "ZCARD big2", "ZRANGE small 0 -1 WITHSCORES", "ZRANGE small2 0 -1 WITHSCORES",
		"OBJECT ENCODING big2", "OBJECT ENCODING small2", "TYPE big2", "RENAME big2 big3", "ZRANGE big3 0 4 WITHSCORES",
		"EXISTS big2", "PEXPIRE small2 50")
	time.Sleep(120 * time.Millisecond)
	zrun(d, "ZCARD small2", "ZADD small2 1 x", "TTL small2", "ZRANGE small2 0 -1")
	for name, conn := range map[string]*redistest.Conn{"redis": d.Redis, "ordo": d.Ordo} {
		small := conn.Do("MEMORY", "USAGE", "small").Int
		big := conn.Do("MEMORY", "USAGE", "big").Int
		if small <= 0 || big <= small || big > 100000 {
			t.Errorf("%s: MEMORY USAGE small %d big %d", name, small, big)
		}
	}
}

// TestZSetScoreRangeLarge compares the one-pass BYSCORE reply (and the
// scores' %.17g text) with redis-server on a set past the listpack limit:
// random inclusive/exclusive/infinite bounds, REV, LIMIT (negative,
// zero, beyond the end) and WITHSCORES, in RESP2 and RESP3, over scores
// that are small and large integers, fractions and exponent forms; and
// ranges by rank, which read through the same batched scan.
func TestZSetScoreRangeLarge(t *testing.T) {
	d := redistest.NewDiff(t)
	rng := rand.New(rand.NewPCG(15, 15))
	score := func(i int) string {
		switch i % 6 {
		case 0:
			return strconv.Itoa(rng.IntN(200))
		case 1:
			return strconv.FormatUint(rng.Uint64()>>12, 10)
		case 2:
			return strconv.FormatFloat(rng.Float64()*200, 'g', -1, 64)
		case 3:
			return strconv.FormatFloat((rng.Float64()-0.5)*1e18, 'g', -1, 64)
		case 4:
			return strconv.FormatFloat(rng.Float64()*1e-6, 'g', -1, 64)
		default:
			return []string{"1e17", "99999999999999999", "-0", "0.1", "1e16", "123456789012345678", "1.5e300", "-inf", "+inf"}[rng.IntN(9)]
		}
	}
	bound := func() string {
		b := []string{"-inf", "+inf", strconv.Itoa(rng.IntN(220) - 10), strconv.FormatFloat(rng.Float64()*200, 'g', -1, 64), "0", "1e17"}[rng.IntN(6)]
		if rng.IntN(3) == 0 {
			b = "(" + b
		}
		return b
	}
	for _, proto := range []string{"2", "3"} {
		d.Both("FLUSHALL")
		d.Both("HELLO", proto)
		for i := 0; i < 600; i += 100 {
			args := []string{"ZADD", "z"}
			for j := i; j < i+100; j++ {
				args = append(args, score(j), "m"+strconv.Itoa(j))
			}
			d.Both(args...)
		}
		for q := 0; q < 300; q++ {
			lo, hi := bound(), bound()
			var args []string
			switch rng.IntN(4) {
			case 3:
				// By rank, read through the same batched scan.
				args = []string{"ZRANGE", "z", strconv.Itoa(rng.IntN(1300) - 650), strconv.Itoa(rng.IntN(1300) - 650)}
				if rng.IntN(2) == 0 {
					args = append(args, "REV")
				}
				if rng.IntN(2) == 0 {
					args = append(args, "WITHSCORES")
				}
				d.Do(args...)
				continue
			case 0:
				args = []string{"ZRANGE", "z", lo, hi, "BYSCORE"}
				if rng.IntN(2) == 0 {
					args = append(args, "REV")
				}
			case 1:
				args = []string{"ZRANGEBYSCORE", "z", lo, hi}
			default:
				args = []string{"ZREVRANGEBYSCORE", "z", hi, lo}
			}
			if rng.IntN(2) == 0 {
				args = append(args, "WITHSCORES")
			}
			if rng.IntN(2) == 0 {
				args = append(args, "LIMIT", strconv.Itoa(rng.IntN(700)-50), strconv.Itoa(rng.IntN(300)-20))
			}
			d.Do(args...)
			d.Do("ZCOUNT", "z", lo, hi)
		}
	}
	d.Both("HELLO", "2")
}
