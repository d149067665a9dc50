package index_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index"
	"github.com/ordo-db/ordo/internal/redistest"
)

// clusterNodes returns the cluster backend (emptied) and a plain client to
// each master, to look at where keys landed.
func clusterNodes(t *testing.T) (backend.Backend, []*redis.Client) {
	t.Helper()
	cl := redistest.SharedCluster(t)
	b := clusterBackend(t)
	if _, err := b.Do(context.Background(), "FLUSHALL"); err != nil {
		t.Fatal(err)
	}
	var nodes []*redis.Client
	for _, a := range cl.Addrs() {
		c := redis.NewClient(&redis.Options{Addr: a})
		t.Cleanup(func() { c.Close() })
		nodes = append(nodes, c)
	}
	return b, nodes
}

// allKeys lists every key of every master with its slot.
func allKeys(t *testing.T, ctx context.Context, nodes []*redis.Client) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, n := range nodes {
		keys, err := n.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			slot, err := n.ClusterKeySlot(ctx, k).Result()
			if err != nil {
				t.Fatal(err)
			}
			out[k] = slot
		}
	}
	return out
}

func TestClusterFlushAllReachesEveryMaster(t *testing.T) {
	ctx := context.Background()
	b, nodes := clusterNodes(t)
	for i := range 100 {
		if _, err := b.Do(ctx, "SET", fmt.Sprint("k", i), i); err != nil {
			t.Fatal(err)
		}
	}
	for i, n := range nodes {
		if sz, _ := n.DBSize(ctx).Result(); sz == 0 {
			t.Errorf("master %d holds none of 100 keys: they are not spread", i)
		}
	}
	if _, err := b.Do(ctx, "FLUSHALL"); err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes {
		if sz, _ := n.DBSize(ctx).Result(); sz != 0 {
			t.Errorf("master %d still holds %d keys after FLUSHALL", i, sz)
		}
	}
}

// Every key of one index lives in one slot, so that each atomic update
// (MULTI/EXEC or script) touches one slot; different indexes spread.
func TestClusterEachIndexInOneSlot(t *testing.T) {
	ctx := context.Background()
	b, nodes := clusterNodes(t)
	type build struct {
		name string
		fill func() error
	}
	builds := []build{
		{"numeric", func() error {
			return index.NewNumeric(b, "{ages}").AddMany(ctx, index.Hit{ID: "a", Score: 1}, index.Hit{ID: "b", Score: 2})
		}},
		{"ordered map", func() error {
			m := index.NewOrderedMap(b, "{kv}")
			if err := m.Put(ctx, "k1", "v1"); err != nil {
				return err
			}
			return m.Put(ctx, "k1", "v2")
		}},
		{"decimal map", func() error {
			m := index.NewDecimalMap(b, "prices")
			if err := m.Add(ctx, "25500.12346", "user2"); err != nil {
				return err
			}
			return m.Add(ctx, "-1", "user3")
		}},
		{"composite", func() error {
			c := index.NewComposite(b, "rooms", index.Field{Name: "room", Type: index.Int},
				index.Field{Name: "price", Type: index.Decimal}, index.Field{Name: "product", Type: index.String})
			if err := c.Put(ctx, "p1", 56, "28.44", "90"); err != nil {
				return err
			}
			return c.Put(ctx, "p1", 44, "10", "91")
		}},
		{"collection", func() error {
			c := index.NewCollection(b, "users", index.NumericIndex("age", "age"),
				index.CompositeIndex("cityage", index.Field{Name: "city", Type: index.String}, index.Field{Name: "age", Type: index.Int}))
			_, err := c.Put(ctx, "1", index.Object{"name": "Jack", "city": "Rome", "age": "33"})
			return err
		}},
	}
	slots := map[int64]string{}
	for _, bd := range builds {
		if _, err := b.Do(ctx, "FLUSHALL"); err != nil {
			t.Fatal(err)
		}
		if err := bd.fill(); err != nil {
			t.Fatalf("%s: %v", bd.name, err)
		}
		keys := allKeys(t, ctx, nodes)
		if len(keys) == 0 {
			t.Fatalf("%s wrote no keys", bd.name)
		}
		var slot int64 = -1
		for k, s := range keys {
			if slot >= 0 && s != slot {
				t.Errorf("%s: keys in two slots: %v", bd.name, keys)
				break
			}
			slot = s
			if !strings.Contains(k, "{") {
				t.Errorf("%s: key %q carries no hash tag", bd.name, k)
			}
		}
		slots[slot] = bd.name
	}
	if len(slots) < 3 {
		t.Errorf("five indexes share %d slots: %v", len(slots), slots)
	}
}

// A transaction across slots is refused before anything is written.
func TestClusterTxCrossSlotWritesNothing(t *testing.T) {
	ctx := context.Background()
	b, nodes := clusterNodes(t)
	_, err := b.Tx(ctx, []backend.Cmd{{"SET", "{a}x", 1}, {"SET", "{b}y", 2}})
	if err == nil {
		t.Fatal("a MULTI/EXEC across two slots succeeded")
	}
	if keys := allKeys(t, ctx, nodes); len(keys) != 0 {
		t.Errorf("a refused cross-slot transaction wrote %v", keys)
	}
	res, err := b.Tx(ctx, []backend.Cmd{{"SET", "{a}x", 1}, {"INCR", "{a}y"}})
	if err != nil || len(res) != 2 || res[1].Val != int64(1) {
		t.Errorf("same-slot transaction: %v %v", res, err)
	}
}

// EVALSHA goes to the node of its first key; each node learns the script
// through the NOSCRIPT fallback; a script whose keys span slots fails.
func TestClusterScriptsRouteByKey(t *testing.T) {
	ctx := context.Background()
	b, nodes := clusterNodes(t)
	s := backend.NewScript(`redis.call('SET', KEYS[1], ARGV[1]); return redis.call('GET', KEYS[1])`)
	for i := range 30 {
		k := "script:" + strconv.Itoa(i)
		v, err := b.Eval(ctx, s, []string{k}, i)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if v != strconv.Itoa(i) {
			t.Fatalf("%s: %v", k, v)
		}
	}
	for i, n := range nodes {
		ok, err := n.ScriptExists(ctx, s.SHA).Result()
		if err != nil || len(ok) != 1 || !ok[0] {
			t.Errorf("master %d does not know the script (%v %v): EVALSHA was not routed there", i, ok, err)
		}
	}
	_, err := b.Eval(ctx, s, []string{"{a}1", "{b}2"}, 1)
	var e *backend.Error
	if !errors.As(err, &e) || !strings.HasPrefix(e.Msg, "CROSSSLOT") {
		t.Errorf("script over two slots: %v", err)
	}
}

// A sharded index spreads over the masters; its queries merge them.
func TestClusterShardsSpreadAcrossMasters(t *testing.T) {
	ctx := context.Background()
	b, nodes := clusterNodes(t)
	sh := index.NewShardedNumeric(b, "big", 8)
	var hits []index.Hit
	for i := range 500 {
		hits = append(hits, index.Hit{ID: fmt.Sprint("u", i), Score: float64(i % 97)})
	}
	if err := sh.AddMany(ctx, hits...); err != nil {
		t.Fatal(err)
	}
	used := 0
	for _, n := range nodes {
		if sz, _ := n.DBSize(ctx).Result(); sz > 0 {
			used++
		}
	}
	if used < 2 {
		t.Errorf("8 shards landed on %d master(s)", used)
	}
	if n, _ := sh.Count(ctx, index.Between(10, 20)); n != int64(countIn(500, 97, 10, 20)) {
		t.Errorf("Count = %d", n)
	}
	// An object stored under its shard's hash tag updates atomically with
	// its entry, and the repairer of that shard sees both.
	for _, id := range []string{"u1", "u2", "u3"} {
		add, err := sh.AddCmd(id, 50)
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.Tx(ctx, []backend.Cmd{{"HSET", sh.ShardTag(id) + ":user:" + id, "score", 50}, add})
		if err != nil || res[0].Err != nil || res[1].Err != nil {
			t.Fatalf("object and sharded entry in one MULTI: %v %v", res, err)
		}
	}
	s1 := sh.ShardOf("u1")
	o := &index.NumericObjects{Index: sh.Shard(s1), Prefix: sh.Shard(s1).Key + ":user:", Field: "score"}
	b.Do(ctx, "HSET", o.Prefix+"u1", "score", 51) // behind the index's back
	if rep, err := index.NewRepairer(b, o).Run(ctx); err != nil || rep.Stale != 1 || rep.Dangling == 0 {
		// the shard's other 60-odd entries have no objects: dangling
		t.Errorf("repair of one shard: %v %v", rep, err)
	}
	if s, _, _ := sh.Score(ctx, "u1"); s != 51 {
		t.Errorf("u1 indexed as %v after repair, want 51", s)
	}
	if err := sh.AddMany(ctx, hits...); err != nil { // put back what the repair dropped
		t.Fatal(err)
	}
	got, err := sh.Range(ctx, index.Min(96), index.Limit(0, 3))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[{u193 96} {u290 96} {u387 96}]" {
		t.Errorf("Range = %v", got)
	}
}

// countIn counts i in [0, n) with lo ≤ i%mod ≤ hi.
func countIn(n, mod, lo, hi int) int {
	c := 0
	for i := range n {
		if v := i % mod; v >= lo && v <= hi {
			c++
		}
	}
	return c
}
