package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// keyspaceScript is a broad list of writes (and reads, which must notify
// nothing), each run on Redis and on Ordo while a raw client listens to
// __key*__:*. Every command is followed by a marker publication, so a
// difference is reported against the command that caused it.
var keyspaceScript = [][]string{
	{"DEBUG", "SET-ACTIVE-EXPIRE", "0"},
	{"SET", "s", "1"},
	{"SET", "s", "2", "EX", "100"},
	{"SET", "s", "3", "KEEPTTL"},
	{"SET", "s", "4", "NX"},
	{"SET", "s", "5", "XX", "GET"},
	{"SETNX", "s2", "x"},
	{"SETNX", "s2", "y"},
	{"SETEX", "s3", "100", "v"},
	{"PSETEX", "s3", "100000", "v"},
	{"GETSET", "s3", "w"},
	{"MSET", "m1", "1", "m2", "2", "m1", "3"},
	{"MSETNX", "m3", "1", "m4", "2"},
	{"MSETNX", "m3", "1", "m5", "2"},
	{"GET", "s"},
	{"GET", "nosuch"},
	{"INCR", "n"},
	{"DECR", "n"},
	{"INCRBY", "n", "5"},
	{"DECRBY", "n", "2"},
	{"INCRBYFLOAT", "f", "1.5"},
	{"APPEND", "a", "xy"},
	{"APPEND", "a", "z"},
	{"SETRANGE", "a", "1", "Q"},
	{"SETRANGE", "a", "0", ""},
	{"SETRANGE", "nosuch", "0", ""},
	{"GETEX", "a", "EX", "100"},
	{"GETEX", "a", "PERSIST"},
	{"GETEX", "a"},
	{"GETDEL", "a"},
	{"GETDEL", "a"},
	{"SET", "e", "1"},
	{"EXPIRE", "e", "100"},
	{"PEXPIRE", "e", "100000"},
	{"EXPIREAT", "e", "99999999999"},
	{"PEXPIREAT", "e", "99999999999999"},
	{"EXPIRE", "e", "100", "NX"},
	{"PERSIST", "e"},
	{"PERSIST", "e"},
	{"EXPIRE", "e", "-1"},
	{"EXPIRE", "nosuch", "10"},
	{"SET", "r", "1"},
	{"RENAME", "r", "r2"},
	{"RENAME", "r2", "r2"},
	{"SET", "r3", "x"},
	{"RENAMENX", "r2", "r3"},
	{"RENAMENX", "r2", "r4"},
	{"RENAME", "r4", "r3"},
	{"COPY", "r3", "c1"},
	{"COPY", "r3", "c1", "REPLACE"},
	{"MOVE", "c1", "1"},
	{"DEL", "r3", "nosuch", "m1"},
	{"UNLINK", "m2"},
	{"LPUSH", "l", "a", "b", "c"},
	{"RPUSH", "l", "d"},
	{"LPUSHX", "l", "e"},
	{"RPUSHX", "l", "f"},
	{"LPUSHX", "nosuch", "e"},
	{"LINSERT", "l", "BEFORE", "a", "z"},
	{"LINSERT", "l", "BEFORE", "nosuch", "z"},
	{"LSET", "l", "0", "E"},
	{"LREM", "l", "0", "z"},
	{"LTRIM", "l", "0", "3"},
	{"LPOP", "l"},
	{"RPOP", "l", "2"},
	{"RPUSH", "src", "1", "2"},
	{"LMOVE", "src", "dst", "LEFT", "RIGHT"},
	{"RPOPLPUSH", "src", "dst"},
	{"LMOVE", "dst", "dst", "LEFT", "LEFT"},
	{"LMPOP", "1", "dst", "RIGHT"},
	{"LMPOP", "1", "dst", "LEFT", "COUNT", "5"},
	{"RPUSH", "bl", "x", "y"},
	{"BLPOP", "bl", "0"},
	{"BRPOP", "bl", "0"},
	{"RPUSH", "bl", "x", "y"},
	{"BLMOVE", "bl", "bl2", "RIGHT", "LEFT", "0"},
	{"BRPOPLPUSH", "bl", "bl2", "0"},
	{"BLMPOP", "0", "1", "bl2", "LEFT", "COUNT", "9"},
	{"LTRIM", "l", "1", "0"},
	{"HSET", "h", "a", "1", "b", "2"},
	{"HSET", "h", "a", "1"},
	{"HMSET", "h", "c", "3"},
	{"HSETNX", "h", "c", "3"},
	{"HSETNX", "h", "d", "3"},
	{"HINCRBY", "h", "n", "2"},
	{"HINCRBYFLOAT", "h", "f", "2.5"},
	{"HDEL", "h", "nosuch"},
	{"HDEL", "h", "a", "b"},
	{"HGET", "h", "c"},
	{"HDEL", "h", "c", "d", "n", "f"},
	{"SADD", "set", "a", "b", "c"},
	{"SADD", "set", "a"},
	{"SREM", "set", "a"},
	{"SREM", "set", "nosuch"},
	{"SMOVE", "set", "set2", "b"},
	{"SMOVE", "set", "set2", "nosuch"},
	{"SMOVE", "set", "set", "c"},
	{"SMOVE", "set", "set2", "c"},
	{"SADD", "sp", "1", "2", "3"},
	{"SPOP", "sp"},
	{"SPOP", "sp", "1"},
	{"SPOP", "sp", "10"},
	{"SADD", "i1", "a", "b"},
	{"SADD", "i2", "b", "c"},
	{"SINTERSTORE", "is", "i1", "i2"},
	{"SUNIONSTORE", "us", "i1", "i2"},
	{"SDIFFSTORE", "ds", "i1", "i2"},
	{"SINTERSTORE", "is", "i1", "nosuch"},
	{"SINTERSTORE", "is2", "i1", "nosuch"},
	{"ZADD", "z", "1", "a", "2", "b", "3", "c"},
	{"ZADD", "z", "1", "a"},
	{"ZADD", "z", "5", "a"},
	{"ZADD", "z", "INCR", "1", "a"},
	{"ZADD", "z", "XX", "1", "nosuch"},
	{"ZINCRBY", "z", "2", "b"},
	{"ZREM", "z", "nosuch"},
	{"ZREM", "z", "a"},
	{"ZADD", "z", "1", "a", "2", "d", "3", "e", "4", "f"},
	{"ZREMRANGEBYSCORE", "z", "0", "1"},
	{"ZREMRANGEBYRANK", "z", "0", "0"},
	{"ZREMRANGEBYLEX", "z", "-", "+"},
	{"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"},
	{"ZPOPMIN", "z"},
	{"ZPOPMAX", "z"},
	{"BZPOPMIN", "z", "0"},
	{"BZPOPMAX", "z", "0"},
	{"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"},
	{"ZMPOP", "1", "z", "MIN"},
	{"ZMPOP", "1", "z", "MAX", "COUNT", "1"},
	{"BZMPOP", "0", "1", "z", "MIN", "COUNT", "10"},
	{"ZADD", "za", "1", "a", "2", "b"},
	{"ZADD", "zb", "1", "b", "2", "c"},
	{"ZUNIONSTORE", "zu", "2", "za", "zb"},
	{"ZINTERSTORE", "zi", "2", "za", "zb"},
	{"ZDIFFSTORE", "zd", "2", "za", "zb"},
	{"ZRANGESTORE", "zr", "za", "0", "-1"},
	{"ZINTERSTORE", "zi", "2", "za", "nosuch"},
	{"GEOADD", "g", "13.361389", "38.115556", "Palermo"},
	{"GEOADD", "g", "15.087269", "37.502669", "Catania"},
	{"GEOSEARCHSTORE", "gs", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"},
	{"MULTI"},
	{"SET", "t1", "1"},
	{"INCR", "t1"},
	{"DEL", "t1"},
	{"EXEC"},
	{"EVAL", "redis.call('set', KEYS[1], 'x'); redis.call('lpush', KEYS[2], 'y'); return 1", "2", "lua1", "lua2"},
	{"SELECT", "3"},
	{"SET", "db3", "x"},
	{"SELECT", "0"},
	{"SET", "px", "x", "PX", "1"},
	{"DEBUG", "SLEEP", "0.01"},
	{"GET", "px"},
	{"FLUSHDB"},
}

// readMessages reads pushed messages until the marker with id; each
// message is rendered "kind channel payload" (pattern omitted).
func readMessages(t *testing.T, c *redistest.Conn, marker string) []string {
	t.Helper()
	var out []string
	for range 10000 {
		v, _, err := resp.ParseReply(c.ReadRaw())
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Elems) == 4 && v.Elems[0].Str == "pmessage" {
			if v.Elems[2].Str == "__keyevent@0__:marker" {
				if v.Elems[3].Str == marker {
					return out
				}
				continue
			}
			out = append(out, v.Elems[2].Str+" "+v.Elems[3].Str)
			continue
		}
		out = append(out, fmt.Sprintf("%q", redistest.Canonical(v, false)))
	}
	t.Fatalf("marker %s never came", marker)
	return nil
}

// keyspaceDiff runs keyspaceScript on both servers with the given
// notify-keyspace-events setting and compares the notifications.
func keyspaceDiff(t *testing.T, classes string, script [][]string) {
	r := redistest.StartRedis(t)
	o := redistest.StartOrdo(t)
	type server struct {
		name     string
		sub, cmd *redistest.Conn
	}
	var srv []server
	for _, x := range []struct{ name, addr string }{{"redis", r.Addr}, {"ordo", o.Addr}} {
		s := server{x.name, redistest.Dial(t, x.addr), redistest.Dial(t, x.addr)}
		s.cmd.Do("CONFIG", "SET", "notify-keyspace-events", classes)
		s.sub.Do("PSUBSCRIBE", "__key*__:*")
		srv = append(srv, s)
	}
	for i, cmd := range script {
		var got [2][]string
		for j, s := range srv {
			reply := s.cmd.DoRaw(cmd...)
			if cmd[0] == "MULTI" || (len(reply) > 0 && string(reply) == "+QUEUED\r\n") {
				continue
			}
			marker := fmt.Sprint(i)
			s.cmd.Do("PUBLISH", "__keyevent@0__:marker", marker)
			got[j] = readMessages(t, s.sub, marker)
		}
		if strings.Join(got[0], "\n") != strings.Join(got[1], "\n") {
			t.Errorf("%s %q:\n redis %q\n ordo  %q", classes, cmd, got[0], got[1])
		}
	}
}

// Keyspace notifications: the same messages as Redis for a broad list of
// commands, for all classes and for the "new" class.
func TestKeyspaceNotificationsDiff(t *testing.T) {
	redistest.RequireRedis(t)
	keyspaceDiff(t, "KEA", keyspaceScript)
	keyspaceDiff(t, "KEn", keyspaceScript)
}

// The key-miss class: reads of missing keys.
func TestKeyspaceKeyMissDiff(t *testing.T) {
	redistest.RequireRedis(t)
	keyspaceDiff(t, "KEm", [][]string{
		{"GET", "nosuch"},
		{"SET", "k", "v"},
		{"GET", "k"},
		{"MGET", "k", "no1", "no2"},
		{"EXISTS", "nosuch"},
		{"TYPE", "nosuch"},
		{"TTL", "nosuch"},
		{"STRLEN", "nosuch"},
		{"HGET", "nosuch", "f"},
		{"HGETALL", "nosuch"},
		{"LRANGE", "nosuch", "0", "-1"},
		{"LINDEX", "nosuch", "0"},
		{"SMEMBERS", "nosuch"},
		{"SISMEMBER", "nosuch", "m"},
		{"SINTER", "k2", "nosuch"},
		{"ZRANGE", "nosuch", "0", "-1"},
		{"ZSCORE", "nosuch", "m"},
		{"GETDEL", "nosuch"},
		{"GETEX", "nosuch", "PERSIST"},
		{"OBJECT", "FREQ", "nosuch"},
		{"OBJECT", "IDLETIME", "nosuch"},
		{"INCR", "n"},
		{"DEL", "nosuch"},
		{"OBJECT", "ENCODING", "nosuch"},
		{"GETRANGE", "nosuch", "0", "1"},
		{"SUBSTR", "nosuch", "0", "1"},
		{"HEXISTS", "nosuch", "f"},
		{"LPOS", "nosuch", "x"},
		{"SRANDMEMBER", "nosuch"},
		{"ZCARD", "nosuch"},
		{"GEOPOS", "nosuch", "m"},
		{"EVAL", "return redis.call('get', KEYS[1])", "1", "nosuch"},
		{"MULTI"},
		{"GET", "nosuch"},
		{"EXEC"},
	})
}

// More writes: expiries in the past, GETEX's forms, COPY to another
// database, MOVE onto an existing key, SWAPDB and FLUSHALL (which notify
// nothing), and commands on missing keys.
func TestKeyspaceNotificationsMoreDiff(t *testing.T) {
	redistest.RequireRedis(t)
	keyspaceDiff(t, "AKEn", [][]string{
		{"SET", "k", "v"},
		{"EXPIRE", "k", "0"},
		{"SET", "k", "v"},
		{"PEXPIREAT", "k", "1"},
		{"SET", "k", "v"},
		{"GETEX", "k", "PXAT", "1"},
		{"SET", "k", "v"},
		{"GETEX", "k", "EXAT", "99999999999"},
		{"SET", "k", "v", "GET"},
		{"SET", "k", "w", "PXAT", "99999999999999"},
		{"SET", "k", "w", "EX", "100", "GET"},
		{"COPY", "k", "k2", "DB", "2"},
		{"COPY", "k", "k2", "DB", "2"},
		{"SELECT", "2"},
		{"SET", "k", "other"},
		{"SELECT", "0"},
		{"MOVE", "k", "2"},
		{"SWAPDB", "0", "2"},
		{"SWAPDB", "0", "2"},
		{"HINCRBYFLOAT", "nh", "f", "1"},
		{"HINCRBY", "nh", "g", "1"},
		{"LPUSH", "nl", "a"},
		{"LREM", "nl", "0", "a"},
		{"RPUSH", "nl", "a", "b", "c"},
		{"LSET", "nl", "-1", "z"},
		{"LINSERT", "nl", "AFTER", "z", "y"},
		{"LPOS", "nl", "z"},
		{"SADD", "ns", "a", "b"},
		{"SINTERCARD", "1", "ns"},
		{"SREM", "ns", "a", "b"},
		{"ZADD", "nz", "GT", "CH", "1", "a"},
		{"ZADD", "nz", "GT", "CH", "0", "a"},
		{"ZADD", "nz", "LT", "CH", "0", "a"},
		{"ZADD", "nz", "NX", "5", "a"},
		{"ZINCRBY", "nz", "-1", "a"},
		{"ZREMRANGEBYSCORE", "nz", "-inf", "+inf"},
		{"ZUNIONSTORE", "nz2", "1", "nosuch"},
		{"SUNIONSTORE", "ns2", "nosuch"},
		{"SET", "n", "1"},
		{"INCRBYFLOAT", "n", "0.5"},
		{"SETRANGE", "nr", "2", "ab"},
		{"APPEND", "nr", ""},
		{"DEL", "n", "nr"},
		{"GEOADD", "geo", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"},
		{"GEORADIUS", "geo", "15", "37", "200", "km", "STORE", "geostore"},
		{"GEORADIUS", "geo", "15", "37", "200", "km", "STOREDIST", "geodist"},
		{"GEORADIUSBYMEMBER", "geo", "Palermo", "10", "km", "STORE", "geostore"},
		{"GEOSEARCHSTORE", "geostore", "geo", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "m", "STOREDIST"},
		{"ZADD", "zx", "1", "a"},
		{"ZUNIONSTORE", "zx", "1", "nosuch"},
		{"SADD", "sx", "a"},
		{"SDIFFSTORE", "sx", "sx", "sx"},
		{"SET", "str", "v"},
		{"RPUSH", "lw", "a"},
		{"LMOVE", "lw", "str", "LEFT", "LEFT"},
		{"SMOVE", "nosuch", "sx", "a"},
		{"HSET", "hw", "f", "v"},
		{"HSETNX", "hw", "f", "w"},
		{"HDEL", "hw", "f"},
		{"ZADD", "zw", "XX", "INCR", "1", "a"},
		{"ZADD", "zw", "NX", "INCR", "1", "a"},
		{"ZPOPMIN", "zw", "5"},
		{"EVAL", "redis.call('incr', KEYS[1]); redis.call('expire', KEYS[1], 100); redis.call('persist', KEYS[1]); return redis.call('del', KEYS[1])", "1", "luakey"},
		{"MULTI"},
		{"LPUSH", "tl", "a", "b"},
		{"RPOPLPUSH", "tl", "tl"},
		{"LPOP", "tl", "5"},
		{"EXEC"},
		{"FLUSHALL"},
	})
}

// Active expiry notifies "expired" (and nothing else) without any command
// touching the key.
func TestKeyspaceActiveExpiryDiff(t *testing.T) {
	r, o := startPair(t)
	for _, addr := range []string{r.Addr, o.Addr} {
		sub, cmd := redistest.Dial(t, addr), redistest.Dial(t, addr)
		cmd.Do("CONFIG", "SET", "notify-keyspace-events", "Ex")
		sub.Do("SUBSCRIBE", "__keyevent@0__:expired")
		cmd.Do("SET", "a", "1", "PX", "1")
		cmd.Do("SET", "b", "1", "PX", "1")
		var keys []string
		for len(keys) < 2 { // both servers expire them within about 100 ms
			v, _, err := resp.ParseReply(sub.ReadRaw())
			if err != nil || len(v.Elems) != 3 {
				t.Fatalf("%s: %v %v", addr, v, err)
			}
			keys = append(keys, v.Elems[1].Str+" "+v.Elems[2].Str)
		}
		slices.Sort(keys)
		if want := []string{"__keyevent@0__:expired a", "__keyevent@0__:expired b"}; !slices.Equal(keys, want) {
			t.Errorf("%s: %q, want %q", addr, keys, want)
		}
	}
}
