package ordo_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordo-db/ordo"
	"github.com/ordo-db/ordo/backend"
)

func openMem(t *testing.T) *ordo.DB {
	t.Helper()
	db, err := ordo.Open(t.TempDir(), &ordo.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var (
	tNums  = []string{"1", "-3", "0", "-0.5", "1000", "25500.12346", "25500.1234", "9007199254740992", "9007199254740993", "-9007199254740993", "18446744073709551617"}
	tTags  = []string{"red", "blue", "a b", "x,y"}
	tWords = []string{"apple", "banana", "cherry", "running", "runs"}
)

// typedQ is a random query in both forms: typed and FT.SEARCH's string.
type typedQ struct {
	q   ordo.Query
	s   string
	ref func(h map[string]string) bool // brute force (nil: not modelled)
}

func ratOf(s string) *big.Rat {
	switch s {
	case "-inf":
		return nil
	case "+inf":
		return nil
	}
	r, _ := new(big.Rat).SetString(s)
	return r
}

// inRange compares v (a stored number) with the bounds exactly.
func inRange(v, lo, hi string) bool {
	x := ratOf(v)
	if x == nil {
		return false
	}
	check := func(b string, low bool) bool {
		ex := strings.HasPrefix(b, "(")
		b = strings.TrimPrefix(b, "(")
		if b == "-inf" {
			return low
		}
		if b == "+inf" {
			return !low
		}
		c := x.Cmp(ratOf(b))
		if low {
			return c > 0 || c == 0 && !ex
		}
		return c < 0 || c == 0 && !ex
	}
	return check(lo, true) && check(hi, false)
}

func randTyped(r *rand.Rand, depth int) typedQ {
	k := r.IntN(6)
	if depth > 2 {
		k = r.IntN(3)
	}
	bound := func() string {
		b := []string{"-inf", "+inf"}[r.IntN(2)]
		if r.IntN(5) > 0 {
			b = tNums[r.IntN(len(tNums))]
		}
		if r.IntN(3) == 0 && b != "-inf" && b != "+inf" {
			b = "(" + b
		}
		return b
	}
	switch k {
	case 0:
		lo, hi := bound(), bound()
		return typedQ{ordo.NumRange("n", lo, hi), "@n:[" + lo + " " + hi + "]", func(h map[string]string) bool {
			v, ok := h["n"]
			return ok && inRange(v, lo, hi)
		}}
	case 1:
		tags := []string{tTags[r.IntN(len(tTags))], tTags[r.IntN(len(tTags))]}
		esc := make([]string, len(tags))
		for i, t := range tags {
			esc[i] = strings.ReplaceAll(strings.ReplaceAll(t, " ", `\ `), ",", `\,`)
		}
		return typedQ{ordo.TagIn("t", tags...), "@t:{" + strings.Join(esc, "|") + "}", nil}
	case 2:
		if r.IntN(4) == 0 {
			return typedQ{ordo.Missing("n"), "ismissing(@n)", func(h map[string]string) bool { _, ok := h["n"]; return !ok }}
		}
		w := tWords[r.IntN(len(tWords))]
		return typedQ{ordo.Words("w", w), "@w:" + w, nil}
	case 3:
		a, b := randTyped(r, depth+1), randTyped(r, depth+1)
		return typedQ{ordo.And(a.q, b.q), "(" + a.s + ") (" + b.s + ")", both(a.ref, b.ref, true)}
	case 4:
		a, b := randTyped(r, depth+1), randTyped(r, depth+1)
		return typedQ{ordo.Or(a.q, b.q), "(" + a.s + ")|(" + b.s + ")", both(a.ref, b.ref, false)}
	default:
		a := randTyped(r, depth+1)
		var ref func(map[string]string) bool
		if a.ref != nil {
			ref = func(h map[string]string) bool { return !a.ref(h) }
		}
		return typedQ{ordo.Not(a.q), "-(" + a.s + ")", ref}
	}
}

func both(a, b func(map[string]string) bool, and bool) func(map[string]string) bool {
	if a == nil || b == nil {
		return nil
	}
	if and {
		return func(h map[string]string) bool { return a(h) && b(h) }
	}
	return func(h map[string]string) bool { return a(h) || b(h) }
}

// TestSearchTypedEqualsQueryString: on random hashes, every random typed
// query answers exactly what the equivalent FT.SEARCH query string
// answers (same keys in the same order, same fields, same total), and
// the numeric ones what a brute-force scan comparing exact decimals
// (big.Rat) selects, integers beyond 2^53 included.
func TestSearchTypedEqualsQueryString(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	if err := db.CreateIndex(ctx, ordo.IndexSpec{Name: "ix", Prefixes: []string{"d:"}, Fields: []ordo.IndexField{
		{Name: "n", IndexMissing: true, Sortable: true}, // kind set below
	}}); err == nil {
		t.Fatal("a field without a type was accepted")
	}
	err := db.CreateIndex(ctx, ordo.IndexSpec{Name: "ix", Prefixes: []string{"d:"}, Fields: []ordo.IndexField{
		func() ordo.IndexField { f := ordo.NumericField("n").Sorted(); f.IndexMissing = true; return f }(),
		ordo.TagField("t"), ordo.TextField("w"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	model := map[string]map[string]string{}
	for i := range 300 {
		key := fmt.Sprintf("d:%d", i)
		h := map[string]string{}
		args := []any{"HSET", key, "other", "x"}
		if r.IntN(5) > 0 {
			h["n"] = tNums[r.IntN(len(tNums))]
		}
		if r.IntN(4) > 0 {
			h["t"] = tTags[r.IntN(len(tTags))]
		}
		if r.IntN(4) > 0 {
			h["w"] = tWords[r.IntN(len(tWords))] + " " + tWords[r.IntN(len(tWords))]
		}
		for f, v := range h {
			args = append(args, f, v)
		}
		if err := db.Do(ctx, args...).Err(); err != nil {
			t.Fatal(err)
		}
		model[key] = h
	}
	nonEmpty, modelled := 0, 0
	for range 400 {
		q := randTyped(r, 0)
		sort := r.IntN(2) == 0
		opts := ordo.SearchOptions{Limit: 1000}
		sargs := []any{"FT.SEARCH", "ix", q.s, "LIMIT", 0, 1000}
		if sort {
			opts.SortBy = []ordo.SortKey{{Field: "n", Desc: true}}
			sargs = append(sargs, "SORTBY", "n", "DESC")
		}
		got, err := db.Search(ctx, "ix", q.q, opts)
		if err != nil {
			t.Fatalf("%s: %v", q.s, err)
		}
		want, err := db.Do(ctx, sargs...).Slice()
		if err != nil {
			t.Fatalf("%s: %v", q.s, err)
		}
		if int64(got.Total) != want[0].(int64) {
			t.Fatalf("%s: total %d, FT.SEARCH %d", q.s, got.Total, want[0])
		}
		var gotKeys, wantKeys []string
		for i, d := range got.Docs {
			gotKeys = append(gotKeys, d.Key)
			wantKeys = append(wantKeys, want[1+2*i].(string))
			var wf []string
			for _, x := range want[2+2*i].([]any) {
				wf = append(wf, x.(string))
			}
			if !slices.Equal(d.Fields, wf) {
				t.Fatalf("%s: %s fields %q, FT.SEARCH %q", q.s, d.Key, d.Fields, wf)
			}
		}
		if !slices.Equal(gotKeys, wantKeys) || len(want) != 1+2*len(got.Docs) {
			t.Fatalf("%s: typed %v\nFT.SEARCH %v", q.s, gotKeys, want[1:])
		}
		nonEmpty += min(got.Total, 1)
		if q.ref != nil {
			modelled++
			var ref []string
			for k, h := range model {
				if q.ref(h) {
					ref = append(ref, k)
				}
			}
			slices.Sort(ref)
			slices.Sort(gotKeys)
			if !slices.Equal(ref, gotKeys) {
				t.Fatalf("%s: typed %v\nbrute force %v", q.s, gotKeys, ref)
			}
		}
	}
	// The queries are not trivial: most match something, many are modelled.
	if nonEmpty < 200 || modelled < 80 {
		t.Fatalf("%d of 400 queries matched, %d modelled", nonEmpty, modelled)
	}
	t.Logf("%d of 400 queries matched, %d modelled", nonEmpty, modelled)
}

// TestSearchNeverStale: a write, DEL, EXPIRE or expiry right before
// Search is seen by it.
func TestSearchNeverStale(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	if err := db.CreateIndex(ctx, ordo.IndexSpec{Name: "u", Prefixes: []string{"u:"}, Fields: []ordo.IndexField{
		ordo.TagField("city"), ordo.NumericField("id"),
	}}); err != nil {
		t.Fatal(err)
	}
	keys := func(q ordo.Query) []string {
		t.Helper()
		r, err := db.Search(ctx, "u", q, ordo.SearchOptions{NoContent: true})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range r.Docs {
			out = append(out, d.Key)
		}
		slices.Sort(out)
		return out
	}
	paris := ordo.TagIn("city", "Paris")
	db.Do(ctx, "HSET", "u:1", "city", "Paris", "id", "9007199254740993")
	if got := keys(paris); !slices.Equal(got, []string{"u:1"}) {
		t.Fatalf("after HSET: %v", got)
	}
	// Exact beyond 2^53: 9007199254740992 would equal it as a double.
	if got := keys(ordo.NumRange("id", "(9007199254740992", "9007199254740993")); !slices.Equal(got, []string{"u:1"}) {
		t.Fatalf("exact range: %v", got)
	}
	if got := keys(ordo.NumRange("id", "9007199254740992", "9007199254740992")); len(got) != 0 {
		t.Fatalf("2^53 matched 2^53+1: %v", got)
	}
	db.Do(ctx, "HSET", "u:1", "city", "Lyon")
	if got := keys(paris); len(got) != 0 {
		t.Fatalf("after HSET city Lyon: %v", got)
	}
	db.Do(ctx, "HSET", "u:2", "city", "Paris")
	db.Do(ctx, "DEL", "u:2")
	if got := keys(paris); len(got) != 0 {
		t.Fatalf("after DEL: %v", got)
	}
	db.Do(ctx, "HSET", "u:3", "city", "Paris")
	db.Do(ctx, "EXPIRE", "u:3", 0)
	if got := keys(paris); len(got) != 0 {
		t.Fatalf("after EXPIRE 0: %v", got)
	}
	db.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", 0)
	db.Do(ctx, "HSET", "u:4", "city", "Paris")
	db.Do(ctx, "PEXPIRE", "u:4", 1)
	time.Sleep(3 * time.Millisecond) // past its TTL, not reaped (active expiry off)
	if got := keys(paris); len(got) != 0 {
		t.Fatalf("a key past its TTL was returned: %v", got)
	}
	// MULTI/EXEC through a Conn, then Search.
	c := db.Conn()
	defer c.Close()
	c.Do(ctx, "MULTI")
	c.Do(ctx, "HSET", "u:5", "city", "Paris")
	c.Do(ctx, "EXEC")
	if got := keys(paris); !slices.Equal(got, []string{"u:5"}) {
		t.Fatalf("after MULTI/EXEC: %v", got)
	}
}

// TestSearchErrors: typed queries are checked against the schema.
func TestSearchErrors(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	if err := db.CreateIndex(ctx, ordo.IndexSpec{Name: "u", Fields: []ordo.IndexField{ordo.TagField("city"), ordo.NumericField("age")}}); err != nil {
		t.Fatal(err)
	}
	var oe *ordo.Error
	if _, err := db.Search(ctx, "nope", ordo.All(), ordo.SearchOptions{}); !errors.As(err, &oe) {
		t.Fatalf("unknown index: %v", err)
	}
	for _, q := range []ordo.Query{
		ordo.NumRange("city", "1", "2"), ordo.TagIn("age", "x"), ordo.NumRange("age", "x", "2"),
		ordo.Missing("age"), ordo.And(ordo.All(), ordo.TagIn("zz", "a")),
	} {
		if _, err := db.Search(ctx, "u", q, ordo.SearchOptions{}); err == nil {
			t.Fatalf("query %v accepted", q)
		}
	}
	if err := db.CreateIndex(ctx, ordo.IndexSpec{Name: "u"}); err == nil {
		t.Fatal("index created twice")
	}
	if err := db.DropIndex(ctx, "u"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Search(ctx, "u", ordo.All(), ordo.SearchOptions{}); err == nil {
		t.Fatal("dropped index answered")
	}
}

func ExampleDB_Search() {
	ctx := context.Background()
	db, _ := ordo.Open("", &ordo.Options{InMemory: true})
	defer db.Close()
	db.CreateIndex(ctx, ordo.IndexSpec{Name: "users", Prefixes: []string{"user:"}, Fields: []ordo.IndexField{
		ordo.TextField("name"), ordo.NumericField("age").Sorted(), ordo.TagField("city")}})
	db.Do(ctx, "HSET", "user:1", "name", "Ada Lovelace", "age", 36, "city", "London")
	db.Do(ctx, "HSET", "user:2", "name", "Alan Turing", "age", 41, "city", "London")
	res, _ := db.Search(ctx, "users",
		ordo.And(ordo.TagIn("city", "London"), ordo.NumRange("age", "(40", "+inf")),
		ordo.SearchOptions{Limit: 10, SortBy: []ordo.SortKey{{Field: "age", Desc: true}}, Return: []string{"name"}})
	name, _ := res.Docs[0].Get("name")
	fmt.Println(res.Total, res.Docs[0].Key, name)
	// Output: 1 user:2 Alan Turing
}

// TestGetDocAnswersAsHGETALL: GetDoc and the backend's ReadHashes give
// what HGETALL (and JSON.GET) give, for hashes, JSON documents, missing
// keys, keys of another type and keys past their TTL that no command has
// touched yet.
func TestGetDocAnswersAsHGETALL(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	do := func(args ...any) *ordo.Reply {
		t.Helper()
		r := db.Do(ctx, args...)
		if err := r.Err(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return r
	}
	do("HSET", "h", "a", "1", "b", "", "", "empty field", "é", "ü")
	do("HSET", "long", "a", "1", "long", strings.Repeat("x", 300)) // a hashtable
	big := []any{"HSET", "big"}
	for i := range 600 { // past the listpack: a hashtable
		big = append(big, fmt.Sprint("f", i), fmt.Sprint(i))
	}
	do(big...)
	for key, enc := range map[string]string{"h": "listpack", "long": "hashtable", "big": "hashtable"} {
		if got, _ := db.Do(ctx, "OBJECT", "ENCODING", key).Text(); got != enc {
			t.Fatalf("%s is %s, want %s (both encodings are read)", key, got, enc)
		}
	}
	do("JSON.SET", "j", "$", `{"a":[1,2],"b":"x"}`)
	do("SET", "s", "v")
	do("HSET", "gone", "a", "1")
	do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	do("PEXPIRE", "gone", 1)
	time.Sleep(5 * time.Millisecond) // past its TTL; nothing touches it before GetDoc

	for _, key := range []string{"h", "long", "big", "missing", "gone"} {
		d, ok, err := db.GetDoc(ctx, key)
		if err != nil {
			t.Fatalf("GetDoc %s: %v", key, err)
		}
		var got []string
		rh := db.Backend().(backend.HashReader)
		err = rh.ReadHashes(ctx, []string{key, "missing"}, func(i int, pairs []string) {
			if i == 0 {
				got = slices.Clone(pairs)
			} else if len(pairs) != 0 {
				t.Errorf("ReadHashes: missing key has %q", pairs)
			}
		})
		if err != nil {
			t.Fatalf("ReadHashes %s: %v", key, err)
		}
		want, err := db.Do(ctx, "HGETALL", key).StringSlice()
		if err != nil {
			t.Fatal(err)
		}
		if ok != (len(want) > 0) || !slices.Equal(d.Fields, want) || !slices.Equal(got, want) || (ok && d.Key != key) {
			t.Errorf("%s: GetDoc %v %q, ReadHashes %q, HGETALL %q", key, ok, d.Fields, got, want)
		}
	}
	d, ok, err := db.GetDoc(ctx, "j")
	want, _ := db.Do(ctx, "JSON.GET", "j").Text()
	if err != nil || !ok || !slices.Equal(d.Fields, []string{"$", want}) {
		t.Errorf("GetDoc j = %q %v %v, JSON.GET %q", d.Fields, ok, err, want)
	}
	hgetallErr := db.Do(ctx, "HGETALL", "s").Err()
	for _, key := range []string{"s", "j"} {
		err := db.Backend().(backend.HashReader).ReadHashes(ctx, []string{"h", key}, func(int, []string) {
			t.Errorf("ReadHashes %s called back despite the error", key)
		})
		var e *ordo.Error
		if !errors.As(err, &e) || err.Error() != hgetallErr.Error() {
			t.Errorf("ReadHashes %s: %v, HGETALL on a string: %v", key, err, hgetallErr)
		}
	}
	if _, ok, err := db.GetDoc(ctx, "s"); ok || err == nil || err.Error() != hgetallErr.Error() {
		t.Errorf("GetDoc s = %v %v, HGETALL: %v", ok, err, hgetallErr)
	}

	// The strings are the caller's: later writes do not change them; fn
	// may use the database (it runs outside the engine lock).
	// (Deep copies to compare with: a small hash's strings view one copy
	// of its encoding, a big one's the keyspace's storage.)
	for _, key := range []string{"h", "long", "big"} {
		d, _, _ = db.GetDoc(ctx, key)
		before := deepClone(d.Fields)
		var read []string
		err = db.Backend().(backend.HashReader).ReadHashes(ctx, []string{key}, func(_ int, pairs []string) {
			read = pairs[:len(pairs):len(pairs)]
			do("HSET", key, "a", "2", "new", "field")
			do("HDEL", key, "b", "long", "f0")
		})
		do("DEL", key)
		do("HSET", key, "a", "3")
		if err != nil || !slices.Equal(d.Fields, before) || !slices.Equal(read, before) {
			t.Errorf("%s after HSET, HDEL, DEL: %q, ReadHashes %q (was %q), %v", key, d.Fields, read, before, err)
		}
	}

	db.Close()
	if _, _, err := db.GetDoc(ctx, "h"); err != ordo.ErrClosed {
		t.Errorf("GetDoc after Close: %v", err)
	}
	if err := db.Backend().(backend.HashReader).ReadHashes(ctx, []string{"h"}, func(int, []string) {}); err != ordo.ErrClosed {
		t.Errorf("ReadHashes after Close: %v", err)
	}
}

// TestSearchDocsOwnTheirFields: a page's documents share one allocation,
// but appending to one document's Fields leaves the next one alone.
func TestSearchDocsOwnTheirFields(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	if err := db.CreateIndex(ctx, ordo.IndexSpec{Name: "ix", Prefixes: []string{"d:"}, Fields: []ordo.IndexField{ordo.NumericField("n").Sorted()}}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		db.Do(ctx, "HSET", fmt.Sprint("d:", i), "n", i, "x", "y")
	}
	db.Do(ctx, "HSET", "d:3", "other", "no n") // in the index, without n
	r, err := db.Search(ctx, "ix", ordo.NumRange("n", "-inf", "+inf"), ordo.SearchOptions{SortBy: []ordo.SortKey{{Field: "n"}}})
	if err != nil || len(r.Docs) != 3 {
		t.Fatalf("%v %v", r, err)
	}
	_ = append(r.Docs[0].Fields, "extra", "field")
	for i, d := range r.Docs {
		want, _ := db.Do(ctx, "HGETALL", d.Key).StringSlice()
		if d.Key != fmt.Sprint("d:", i) || !slices.Equal(d.Fields, want) {
			t.Errorf("doc %d: %s %q, HGETALL %q", i, d.Key, d.Fields, want)
		}
	}

	// Both encodings in one page (d:1 a hashtable); the strings stay as
	// they were when the hashes change or go.
	big := []any{"HSET", "d:1"}
	for i := range 600 {
		big = append(big, fmt.Sprint("f", i), fmt.Sprint(i))
	}
	db.Do(ctx, big...)
	r, err = db.Search(ctx, "ix", ordo.NumRange("n", "-inf", "+inf"), ordo.SearchOptions{SortBy: []ordo.SortKey{{Field: "n"}}})
	if err != nil || len(r.Docs) != 3 {
		t.Fatalf("%v %v", r, err)
	}
	var was [][]string
	for _, d := range r.Docs {
		want, _ := db.Do(ctx, "HGETALL", d.Key).StringSlice()
		if !slices.Equal(d.Fields, want) {
			t.Errorf("%s: %d fields, HGETALL %d", d.Key, len(d.Fields), len(want))
		}
		was = append(was, deepClone(d.Fields))
	}
	for i := range 3 {
		db.Do(ctx, "HSET", fmt.Sprint("d:", i), "n", 9, "x", "changed", "f1", "changed")
		db.Do(ctx, "HDEL", fmt.Sprint("d:", i), "f0")
	}
	db.Do(ctx, "DEL", "d:0", "d:1")
	for i, d := range r.Docs {
		if !slices.Equal(d.Fields, was[i]) {
			t.Errorf("%s changed with the hash", d.Key)
		}
	}
}

// TestGetDocsOwnTheirFields: point gets share buffers (GetDoc copies small
// hashes into a few-KiB slab), yet every document keeps HGETALL's answer
// of its moment: appending to one's Fields leaves the others alone, and
// later gets, writes and deletes (concurrent ones too) change none.
func TestGetDocsOwnTheirFields(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	const n = 300 // several slabs' worth
	for i := range n {
		db.Do(ctx, "HSET", fmt.Sprint("k:", i), "i", i, "pad", strings.Repeat("p", i%40), "", "")
	}
	docs := make([]ordo.Doc, n)
	was := make([][]string, n)
	for i := range n {
		d, ok, err := db.GetDoc(ctx, fmt.Sprint("k:", i))
		want, _ := db.Do(ctx, "HGETALL", fmt.Sprint("k:", i)).StringSlice()
		if !ok || err != nil || !slices.Equal(d.Fields, want) {
			t.Fatalf("k:%d: %q %v %v, HGETALL %q", i, d.Fields, ok, err, want)
		}
		docs[i], was[i] = d, deepClone(d.Fields)
	}
	for _, d := range docs {
		_ = append(d.Fields, "appended", "by caller") // must not land in the next document
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range n {
			db.GetDoc(ctx, fmt.Sprint("k:", i))
		}
	})
	for i := range n {
		db.Do(ctx, "HSET", fmt.Sprint("k:", i), "i", "changed", "new", "field")
		if i%2 == 0 {
			db.Do(ctx, "DEL", fmt.Sprint("k:", i))
		}
	}
	wg.Wait()
	for i, d := range docs {
		if !slices.Equal(d.Fields, was[i]) {
			t.Fatalf("k:%d was %q, now %q", i, was[i], d.Fields)
		}
	}
}

// deepClone copies the strings themselves, not only the slice.
func deepClone(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.Clone(s)
	}
	return out
}
