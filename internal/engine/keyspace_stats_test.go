package engine_test

import (
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

// statField returns one field of INFO.
func statField(c *redistest.Conn, section, name string) string {
	for _, line := range strings.Split(c.Do("INFO", section).Str, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	return ""
}

// INFO keyspace_hits/keyspace_misses count read lookups as Redis's
// lookupKeyRead does (reads, and the sources of the store commands), not
// writes; CONFIG RESETSTAT zeroes them.
func TestKeyspaceHitsMisses(t *testing.T) {
	r, o := startPair(t)
	tw := newTwin(t, r.Addr, o.Addr)
	setup := [][]string{
		{"SET", "s", "v"}, {"RPUSH", "l", "a", "b"}, {"SADD", "set1", "a"}, {"SADD", "set2", "b"},
		{"ZADD", "z", "1", "a"}, {"HSET", "h", "f", "v"}, {"PFADD", "hll", "a"}, {"SET", "n", "1"},
	}
	for _, c := range setup {
		tw.do(1, c...)
	}
	tw.do(1, "CONFIG", "RESETSTAT")
	cmds := [][]string{
		{"GET", "s"}, {"GET", "nosuch"}, {"MGET", "s", "nosuch", "n"}, {"STRLEN", "s"}, {"EXISTS", "s", "nosuch"},
		{"TYPE", "s"}, {"TTL", "nosuch"}, {"PTTL", "s"}, {"LRANGE", "l", "0", "-1"}, {"LLEN", "nosuch"},
		{"SMEMBERS", "set1"}, {"SUNION", "set1", "set2", "nosuch"}, {"SUNIONSTORE", "dst", "set1", "nosuch"},
		{"SINTERSTORE", "dst2", "set1", "set2"}, {"ZRANGE", "z", "0", "-1"}, {"ZSCORE", "z", "a"},
		{"ZUNIONSTORE", "zd", "2", "z", "nosuch"}, {"HGET", "h", "f"}, {"HGETALL", "nosuch"},
		{"PFCOUNT", "hll"}, {"DUMP", "s"}, {"OBJECT", "ENCODING", "s"}, {"OBJECT", "ENCODING", "nosuch"},
		{"GETDEL", "nosuch"}, {"GETEX", "s"}, {"COPY", "s", "s2"}, {"BITOP", "AND", "b", "s", "nosuch"},
		{"SET", "s", "w"}, {"INCR", "n"}, {"LPUSH", "l", "c"}, {"DEL", "nosuch", "s2"}, {"APPEND", "s", "x"},
		{"HSET", "h", "g", "w"}, {"SADD", "set1", "c"}, {"ZADD", "z", "2", "b"}, {"EXPIRE", "s", "100"},
		{"SET", "s", "y", "GET"}, {"RENAME", "n", "n2"}, {"LMOVE", "l", "l2", "LEFT", "RIGHT"},
		{"SORT", "l", "ALPHA"}, {"SORT", "l", "ALPHA", "STORE", "sorted"}, {"PFMERGE", "hll2", "hll"},
		{"EVAL", "return redis.call('get', KEYS[1])", "1", "s"},
	}
	for _, c := range cmds {
		tw.send(c...)
		tw.r.ReadRaw()
		tw.o.ReadRaw()
		rh, oh := statField(tw.r, "stats", "keyspace_hits"), statField(tw.o, "stats", "keyspace_hits")
		rm, om := statField(tw.r, "stats", "keyspace_misses"), statField(tw.o, "stats", "keyspace_misses")
		if rh != oh || rm != om {
			t.Errorf("after %q: hits %s/%s misses %s/%s (redis/ordo)", c, rh, oh, rm, om)
			tw.do(1, "CONFIG", "RESETSTAT")
		}
	}
	tw.do(1, "CONFIG", "RESETSTAT")
	if h, m := statField(tw.o, "stats", "keyspace_hits"), statField(tw.o, "stats", "keyspace_misses"); h != "0" || m != "0" {
		t.Errorf("after RESETSTAT: %s %s", h, m)
	}
}
