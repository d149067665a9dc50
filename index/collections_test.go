package index_test

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index"
)

func TestMemberSet(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		s := index.NewMemberSet(b, "{users}:premium")
		var ids []string
		for i := 0; i < 50; i++ {
			ids = append(ids, fmt.Sprint("u", i))
		}
		if n, err := s.Add(ctx, ids...); err != nil || n != 50 {
			t.Fatalf("Add = %d, %v", n, err)
		}
		if n, _ := s.Add(ctx, "u1", "u50"); n != 1 {
			t.Errorf("re-Add = %d new", n)
		}
		if ok, _ := s.Has(ctx, "u7"); !ok {
			t.Error("Has u7")
		}
		if ok, _ := s.Has(ctx, "nobody"); ok {
			t.Error("Has nobody")
		}
		if got, _ := s.HasMany(ctx, "u0", "x", "u50"); !reflect.DeepEqual(got, []bool{true, false, true}) {
			t.Errorf("HasMany = %v", got)
		}
		sample, err := s.Sample(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, id := range sample {
			if seen[id] {
				t.Errorf("Sample repeated %s", id)
			}
			seen[id] = true
			if ok, _ := s.Has(ctx, id); !ok {
				t.Errorf("Sample returned %s, not a member", id)
			}
		}
		if len(sample) != 10 {
			t.Errorf("Sample(10) = %d ids", len(sample))
		}
		if all, _ := s.Sample(ctx, 1000); len(all) != 51 {
			t.Errorf("Sample(1000) = %d ids, want all 51", len(all))
		}
		if rep, _ := s.SampleWithRepeats(ctx, 200); len(rep) != 200 {
			t.Errorf("SampleWithRepeats(200) = %d ids", len(rep))
		}
		if n, _ := s.Remove(ctx, "u0", "u1", "zz"); n != 2 {
			t.Errorf("Remove = %d", n)
		}
		if n, _ := s.Len(ctx); n != 49 {
			t.Errorf("Len = %d", n)
		}
		m, _ := s.Members(ctx)
		sort.Strings(m)
		if len(m) != 49 || m[0] != "u10" {
			t.Errorf("Members = %v", m)
		}
		empty := index.NewMemberSet(b, "{users}:none")
		if got, err := empty.Sample(ctx, 3); err != nil || len(got) != 0 {
			t.Errorf("empty Sample = %v, %v", got, err)
		}
		b.Do(ctx, "SET", "str", "x")
		if _, err := index.NewMemberSet(b, "str").Add(ctx, "a"); err == nil {
			t.Error("SADD on a string key succeeded")
		}
	})
}

func TestCappedList(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		l := index.NewCappedList(b, "{news}:latest", 5)
		for i := 1; i <= 8; i++ {
			if err := l.Push(ctx, fmt.Sprint("item", i)); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := l.Latest(ctx, 0)
		if want := []string{"item8", "item7", "item6", "item5", "item4"}; !reflect.DeepEqual(got, want) {
			t.Errorf("Latest = %v, want %v", got, want)
		}
		l.Push(ctx, "a", "b", "c")
		got, _ = l.Latest(ctx, 3)
		if want := []string{"c", "b", "a"}; !reflect.DeepEqual(got, want) {
			t.Errorf("Latest(3) = %v, want %v", got, want)
		}
		// Concurrent pushers never see more than Cap items.
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 20; i++ {
					if err := l.Push(ctx, fmt.Sprint(g, "-", i)); err != nil {
						t.Error(err)
						return
					}
					if n, _ := l.Len(ctx); n > 5 {
						t.Errorf("Len = %d > 5", n)
						return
					}
				}
			}()
		}
		wg.Wait()
		if n, _ := l.Len(ctx); n != 5 {
			t.Errorf("Len = %d after concurrent pushes", n)
		}
		b.Do(ctx, "SET", "{news}:str", "x")
		if err := index.NewCappedList(b, "{news}:str", 3).Push(ctx, "a"); err == nil {
			t.Error("Push on a string key succeeded")
		}
	})
}

func TestRotationList(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		r := index.NewRotationList(b, "{feeds}:rotation")
		if _, ok, err := r.Next(ctx); ok || err != nil {
			t.Errorf("Next on empty = %v, %v", ok, err)
		}
		if n, _ := r.Add(ctx, "feed1", "feed2", "feed3"); n != 3 {
			t.Errorf("Add = %d", n)
		}
		r.Add(ctx, "feed4")
		var got []string
		for i := 0; i < 10; i++ {
			it, ok, err := r.Next(ctx)
			if err != nil || !ok {
				t.Fatal(ok, err)
			}
			got = append(got, it)
		}
		if want := []string{"feed1", "feed2", "feed3", "feed4", "feed1", "feed2", "feed3", "feed4", "feed1", "feed2"}; !reflect.DeepEqual(got, want) {
			t.Errorf("rotation = %v", got)
		}
		if items, _ := r.Items(ctx); !reflect.DeepEqual(items, []string{"feed3", "feed4", "feed1", "feed2"}) {
			t.Errorf("Items = %v", items)
		}
		if n, _ := r.Remove(ctx, "feed4"); n != 1 {
			t.Errorf("Remove = %d", n)
		}
		// Concurrent workers: every item is visited equally, none lost.
		var mu sync.Mutex
		counts := map[string]int{}
		var wg sync.WaitGroup
		for g := 0; g < 3; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 30; i++ {
					it, ok, err := r.Next(ctx)
					if err != nil || !ok {
						t.Error(ok, err)
						return
					}
					mu.Lock()
					counts[it]++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if !reflect.DeepEqual(counts, map[string]int{"feed1": 30, "feed2": 30, "feed3": 30}) {
			t.Errorf("visits = %v", counts)
		}
		if n, _ := r.Len(ctx); n != 3 {
			t.Errorf("Len = %d", n)
		}
	})
}
