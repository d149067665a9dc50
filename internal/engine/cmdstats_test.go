package engine_test

import (
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// TestCommandStatsAndSlowlog compares INFO commandstats's counters and the
// slow log's arguments with redis-server after the same commands: calls,
// failed calls (an error while running) and rejected calls (refused
// before running); SLOWLOG LEN/GET/RESET, trimmed arguments included.
func TestCommandStatsAndSlowlog(t *testing.T) {
	r, o := redistest.StartRedis(t), redistest.StartOrdo(t)
	d := redistest.NewDiffWith(t, r.Addr, o.Addr)
	d.Both("CONFIG", "SET", "slowlog-log-slower-than", "0")
	d.Both("CONFIG", "RESETSTAT")
	d.Do("SLOWLOG", "RESET")
	d.Do("SET", "k", "v")
	d.Do("GET", "k")
	d.Do("GET", "k")
	d.Do("INCR", "k")          // failed: not an integer
	d.Do("GET")                // rejected: arity
	d.Do("OBJECT", "FOO", "k") // unknown subcommand
	long := strings.Repeat("x", 300)
	args := []string{"RPUSH", "l", long}
	for i := 0; i < 40; i++ {
		args = append(args, "e")
	}
	d.Do(args...)
	stats := func(c *redistest.Conn) map[string]string {
		m := map[string]string{}
		for _, ln := range strings.Split(c.Do("INFO", "commandstats").Str, "\r\n") {
			name, rest, ok := strings.Cut(ln, ":")
			if !ok || !strings.HasPrefix(name, "cmdstat_") || name == "cmdstat_info" || name == "cmdstat_config|set" {
				continue
			}
			// calls, rejected_calls and failed_calls; not the times.
			var keep []string
			for _, f := range strings.Split(rest, ",") {
				if !strings.HasPrefix(f, "usec") {
					keep = append(keep, f)
				}
			}
			m[name] = strings.Join(keep, ",")
		}
		return m
	}
	rs, os := stats(d.Redis), stats(d.Ordo)
	for _, name := range []string{"cmdstat_set", "cmdstat_get", "cmdstat_incr", "cmdstat_rpush", "cmdstat_slowlog|reset"} {
		if rs[name] == "" || rs[name] != os[name] {
			t.Errorf("%s: redis %q, ordo %q", name, rs[name], os[name])
		}
	}
	entries := func(c *redistest.Conn) []string {
		v := c.Do("SLOWLOG", "GET", "-1")
		var out []string
		for _, e := range v.Elems {
			var a []string
			for _, x := range e.Elems[3].Elems {
				a = append(a, x.Str)
			}
			out = append(out, strings.Join(a, " "))
		}
		return out
	}
	re, oe := entries(d.Redis), entries(d.Ordo)
	if strings.Join(re, "\n") != strings.Join(oe, "\n") {
		t.Errorf("SLOWLOG GET:\nredis %q\n ordo %q", re, oe)
	}
	if v := d.Do("SLOWLOG", "LEN"); v.Kind != resp.KindInt || v.Int != int64(len(re)+1) { // and the GET
		t.Errorf("SLOWLOG LEN %v, want %d", v, len(re)+1)
	}
	d.Do("MULTI")
	d.Do("OBJECT", "FOO", "k")
	d.Do("EXEC")
}
