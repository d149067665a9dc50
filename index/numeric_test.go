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

// The "people by age" example of the secondary-indexing page.
func TestNumericPeopleByAge(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		ages := index.NewNumeric(b, "myindex")
		for id, age := range map[string]float64{"Manuel": 20, "Jon": 18, "Jack": 33, "Helen": 29, "Rob": 48} {
			if err := ages.Add(ctx, id, age); err != nil {
				t.Fatal(err)
			}
		}
		ids, err := ages.IDs(ctx, index.Between(20, 40))
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"Manuel", "Helen", "Jack"}; !reflect.DeepEqual(ids, want) {
			t.Errorf("20..40 = %v, want %v", ids, want)
		}
		// Re-adding updates; exclusive bounds, reverse and limit.
		ages.Add(ctx, "Manuel", 41)
		hits, _ := ages.Range(ctx, index.Above(18), index.Below(48), index.Rev(), index.Limit(0, 2))
		if want := []index.Hit{{"Manuel", 41}, {"Jack", 33}}; !reflect.DeepEqual(hits, want) {
			t.Errorf("(18..48) rev limit 2 = %v, want %v", hits, want)
		}
		if n, _ := ages.Count(ctx, index.Between(20, 40)); n != 2 {
			t.Errorf("count 20..40 = %d, want 2", n)
		}
		if err := ages.Add(ctx, "x", math.NaN()); err != index.ErrNaN {
			t.Errorf("NaN: %v", err)
		}
		if s, ok, _ := ages.Score(ctx, "Jon"); !ok || s != 18 {
			t.Errorf("score Jon = %v %v", s, ok)
		}
		if _, ok, _ := ages.Score(ctx, "nobody"); ok {
			t.Error("score of a missing id")
		}
	})
}

// A property test: random adds, removes and queries against a plain Go model.
func TestNumericAgainstModel(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		ix := index.NewNumeric(b, "model")
		model := map[string]float64{}
		r := rand.New(rand.NewPCG(7, 8))
		values := []float64{math.Inf(-1), -2.5, -1, 0, 0.1, 1, 3, 3, 10, 1e300, math.Inf(1)}
		for step := 0; step < 300; step++ {
			id := fmt.Sprint("id", r.IntN(40))
			switch r.IntN(4) {
			case 0, 1:
				v := values[r.IntN(len(values))]
				if err := ix.Add(ctx, id, v); err != nil {
					t.Fatal(err)
				}
				model[id] = v
			case 2:
				ix.Remove(ctx, id)
				delete(model, id)
			case 3:
				lo, hi := values[r.IntN(len(values))], values[r.IntN(len(values))]
				loEx, hiEx, rev := r.IntN(2) == 0, r.IntN(2) == 0, r.IntN(2) == 0
				off, cnt := int64(r.IntN(3)), int64(r.IntN(5))
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
				n, err := ix.Count(ctx, opts...)
				if err != nil || n != int64(len(want)) {
					t.Fatalf("step %d: count = %d, %v; want %d", step, n, err, len(want))
				}
				if rev {
					for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
						want[i], want[j] = want[j], want[i]
					}
					opts = append(opts, index.Rev())
				}
				if off < int64(len(want)) {
					want = want[off:]
				} else {
					want = nil
				}
				if int64(len(want)) > cnt {
					want = want[:cnt]
				}
				got, err := ix.Range(ctx, append(opts, index.Limit(off, cnt))...)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
					t.Fatalf("step %d: range = %v, want %v", step, got, want)
				}
			}
		}
	})
}
