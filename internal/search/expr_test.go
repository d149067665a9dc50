package search

import "testing"

// FuzzParseExpr: no APPLY/FILTER expression crashes the parser or the
// evaluator, and a rejected one has an error text.
func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{"@a + 1", "upper(@s) == 'X' && !exists(@b)", "split(@t, ',', ' ')",
		"((1))", "-@x ^ 2 % 3", "format('%s-%s', @a, 2)", "timefmt(@t, '%Y')", "'unterminated", "@", "f(,)",
		"substr(@s, -1, -1)", "parsetime('x', '%Q')", "1e400 * -1e400", "contains(@s, '')"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := parseExpr(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: empty error", s)
			}
			return
		}
		row := &aggRow{vals: []namedVal{{"a", numVal(1)}, {"s", strVal("abc")}, {"t", numVal(1669248000)}, {"x", strVal("-2")}}}
		_ = e.eval(row).text()
	})
}

// TestFmtNum: computed numbers print as RediSearch 2.x's
// RSValue_NumToString: "%lld" when integral, else "%.12g".
func TestFmtNum(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{3, "3"}, {-0.5, "-0.5"}, {1.0 / 3, "0.333333333333"}, {1e21, "1e+21"}, {123456789012.5, "123456789012"},
		{1e-7, "1e-07"}, {2.5e-5, "2.5e-05"}, {100, "100"}, {9007199254740993, "9007199254740992"},
	} {
		if got := fmtNum(tc.f); got != tc.want {
			t.Errorf("fmtNum(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}
