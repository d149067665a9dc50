package index_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index"
)

func triplesOf(ts []index.Triple) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.S + " " + t.P + " " + t.O
	}
	sort.Strings(out)
	return out
}

// The page's hexastore: antirez's friends; the relations between antirez
// and matteocollina; and "my friends who like beer, live in Barcelona and
// whom matteocollina considers a friend".
func TestGraphPage(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		g := index.NewGraph(b, "myindex")
		ts := []index.Triple{
			{"antirez", "is-friend-of", "matteocollina"},
			{"antirez", "is-friend-of", "wonderwoman"},
			{"antirez", "is-friend-of", "spiderman"},
			{"antirez", "is-friend-of", "batman"},
			{"antirez", "was-at-conference-with", "matteocollina"},
			{"antirez", "talked-with", "matteocollina"},
			{"matteocollina", "is-friend-of", "spiderman"},
			{"matteocollina", "is-friend-of", "batman"},
			{"matteocollina", "is-friend-of", "antirez"},
			{"spiderman", "lives-in", "barcelona"},
			{"batman", "lives-in", "gotham"},
			{"matteocollina", "lives-in", "barcelona"},
			{"wonderwoman", "lives-in", "barcelona"},
			{"fan0", "lives-in", "barcelona"},
		}
		// Many beer lovers: the "likes beer" pattern is the least selective.
		for i := 0; i < 40; i++ {
			ts = append(ts, index.Triple{S: fmt.Sprint("fan", i), P: "likes", O: "beer"})
		}
		ts = append(ts, index.Triple{"spiderman", "likes", "beer"}, index.Triple{"batman", "likes", "beer"},
			index.Triple{"wonderwoman", "likes", "wine"})
		n, err := g.Add(ctx, ts...)
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(len(ts)) {
			t.Errorf("Add = %d new, want %d", n, len(ts))
		}
		if n, _ := g.Add(ctx, ts[0]); n != 0 {
			t.Errorf("re-Add = %d new", n)
		}
		got, err := g.Match(ctx, index.Pattern{S: "antirez", P: "is-friend-of"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"antirez is-friend-of batman", "antirez is-friend-of matteocollina",
			"antirez is-friend-of spiderman", "antirez is-friend-of wonderwoman"}; !reflect.DeepEqual(triplesOf(got), want) {
			t.Errorf("spo antirez is-friend-of = %v", triplesOf(got))
		}
		got, _ = g.Match(ctx, index.Pattern{S: "antirez", O: "matteocollina"}, 0)
		if want := []string{"antirez is-friend-of matteocollina", "antirez talked-with matteocollina",
			"antirez was-at-conference-with matteocollina"}; !reflect.DeepEqual(triplesOf(got), want) {
			t.Errorf("sop antirez matteocollina = %v", triplesOf(got))
		}
		if c, _ := g.Count(ctx, index.Pattern{P: "likes", O: "beer"}); c != 42 {
			t.Errorf("Count likes beer = %d", c)
		}
		if c, _ := g.Count(ctx, index.Pattern{}); c != int64(len(ts)) {
			t.Errorf("Count all = %d", c)
		}
		x := index.Var("x")
		bs, plan, err := g.QueryPlan(ctx,
			index.Pattern{S: "antirez", P: "is-friend-of", O: x},
			index.Pattern{S: x, P: "likes", O: "beer"},
			index.Pattern{S: x, P: "lives-in", O: "barcelona"},
			index.Pattern{S: "matteocollina", P: "is-friend-of", O: x},
		)
		if err != nil {
			t.Fatal(err)
		}
		if want := []index.Binding{{"x": "spiderman"}}; !reflect.DeepEqual(bs, want) {
			t.Errorf("query = %v, want %v", bs, want)
		}
		// Most selective first: matteocollina's 3 friends; the 42 beer
		// lovers last, probed once per binding left (not scanned).
		if len(plan) != 4 || plan[0].Pattern != 3 || plan[0].Count != 3 || plan[1].Count != 4 ||
			plan[3].Pattern != 1 || plan[3].Count != 42 || plan[3].Probes == 0 || plan[3].Probes > 2 {
			t.Errorf("plan = %+v", plan)
		}
		// A constant nobody has: empty after the counts alone.
		bs, plan, _ = g.QueryPlan(ctx, index.Pattern{S: x, P: "likes", O: "beer"}, index.Pattern{S: x, P: "hates", O: "beer"})
		if len(bs) != 0 || len(plan) != 1 {
			t.Errorf("hates beer: %v %+v", bs, plan)
		}
		// Two variables: who lives in the same city as a friend of antirez.
		bs, _ = g.Query(ctx,
			index.Pattern{S: "antirez", P: "is-friend-of", O: x},
			index.Pattern{S: x, P: "lives-in", O: index.Var("city")},
			index.Pattern{S: index.Var("y"), P: "lives-in", O: index.Var("city")},
			index.Pattern{S: index.Var("y"), P: "likes", O: "wine"})
		if want := []index.Binding{{"x": "matteocollina", "city": "barcelona", "y": "wonderwoman"},
			{"x": "spiderman", "city": "barcelona", "y": "wonderwoman"},
			{"x": "wonderwoman", "city": "barcelona", "y": "wonderwoman"}}; !reflect.DeepEqual(bs, want) {
			t.Errorf("same city = %v", bs)
		}
		if n, _ := g.Remove(ctx, index.Triple{"spiderman", "likes", "beer"}); n != 1 {
			t.Errorf("Remove = %d", n)
		}
		bs, _ = g.Query(ctx,
			index.Pattern{S: "antirez", P: "is-friend-of", O: x},
			index.Pattern{S: x, P: "likes", O: "beer"})
		if want := []index.Binding{{"x": "batman"}}; !reflect.DeepEqual(bs, want) {
			t.Errorf("after Remove: %v", bs)
		}
		if ok, _ := g.Has(ctx, index.Triple{"spiderman", "likes", "beer"}); ok {
			t.Error("Has after Remove")
		}
		if _, err := g.Match(ctx, index.Pattern{S: 42}, 0); err == nil {
			t.Error("an int in a pattern was accepted")
		}
	})
}

// Separators inside values never collide: "a:b" "c" is not "a" "b:c".
func TestGraphBinarySafe(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		g := index.NewGraph(b, "{g}bin")
		g.Add(ctx, index.Triple{"a:b", "c", "d"}, index.Triple{"a", "b:c", "d"},
			index.Triple{"a\x00", "p", "\xff"}, index.Triple{"a", "\x00p", ""})
		got, _ := g.Match(ctx, index.Pattern{S: "a"}, 0)
		if want := []string{"a \x00p ", "a b:c d"}; !reflect.DeepEqual(triplesOf(got), want) {
			t.Errorf("S=a: %q", triplesOf(got))
		}
		got, _ = g.Match(ctx, index.Pattern{S: "a:b", P: "c"}, 0)
		if want := []string{"a:b c d"}; !reflect.DeepEqual(triplesOf(got), want) {
			t.Errorf("S=a:b P=c: %q", triplesOf(got))
		}
		if c, _ := g.Count(ctx, index.Pattern{O: ""}); c != 1 {
			t.Errorf("O='' count %d", c)
		}
		got, _ = g.Match(ctx, index.Pattern{O: "\xff"}, 0)
		if len(got) != 1 || got[0].S != "a\x00" {
			t.Errorf("O=\\xff: %q", triplesOf(got))
		}
	})
}

// Random graphs: every pattern shape against brute force, and joins.
func TestGraphAgainstBruteForce(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		g := index.NewGraph(b, "rnd")
		r := rand.New(rand.NewPCG(3, 4))
		vocab := []string{"a", "b", "c", "d", "e", "f"}
		preds := []string{"p", "q", "r"}
		set := map[index.Triple]bool{}
		for i := 0; i < 50; i++ {
			t := index.Triple{vocab[r.IntN(6)], preds[r.IntN(3)], vocab[r.IntN(6)]}
			set[t] = true
		}
		var all []index.Triple
		for t := range set {
			all = append(all, t)
		}
		if _, err := g.Add(ctx, all...); err != nil {
			t.Fatal(err)
		}
		pick := func(vals []string, vars []string) any {
			switch r.IntN(3) {
			case 0:
				return vals[r.IntN(len(vals))]
			case 1:
				return index.Var(vars[r.IntN(len(vars))])
			}
			return nil
		}
		match := func(p index.Pattern, t index.Triple, bnd index.Binding) (index.Binding, bool) {
			out := index.Binding{}
			for k, v := range bnd {
				out[k] = v
			}
			for _, pos := range []struct {
				x any
				v string
			}{{p.S, t.S}, {p.P, t.P}, {p.O, t.O}} {
				switch x := pos.x.(type) {
				case string:
					if x != pos.v {
						return nil, false
					}
				case index.Var:
					if have, ok := out[string(x)]; ok && have != pos.v {
						return nil, false
					}
					out[string(x)] = pos.v
				}
			}
			return out, true
		}
		for i := 0; i < 60; i++ {
			p := index.Pattern{S: pick(vocab, []string{"x"}), P: pick(preds, []string{"y"}), O: pick(vocab, []string{"x", "z"})}
			var want []index.Triple
			for _, t := range all {
				if _, ok := match(p, t, nil); ok {
					want = append(want, t)
				}
			}
			got, err := g.Match(ctx, p, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(triplesOf(got), triplesOf(want)) {
				t.Fatalf("Match(%v) = %v, want %v", p, triplesOf(got), triplesOf(want))
			}
			// Joins of 2 or 3 patterns.
			ps := []index.Pattern{p}
			for j := 0; j < 1+r.IntN(2); j++ {
				ps = append(ps, index.Pattern{S: pick(vocab, []string{"x", "z"}), P: pick(preds, []string{"y"}), O: pick(vocab, []string{"x", "z"})})
			}
			bnds := []index.Binding{{}}
			for _, p := range ps {
				var next []index.Binding
				for _, bnd := range bnds {
					for _, t := range all {
						if nb, ok := match(p, t, bnd); ok {
							next = append(next, nb)
						}
					}
				}
				bnds = next
			}
			wantSet := map[string]bool{}
			for _, bnd := range bnds {
				wantSet[fmt.Sprint(bnd)] = true
			}
			gotB, err := g.Query(ctx, ps...)
			if err != nil {
				t.Fatal(err)
			}
			gotSet := map[string]bool{}
			for _, bnd := range gotB {
				gotSet[fmt.Sprint(bnd)] = true
			}
			if len(gotB) != len(gotSet) || !reflect.DeepEqual(gotSet, wantSet) {
				t.Fatalf("Query(%v): got %d %v, want %v", ps, len(gotB), keysOf(gotSet), keysOf(wantSet))
			}
		}
	})
}

func keysOf(m map[string]bool) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, " ")
}
