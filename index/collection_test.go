package index_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index"
)

func postsCollection(b backend.Backend, name string) *index.Collection {
	return index.NewCollection(b, name,
		index.NumericIndex("time", "ts"),
		index.CompositeIndex("category",
			index.Field{Name: "cat", Type: index.Int},
			index.Field{Name: "ts", Type: index.Int}),
		index.OrderedIndex("title", "title"),
	)
}

func docIDs(ds []index.Doc) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.ID
	}
	return out
}

func keyExists(t *testing.T, ctx context.Context, b backend.Backend, key string) bool {
	t.Helper()
	v, err := b.Do(ctx, "EXISTS", key)
	if err != nil {
		t.Fatal(err)
	}
	return v.(int64) == 1
}

func TestCollectionPutQueryDelete(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		posts := postsCollection(b, "posts")
		put := func(id string, o index.Object) {
			t.Helper()
			if _, err := posts.Put(ctx, id, o); err != nil {
				t.Fatal(err)
			}
		}
		put("P1", index.Object{"title": "NoSQL Modeling", "cat": "1", "ts": "100"})
		put("P2", index.Object{"title": "Black Panther", "cat": "2", "ts": "200"})
		put("P3", index.Object{"title": "Spring, Redis and Jedis", "cat": "1", "ts": "300"})
		put("P4", index.Object{"title": "Draft", "cat": "1"}) // no ts: only in the title index

		if k := posts.ObjectKey("P1"); k != "{posts}:obj:P1" {
			t.Errorf("object key %q", k)
		}
		if o, ok, err := posts.Get(ctx, "P1"); err != nil || !ok || !reflect.DeepEqual(o, index.Object{"title": "NoSQL Modeling", "cat": "1", "ts": "100"}) {
			t.Errorf("get P1 = %v %v %v", o, ok, err)
		}
		if _, ok, err := posts.Get(ctx, "nope"); ok || err != nil {
			t.Errorf("get nope = %v %v", ok, err)
		}
		check := func(what string, got []index.Doc, err error, want ...string) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if g := docIDs(got); !reflect.DeepEqual(g, want) && !(len(g) == 0 && len(want) == 0) {
				t.Errorf("%s = %v, want %v", what, g, want)
			}
		}
		ds, err := posts.Find(ctx, "category", index.Where(1).Rev())
		check("category 1 newest first", ds, err, "P3", "P1")
		if len(ds) == 2 && ds[0].Fields["title"] != "Spring, Redis and Jedis" {
			t.Errorf("objects not fetched: %v", ds)
		}
		ds, err = posts.FindRange(ctx, "time", index.Between(100, 250), index.Rev())
		check("time 100..250 newest first", ds, err, "P2", "P1")
		ds, err = posts.Find(ctx, "title", index.Where().Min("D").Below("S"))
		check("titles D..S", ds, err, "P4", "P1")
		if n, _ := posts.Composite("title").Count(ctx, nil); n != 4 {
			t.Errorf("title count = %d", n)
		}
		if n, _ := posts.Numeric("time").Count(ctx); n != 3 {
			t.Errorf("time count = %d", n)
		}

		// Update: move P1 to category 2, drop its ts; the old entries go.
		if replaced, err := posts.Put(ctx, "P1", index.Object{"title": "NoSQL Modeling II", "cat": "2"}); err != nil || !replaced {
			t.Fatalf("replace P1: %v %v", replaced, err)
		}
		if o, _, _ := posts.Get(ctx, "P1"); !reflect.DeepEqual(o, index.Object{"title": "NoSQL Modeling II", "cat": "2"}) {
			t.Errorf("P1 after replace = %v (fields of the old version must go)", o)
		}
		ds, err = posts.Find(ctx, "category", index.Where(1))
		check("category 1 after move", ds, err, "P3")
		ds, err = posts.FindRange(ctx, "time")
		check("time after move", ds, err, "P2", "P3")
		ds, err = posts.Find(ctx, "title", index.Where().Min("NoSQL").Below("NoSQM"))
		check("titles NoSQL*", ds, err, "P1")
		if vals, ok, _ := posts.Composite("title").Get(ctx, "P1"); !ok || vals[0] != "NoSQL Modeling II" {
			t.Errorf("title entry of P1 = %v", vals)
		}

		// Objects: in the order asked, missing ids left out, one round trip.
		ds, err = posts.Objects(ctx, []string{"P3", "gone", "P2"})
		check("objects", ds, err, "P3", "P2")

		// Delete removes the object and every entry.
		if ok, err := posts.Delete(ctx, "P3"); !ok || err != nil {
			t.Fatalf("delete P3 = %v %v", ok, err)
		}
		if ok, err := posts.Delete(ctx, "P3"); ok || err != nil {
			t.Fatalf("delete P3 again = %v %v", ok, err)
		}
		if keyExists(t, ctx, b, "{posts}:obj:P3") {
			t.Error("object P3 still there")
		}
		if v, _ := b.Do(ctx, "ZSCORE", "{posts}:idx:time", "P3"); v != nil {
			t.Error("P3 still in the time index")
		}
		if v, _ := b.Do(ctx, "HGET", "{posts}:idx:category:ids", "P3"); v != nil {
			t.Error("P3 still in the category content hash")
		}
		ds, err = posts.Find(ctx, "category", nil)
		check("category after delete", ds, err, "P2")
		if zcard(t, ctx, b, "{posts}:idx:category") != 1 || zcard(t, ctx, b, "{posts}:idx:title") != 3 || hlen(t, ctx, b, "{posts}:idx:title:ids") != 3 {
			t.Error("delete left index entries")
		}
	})
}

// A field that does not parse for its index writes nothing: not the
// object, not any index entry, whether the object is new or replaced.
func TestCollectionBadFieldsWriteNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		posts := postsCollection(b, "posts_bad")
		good := index.Object{"title": "ok", "cat": "1", "ts": "100"}
		if _, err := posts.Put(ctx, "P1", good); err != nil {
			t.Fatal(err)
		}
		snapshot := func() string {
			var parts []string
			for _, k := range []string{"{posts_bad}:idx:time", "{posts_bad}:idx:category", "{posts_bad}:idx:title"} {
				v, err := b.Do(ctx, "ZRANGE", k, 0, -1, "WITHSCORES")
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts, fmt.Sprint(v))
			}
			for _, k := range []string{"{posts_bad}:idx:category:ids", "{posts_bad}:idx:title:ids"} {
				v, err := b.Do(ctx, "HGET", k, "P1")
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts, fmt.Sprintf("%q", v))
			}
			o, _, _ := posts.Get(ctx, "P1")
			return fmt.Sprint(parts, o)
		}
		before := snapshot()
		bad := []struct {
			obj  index.Object
			want string
		}{
			{index.Object{"title": "x", "cat": "1", "ts": "yesterday"}, `index "time": field "ts": malformed number "yesterday"`},
			{index.Object{"title": "x", "cat": "1", "ts": "nan"}, "NaN cannot be indexed"},
			{index.Object{"title": "x", "cat": "IT", "ts": "1"}, `malformed integer "IT"`},
			{index.Object{"title": "x", "cat": "1", "ts": "1.5"}, `malformed integer "1.5"`},
		}
		for _, tc := range bad {
			for _, id := range []string{"P1", "P9"} {
				_, err := posts.Put(ctx, id, tc.obj)
				if !errors.Is(err, index.ErrFieldType) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("put %s %v = %v, want ErrFieldType with %q", id, tc.obj, err, tc.want)
				}
			}
		}
		if _, err := posts.Put(ctx, "P9", index.Object{}); err != index.ErrEmptyObject {
			t.Errorf("empty object: %v", err)
		}
		if after := snapshot(); after != before {
			t.Errorf("a failed Put changed something:\nbefore %s\nafter  %s", before, after)
		}
		if keyExists(t, ctx, b, posts.ObjectKey("P9")) {
			t.Error("a failed Put created P9")
		}
	})
}

// Concurrent writers on the same ids: each write is atomic, so at the end
// every object and its index entries agree.
func TestCollectionConcurrentWritersStayConsistent(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		posts := postsCollection(b, "posts_conc")
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), 99))
				for i := 0; i < 60; i++ {
					id := fmt.Sprint("p", r.IntN(6))
					var err error
					if r.IntN(4) == 0 {
						_, err = posts.Delete(ctx, id)
					} else {
						_, err = posts.Put(ctx, id, index.Object{
							"title": fmt.Sprint("t", r.IntN(5)), "cat": fmt.Sprint(r.IntN(3)), "ts": fmt.Sprint(w*1000 + i),
						})
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}(w)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		checkCollectionConsistent(t, ctx, b, posts, 6)
	})
}

// checkCollectionConsistent checks that the indexes of posts hold exactly
// the entries of the objects p0..p<n-1>.
func checkCollectionConsistent(t *testing.T, ctx context.Context, b backend.Backend, posts *index.Collection, n int) {
	t.Helper()
	var nTime, nCat, nTitle int64
	for i := 0; i < n; i++ {
		id := fmt.Sprint("p", i)
		o, ok, err := posts.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		score, inTime, _ := posts.Numeric("time").Score(ctx, id)
		if ts, has := o["ts"]; ok && has {
			nTime++
			if want, _ := strconv.ParseFloat(ts, 64); !inTime || score != want {
				t.Errorf("%s: time entry %v %v, object ts %s", id, score, inTime, ts)
			}
		} else if inTime {
			t.Errorf("%s: time entry without an object ts", id)
		}
		vals, inCat, _ := posts.Composite("category").Get(ctx, id)
		if ok && o["cat"] != "" && o["ts"] != "" {
			nCat++
			if !inCat || fmt.Sprint(vals[0]) != o["cat"] || fmt.Sprint(vals[1]) != o["ts"] {
				t.Errorf("%s: category entry %v, object %v", id, vals, o)
			}
		} else if inCat {
			t.Errorf("%s: category entry %v without an object", id, vals)
		}
		vals, inTitle, _ := posts.Composite("title").Get(ctx, id)
		if ok {
			nTitle++
			if !inTitle || vals[0] != o["title"] {
				t.Errorf("%s: title entry %v, object %v", id, vals, o)
			}
		} else if inTitle {
			t.Errorf("%s: title entry without an object", id)
		}
	}
	if n, _ := posts.Numeric("time").Len(ctx); n != nTime {
		t.Errorf("time index holds %d entries, want %d", n, nTime)
	}
	if n, _ := posts.Composite("category").Len(ctx); n != nCat {
		t.Errorf("category index holds %d entries, want %d", n, nCat)
	}
	if n, _ := posts.Composite("title").Len(ctx); n != nTitle {
		t.Errorf("title index holds %d entries, want %d", n, nTitle)
	}
	zc, hc := posts.Composite("category").Keys()
	zt, ht := posts.Composite("title").Keys()
	if zcard(t, ctx, b, zc) != hlen(t, ctx, b, hc) || zcard(t, ctx, b, zt) != hlen(t, ctx, b, ht) {
		t.Error("a content hash and its sorted set disagree")
	}
}

// A property test: random puts (some fields missing), deletes and queries
// on every index, against a map of objects.
func TestCollectionAgainstModel(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		posts := postsCollection(b, "posts_model")
		model := map[string]index.Object{}
		r := rand.New(rand.NewPCG(5, 6))
		titles := []string{"", "a", "a:b", "a\x00", "b", "NoSQL", "é"}
		for step := 0; step < 300; step++ {
			id := fmt.Sprint("p", r.IntN(12))
			switch r.IntN(5) {
			case 0, 1:
				o := index.Object{"title": titles[r.IntN(len(titles))], "body": strings.Repeat("x", r.IntN(3))}
				if r.IntN(5) > 0 {
					o["cat"] = fmt.Sprint(r.IntN(4) - 1)
				}
				if r.IntN(5) > 0 {
					o["ts"] = fmt.Sprint(r.IntN(20) * 10)
				}
				replaced, err := posts.Put(ctx, id, o)
				if err != nil {
					t.Fatal(err)
				}
				if _, had := model[id]; replaced != had {
					t.Fatalf("step %d: put %s replaced=%v, model has it: %v", step, id, replaced, had)
				}
				model[id] = o
			case 2:
				ok, err := posts.Delete(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if _, had := model[id]; ok != had {
					t.Fatalf("step %d: delete %s = %v, model has it: %v", step, id, ok, had)
				}
				delete(model, id)
			case 3:
				// Category c, ts in [lo, hi], newest first.
				c, lo, hi := r.IntN(4)-1, r.IntN(20)*10, r.IntN(20)*10
				type hit struct {
					id string
					ts int
				}
				var want []hit
				for id, o := range model {
					ts, err1 := strconv.Atoi(o["ts"])
					cat, err2 := strconv.Atoi(o["cat"])
					if err1 == nil && err2 == nil && cat == c && ts >= lo && ts <= hi {
						want = append(want, hit{id, ts})
					}
				}
				sort.Slice(want, func(i, j int) bool {
					if want[i].ts != want[j].ts {
						return want[i].ts > want[j].ts
					}
					return want[i].id > want[j].id
				})
				var wantIDs []string
				for _, h := range want {
					wantIDs = append(wantIDs, h.id)
				}
				ds, err := posts.Find(ctx, "category", index.Where(c).Between(lo, hi).Rev())
				if err != nil {
					t.Fatal(err)
				}
				if got := docIDs(ds); fmt.Sprint(got) != fmt.Sprint(wantIDs) {
					t.Fatalf("step %d: category %d ts %d..%d = %v, want %v", step, c, lo, hi, got, wantIDs)
				}
				for _, d := range ds {
					if !reflect.DeepEqual(d.Fields, model[d.ID]) {
						t.Fatalf("step %d: object %s = %v, want %v", step, d.ID, d.Fields, model[d.ID])
					}
				}
				// The same range on the numeric index, all categories, oldest first.
				var all []hit
				for id, o := range model {
					if ts, err := strconv.Atoi(o["ts"]); err == nil && ts >= lo && ts < hi {
						all = append(all, hit{id, ts})
					}
				}
				sort.Slice(all, func(i, j int) bool {
					if all[i].ts != all[j].ts {
						return all[i].ts < all[j].ts
					}
					return all[i].id < all[j].id
				})
				wantIDs = wantIDs[:0]
				for _, h := range all {
					wantIDs = append(wantIDs, h.id)
				}
				got, err := posts.Numeric("time").IDs(ctx, index.Min(float64(lo)), index.Below(float64(hi)))
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(got) != fmt.Sprint(wantIDs) {
					t.Fatalf("step %d: time [%d, %d) = %v, want %v", step, lo, hi, got, wantIDs)
				}
			case 4:
				// Titles with a prefix, by title then id.
				p := titles[r.IntN(len(titles))]
				type hit struct{ title, id string }
				var hits []hit
				for id, o := range model {
					if strings.HasPrefix(o["title"], p) {
						hits = append(hits, hit{o["title"], id})
					}
				}
				sort.Slice(hits, func(i, j int) bool {
					if hits[i].title != hits[j].title {
						return hits[i].title < hits[j].title
					}
					return hits[i].id < hits[j].id
				})
				var want []string
				for _, h := range hits {
					want = append(want, h.id)
				}
				q := index.Where().Min(p)
				if p != "" {
					q.Below(p[:len(p)-1] + string([]byte{p[len(p)-1] + 1}))
				}
				got, err := posts.Composite("title").IDs(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("step %d: titles %q* = %q, want %q", step, p, got, want)
				}
			}
		}
		for i := 0; i < 12; i++ {
			id := fmt.Sprint("p", i)
			o, ok, err := posts.Get(ctx, id)
			if err != nil || ok != (model[id] != nil) || (ok && !reflect.DeepEqual(o, model[id])) {
				t.Errorf("%s = %v %v %v, want %v", id, o, ok, err, model[id])
			}
		}
		checkCollectionConsistent(t, ctx, b, posts, 12)
	})
}

// A key of the wrong type among a write's keys fails the whole write
// before anything changes (Redis does not roll back a script that fails
// half way, so the script checks every key first).
func TestCollectionWrongTypeKeyWritesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		posts := postsCollection(b, "posts_wt")
		if _, err := posts.Put(ctx, "p1", index.Object{"title": "old", "cat": "1", "ts": "100"}); err != nil {
			t.Fatal(err)
		}
		zt, ht := posts.Composite("title").Keys()
		for _, key := range []string{ht, zt} {
			saved, _ := b.Do(ctx, "DUMP", key)
			if _, err := b.Do(ctx, "DEL", key); err != nil {
				t.Fatal(err)
			}
			b.Do(ctx, "SET", key, "not an index")
			for _, write := range []func() error{
				func() error {
					_, err := posts.Put(ctx, "p1", index.Object{"title": "new", "cat": "2", "ts": "200"})
					return err
				},
				func() error { _, err := posts.Delete(ctx, "p1"); return err },
			} {
				err := write()
				var re *backend.Error
				if !errors.As(err, &re) || !strings.HasPrefix(re.Msg, "WRONGTYPE") {
					t.Errorf("%s is a string: write = %v, want WRONGTYPE", key, err)
				}
				if o, ok, _ := posts.Get(ctx, "p1"); !ok || o["title"] != "old" {
					t.Errorf("%s is a string: p1 = %v %v", key, o, ok)
				}
				if s, ok, _ := posts.Numeric("time").Score(ctx, "p1"); !ok || s != 100 {
					t.Errorf("%s is a string: time entry %v %v", key, s, ok)
				}
				if vals, ok, _ := posts.Composite("category").Get(ctx, "p1"); !ok || fmt.Sprint(vals) != "[1 100]" {
					t.Errorf("%s is a string: category entry %v %v", key, vals, ok)
				}
			}
			b.Do(ctx, "DEL", key)
			if saved != nil {
				if _, err := b.Do(ctx, "RESTORE", key, 0, saved); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := posts.Put(ctx, "p1", index.Object{"title": "new", "cat": "2", "ts": "200"}); err != nil {
			t.Fatal(err)
		}
		checkCollectionConsistent(t, ctx, b, posts, 2)
	})
}
