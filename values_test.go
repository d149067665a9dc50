package ordo

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

// replyCommands are run, in order, on two databases by
// TestValueRepliesMatchRESP: replies of every shape the handlers write
// (errors inside arrays, nulls, nested arrays, maps, sets, doubles,
// booleans, verbatim strings, big numbers), each deterministic so that
// both databases give the same one.
var replyCommands = [][]string{
	{"PING"}, {"PING", "hi"}, {"ECHO", "a\r\nb"},
	{"SET", "s", "v"}, {"GET", "s"}, {"GET", "missing"}, {"SET", "s", "w", "GET"},
	{"SET", "n", "10"}, {"INCR", "n"}, {"INCRBYFLOAT", "n", "1.5"}, {"APPEND", "s", "x"},
	{"STRLEN", "s"}, {"MSET", "a", "1", "b", "2"}, {"MGET", "a", "missing", "b"},
	{"GETRANGE", "s", "0", "1"}, {"SETRANGE", "s", "5", "z"}, {"GET", "s"},
	{"EXISTS", "a", "b", "zz"}, {"TYPE", "a"}, {"OBJECT", "ENCODING", "n"},
	{"SETBIT", "bits", "7", "1"}, {"BITCOUNT", "bits"}, {"BITFIELD", "bits", "GET", "u8", "0", "INCRBY", "i5", "100", "1"},
	{"LCS", "a", "b"}, {"SET", "l1", "ohmytext"}, {"SET", "l2", "mynewtext"}, {"LCS", "l1", "l2", "IDX", "WITHMATCHLEN"},
	{"DUMP", "s"},
	{"HSET", "h", "f1", "v1", "f2", "2", "f3", ""}, {"HGETALL", "h"}, {"HMGET", "h", "f1", "nope", "f3"},
	{"HINCRBYFLOAT", "h", "f2", "0.25"}, {"HKEYS", "h"}, {"HVALS", "h"}, {"HSCAN", "h", "0"},
	{"HSCAN", "h", "0", "MATCH", "f1"}, {"HGET", "h", "nope"}, {"HEXISTS", "h", "f1"},
	{"RPUSH", "l", "a", "b", "c", "a"}, {"LRANGE", "l", "0", "-1"}, {"LPOS", "l", "a", "COUNT", "0"},
	{"LPOP", "l", "2"}, {"LPOP", "nolist", "2"}, {"BLPOP", "l", "0"}, {"BLMPOP", "0", "1", "l", "RIGHT"},
	{"BLPOP", "empty", "0.01"}, {"LMPOP", "1", "empty", "LEFT"},
	{"SADD", "set", "3", "1", "2"}, {"SMEMBERS", "set"}, {"SISMEMBER", "set", "2"}, {"SMISMEMBER", "set", "1", "9"},
	{"SADD", "set2", "2", "3", "4"}, {"SINTER", "set", "set2"}, {"SINTERCARD", "2", "set", "set2"}, {"SSCAN", "set", "0"},
	{"SADD", "sset", "x", "y"}, {"SMEMBERS", "sset"},
	{"ZADD", "z", "1", "a", "2.5", "b", "-inf", "c", "inf", "d"}, {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
	{"ZSCORE", "z", "b"}, {"ZSCORE", "z", "d"}, {"ZSCORE", "z", "none"}, {"ZMSCORE", "z", "a", "none", "c"},
	{"ZINCRBY", "z", "0.1", "a"}, {"ZRANGEBYSCORE", "z", "(1", "+inf", "LIMIT", "0", "2", "WITHSCORES"},
	{"ZRANK", "z", "b", "WITHSCORE"}, {"ZPOPMIN", "z"}, {"ZSCAN", "z", "0"}, {"ZRANGE", "z", "0", "-1", "BYSCORE", "LIMIT", "0", "1"},
	{"BZPOPMAX", "z", "0"}, {"ZUNION", "2", "z", "set", "WITHSCORES"},
	{"XADD", "st", "1-1", "f", "v"}, {"XADD", "st", "2-1", "f", "w", "g", "x"}, {"XRANGE", "st", "-", "+"},
	{"XREVRANGE", "st", "+", "-", "COUNT", "1"}, {"XRANGE", "st", "-", "+", "COUNT", "0"},
	{"XREAD", "STREAMS", "st", "nost", "0", "0"}, {"XREAD", "COUNT", "1", "STREAMS", "st", "0-0"},
	{"XGROUP", "CREATE", "st", "g", "0"}, {"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "st", ">"},
	{"XPENDING", "st", "g"}, {"XACK", "st", "g", "1-1"}, {"XINFO", "GROUPS", "st"}, {"XLEN", "st"},
	{"XINFO", "STREAM", "st"}, {"XADD", "st", "1-1", "f", "v"},
	{"GEOADD", "geo", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"},
	{"GEOPOS", "geo", "Palermo", "nowhere"}, {"GEODIST", "geo", "Palermo", "Catania", "km"}, {"GEOHASH", "geo", "Catania"},
	{"GEOSEARCH", "geo", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC", "WITHCOORD", "WITHDIST", "WITHHASH"},
	{"PFADD", "hll", "a", "b"}, {"PFCOUNT", "hll"},
	{"SORT", "l"}, {"RPUSH", "nums", "3", "1", "2"}, {"SORT", "nums", "DESC", "LIMIT", "0", "2"},
	{"PUBLISH", "ch", "m"}, {"PUBSUB", "NUMSUB", "ch"},
	{"NOSUCHCOMMAND", "x"}, {"GET"}, {"LPUSH", "s", "x"}, {"SET", "s", "v", "BADOPT"}, {"INCR", "s"},
	{"CONFIG", "GET", "maxmemory-policy"}, {"CONFIG", "GET", "hash-max-*"}, {"COMMAND", "INFO", "GET", "nocmd"},
	{"COMMAND", "DOCS", "ECHO"}, {"COMMAND", "GETKEYS", "SET", "k", "v"}, {"LATENCY", "DOCTOR"}, {"LOLWUT", "VERSION", "5", "1", "1"},
	{"CLIENT", "ID"}, {"CLIENT", "GETNAME"}, {"CLIENT", "SETNAME", "me"}, {"CLIENT", "GETNAME"},
	// Transactions: errors inside EXEC's array, an aborted EXEC.
	{"MULTI"}, {"SET", "t", "1"}, {"INCR", "s"}, {"GET", "t"}, {"LPUSH", "t", "x"}, {"EXEC"},
	{"MULTI"}, {"SET", "t"}, {"EXEC"},
	{"WATCH", "t"}, {"SET", "t", "changed"}, {"MULTI"}, {"GET", "t"}, {"EXEC"},
	{"EXEC"}, {"DISCARD"},
	// Scripts: every conversion of a Lua value, errors inside arrays.
	{"EVAL", "return {1, 'two', {3, {err='ERR inner'}}, false, true, {ok='fine'}}", "0"},
	{"EVAL", "return redis.pcall('INCR', KEYS[1])", "1", "s"},
	{"EVAL", "return {redis.pcall('INCR', KEYS[1]), redis.call('GET', 'missing')}", "1", "s"},
	{"EVAL", "return redis.error_reply('MY error')", "0"}, {"EVAL", "return redis.status_reply('STAT')", "0"},
	{"EVAL", "return 3.99", "0"}, {"EVAL", "error('boom')", "0"},
	{"EVAL", `redis.setresp(3); return {redis.call('CONFIG', 'GET', 'maxmemory-policy'), redis.call('SMEMBERS', 'set'), redis.call('ZSCORE', 'z', 'b')}`, "0"},
	{"EVAL", "return {double=3.5}", "0"}, {"EVAL", "return {big_number='12345678901234567890'}", "0"},
	{"EVAL", "return {verbatim_string={format='txt', string='hello'}}", "0"},
	{"EVAL", "return {map={a=1}}", "0"}, {"EVAL", "return {set={x=true}}", "0"},
	{"EVAL", "redis.setresp(3); return redis.call('GET', 'missing')", "0"},
	{"EVAL", "return {1, nil, 3}", "0"},
	{"FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function(k, a) return {k[1], a[1], 1.5} end)"},
	{"FCALL", "f", "1", "key", "arg"}, {"FUNCTION", "LIST"}, {"FUNCTION", "STATS"},
	{"SCRIPT", "EXISTS", "0000000000000000000000000000000000000000"},
	// Indexes: FT.PROFILE's error reply replaces its header (Writer.Cut).
	{"FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "doc:", "SCHEMA", "name", "TEXT", "age", "NUMERIC", "SORTABLE"},
	{"HSET", "doc:1", "name", "ann", "age", "30"}, {"HSET", "doc:2", "name", "bob", "age", "40"},
	{"FT.SEARCH", "idx", "@age:[0 100]", "SORTBY", "age"}, {"FT.SEARCH", "idx", "@age:[0 35]", "NOCONTENT"},
	{"FT.AGGREGATE", "idx", "*", "GROUPBY", "0", "REDUCE", "COUNT", "0", "AS", "n"},
	{"FT.PROFILE", "idx", "SEARCH", "QUERY", "@nofield:[0 1]"}, {"FT.SEARCH", "noidx", "x"},
	// CLIENT REPLY OFF leaves no reply at all; SKIP drops one.
	{"CLIENT", "REPLY", "OFF"}, {"SET", "r", "1"}, {"CLIENT", "REPLY", "ON"}, {"CLIENT", "REPLY", "SKIP"}, {"GET", "r"}, {"GET", "r"},
	{"SELECT", "1"}, {"SET", "s", "db1"}, {"GET", "s"}, {"SELECT", "0"}, {"GET", "s"},
	{"SUBSCRIBE", "ch"}, {"QUIT"},
}

// TestValueRepliesMatchRESP runs replyCommands on two databases, one
// session reading each reply from RESP bytes (resp.ParseReply, the path
// before value mode) and one from value mode (resp.Writer.Value), in
// RESP2 and then, after HELLO 3, RESP3: every reply must be the same
// value. A blocked command served by another session's push is compared
// too.
func TestValueRepliesMatchRESP(t *testing.T) {
	ctx := context.Background()
	open := func() *DB {
		db, err := Open(t.TempDir(), &Options{InMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	dbB, dbV := open(), open()
	for _, proto := range []string{"2", "3"} {
		b, v := dbB.newConn(false), dbV.newConn(true)
		reply := func(c *Conn, args []string) (resp.Value, error) {
			argv := make([][]byte, len(args))
			for i, a := range args {
				argv[i] = []byte(a)
			}
			if err := c.run(ctx, argv); err != nil {
				return resp.Value{}, err
			}
			if c.w.ValueMode() {
				return c.w.Value()
			}
			r, _, err := resp.ParseReply(c.w.Buf)
			return r, err
		}
		compare := func(args []string, rb, rv resp.Value, eb, ev error) {
			t.Helper()
			if (eb == nil) != (ev == nil) || eb != nil && eb.Error() != ev.Error() {
				t.Fatalf("RESP%s %q: errors differ: parsed %v, values %v", proto, args, eb, ev)
			}
			if !reflect.DeepEqual(rb, rv) {
				t.Fatalf("RESP%s %q:\nparsed %#v\nvalues %#v", proto, args, rb, rv)
			}
		}
		hello := []string{"HELLO", proto}
		rb, eb := reply(b, hello)
		rv, ev := reply(v, hello)
		compare(hello, rb, rv, eb, ev)
		for _, args := range replyCommands {
			if args[0] == "QUIT" && proto == "2" {
				continue // the RESP3 round runs on the same data
			}
			rb, eb := reply(b, args)
			rv, ev := reply(v, args)
			compare(args, rb, rv, eb, ev)
		}
		// A blocked command answered when another session pushes (BLPOP
		// "empty" above timed out: the other blocked path).
		served := func(db *DB, c *Conn) (resp.Value, error) {
			type res struct {
				v   resp.Value
				err error
			}
			ch := make(chan res, 1)
			go func() {
				r, err := reply(c, []string{"BLPOP", "wake" + proto, "0"})
				ch <- res{r, err}
			}()
			// Either order gives the same reply; the push nearly always
			// comes after the block, through the waiter's own writer.
			time.Sleep(20 * time.Millisecond)
			db.Do(ctx, "RPUSH", "wake"+proto, "x")
			r := <-ch
			return r.v, r.err
		}
		rb, eb = served(dbB, b)
		rv, ev = served(dbV, v)
		compare([]string{"BLPOP (served)"}, rb, rv, eb, ev)
		b.Close()
		v.Close()
	}
}

// TestDoSessionsStartFresh checks that DB.Do's pooled sessions keep
// Do's guarantee: each call is a new session (its own client ID, database
// 0, RESP2, no name, replies on), whatever the call before changed.
func TestDoSessionsStartFresh(t *testing.T) {
	ctx := context.Background()
	db, err := Open(t.TempDir(), &Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Do(ctx, "SET", "k", "db0").Err(); err != nil {
		t.Fatal(err)
	}
	ids := map[int64]bool{}
	for i, change := range [][]any{
		{"SELECT", "1"}, {"HELLO", "3"}, {"CLIENT", "SETNAME", "x"}, {"CLIENT", "REPLY", "OFF"},
		{"CLIENT", "NO-EVICT", "ON"}, {"CLIENT", "TRACKING", "ON"}, {"MULTI"}, {"WATCH", "k"},
		{"CLIENT", "SETINFO", "LIB-NAME", "lib"}, {"ACL", "SETUSER", "u", "on", ">p", "+@all", "~*"},
		{"AUTH", "u", "p"}, {"CLIENT", "REPLY", "SKIP"}, {"PING"},
	} {
		db.Do(ctx, change...)
		id, err := db.Do(ctx, "CLIENT", "ID").Int64()
		if err != nil {
			t.Fatalf("after %v: CLIENT ID: %v", change, err)
		}
		if ids[id] {
			t.Fatalf("after %v: CLIENT ID %d again", change, id)
		}
		ids[id] = true
		if s, err := db.Do(ctx, "GET", "k").Text(); err != nil || s != "db0" {
			t.Fatalf("after %v: GET k = %q, %v (database 0 expected)", change, s, err)
		}
		ci, err := db.Do(ctx, "CLIENT", "INFO").Text()
		if err != nil {
			t.Fatal(err)
		}
		infoID, _, _ := strings.Cut(strings.TrimPrefix(ci, "id="), " ")
		if n, err := strconv.ParseInt(infoID, 10, 64); err != nil || n <= id {
			t.Fatalf("after %v: CLIENT INFO's id %q, not a session after %d", change, infoID, id)
		}
		for _, want := range []string{" name= ", " db=0 ", " resp=2 ", " lib-name= ", " user=default "} {
			if !strings.Contains(ci, want) {
				t.Fatalf("change %d %v: CLIENT INFO %q lacks %q", i, change, ci, want)
			}
		}
		if v := db.Do(ctx, "HGETALL", "nohash").Val(); !reflect.DeepEqual(v, []any{}) {
			t.Fatalf("after %v: HGETALL in %T, not a RESP2 array", change, v)
		}
	}
}
