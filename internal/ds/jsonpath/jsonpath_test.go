package jsonpath

import (
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/ds/jsonval"
)

func doc(t testing.TB, s string) any {
	t.Helper()
	v, err := jsonval.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// eval prints the matches of path in d as a JSON array.
func eval(t testing.TB, d any, path string) string {
	t.Helper()
	p := New(path)
	if p.Err != "" {
		t.Fatalf("New(%q): %s", path, p.Err)
	}
	ms := Eval(p.Segs, d, false)
	vs := make([]any, len(ms))
	for i, m := range ms {
		vs[i] = m.V
	}
	return jsonval.Text(vs)
}

func TestNewClassifies(t *testing.T) {
	for _, c := range []struct {
		in, fixed    string
		legacy, root bool
		static       bool
	}{
		{"$", "$", false, true, true},
		{".", "$", true, true, true},
		{"a.b", "$.a.b", true, false, true},
		{".a[0]", "$.a[0]", true, false, true},
		{"$.a[0]", "$.a[0]", false, false, true},
		{"$..a", "$..a", false, false, false},
		{"$.a[0,1]", "$.a[0,1]", false, false, false},
		{"$['x']", "$['x']", false, false, true},
	} {
		p := New(c.in)
		if p.Err != "" || p.Orig != c.in || p.Fixed != c.fixed || p.Legacy != c.legacy || p.IsRoot() != c.root || p.IsStatic() != c.static {
			t.Errorf("New(%q) = %+v root=%v static=%v", c.in, p, p.IsRoot(), p.IsStatic())
		}
	}
	if p := New("$.a["); !strings.HasPrefix(p.Err, `Error occurred on position 4, "$.a[ <<<<----", expected one of the following:`) {
		t.Errorf("compile error: %q", p.Err)
	}
	for _, bad := range []string{"$.", "$[", "$[?(@.a >)]", "$[1:2:3:4]", "$.a]", "$[\"a]"} {
		if New(bad).Err == "" {
			t.Errorf("New(%q) compiled", bad)
		}
	}
}

// Results as RedisJSON's json_path returns them (the engine's
// TestJSONPaths checks the same through JSON.GET).
func TestEval(t *testing.T) {
	arr := doc(t, `[1,2,3]`)
	obj := doc(t, `{"a":[1,2,3],"b":["c","d","e"],"c":"k"}`)
	store := doc(t, `{"books":[{"t":"a","price":8},{"t":"b","price":12.5},{"t":"c","price":20,"tag":"x"}]}`)
	for _, c := range []struct {
		d          any
		path, want string
	}{
		{arr, "$[*]", `[1,2,3]`},
		{arr, "$.[1]", `[2]`},
		{arr, "$[-1]", `[3]`},
		{arr, "$[-10]", `[1]`},
		{arr, "$[1:]", `[2,3]`},
		{arr, "$[0:3:2]", `[1,3]`},
		{arr, "$[:-1]", `[1,2]`},
		{arr, "$[5]", `[]`},
		{obj, "$.*[0,2]", `[1,3,"c","e"]`},
		{obj, `$["c"]`, `["k"]`},
		{obj, `$['c','a']`, `["k",[1,2,3]]`},
		{obj, "$.nope", `[]`},
		{obj, "c", `["k"]`},
		{store, "$.books[?(@.price>10)].t", `["b","c"]`},
		{store, `$.books[?(@.price<10 || @.t=="zz")].t`, `["a"]`},
		{store, `$.books[?(@.price>10 && @.tag)].t`, `["c"]`},
		{store, `$.books[?(@.t =~ "^[ab]$")].t`, `["a","b"]`},
		{store, `$..[?(@.tag=='x')].t`, `["c"]`},
		{store, `$..price`, `[8,12.5,20]`},
		{store, `$.books[?(@.price == $.books[0].price)].t`, `["a"]`},
	} {
		if got := eval(t, c.d, c.path); got != c.want {
			t.Errorf("%s on %s = %s, want %s", c.path, jsonval.Text(c.d), got, c.want)
		}
	}
}

func TestReplaceRemove(t *testing.T) {
	d := doc(t, `{"a":[1,{"b":2},3],"c":{"b":4}}`)
	p := New("$..b")
	ms := Eval(p.Segs, d, true)
	if len(ms) != 2 {
		t.Fatalf("%d matches", len(ms))
	}
	var paths [][]Step
	for _, m := range ms {
		paths = append(paths, m.Path)
	}
	if got := PathString(ms[0].Path) + " " + PathString(ms[1].Path); got != `$["a"][1]["b"] $["c"]["b"]` {
		t.Errorf("paths %s", got)
	}
	for _, path := range PrepareUpdatePaths(paths) {
		if !Replace(&d, path, "x") {
			t.Fatalf("Replace %s", PathString(path))
		}
	}
	if got := jsonval.Text(d); got != `{"a":[1,{"b":"x"}],"c":{"b":"x"}}` && got != `{"a":[1,{"b":"x"},3],"c":{"b":"x"}}` {
		t.Errorf("after Replace: %s", got)
	}
	// Removing several array elements: the higher index goes first so the
	// lower one still names the right element.
	ms = Eval(New("$.a[0,2]").Segs, d, true)
	paths = paths[:0]
	for _, m := range ms {
		paths = append(paths, m.Path)
	}
	for _, path := range PrepareUpdatePaths(paths) {
		if !Remove(d, path) {
			t.Fatalf("Remove %s", PathString(path))
		}
	}
	if got := jsonval.Text(d); got != `{"a":[{"b":"x"}],"c":{"b":"x"}}` {
		t.Errorf("after Remove: %s", got)
	}
	// A path nested under another of the set is dropped.
	ms = Eval(New("$..*").Segs, d, true)
	paths = paths[:0]
	for _, m := range ms {
		paths = append(paths, m.Path)
	}
	if n := len(PrepareUpdatePaths(paths)); n != 2 {
		t.Errorf("PrepareUpdatePaths kept %d paths, want 2", n)
	}
	// The root is replaced through the pointer, never removed.
	if !Replace(&d, nil, int64(1)) || d != int64(1) || Remove(d, nil) {
		t.Error("root")
	}
	// A stale path fails instead of writing elsewhere.
	d = doc(t, `{"a":[1]}`)
	stale := Eval(New("$.a[0]").Segs, d, true)[0].Path
	Remove(d, stale)
	if Replace(&d, stale, int64(2)) || Remove(d, stale) {
		t.Error("stale path used")
	}
}

// PathString renders keys with quotes escaped, and New reads it back.
func TestPathStringRoundTrip(t *testing.T) {
	d := doc(t, `{"we\"ird\\key":[0,{"x y":1}]}`)
	ms := Eval(New("$..*").Segs, d, true)
	for _, m := range ms {
		s := PathString(m.Path)
		back := Eval(New(s).Segs, d, false)
		if len(back) != 1 || !jsonval.Equal(back[0].V, m.V) {
			t.Errorf("%s: %d matches", s, len(back))
		}
	}
}
