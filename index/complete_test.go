package index_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"Banana":                "banana",
		"BANANA":                "banana",
		"Ba'nana":               "banana",
		"Bánána":                "banana",
		"  Ba'nána   Split! ":   "banana split",
		"Straße":                "strasse",
		"Ünïcödé":               "unicode",
		"Ёлка":                  "елка",
		"바나나":                   "바나나",
		"?!":                    "",
		"C-3PO, R2·D2":          "c3po r2d2",
		"crème brûlée\x00x\xff": "creme bruleex",
	} {
		if got := index.Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func suggestionTerms(ss []index.Suggestion) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%s:%d:%s", s.Term, s.Count, s.Display)
	}
	return out
}

// The page's example: banana is typed often, banaooo once; completions of
// "ban" come most frequent first, with the original form most often typed.
func TestCompletionTopN(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		c := index.NewCompletion(b, "ac", index.CompletionOptions{})
		add := func(term string, n int64) {
			t.Helper()
			if _, err := c.AddN(ctx, term, n); err != nil {
				t.Fatal(err)
			}
		}
		add("Banana", 100)
		add("banana", 20)
		add("BANANA", 2)
		add("Ba'nana", 1)
		add("banaooo", 1)
		add("banned user", 49)
		add("banning", 89)
		add("bit", 5)
		add("Bánh mì", 7)
		got, err := c.Complete(ctx, "BAN", 3)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"banana:123:Banana", "banning:89:banning", "banned user:49:banned user"}
		if !reflect.DeepEqual(suggestionTerms(got), want) {
			t.Errorf("Complete(BAN, 3) = %v, want %v", suggestionTerms(got), want)
		}
		got, _ = c.Complete(ctx, "b", 10)
		if len(got) != 6 || got[0].Term != "banana" || got[len(got)-1].Term != "banaooo" {
			t.Errorf("Complete(b, 10) = %v", suggestionTerms(got))
		}
		got, _ = c.Complete(ctx, "banh", 10)
		if want := []string{"banh mi:7:Bánh mì"}; !reflect.DeepEqual(suggestionTerms(got), want) {
			t.Errorf("Complete(banh) = %v, want %v", suggestionTerms(got), want)
		}
		got, _ = c.Complete(ctx, "", 2)
		if want := []string{"banana:123:Banana", "banning:89:banning"}; !reflect.DeepEqual(suggestionTerms(got), want) {
			t.Errorf("Complete('') = %v, want %v", suggestionTerms(got), want)
		}
		if got, _ := c.Complete(ctx, "x", 5); len(got) != 0 {
			t.Errorf("Complete(x) = %v", got)
		}
		// The displayed form follows the most typed original.
		add("BANANA", 150)
		got, _ = c.Complete(ctx, "banana", 1)
		if want := []string{"banana:273:BANANA"}; !reflect.DeepEqual(suggestionTerms(got), want) {
			t.Errorf("after BANANA×150: %v, want %v", suggestionTerms(got), want)
		}
		if n, _ := c.Count(ctx, "Ba'nana"); n != 273 {
			t.Errorf("Count = %d", n)
		}
		if _, err := c.Add(ctx, "'!?"); err != index.ErrEmptyTerm {
			t.Errorf("empty term: %v", err)
		}
		if ok, _ := c.Remove(ctx, "banana"); !ok {
			t.Error("Remove banana: not found")
		}
		got, _ = c.Complete(ctx, "ban", 10)
		if want := []string{"banning:89:banning", "banned user:49:banned user", "banh mi:7:Bánh mì", "banaooo:1:banaooo"}; !reflect.DeepEqual(suggestionTerms(got), want) {
			t.Errorf("after Remove: %v, want %v", suggestionTerms(got), want)
		}
		// Every key of the index is in one slot: {ac}.
		keys, _ := b.Do(ctx, "KEYS", "*")
		for _, k := range keys.([]any) {
			if s := k.(string); len(s) < 4 || s[:4] != "{ac}" {
				t.Errorf("key %q outside the hash tag", s)
			}
		}
	})
}

// MaxPerPrefix keeps the K most frequent terms of each prefix; the
// all-terms set keeps everything.
func TestCompletionCap(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		c := index.NewCompletion(b, "cap", index.CompletionOptions{MaxPerPrefix: 3})
		for i := 1; i <= 10; i++ {
			if _, err := c.AddN(ctx, fmt.Sprintf("term%02d", i), int64(i)); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := c.Complete(ctx, "te", 10)
		if want := []string{"term10:10:term10", "term09:9:term09", "term08:8:term08"}; !reflect.DeepEqual(suggestionTerms(got), want) {
			t.Errorf("capped = %v, want %v", suggestionTerms(got), want)
		}
		if n, _ := c.Len(ctx); n != 10 {
			t.Errorf("Len = %d", n)
		}
		// term01 climbs back in once it becomes frequent.
		c.AddN(ctx, "term01", 100)
		got, _ = c.Complete(ctx, "term", 1)
		if len(got) != 1 || got[0].Term != "term01" || got[0].Count != 101 {
			t.Errorf("after term01 += 100: %v", suggestionTerms(got))
		}
	})
}

// Decay: with a deterministic random source, the decay step runs on the
// Adds chosen; terms nobody types any more are halved on each sweep and
// forgotten, popular ones stay.
func TestCompletionDecay(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		draws := 0
		c := index.NewCompletion(b, "dec", index.CompletionOptions{
			DecayProbability: 0.25,
			Rand: func() float64 {
				draws++
				if draws%4 == 0 { // every 4th Add decays
					return 0.1
				}
				return 0.9
			},
		})
		c.AddN(ctx, "banaooo", 1) // typed once, long ago
		c.AddN(ctx, "bandana", 6)
		for i := 0; i < 2; i++ { // draws 3, 4: the 4th Add decays
			c.Add(ctx, "banana")
		}
		// After one decay: banaooo 1→0 forgotten, bandana 6→3, banana 2→1.
		if n, _ := c.Count(ctx, "banaooo"); n != 0 {
			t.Errorf("banaooo = %d after decay, want forgotten", n)
		}
		if n, _ := c.Count(ctx, "bandana"); n != 3 {
			t.Errorf("bandana = %d, want 3", n)
		}
		got, _ := c.Complete(ctx, "bana", 10)
		if want := []string{"banana:1:banana"}; !reflect.DeepEqual(suggestionTerms(got), want) {
			t.Errorf("bana after decay = %v, want %v", suggestionTerms(got), want)
		}
		// Popular terms are re-counted between sweeps; the rest fade.
		for i := 0; i < 40; i++ {
			if _, err := c.Add(ctx, "banana"); err != nil {
				t.Fatal(err)
			}
		}
		if n, _ := c.Count(ctx, "bandana"); n != 0 {
			t.Errorf("bandana = %d after 10 sweeps, want forgotten", n)
		}
		if n, _ := c.Count(ctx, "banana"); n < 1 {
			t.Errorf("banana forgotten")
		}
		keys, _ := b.Do(ctx, "KEYS", "{dec}:*band*")
		if ks, _ := keys.([]any); len(ks) != 0 {
			t.Errorf("keys of a forgotten term remain: %v", ks)
		}
	})
}

// Explicit decay over a set too big for one ZSCAN step.
func TestCompletionDecayAll(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		c := index.NewCompletion(b, "big", index.CompletionOptions{DecayBatch: 20})
		const n = 300
		for i := 0; i < n; i++ {
			if _, err := c.AddN(ctx, fmt.Sprintf("w%03d", i), int64(1+i%4)); err != nil {
				t.Fatal(err)
			}
		}
		st, err := c.DecayAll(ctx, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if !st.Done || st.Visited < n || st.Forgotten != n/4 {
			t.Errorf("DecayAll = %+v, want all %d visited, %d forgotten", st, n, n/4)
		}
		for i := 0; i < 8; i++ {
			want := int64(1+i%4) / 2
			if got, _ := c.Count(ctx, fmt.Sprintf("w%03d", i)); got != want {
				t.Errorf("w%03d = %d, want %d", i, got, want)
			}
		}
		got, _ := c.Complete(ctx, "w00", 10)
		if len(got) != 7 || got[0].Count != 2 {
			t.Errorf("w00 after decay: %v", suggestionTerms(got))
		}
	})
}

// Increments are atomic under concurrent writers.
func TestCompletionConcurrent(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		c := index.NewCompletion(b, "conc", index.CompletionOptions{})
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 25; i++ {
					if _, err := c.Add(ctx, []string{"Banana", "banana", "BANANA"}[i%3]); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		got, _ := c.Complete(ctx, "b", 1)
		if len(got) != 1 || got[0].Count != 100 || got[0].Display != "Banana" {
			t.Errorf("after 100 concurrent adds: %v", suggestionTerms(got))
		}
	})
}
