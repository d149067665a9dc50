package index_test

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index"
	"github.com/ordo-db/ordo/index/tuple"
)

func entriesString(es []index.DecimalEntry) string {
	var parts []string
	for _, e := range es {
		parts = append(parts, e.Key.String()+":"+strings.Join(e.Values, ","))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// The BigDecimal article's example, exactly.
func TestDecimalMapArticleExample(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		m := index.NewDecimalMap(b, "prices")
		data := []struct{ k, v string }{
			{"25500.12345", "user1"}, {"25500.12345", "user2"},
			{"25500.12346", "user2"}, {"25500.12346", "user3"}, {"25500.12346", "user2"},
			{"25505.05443", "user2"}, {"25505.05443", "user1"},
			{"25505.233", "user3"},
			{"25506.12345", "user3"}, {"25506.12345", "user5"},
		}
		for _, d := range data {
			if err := m.Add(ctx, d.k, d.v); err != nil {
				t.Fatal(err)
			}
		}
		got, err := m.Range(ctx, index.Incl("25500.12346"), index.Incl("25505.2"), 0)
		if err != nil {
			t.Fatal(err)
		}
		if s := entriesString(got); s != "[25500.12346:user2,user3,user2 25505.05443:user2,user1]" {
			t.Errorf("range = %s", s)
		}
		vals, _ := m.Get(ctx, "25500.12346")
		if !reflect.DeepEqual(vals, []string{"user2", "user3", "user2"}) {
			t.Errorf("get = %v", vals)
		}
		// 25500.10 and 25500.1 are one key; trailing zeros never matter.
		m.Add(ctx, "25500.10", "a")
		m.Add(ctx, "25500.1", "b")
		if vals, _ := m.Get(ctx, "25500.100"); !reflect.DeepEqual(vals, []string{"a", "b"}) {
			t.Errorf("25500.1 = %v", vals)
		}
		if _, err := m.Range(ctx, index.Incl("12,5"), index.DecimalBound{}, 0); err == nil {
			t.Error("malformed decimal accepted")
		}
	})
}

// What the article's version cannot do: negatives, integers, ranges that
// cross integer parts, integer parts beyond 2^53, exclusive bounds;
// checked against big.Rat on random data.
func TestDecimalMapAgainstModel(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		m := index.NewDecimalMap(b, "model")
		r := rand.New(rand.NewPCG(11, 12))
		keys := []string{"-0.001", "0", "25500", "25500.05", "25500.5", "-25500.05", "9007199254740993",
			"9007199254740992.5", "-9007199254740993", "1e40", "0.000000000000000000001", "7", "7.0000000000000000001"}
		model := map[string][]string{}
		canon := func(s string) string { return tuple.MustDecimal(s).String() }
		for i := 0; i < 60; i++ {
			k := keys[r.IntN(len(keys))]
			v := fmt.Sprint("v", i)
			if err := m.Add(ctx, k, v); err != nil {
				t.Fatal(err)
			}
			model[canon(k)] = append(model[canon(k)], v)
		}
		rat := func(s string) *big.Rat { x, _ := new(big.Rat).SetString(s); return x }
		for i := 0; i < 100; i++ {
			from, to := keys[r.IntN(len(keys))], keys[r.IntN(len(keys))]
			fe, te := r.IntN(2) == 0, r.IntN(2) == 0
			var want []string
			var mk []string
			for k := range model {
				mk = append(mk, k)
			}
			sort.Slice(mk, func(i, j int) bool { return rat(mk[i]).Cmp(rat(mk[j])) < 0 })
			for _, k := range mk {
				c1, c2 := rat(k).Cmp(rat(canon(from))), rat(k).Cmp(rat(canon(to)))
				if (c1 > 0 || !fe && c1 == 0) && (c2 < 0 || !te && c2 == 0) {
					want = append(want, k+":"+strings.Join(model[k], ","))
				}
			}
			got, err := m.Range(ctx, index.DecimalBound{Value: from, Exclusive: fe}, index.DecimalBound{Value: to, Exclusive: te}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if s, w := entriesString(got), "["+strings.Join(want, " ")+"]"; s != w {
				t.Fatalf("range %s..%s (excl %v %v) = %s, want %s", from, to, fe, te, s, w)
			}
		}
	})
}

// Concurrent writers never lose each other's values.
func TestDecimalMapConcurrentWriters(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		m := index.NewDecimalMap(b, "conc")
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; i < 50; i++ {
					if err := m.Add(ctx, "1.5", fmt.Sprintf("w%d-%d", w, i)); err != nil {
						t.Error(err)
						return
					}
				}
			}(w)
		}
		wg.Wait()
		vals, err := m.Get(ctx, "1.50")
		if err != nil || len(vals) != 200 {
			t.Errorf("%d values after 4x50 concurrent adds (%v)", len(vals), err)
		}
	})
}
