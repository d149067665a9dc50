package index_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index"
)

// A sharded index must answer every query exactly as one sorted set
// would: checked against a Go model and against a plain Numeric holding
// the same entries on the same backend (Redis's own order for ties).
func TestShardedNumericAgainstModel(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		sh := index.NewShardedNumeric(b, "sharded", 5)
		one := index.NewNumeric(b, "{one}")
		model := map[string]float64{}
		r := rand.New(rand.NewPCG(21, 22))
		// Few distinct values: many ties, so members order across shards.
		values := []float64{math.Inf(-1), -2.5, 0, 1, 3, 3, 10, 1e300, math.Inf(1)}
		for step := 0; step < 400; step++ {
			id := fmt.Sprint("id", r.IntN(60))
			switch op := r.IntN(6); {
			case op <= 1:
				v := values[r.IntN(len(values))]
				if err := sh.Add(ctx, id, v); err != nil {
					t.Fatal(err)
				}
				one.Add(ctx, id, v)
				model[id] = v
			case op == 2:
				var hits []index.Hit
				for range 1 + r.IntN(4) {
					h := index.Hit{ID: fmt.Sprint("id", r.IntN(60)), Score: values[r.IntN(len(values))]}
					hits = append(hits, h)
				}
				if err := sh.AddMany(ctx, hits...); err != nil {
					t.Fatal(err)
				}
				one.AddMany(ctx, hits...)
				for _, h := range hits {
					model[h.ID] = h.Score
				}
			case op == 3:
				id2 := fmt.Sprint("id", r.IntN(60))
				n, err := sh.Remove(ctx, id, id2)
				if err != nil {
					t.Fatal(err)
				}
				want := int64(0)
				if _, ok := model[id]; ok {
					want++
				}
				if _, ok := model[id2]; ok && id2 != id {
					want++
				}
				if n != want {
					t.Fatalf("step %d: Remove = %d, want %d", step, n, want)
				}
				one.Remove(ctx, id, id2)
				delete(model, id)
				delete(model, id2)
			default:
				lo, hi := values[r.IntN(len(values))], values[r.IntN(len(values))]
				loEx, hiEx, rev := r.IntN(2) == 0, r.IntN(2) == 0, r.IntN(2) == 0
				var opts []index.QueryOption
				if loEx {
					opts = append(opts, index.Above(lo))
				} else {
					opts = append(opts, index.Min(lo))
				}
				if hiEx {
					opts = append(opts, index.Below(hi))
				} else {
					opts = append(opts, index.Max(hi))
				}
				var want []index.Hit
				for k, v := range model {
					if (v > lo || !loEx && v == lo) && (v < hi || !hiEx && v == hi) {
						want = append(want, index.Hit{ID: k, Score: v})
					}
				}
				sort.Slice(want, func(i, j int) bool {
					if want[i].Score != want[j].Score {
						return want[i].Score < want[j].Score
					}
					return want[i].ID < want[j].ID
				})
				n, err := sh.Count(ctx, opts...)
				if err != nil || n != int64(len(want)) {
					t.Fatalf("step %d: Count = %d, %v; want %d", step, n, err, len(want))
				}
				if rev {
					for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
						want[i], want[j] = want[j], want[i]
					}
					opts = append(opts, index.Rev())
				}
				// Pages: none, or offset 0..7 with count -1 (all) .. 9.
				if r.IntN(4) > 0 {
					off, cnt := int64(r.IntN(8)), int64(r.IntN(11)-1)
					opts = append(opts, index.Limit(off, cnt))
					if off < int64(len(want)) {
						want = want[off:]
					} else {
						want = nil
					}
					if cnt >= 0 && int64(len(want)) > cnt {
						want = want[:cnt]
					}
				}
				got, err := sh.Range(ctx, opts...)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
					t.Fatalf("step %d: sharded range = %v, want %v", step, got, want)
				}
				ref, err := one.Range(ctx, opts...)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(ref) || (len(ref) > 0 && !reflect.DeepEqual(got, ref)) {
					t.Fatalf("step %d: sharded range = %v, one sorted set = %v", step, got, ref)
				}
				ids, _ := sh.IDs(ctx, opts...)
				if len(ids) != len(got) {
					t.Fatalf("step %d: IDs = %v, Range = %v", step, ids, got)
				}
			}
		}
		if n, _ := sh.Len(ctx); n != int64(len(model)) {
			t.Errorf("Len = %d, want %d", n, len(model))
		}
		for id, v := range model {
			if s, ok, err := sh.Score(ctx, id); err != nil || !ok || s != v {
				t.Fatalf("Score(%s) = %v %v %v, want %v", id, s, ok, err, v)
			}
		}
		if _, err := sh.Range(ctx, index.Limit(-1, 5)); err != nil {
			t.Error(err)
		}
		if err := sh.Add(ctx, "x", math.NaN()); err != index.ErrNaN {
			t.Errorf("NaN: %v", err)
		}
	})
}

func TestShardedNumericPlacementIsStable(t *testing.T) {
	a := index.NewShardedNumeric(nil, "users", 8)
	b := index.NewShardedNumeric(nil, "users", 8)
	counts := make([]int, 8)
	for i := range 8000 {
		id := fmt.Sprint("user:", i)
		if a.ShardOf(id) != b.ShardOf(id) {
			t.Fatal("placement differs between two instances")
		}
		counts[a.ShardOf(id)]++
	}
	for i, c := range counts {
		if c < 800 || c > 1200 {
			t.Errorf("shard %d holds %d of 8000 ids: placement is skewed", i, c)
		}
	}
	if k := a.ShardKey("user:1"); k != fmt.Sprintf("{users:%d}", a.ShardOf("user:1")) {
		t.Errorf("ShardKey = %q", k)
	}
}

// A sharded ordered map answers like one OrderedMap on the same backend.
func TestShardedOrderedMapAgainstOne(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		sh := index.NewShardedOrderedMap(b, "skv", 4)
		one := index.NewOrderedMap(b, "{onekv}")
		r := rand.New(rand.NewPCG(31, 32))
		alphabet := []string{"", "a", "b", "ab", "a:b", "a\x00", "\xff", "ba", "abc", "b\x00c"}
		key := func() string { return alphabet[r.IntN(len(alphabet))] + alphabet[r.IntN(len(alphabet))] }
		for step := 0; step < 300; step++ {
			switch r.IntN(4) {
			case 0, 1:
				k, v := key(), fmt.Sprint("v", step)
				if err := sh.Put(ctx, k, v); err != nil {
					t.Fatal(err)
				}
				one.Put(ctx, k, v)
			case 2:
				k := key()
				got, err := sh.Delete(ctx, k)
				want, _ := one.Delete(ctx, k)
				if err != nil || got != want {
					t.Fatalf("step %d: Delete(%q) = %v %v, want %v", step, k, got, err, want)
				}
			default:
				from, to := key(), key()
				kr := index.KeyRange{FromExclusive: r.IntN(2) == 0, ToInclude: r.IntN(2) == 0}
				if r.IntN(4) > 0 {
					kr.From = &from
				}
				if r.IntN(4) > 0 {
					kr.To = &to
				}
				limit, rev := int64(r.IntN(6)), r.IntN(2) == 0
				got, err := sh.Range(ctx, kr, limit, rev)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := one.Range(ctx, kr, limit, rev)
				if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
					t.Fatalf("step %d: Range(%q, %q, %d, %v) = %q, want %q", step, from, to, limit, rev, got, want)
				}
				p := alphabet[r.IntN(len(alphabet))]
				gp, err := sh.Prefix(ctx, p, limit)
				if err != nil {
					t.Fatal(err)
				}
				wp, _ := one.Prefix(ctx, p, limit)
				if fmt.Sprintf("%q", gp) != fmt.Sprintf("%q", wp) {
					t.Fatalf("step %d: Prefix(%q) = %q, want %q", step, p, gp, wp)
				}
			}
		}
		n, _ := sh.Len(ctx)
		m, _ := one.Len(ctx)
		if n != m || n == 0 {
			t.Errorf("Len = %d, one map %d", n, m)
		}
		all, _ := one.Range(ctx, index.KeyRange{}, 0, false)
		for _, kv := range all {
			if v, ok, err := sh.Get(ctx, kv.Key); err != nil || !ok || v != kv.Value {
				t.Errorf("Get(%q) = %q %v %v, want %q", kv.Key, v, ok, err, kv.Value)
			}
		}
	})
}
