package index_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index"
)

func TestOrderedMapBinarySafe(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		m := index.NewOrderedMap(b, "kv")
		entries := map[string]string{"a": "1", "a:b": "2", "a\x00b": "\x00", "ab": "x:y", "b": "", "": "empty key", "\xff": "\xff\x00"}
		for k, v := range entries {
			if err := m.Put(ctx, k, v); err != nil {
				t.Fatal(err)
			}
		}
		for k, v := range entries {
			got, ok, err := m.Get(ctx, k)
			if err != nil || !ok || got != v {
				t.Errorf("Get(%q) = %q %v %v, want %q", k, got, ok, err, v)
			}
		}
		m.Put(ctx, "a", "updated")
		if got, _, _ := m.Get(ctx, "a"); got != "updated" {
			t.Errorf("update: %q", got)
		}
		if n, _ := m.Len(ctx); n != int64(len(entries)) {
			t.Errorf("Len = %d after an update, want %d", n, len(entries))
		}
		all, _ := m.Range(ctx, index.KeyRange{}, 0, false)
		var keys []string
		for _, kv := range all {
			keys = append(keys, kv.Key)
		}
		want := []string{"", "a", "a\x00b", "a:b", "ab", "b", "\xff"}
		if !reflect.DeepEqual(keys, want) {
			t.Errorf("order %q, want %q", keys, want)
		}
		pre, _ := m.Prefix(ctx, "a", 0)
		if len(pre) != 4 {
			t.Errorf("Prefix(a) = %q, want a, a\\x00b, a:b, ab", pre)
		}
		if ok, _ := m.Delete(ctx, "a:b"); !ok {
			t.Error("Delete(a:b) found nothing")
		}
		if _, ok, _ := m.Get(ctx, "a:b"); ok {
			t.Error("a:b still there")
		}
		if _, ok, _ := m.Get(ctx, "a"); !ok {
			t.Error("deleting a:b removed a")
		}
	})
}

func TestOrderedMapRangeAgainstModel(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		m := index.NewOrderedMap(b, "kvmodel")
		model := map[string]string{}
		r := rand.New(rand.NewPCG(1, 1))
		alpha := []string{"a", "b", ":", "\x00", "\xff", "z"}
		word := func() string {
			var sb strings.Builder
			for i := r.IntN(4); i >= 0; i-- {
				sb.WriteString(alpha[r.IntN(len(alpha))])
			}
			return sb.String()
		}
		for step := 0; step < 200; step++ {
			k := word()
			switch r.IntN(3) {
			case 0, 1:
				v := word()
				m.Put(ctx, k, v)
				model[k] = v
			case 2:
				m.Delete(ctx, k)
				delete(model, k)
			}
			from, to := word(), word()
			fromEx, toIn := r.IntN(2) == 0, r.IntN(2) == 0
			var want []index.KV
			for mk, mv := range model {
				if (mk > from || !fromEx && mk == from) && (mk < to || toIn && mk == to) {
					want = append(want, index.KV{Key: mk, Value: mv})
				}
			}
			sort.Slice(want, func(i, j int) bool { return want[i].Key < want[j].Key })
			got, err := m.Range(ctx, index.KeyRange{From: &from, To: &to, FromExclusive: fromEx, ToInclude: toIn}, 0, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
				t.Fatalf("step %d: range %q..%q (ex %v in %v) = %q, want %q", step, from, to, fromEx, toIn, got, want)
			}
		}
	})
}
