package index_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index"
	"github.com/ordo-db/ordo/index/tuple"
)

func ids(es []index.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func zcard(t *testing.T, ctx context.Context, b backend.Backend, key string) int64 {
	t.Helper()
	v, err := b.Do(ctx, "ZCARD", key)
	if err != nil {
		t.Fatal(err)
	}
	return v.(int64)
}

func hlen(t *testing.T, ctx context.Context, b backend.Backend, key string) int64 {
	t.Helper()
	v, err := b.Do(ctx, "HLEN", key)
	if err != nil {
		t.Fatal(err)
	}
	return v.(int64)
}

func roomsIndex(b backend.Backend, name string) *index.Composite {
	return index.NewComposite(b, name,
		index.Field{Name: "room", Type: index.Int},
		index.Field{Name: "price", Type: index.Decimal},
		index.Field{Name: "product", Type: index.String})
}

// The composite index of the secondary-indexing page: room:price:product.
func TestCompositeRoomPrice(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		rooms := roomsIndex(b, "rooms")
		put := func(id string, room int, price string) {
			t.Helper()
			if err := rooms.Put(ctx, id, room, price, id); err != nil {
				t.Fatal(err)
			}
		}
		put("90", 56, "28.44")  // the page's 0056:0028.44:90
		put("832", 34, "11.00") // and 0034:0011.00:832
		put("12", 56, "9.99")
		put("13", 56, "30")
		put("14", 56, "30.01")
		put("15", 44, "5")
		put("16", 44, "100")
		put("17", 560, "20")
		put("18", 5, "20")
		put("19", -56, "20")

		find := func(q *index.CompositeQuery) []index.Entry {
			t.Helper()
			es, err := rooms.Find(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			return es
		}
		// Room 56 and 10 ≤ price ≤ 30.
		got := find(index.Where(56).Between("10", "30"))
		want := []index.Entry{
			{ID: "90", Values: []any{int64(56), tuple.MustDecimal("28.44"), "90"}},
			{ID: "13", Values: []any{int64(56), tuple.MustDecimal("30"), "13"}},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("room 56, 10..30 = %v, want %v", got, want)
		}
		// "10.00" and "30.000" are the same decimals.
		if got := ids(find(index.Where(56).Between("10.00", "30.000"))); !reflect.DeepEqual(got, []string{"90", "13"}) {
			t.Errorf("room 56, 10.00..30.000 = %v", got)
		}
		// Room 44 alone.
		if got := ids(find(index.Where(44))); !reflect.DeepEqual(got, []string{"15", "16"}) {
			t.Errorf("room 44 = %v", got)
		}
		if n, err := rooms.Count(ctx, index.Where(56)); err != nil || n != 4 {
			t.Errorf("count room 56 = %d, %v", n, err)
		}
		if n, err := rooms.Count(ctx, index.Where(56).Between("10", "30")); err != nil || n != 2 {
			t.Errorf("count room 56, 10..30 = %d, %v", n, err)
		}
		// Exclusive bounds, open ends, reverse, limit.
		if got := ids(find(index.Where(56).Above("9.99").Below("30"))); !reflect.DeepEqual(got, []string{"90"}) {
			t.Errorf("room 56, (9.99..30) = %v", got)
		}
		if got := ids(find(index.Where(56).Min("28.44").Rev())); !reflect.DeepEqual(got, []string{"14", "13", "90"}) {
			t.Errorf("room 56, price ≥ 28.44 rev = %v", got)
		}
		if got := ids(find(index.Where(56).Rev().Limit(1, 2))); !reflect.DeepEqual(got, []string{"13", "90"}) {
			t.Errorf("room 56 rev limit 1 2 = %v", got)
		}
		// A range on the first field: rooms 5..56 (integers, not strings: 560 is out, -56 too).
		if got := ids(find(index.Where().Between(5, 56).Limit(0, 3))); !reflect.DeepEqual(got, []string{"18", "832", "15"}) {
			t.Errorf("rooms 5..56 limit 3 = %v", got)
		}
		if got := ids(find(index.Where().Below(0))); !reflect.DeepEqual(got, []string{"19"}) {
			t.Errorf("rooms < 0 = %v", got)
		}
		if n, _ := rooms.Count(ctx, nil); n != 10 {
			t.Errorf("count all = %d", n)
		}
		// Equality on every field.
		if got := ids(find(index.Where(56, "28.440", "90"))); !reflect.DeepEqual(got, []string{"90"}) {
			t.Errorf("exact = %v", got)
		}

		// The index content hash holds the current member of each id.
		zkey, hkey := rooms.Keys()
		if zkey != "{rooms}:cidx" || hkey != "{rooms}:cidx:ids" {
			t.Errorf("keys %q %q", zkey, hkey)
		}
		m, _ := rooms.Member("90", 56, "28.44", "90")
		if v, _ := b.Do(ctx, "HGET", hkey, "90"); v != m {
			t.Errorf("content hash of 90 = %q, want %q", v, m)
		}
		if v, _ := b.Do(ctx, "ZSCORE", zkey, m); v == nil {
			t.Error("member of 90 missing from the sorted set")
		}

		// Re-index without knowing the old values: the old entry goes.
		put("90", 44, "28.44")
		if got := ids(find(index.Where(56).Between("10", "30"))); !reflect.DeepEqual(got, []string{"13"}) {
			t.Errorf("after move, room 56 = %v", got)
		}
		if got := ids(find(index.Where(44))); !reflect.DeepEqual(got, []string{"15", "90", "16"}) {
			t.Errorf("after move, room 44 = %v", got)
		}
		if vals, ok, err := rooms.Get(ctx, "90"); err != nil || !ok || !reflect.DeepEqual(vals, []any{int64(44), tuple.MustDecimal("28.44"), "90"}) {
			t.Errorf("get 90 = %v %v %v", vals, ok, err)
		}
		if zcard(t, ctx, b, zkey) != 10 || hlen(t, ctx, b, hkey) != 10 {
			t.Error("re-index left a stale entry")
		}
		if ok, err := rooms.Delete(ctx, "90"); !ok || err != nil {
			t.Errorf("delete 90 = %v %v", ok, err)
		}
		if ok, err := rooms.Delete(ctx, "90"); ok || err != nil {
			t.Errorf("delete 90 again = %v %v", ok, err)
		}
		if _, ok, _ := rooms.Get(ctx, "90"); ok {
			t.Error("90 still indexed")
		}
		if zcard(t, ctx, b, zkey) != 9 || hlen(t, ctx, b, hkey) != 9 {
			t.Error("delete left an entry")
		}
	})
}

// Bad values return clear errors and write nothing.
func TestCompositeBadValues(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		rooms := roomsIndex(b, "rooms_bad")
		if err := rooms.Put(ctx, "13", 56, "30", "13"); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			vals []any
			want string
		}{
			{[]any{56, "28.4.4", "x"}, `malformed decimal "28.4.4"`},
			{[]any{56, "NaN", "x"}, `malformed decimal "NaN"`},
			{[]any{56, math.NaN(), "x"}, "NaN is not a decimal"},
			{[]any{56, math.Inf(1), "x"}, "+Inf is not a decimal"},
			{[]any{"5x", "1", "x"}, `malformed integer "5x"`},
			{[]any{5.5, "1", "x"}, "cannot index a float64"},
			{[]any{56, "1", 13}, "cannot index a int"},
			{[]any{56, "1"}, "has 3 fields, got 2 values"},
			{[]any{56, "1", "x", "y"}, "has 3 fields, got 4 values"},
		}
		for _, tc := range cases {
			for _, id := range []string{"13", "new"} {
				err := rooms.Put(ctx, id, tc.vals...)
				if !errors.Is(err, index.ErrFieldType) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Put(%s, %v) = %v, want an ErrFieldType with %q", id, tc.vals, err, tc.want)
				}
			}
		}
		zkey, hkey := rooms.Keys()
		if zcard(t, ctx, b, zkey) != 1 || hlen(t, ctx, b, hkey) != 1 {
			t.Error("a failed Put wrote something")
		}
		if vals, ok, _ := rooms.Get(ctx, "13"); !ok || !reflect.DeepEqual(vals, []any{int64(56), tuple.MustDecimal("30"), "13"}) {
			t.Errorf("a failed Put changed 13: %v %v", vals, ok)
		}
		// Bad query values, and too many constrained fields.
		if _, err := rooms.Find(ctx, index.Where("x")); !errors.Is(err, index.ErrFieldType) {
			t.Errorf("query room x: %v", err)
		}
		if _, err := rooms.Find(ctx, index.Where(56).Min("1,5")); !errors.Is(err, index.ErrFieldType) {
			t.Errorf("query price 1,5: %v", err)
		}
		if _, err := rooms.Count(ctx, index.Where(56, "1", "x").Min("y")); !errors.Is(err, index.ErrFieldType) {
			t.Errorf("range past the last field: %v", err)
		}
	})
}

// Values of every type, binary-safe strings and bytes, ids with separators.
func TestCompositeTypes(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		ix := index.NewComposite(b, "types",
			index.Field{Name: "f", Type: index.Float},
			index.Field{Name: "raw", Type: index.Bytes},
			index.Field{Name: "n", Type: index.Int})
		huge, _ := new(big.Int).SetString("-123456789012345678901234567890", 10)
		rows := []struct {
			id   string
			vals []any
		}{
			{"a:b", []any{math.Inf(-1), []byte("x\x00y"), huge}},
			{"\x00", []any{math.Copysign(0, -1), "x", uint64(math.MaxUint64)}},
			{"c\xff", []any{0.0, []byte("x\x00"), "-5"}},
			{"d", []any{float32(2.5), []byte(""), int8(-1)}},
			{"e", []any{"1e400", []byte{0xff, 0}, "99999999999999999999"}},
		}
		for _, r := range rows {
			if err := ix.Put(ctx, r.id, r.vals...); err != nil {
				t.Fatalf("put %q: %v", r.id, err)
			}
		}
		es, err := ix.Find(ctx, index.Where())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range es {
			got = append(got, fmt.Sprintf("%q %v %q %v", e.ID, e.Values[0], e.Values[1], e.Values[2]))
		}
		want := []string{
			`"a:b" -Inf "x\x00y" -123456789012345678901234567890`,
			`"\x00" 0 "x" 18446744073709551615`, // -0 is 0; "x" < "x\x00"
			`"c\xff" 0 "x\x00" -5`,
			`"d" 2.5 "" -1`,
			`"e" +Inf "\xff\x00" 99999999999999999999`,
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// -0 and 0 are equal; a prefix of bytes does not match longer bytes.
		if got := ids(mustFind(t, ctx, ix, index.Where(math.Copysign(0, -1), "x"))); !reflect.DeepEqual(got, []string{"\x00"}) {
			t.Errorf("f=-0, raw=x: %q", got)
		}
		if got := ids(mustFind(t, ctx, ix, index.Where(0.0).Above([]byte("x")))); !reflect.DeepEqual(got, []string{"c\xff"}) {
			t.Errorf("f=0, raw>x: %q", got)
		}
		if got := ids(mustFind(t, ctx, ix, index.Where().Above(math.Inf(-1)).Below(math.Inf(1)))); !reflect.DeepEqual(got, []string{"\x00", "c\xff", "d"}) {
			t.Errorf("finite f: %q", got)
		}
	})
}

func mustFind(t *testing.T, ctx context.Context, ix *index.Composite, q *index.CompositeQuery) []index.Entry {
	t.Helper()
	es, err := ix.Find(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// compareField orders two values of a field as the index must.
func compareField(a, b any) int {
	switch x := a.(type) {
	case int64:
		y := b.(int64)
		return cmpOrdered(x, y)
	case tuple.Decimal:
		return x.Cmp(b.(tuple.Decimal))
	case string:
		return strings.Compare(x, b.(string))
	case float64:
		return cmpOrdered(x, b.(float64))
	}
	panic(fmt.Sprintf("compareField %T", a))
}

func cmpOrdered[T int64 | float64](x, y T) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// A property test: random puts, deletes and queries against a model.
func TestCompositeAgainstModel(t *testing.T) {
	fields := []index.Field{
		{Name: "room", Type: index.Int},
		{Name: "price", Type: index.Decimal},
		{Name: "name", Type: index.String},
		{Name: "w", Type: index.Float},
	}
	// Pools of values, as given to Put and as the index decodes them.
	ints := []int64{-300, -1, 0, 1, 56, 1 << 40}
	decs := []string{"-28.44", "-0.001", "0", "10", "10.00", "15", "28.44", "28.445", "30", "25500.12346", "1e30"}
	strs := []string{"", "9", "90", "a:b", "a\x00b", "a", "é", "\xff"}
	floats := []float64{math.Inf(-1), -1.5, 0, math.Copysign(0, -1), 2.5, math.Inf(1)}
	pick := func(r *rand.Rand, f int) (given, norm any) {
		switch f {
		case 0:
			v := ints[r.IntN(len(ints))]
			if r.IntN(2) == 0 {
				return fmt.Sprint(v), v
			}
			return v, v
		case 1:
			s := decs[r.IntN(len(decs))]
			return s, tuple.MustDecimal(s)
		case 2:
			s := strs[r.IntN(len(strs))]
			return s, s
		default:
			x := floats[r.IntN(len(floats))]
			if x == 0 {
				return x, 0.0
			}
			return x, x
		}
	}
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		ix := index.NewComposite(b, "model", fields...)
		zkey, hkey := ix.Keys()
		model := map[string][]any{}
		r := rand.New(rand.NewPCG(11, 12))
		for step := 0; step < 400; step++ {
			id := fmt.Sprint("id", r.IntN(30))
			switch r.IntN(5) {
			case 0, 1:
				given, norm := make([]any, len(fields)), make([]any, len(fields))
				for f := range fields {
					given[f], norm[f] = pick(r, f)
				}
				if err := ix.Put(ctx, id, given...); err != nil {
					t.Fatal(err)
				}
				model[id] = norm
			case 2:
				ok, err := ix.Delete(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if _, had := model[id]; ok != had {
					t.Fatalf("step %d: delete %s = %v, model has it: %v", step, id, ok, had)
				}
				delete(model, id)
			default:
				n := r.IntN(len(fields) + 1)
				eq, eqNorm := make([]any, n), make([]any, n)
				for f := 0; f < n; f++ {
					eq[f], eqNorm[f] = pick(r, f)
				}
				q := index.Where(eq...)
				var lo, hi any
				loEx, hiEx := r.IntN(2) == 0, r.IntN(2) == 0
				if n < len(fields) {
					if r.IntN(3) > 0 {
						var g any
						g, lo = pick(r, n)
						if loEx {
							q.Above(g)
						} else {
							q.Min(g)
						}
					}
					if r.IntN(3) > 0 {
						var g any
						g, hi = pick(r, n)
						if hiEx {
							q.Below(g)
						} else {
							q.Max(g)
						}
					}
				}
				var want []index.Entry
			next:
				for id, vals := range model {
					for f := 0; f < n; f++ {
						if compareField(vals[f], eqNorm[f]) != 0 {
							continue next
						}
					}
					if lo != nil {
						if c := compareField(vals[n], lo); c < 0 || c == 0 && loEx {
							continue
						}
					}
					if hi != nil {
						if c := compareField(vals[n], hi); c > 0 || c == 0 && hiEx {
							continue
						}
					}
					want = append(want, index.Entry{ID: id, Values: vals})
				}
				sort.Slice(want, func(i, j int) bool {
					for f := range fields {
						if c := compareField(want[i].Values[f], want[j].Values[f]); c != 0 {
							return c < 0
						}
					}
					return want[i].ID < want[j].ID
				})
				cnt, err := ix.Count(ctx, q)
				if err != nil || cnt != int64(len(want)) {
					t.Fatalf("step %d: count = %d, %v; want %d", step, cnt, err, len(want))
				}
				if r.IntN(2) == 0 {
					q.Rev()
					for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
						want[i], want[j] = want[j], want[i]
					}
				}
				if r.IntN(2) == 0 {
					off, c := int64(r.IntN(3)), int64(r.IntN(4))
					q.Limit(off, c)
					want = want[min(off, int64(len(want))):]
					want = want[:min(c, int64(len(want)))]
				}
				got, err := ix.Find(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("step %d: query %v lo %v hi %v:\n got %v\nwant %v", step, eqNorm, lo, hi, got, want)
				}
			}
		}
		if zcard(t, ctx, b, zkey) != int64(len(model)) || hlen(t, ctx, b, hkey) != int64(len(model)) {
			t.Errorf("index holds %d/%d entries, model %d", zcard(t, ctx, b, zkey), hlen(t, ctx, b, hkey), len(model))
		}
		for id, vals := range model {
			got, ok, err := ix.Get(ctx, id)
			if err != nil || !ok || fmt.Sprint(got) != fmt.Sprint(vals) {
				t.Errorf("get %s = %v %v %v, want %v", id, got, ok, err, vals)
			}
		}
	})
}
