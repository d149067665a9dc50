package index_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index"
)

// The page's example: user hashes with an age field, indexed in one
// sorted set, both updated inside MULTI/EXEC. Objects and index share the
// hash tag {users} so that this works on Redis Cluster too.
const (
	usersPrefix = "{users}:user:"
	usersIndex  = "{users}:age"
)

func usersTarget(b backend.Backend) *index.NumericObjects {
	return &index.NumericObjects{Index: index.NewNumeric(b, usersIndex), Prefix: usersPrefix, Field: "age"}
}

func putUser(ctx context.Context, b backend.Backend, id string, age int) error {
	res, err := b.Tx(ctx, []backend.Cmd{
		{"DEL", usersPrefix + id},
		{"HSET", usersPrefix + id, "name", "n" + id, "age", strconv.Itoa(age)},
		{"ZADD", usersIndex, age, id},
	})
	if err != nil {
		return err
	}
	for _, r := range res {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

func delUser(ctx context.Context, b backend.Backend, id string) error {
	_, err := b.Tx(ctx, []backend.Cmd{{"DEL", usersPrefix + id}, {"ZREM", usersIndex, id}})
	return err
}

// checkUsers verifies, independently of the repairer, that ids 0..n-1
// are consistent and that the index holds nothing else.
func checkUsers(t *testing.T, ctx context.Context, b backend.Backend, n int) {
	t.Helper()
	indexed := 0
	for i := range n {
		id := strconv.Itoa(i)
		age, err := b.Do(ctx, "HGET", usersPrefix+id, "age")
		var e *backend.Error
		if errors.As(err, &e) {
			age, err = nil, nil // not a hash: not an object
		}
		if err != nil {
			t.Fatal(err)
		}
		score, err := b.Do(ctx, "ZSCORE", usersIndex, id)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := age.(string)
		want, perr := strconv.ParseFloat(a, 64)
		valid := age != nil && perr == nil
		if !valid {
			if score != nil {
				t.Errorf("id %s: object age %v, index entry %v: should have no entry", id, age, score)
			}
			continue
		}
		indexed++
		got, _ := score.(string)
		if f, ok := score.(float64); ok {
			got = strconv.FormatFloat(f, 'g', -1, 64)
		}
		if gf, err := strconv.ParseFloat(got, 64); err != nil || gf != want {
			t.Errorf("id %s: object age %v, index entry %v", id, age, score)
		}
	}
	card, err := b.Do(ctx, "ZCARD", usersIndex)
	if err != nil {
		t.Fatal(err)
	}
	if card != int64(indexed) {
		t.Errorf("index holds %v entries, want %d", card, indexed)
	}
}

// corrupt damages the users in [lo, hi) in every way the repair must see
// and returns how many problems of each kind it made.
func corrupt(t *testing.T, ctx context.Context, b backend.Backend, lo, hi int) (missing, dangling, stale int) {
	t.Helper()
	for i := lo; i < hi; i++ {
		id := strconv.Itoa(i)
		var cmds []backend.Cmd
		switch i % 7 {
		case 0: // object never indexed
			cmds = []backend.Cmd{{"HSET", usersPrefix + id, "age", 30 + i%5}}
			missing++
		case 1: // entry whose object was deleted
			cmds = []backend.Cmd{{"ZADD", usersIndex, 40, id}}
			dangling++
		case 2: // entry with an old value
			cmds = []backend.Cmd{{"HSET", usersPrefix + id, "age", 50}, {"ZADD", usersIndex, 51, id}}
			stale++
		case 3: // the field was removed but not the entry
			cmds = []backend.Cmd{{"HSET", usersPrefix + id, "name", "x"}, {"ZADD", usersIndex, 20, id}}
			dangling++
		case 4: // the field is not a number any more
			cmds = []backend.Cmd{{"HSET", usersPrefix + id, "age", "unknown"}, {"ZADD", usersIndex, 20, id}}
			dangling++
		case 5: // a fractional age, consistent
			cmds = []backend.Cmd{{"HSET", usersPrefix + id, "age", "0.1"}, {"ZADD", usersIndex, "0.1", id}}
		case 6: // the key is not a hash at all, yet indexed
			cmds = []backend.Cmd{{"SET", usersPrefix + id, "x"}, {"ZADD", usersIndex, 1, id}}
			dangling++
		}
		for _, c := range cmds {
			if _, err := b.Do(ctx, c...); err != nil {
				t.Fatal(err)
			}
		}
	}
	return
}

func TestRepairFindsAndFixes(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		for i := range 40 {
			if err := putUser(ctx, b, strconv.Itoa(i), 20+i); err != nil {
				t.Fatal(err)
			}
		}
		b.Do(ctx, "SET", "{users}:other", "not an object") // outside the prefix: ignored
		missing, dangling, stale := corrupt(t, ctx, b, 40, 75)

		// Dry run: the same findings, nothing written.
		r := index.NewRepairer(b, usersTarget(b))
		r.Batch, r.DryRun = 7, true
		rep, err := r.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Missing != int64(missing) || rep.Dangling != int64(dangling) || rep.Stale != int64(stale) || rep.Fixed != 0 {
			t.Errorf("dry run: %v; want missing=%d dangling=%d stale=%d fixed=0", rep, missing, dangling, stale)
		}
		if n, _ := b.Do(ctx, "ZCARD", usersIndex); n != int64(40+dangling+stale+5) {
			t.Errorf("dry run changed the index: %v entries", n)
		}

		// Step by step, resuming from the cursor.
		r.DryRun = false
		total := &index.Report{}
		var cur index.RepairCursor
		steps := 0
		for !cur.Done() {
			next, rep, err := r.Step(ctx, cur)
			if err != nil {
				t.Fatal(err)
			}
			total.Add(rep)
			cur = next
			if steps++; steps > 10000 {
				t.Fatal("repair does not finish")
			}
		}
		if steps < 3 {
			t.Errorf("a batch of 7 took only %d steps: not incremental", steps)
		}
		if total.Missing != int64(missing) || total.Dangling != int64(dangling) || total.Stale != int64(stale) ||
			total.Fixed != int64(missing+dangling+stale) {
			t.Errorf("repair: %v; want missing=%d dangling=%d stale=%d", total, missing, dangling, stale)
		}
		if total.Objects < 40 || total.Entries < 40 {
			t.Errorf("repair examined too little: %v", total)
		}
		checkUsers(t, ctx, b, 75)
		// A second pass finds nothing.
		rep, err = index.NewRepairer(b, usersTarget(b)).Run(ctx)
		if err != nil || rep.Problems() != 0 || rep.Raced != 0 {
			t.Errorf("second pass: %v, %v", rep, err)
		}
	})
}

// Writers keep writing (atomically, object and entry in one MULTI/EXEC)
// while a repair runs in small steps; when both are done, everything is
// consistent: the repair fixed the damage writers did not touch and never
// undid a writer's update.
func TestRepairWhileWriting(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		const writerIDs, n = 150, 260
		for i := range writerIDs {
			putUser(ctx, b, strconv.Itoa(i), i%90)
		}
		corrupt(t, ctx, b, 0, 30)                                    // damage writers may repair themselves
		missing, dangling, stale := corrupt(t, ctx, b, writerIDs, n) // damage only the repair can fix

		var stop atomic.Bool
		var writes atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for w := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), 99))
				deadline := time.Now().Add(20 * time.Second)
				for !stop.Load() && time.Now().Before(deadline) {
					id := strconv.Itoa(r.IntN(writerIDs))
					var err error
					if r.IntN(5) == 0 {
						err = delUser(ctx, b, id)
					} else {
						err = putUser(ctx, b, id, r.IntN(100))
					}
					if err != nil {
						errs <- err
						return
					}
					writes.Add(1)
				}
			}()
		}
		r := index.NewRepairer(b, usersTarget(b))
		r.Batch = 5
		rep := &index.Report{}
		var cur index.RepairCursor
		for steps := 0; !cur.Done() && steps < 100000; steps++ {
			next, sr, err := r.Step(ctx, cur)
			if err != nil {
				t.Fatal(err)
			}
			rep.Add(sr)
			cur = next
			time.Sleep(200 * time.Microsecond) // let the writers interleave
		}
		// Keep the writers going until they have done a fair amount.
		for i := 0; writes.Load() < 300 && i < 200; i++ {
			time.Sleep(10 * time.Millisecond)
		}
		stop.Store(true)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if !cur.Done() {
			t.Fatal("repair did not finish")
		}
		t.Logf("%d writes during the repair; %v", writes.Load(), rep)
		if rep.Missing < int64(missing) || rep.Dangling < int64(dangling) || rep.Stale < int64(stale) {
			t.Errorf("repair %v missed some of missing=%d dangling=%d stale=%d", rep, missing, dangling, stale)
		}
		checkUsers(t, ctx, b, n)
	})
}

func TestReadRepair(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		for i := range 10 {
			putUser(ctx, b, strconv.Itoa(i), 20+i)
		}
		// 2 deleted behind the index's back, 4 changed, 6 not a number.
		b.Do(ctx, "DEL", usersPrefix+"2")
		b.Do(ctx, "HSET", usersPrefix+"4", "age", "60")
		b.Do(ctx, "HSET", usersPrefix+"6", "age", "n/a")
		o := usersTarget(b)

		hits, rep, err := o.Range(ctx, true, index.Between(20, 29))
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 7 || rep.Dangling != 2 || rep.Stale != 1 || rep.Fixed != 0 {
			t.Errorf("dry read repair: %v %v", hits, rep)
		}
		if n, _ := o.Index.Count(ctx, index.Between(20, 29)); n != 10 {
			t.Errorf("dry read repair changed the index: count %d", n)
		}

		// A page of 4 from 21: 2 dropped, the query re-run gives a full page.
		hits, rep, err = o.Range(ctx, false, index.Min(21), index.Limit(0, 4))
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.ID)
		}
		// Rounds: [1 2 3 4] drops 2 and 4, [1 3 5 6] drops 6, [1 3 5 7].
		if fmt.Sprint(ids) != "[1 3 5 7]" || rep.Dangling != 2 || rep.Stale != 1 || rep.Fixed != 3 {
			t.Errorf("read repair page = %v, %v; want [1 3 5 7]", ids, rep)
		}
		if s, ok, _ := o.Index.Score(ctx, "4"); !ok || s != 60 {
			t.Errorf("stale entry not fixed: %v %v", s, ok)
		}
		hits, rep, _ = o.Range(ctx, false)
		if len(hits) != 8 || rep.Problems() != 0 {
			t.Errorf("full read repair: %v %v", hits, rep)
		}
		checkUsers(t, ctx, b, 10)
	})
}

// On Redis Cluster, objects that are not confined to the index's slot
// cannot be walked or fixed atomically: the repairer says so.
func TestRepairNeedsHashTagOnCluster(t *testing.T) {
	ctx := context.Background()
	b := clusterBackend(t)
	o := &index.NumericObjects{Index: index.NewNumeric(b, "age"), Prefix: "user:", Field: "age"}
	if _, err := index.NewRepairer(b, o).Run(ctx); !errors.Is(err, index.ErrNeedsHashTag) {
		t.Errorf("untagged prefix on a cluster: %v", err)
	}
}

// Collections: every index of a collection (numeric and composite) is
// verified and repaired by its own target, while writers keep writing
// through Collection.Put/Delete.
func TestRepairCollectionIndexes(t *testing.T) {
	eachBackend(t, func(t *testing.T, ctx context.Context, b backend.Backend) {
		coll := index.NewCollection(b, "people", index.NumericIndex("age", "age"),
			index.CompositeIndex("cityage", index.Field{Name: "city", Type: index.String}, index.Field{Name: "age", Type: index.Int}))
		cityage := coll.Composite("cityage")
		zkey, hkey := cityage.Keys()
		prefix := coll.ObjectKey("")
		targets := []index.RepairTarget{
			&index.NumericObjects{Index: coll.Numeric("age"), Prefix: prefix, Field: "age"},
			&index.CompositeObjects{Index: cityage, Prefix: prefix},
		}
		cities := []string{"Rome", "Oslo", "Lima"}
		const writerIDs, n = 60, 120
		for i := range n {
			if _, err := coll.Put(ctx, strconv.Itoa(i), index.Object{"city": cities[i%3], "age": strconv.Itoa(20 + i%50)}); err != nil {
				t.Fatal(err)
			}
		}
		// Damage behind the collection's back, on ids writers do not touch.
		member := func(id, city string, age int) string {
			m, err := cityage.Member(id, city, age)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		var missing, dangling, stale int // for the composite index
		for i := writerIDs; i < n; i++ {
			id := strconv.Itoa(i)
			switch i % 6 {
			case 0: // object changed: both indexes stale
				b.Do(ctx, "HSET", prefix+id, "age", 99)
				stale++
			case 1: // object deleted: both indexes dangling
				b.Do(ctx, "DEL", prefix+id)
				dangling++
			case 2: // composite entry lost (sorted set only)
				b.Do(ctx, "ZREM", zkey, member(id, cities[i%3], 20+i%50))
				missing++
			case 3: // an orphan member left by a half-done update
				b.Do(ctx, "ZADD", zkey, 0, member(id, "Paris", 1))
				dangling++
			case 4: // the id hash lost its entry
				b.Do(ctx, "HDEL", hkey, id)
				missing++
			case 5: // city removed: no composite entry, numeric one stays
				b.Do(ctx, "HDEL", prefix+id, "city")
				dangling++
			}
		}
		// Dry run of the composite target sees exactly that.
		dry := index.NewRepairer(b, targets[1])
		dry.DryRun, dry.Batch = true, 9
		rep, err := dry.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Missing != int64(missing) || rep.Dangling != int64(dangling) || rep.Stale != int64(stale) {
			t.Errorf("composite dry run: %v; want missing=%d dangling=%d stale=%d", rep, missing, dangling, stale)
		}

		var stop atomic.Bool
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		for w := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), 5))
				deadline := time.Now().Add(20 * time.Second)
				for !stop.Load() && time.Now().Before(deadline) {
					id := strconv.Itoa(r.IntN(writerIDs))
					var err error
					if r.IntN(4) == 0 {
						_, err = coll.Delete(ctx, id)
					} else {
						_, err = coll.Put(ctx, id, index.Object{"city": cities[r.IntN(3)], "age": strconv.Itoa(r.IntN(90))})
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		for _, tg := range targets {
			r := index.NewRepairer(b, tg)
			r.Batch = 7
			if _, err := r.Run(ctx); err != nil {
				t.Fatal(err)
			}
		}
		stop.Store(true)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		// Independent check: the indexes are exactly what the objects say.
		wantZ, wantH := map[string]bool{}, map[string]string{}
		wantAges := map[string]float64{}
		for i := range n {
			id := strconv.Itoa(i)
			obj, ok, err := coll.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				continue
			}
			if a, err := strconv.Atoi(obj["age"]); err == nil {
				wantAges[id] = float64(a)
				if c, ok := obj["city"]; ok {
					m := member(id, c, a)
					wantZ[m], wantH[id] = true, m
				}
			}
		}
		zs, _ := b.Do(ctx, "ZRANGE", zkey, 0, -1)
		members, _ := zs.([]any)
		if len(members) != len(wantZ) {
			t.Errorf("composite sorted set holds %d members, want %d", len(members), len(wantZ))
		}
		for _, m := range members {
			if !wantZ[m.(string)] {
				t.Errorf("unexpected member %q", m)
			}
		}
		for id, m := range wantH {
			if got, _ := b.Do(ctx, "HGET", hkey, id); got != m {
				t.Errorf("id hash %s = %q, want %q", id, got, m)
			}
		}
		if hl, _ := b.Do(ctx, "HLEN", hkey); hl != int64(len(wantH)) {
			t.Errorf("id hash holds %v entries, want %d", hl, len(wantH))
		}
		ages := coll.Numeric("age")
		if l, _ := ages.Len(ctx); l != int64(len(wantAges)) {
			t.Errorf("age index holds %d entries, want %d", l, len(wantAges))
		}
		for id, a := range wantAges {
			if s, ok, _ := ages.Score(ctx, id); !ok || s != a {
				t.Errorf("age of %s indexed as %v %v, want %v", id, s, ok, a)
			}
		}
		for _, tg := range targets {
			if rep, err := index.NewRepairer(b, tg).Run(ctx); err != nil || rep.Problems() != 0 {
				t.Errorf("second pass: %v %v", rep, err)
			}
		}
	})
}
