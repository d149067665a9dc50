package engine_test

import (
	"strconv"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

// TestMigrate runs the same MIGRATEs from a redis-server to another and
// from an ordo-server to another, comparing the replies and then both
// sources and both targets.
func TestMigrate(t *testing.T) {
	r1, r2 := redistest.StartRedis(t), redistest.StartRedis(t)
	o1, o2 := redistest.StartOrdo(t), redistest.StartOrdo(t)
	src := redistest.NewDiffWith(t, r1.Addr, o1.Addr)
	dst := redistest.NewDiffWith(t, r2.Addr, o2.Addr)
	port := func(addr string) string { return addr[len("127.0.0.1:"):] }
	closed := strconv.Itoa(redistest.FreePort(t))
	// migrate sends MIGRATE host <target port> args... to both sources.
	migrate := func(targetPort func(string) string, args ...string) {
		t.Helper()
		ra := append([]string{"MIGRATE", "127.0.0.1", targetPort(r2.Addr)}, args...)
		oa := append([]string{"MIGRATE", "127.0.0.1", targetPort(o2.Addr)}, args...)
		want, got := src.Redis.DoRaw(ra...), src.Ordo.DoRaw(oa...)
		if string(want) != string(got) {
			t.Errorf("%q:\n redis: %q\n  ordo: %q", args, want, got)
		}
	}
	toTarget := func(addr string) string { return port(addr) }
	src.Do("SET", "s", "hello")
	src.Do("HSET", "h", "a", "1", "b", "2")
	src.Do("ZADD", "z", "1", "x", "2.5", "y")
	src.Do("RPUSH", "l", "a", "b", "c")
	src.Do("SADD", "set", "1", "2", "3")
	src.Do("SET", "ttl", "v", "PX", "100000")
	migrate(toTarget, "s", "0", "5000")
	src.Do("EXISTS", "s")
	dst.Do("GET", "s")
	migrate(toTarget, "h", "0", "5000", "COPY")
	src.Do("HGETALL", "h")
	dst.Do("HGETALL", "h")
	migrate(toTarget, "h", "0", "5000") // BUSYKEY on the target
	src.Do("EXISTS", "h")
	migrate(toTarget, "h", "0", "5000", "REPLACE")
	src.Do("EXISTS", "h")
	migrate(toTarget, "", "3", "5000", "KEYS", "z", "nosuch", "l", "set", "ttl")
	src.Do("DBSIZE")
	dst.Do("SELECT", "3")
	dst.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")
	dst.Do("LRANGE", "l", "0", "-1")
	dst.DoSorted("SMEMBERS", "set")
	dst.Do("OBJECT", "ENCODING", "set")
	if pttl := dst.Ordo.Do("PTTL", "ttl").Int; pttl <= 0 || pttl > 100000 {
		t.Errorf("PTTL after MIGRATE: %d", pttl)
	}
	dst.Do("SELECT", "0")
	migrate(toTarget, "nosuch", "0", "5000")
	migrate(toTarget, "s2", "0", "5000", "KEYS", "a")
	migrate(toTarget, "", "0", "5000", "KEYS")
	migrate(toTarget, "x", "0", "abc")
	migrate(toTarget, "x", "abc", "1000")
	migrate(toTarget, "x", "0", "1000", "AUTH")
	migrate(toTarget, "x", "0", "1000", "AUTH2", "u")
	migrate(toTarget, "x", "0", "1000", "BOGUS")
	src.Do("SET", "k", "v")
	migrate(toTarget, "k", "0", "1000", "AUTH", "secret") // the targets have no password
	src.Do("EXISTS", "k")
	migrate(func(string) string { return closed }, "k", "0", "1000")
	src.Do("EXISTS", "k")
	migrate(toTarget, "k", "99", "1000") // SELECT fails on the target
	src.Do("EXISTS", "k")
}
