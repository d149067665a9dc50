package engine_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/aof"
	"github.com/ordo-db/ordo/internal/redistest"
)

// TestStreamNodesAfterAOFRestart: a stream's nodes after a rewritten AOF
// is loaded again are what Redis has after the same history, with the
// RDB preamble (nodes kept as they were, deleted entries included) and
// without it (the live entries re-added): XINFO STREAM FULL, with its
// radix-tree-keys and radix-tree-nodes, compared byte for byte, live and
// after the restart.
func TestStreamNodesAfterAOFRestart(t *testing.T) {
	for _, preamble := range []string{"yes", "no"} {
		t.Run("preamble="+preamble, func(t *testing.T) {
			r := redistest.StartRedis(t, "--appendonly", "yes", "--aof-use-rdb-preamble", preamble,
				"--stream-node-max-entries", "10")
			o := redistest.StartOrdo(t, "appendonly", "yes", "aof-use-rdb-preamble", preamble,
				"stream-node-max-entries", "10")
			p, err := aof.Open(o.Engine, func(string, ...any) {})
			if err != nil {
				t.Fatal(err)
			}
			d := redistest.NewDiffWith(t, r.Addr, o.Addr)
			streamHistory(d, rand.New(rand.NewPCG(7, 13)))
			for _, k := range []string{"s", "t"} {
				d.Do("XINFO", "STREAM", k, "FULL")
			}

			// Redis: rewrite, then load the rewritten AOF again.
			d.Redis.Do("BGREWRITEAOF")
			for i := 0; ; i++ {
				info := d.Redis.Do("INFO", "persistence").Str
				if strings.Contains(info, "aof_rewrite_in_progress:0") && strings.Contains(info, "aof_rewrite_scheduled:0") {
					break
				}
				if i == 500 {
					t.Fatal("redis-server's rewrite did not end")
				}
				time.Sleep(10 * time.Millisecond)
			}
			if v := d.Redis.Do("DEBUG", "LOADAOF"); v.Str != "OK" {
				t.Fatalf("DEBUG LOADAOF: %v", v)
			}
			// Ordo: a rewrite at shutdown, then a server on the same directory.
			if err := p.Close(true); err != nil {
				t.Fatal(err)
			}
			o2 := redistest.StartOrdo(t, "appendonly", "yes", "aof-use-rdb-preamble", preamble,
				"stream-node-max-entries", "10", "dir", o.Engine.Config.Get("dir"))
			p2, err := aof.Open(o2.Engine, func(string, ...any) {})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p2.Close(false) })
			d2 := redistest.NewDiffWith(t, r.Addr, o2.Addr)
			for _, k := range []string{"s", "t"} {
				d2.Do("XINFO", "STREAM", k, "FULL")
				d2.Do("XRANGE", k, "-", "+")
			}
		})
	}
}

// streamHistory adds, deletes (single entries and whole nodes) and trims
// (exact and approximate, by length and by ID) on two streams, with
// explicit IDs so that both servers hold the same entries.
func streamHistory(d *redistest.Diff, r *rand.Rand) {
	ms := map[string]int{}
	ids := map[string][]string{}
	add := func(k string, extra ...string) {
		ms[k] += 1 + r.IntN(3)
		id := strconv.Itoa(ms[k]) + "-" + strconv.Itoa(r.IntN(5))
		args := append([]string{"XADD", k}, extra...)
		args = append(args, id, "f", "v"+strconv.Itoa(r.IntN(1000)))
		if r.IntN(4) == 0 {
			args = append(args, "other", strings.Repeat("x", r.IntN(40)))
		}
		d.Do(args...)
		ids[k] = append(ids[k], id)
	}
	for _, k := range []string{"s", "t"} {
		for i := 0; i < 400; i++ {
			add(k)
		}
	}
	for i := 0; i < 120; i++ {
		k := []string{"s", "t"}[i%2]
		switch r.IntN(6) {
		case 0, 1:
			d.Do("XDEL", k, ids[k][r.IntN(len(ids[k]))])
		case 2: // a run of entries: whole nodes go
			j := r.IntN(len(ids[k]))
			d.Do(append([]string{"XDEL", k}, ids[k][j:min(j+25, len(ids[k]))]...)...)
		case 3:
			add(k, "MAXLEN", "~", strconv.Itoa(300+r.IntN(50)))
		case 4:
			d.Do("XTRIM", k, "MAXLEN", strconv.Itoa(250+r.IntN(200)))
		case 5:
			d.Do("XTRIM", k, "MINID", []string{"~", "="}[r.IntN(2)], ids[k][r.IntN(len(ids[k])/4+1)])
		}
	}
}
