package engine_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
)

// TestScriptFlagsOOMAndStale: what a script declares (allow-oom,
// allow-stale, no-writes, or no shebang at all) decides whether it runs
// over maxmemory and on a stale replica, as Redis's scriptFlagsToCmdFlags,
// scriptPrepareForRun and scriptVerifyOOM: refused at dispatch, refused
// at its first denyoom command, or run; compared byte for byte.
func TestScriptFlagsOOMAndStale(t *testing.T) {
	r, o := startPair(t)
	tw := newTwin(t, r.Addr, o.Addr)
	tw.do(1, "FUNCTION", "LOAD", "#!lua name=flib\n"+
		"redis.register_function{function_name='w_oom', callback=function(k) return redis.call('SET', k[1], 'x') end, flags={'allow-oom'}}\n"+
		"redis.register_function{function_name='w', callback=function(k) return redis.call('SET', k[1], 'x') end}\n"+
		"redis.register_function{function_name='ro', callback=function(k) return redis.call('GET', k[1]) end, flags={'no-writes'}}\n"+
		"redis.register_function{function_name='st', callback=function() return 5 end, flags={'no-writes','allow-stale'}}")
	tw.do(1, "SET", "filler", "some bytes")
	tw.do(1, "CONFIG", "SET", "maxmemory", "1")
	for _, c := range [][]string{
		{"FCALL", "w", "1", "a"},
		{"FCALL", "w_oom", "1", "b"},
		{"FCALL", "ro", "1", "b"},
		{"EVAL", "#!lua flags=allow-oom\nreturn redis.call('SET', KEYS[1], 'y')", "1", "c"},
		{"EVAL", "#!lua\nreturn redis.call('SET', KEYS[1], 'y')", "1", "c"},
		{"EVAL", "return redis.call('SET', KEYS[1], 'y')", "1", "c"},
		{"EVAL", "return redis.pcall('SET', KEYS[1], 'y')", "1", "c"},
		{"EVAL", "redis.call('DEL', 'none'); return redis.call('SET', KEYS[1], 'z')", "1", "c"},
		{"EVAL", "return redis.call('GET', KEYS[1])", "1", "c"},
		{"EVAL", "#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])", "1", "c"},
	} {
		tw.do(1, c...)
	}
	tw.do(1, "CONFIG", "SET", "maxmemory", "0")
	// A replica whose master never answers (port 1), not serving stale data.
	tw.do(1, "CONFIG", "SET", "replica-serve-stale-data", "no")
	tw.do(1, "REPLICAOF", "127.0.0.1", "1")
	for _, c := range [][]string{
		{"FCALL", "ro", "1", "a"},
		{"FCALL", "st", "0"},
		{"FCALL", "w", "1", "a"},
		{"EVAL", "#!lua flags=no-writes,allow-stale\nreturn 7", "0"},
		{"EVAL", "#!lua flags=no-writes\nreturn 7", "0"},
		{"EVAL", "return 7", "0"},
		{"EVAL_RO", "return 7", "0"},
	} {
		tw.do(1, c...)
	}
	tw.do(1, "CONFIG", "SET", "replica-serve-stale-data", "yes")
	tw.do(1, "FCALL", "w", "1", "a")
	tw.do(1, "EVAL", "return 8", "0")
	tw.do(1, "REPLICAOF", "NO", "ONE")
}

// TestEvictionExceededTime: INFO's current_eviction_exceeded_time runs
// from the first command that found memory over maxmemory with nothing to
// evict, and total_eviction_exceeded_time keeps the period once memory is
// under the limit again, on both servers (the figures are times, so the
// test checks their course, not equality).
func TestEvictionExceededTime(t *testing.T) {
	r, o := startPair(t)
	for _, addr := range []string{r.Addr, o.Addr} {
		c := redistest.Dial(t, addr)
		field := func(name string) int64 {
			n, err := strconv.ParseInt(infoField(c.Do("INFO", "stats").Str, name+":"), 10, 64)
			if err != nil {
				t.Fatalf("%s: INFO %s: %v", addr, name, err)
			}
			return n
		}
		c.Do("SET", "filler", "some bytes")
		if cur, tot := field("current_eviction_exceeded_time"), field("total_eviction_exceeded_time"); cur != 0 || tot != 0 {
			t.Fatalf("%s: before any OOM: current %d, total %d", addr, cur, tot)
		}
		c.Do("CONFIG", "SET", "maxmemory", "1")
		if v := c.Do("SET", "k", "v"); !strings.HasPrefix(v.Str, "OOM") {
			t.Fatalf("%s: SET over maxmemory = %+v", addr, v)
		}
		time.Sleep(120 * time.Millisecond)
		if cur := field("current_eviction_exceeded_time"); cur < 100 {
			t.Errorf("%s: current_eviction_exceeded_time %d ms after 120 ms over the limit", addr, cur)
		}
		c.Do("CONFIG", "SET", "maxmemory", "1gb")
		c.Do("SET", "k", "v") // a round under the limit ends the period
		if cur, tot := field("current_eviction_exceeded_time"), field("total_eviction_exceeded_time"); cur != 0 || tot < 100 {
			t.Errorf("%s: after the period: current %d, total %d (want 0, ≥ 100)", addr, cur, tot)
		}
		c.Do("CONFIG", "SET", "maxmemory", "0")
		c.Do("CONFIG", "RESETSTAT")
		if tot := field("total_eviction_exceeded_time"); tot != 0 {
			t.Errorf("%s: total_eviction_exceeded_time %d after CONFIG RESETSTAT", addr, tot)
		}
	}
}
