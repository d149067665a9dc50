package engine_test

import (
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// cmdstats returns INFO commandstats's counters without the times.
func cmdstats(c *redistest.Conn) map[string]string {
	m := map[string]string{}
	for _, ln := range strings.Split(c.Do("INFO", "commandstats").Str, "\r\n") {
		name, rest, ok := strings.Cut(ln, ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") || name == "cmdstat_info" {
			continue
		}
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

// Commands run inside EXEC and by scripts count in INFO commandstats and
// total_commands_processed as Redis 7.0's call() counts them.
func TestCommandStatsNested(t *testing.T) {
	r, o := startPair(t)
	d := redistest.NewDiffWith(t, r.Addr, o.Addr)
	d.Both("CONFIG", "RESETSTAT")
	d.Do("MULTI")
	d.Do("SET", "k", "v")
	d.Do("INCR", "k") // fails at EXEC
	d.Do("GET", "k")
	d.Do("EXEC")
	d.Do("EVAL", "redis.call('set', KEYS[1], 'x') redis.pcall('incr', KEYS[1]) return redis.call('get', KEYS[1])", "1", "k")
	d.Do("FUNCTION", "LOAD", "#!lua name=statlib\nredis.register_function('f', function(k) return redis.call('get', k[1]) end)")
	d.Do("FCALL", "f", "1", "k")
	rs, os := cmdstats(d.Redis), cmdstats(d.Ordo)
	for _, name := range []string{"cmdstat_set", "cmdstat_get", "cmdstat_incr", "cmdstat_multi", "cmdstat_exec", "cmdstat_eval", "cmdstat_fcall"} {
		if rs[name] == "" || rs[name] != os[name] {
			t.Errorf("%s: redis %q, ordo %q", name, rs[name], os[name])
		}
	}
	if a, b := statField(d.Redis, "stats", "total_commands_processed"), statField(d.Ordo, "stats", "total_commands_processed"); a != b {
		t.Errorf("total_commands_processed: redis %s, ordo %s", a, b)
	}
}

// LATENCY records "command" events over latency-monitor-threshold;
// LATEST, HISTORY, RESET, GRAPH and DOCTOR answer as Redis's.
func TestLatencyMonitor(t *testing.T) {
	r, o := startPair(t)
	d := redistest.NewDiffWith(t, r.Addr, o.Addr)
	d.Do("LATENCY", "DOCTOR") // disabled
	d.Do("LATENCY", "LATEST")
	d.Do("LATENCY", "HISTORY", "command")
	d.Do("LATENCY", "GRAPH", "command")
	d.Do("LATENCY", "RESET")
	d.Do("CONFIG", "SET", "latency-monitor-threshold", "5")
	d.Do("LATENCY", "DOCTOR") // enabled, nothing yet
	d.Do("PING")
	d.Do("LATENCY", "LATEST") // a fast command under the threshold: nothing
	d.Do("DEBUG", "SLEEP", "0.02")
	for i, c := range []*redistest.Conn{d.Redis, d.Ordo} {
		v := c.Do("LATENCY", "LATEST")
		if len(v.Elems) != 1 || len(v.Elems[0].Elems) != 4 || v.Elems[0].Elems[0].Str != "command" ||
			v.Elems[0].Elems[2].Int < 20 || v.Elems[0].Elems[3].Int != v.Elems[0].Elems[2].Int {
			t.Errorf("server %d: LATEST %s", i, redistest.Canonical(v, false))
		}
		h := c.Do("LATENCY", "HISTORY", "command")
		if len(h.Elems) != 1 || h.Elems[0].Elems[1].Int < 20 {
			t.Errorf("server %d: HISTORY %s", i, redistest.Canonical(h, false))
		}
		g := c.Do("LATENCY", "GRAPH", "command")
		if g.Kind != resp.KindVerbatim && g.Kind != resp.KindBulk || !strings.HasPrefix(g.Str, "command - high ") {
			t.Errorf("server %d: GRAPH %q", i, g.Str)
		}
		doc := c.Do("LATENCY", "DOCTOR").Str
		if !strings.Contains(doc, "1. command: 1 latency spikes (average ") || !strings.Contains(doc, "- Check your Slow Log") {
			t.Errorf("server %d: DOCTOR %q", i, doc)
		}
	}
	d.Do("LATENCY", "RESET", "nosuch", "COMMAND")
	d.Do("LATENCY", "LATEST")
	d.Do("LATENCY", "RESET")
}
