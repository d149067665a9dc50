package jsonpath

import "testing"

// FuzzNew: no path makes the compiler panic, and a path that compiles
// evaluates on a document without panicking.
func FuzzNew(f *testing.F) {
	for _, s := range []string{"$", ".", "$.a.b", "$..x", "$[0]", "$[-1:2:3]", "$.a[?(@.b > 1 && @.c == 'x')]",
		"a.b", "$['k']", "$[*]", "$..[?(@ =~ \"a.*\")]", "$[1,2]"} {
		f.Add(s)
	}
	doc := map[string]any{"a": map[string]any{"b": []any{1.0, "x", map[string]any{"c": "x", "b": 2.0}}},
		"x": []any{[]any{1.0}, nil, true}}
	f.Fuzz(func(t *testing.T, s string) {
		p := New(s)
		if p.Err != "" {
			return
		}
		for _, m := range Eval(p.Segs, doc, true) {
			_ = PathString(m.Path)
		}
	})
}
