package jsonval

import (
	"math"
	"strings"
	"testing"
)

func mustParse(t testing.TB, s string) any {
	t.Helper()
	v, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return v
}

// Error texts are serde_json's, as RedisJSON replies them.
func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		"{":               "EOF while parsing an object at line 1 column 1",
		"}":               "expected value at line 1 column 1",
		"":                "EOF while parsing a value at line 1 column 0",
		"1 2":             "trailing characters at line 1 column 3",
		"[":               "EOF while parsing a list at line 1 column 1",
		"[1,]":            "trailing comma at line 1 column 4",
		"{\"a\"}":         "expected `:` at line 1 column 5",
		"{\"a\":1,}":      "trailing comma at line 1 column 8",
		"[1\n,2":          "EOF while parsing a list at line 2 column 2",
		"tru":             "EOF while parsing a value at line 1 column 3",
		"nul1":            "expected ident at line 1 column 4",
		"\"\\x\"":         "invalid escape at line 1 column 3",
		"01":              "invalid number at line 1 column 2",
		"-":               "EOF while parsing a value at line 1 column 1",
		"\"abc":           "EOF while parsing a string at line 1 column 4",
		"\"\x01\"":        "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 2",
		"[1 2]":           "expected `,` or `]` at line 1 column 4",
		"{\"a\":1 \"b\"}": "expected `,` or `}` at line 1 column 8",
		"1e400":           "number out of range at line 1 column 5",
	} {
		_, err := Parse([]byte(in))
		if err == nil {
			t.Errorf("Parse(%q) accepted", in)
			continue
		}
		if _, ok := err.(*ParseError); !ok {
			t.Errorf("Parse(%q): error type %T", in, err)
		}
		if err.Error() != want {
			t.Errorf("Parse(%q): %q, want %q", in, err.Error(), want)
		}
	}
}

func TestParseDepth(t *testing.T) {
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if _, err := Parse([]byte(ok)); err != nil {
		t.Errorf("depth %d: %v", MaxDepth, err)
	}
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	if _, err := Parse([]byte(deep)); err == nil {
		t.Errorf("depth %d accepted", MaxDepth+1)
	}
	// Far too deep must fail without exhausting the stack.
	if _, err := Parse([]byte(strings.Repeat(`{"a":[`, 100000))); err == nil {
		t.Error("100000 levels accepted")
	}
}

func TestParseKinds(t *testing.T) {
	for in, want := range map[string]any{
		"null": nil, "true": true, "false": false, "0": int64(0), "-7": int64(-7),
		"9223372036854775807":  int64(math.MaxInt64),
		"-9223372036854775808": int64(math.MinInt64),
		"18446744073709551615": uint64(math.MaxUint64),
		"18446744073709551616": 18446744073709551616.0,
		"1.0":                  1.0, "1e2": 100.0, "-0.0": math.Copysign(0, -1), " \t\n\"x\\u00e9\\ud83d\\ude00\" ": "xé😀",
	} {
		got := mustParse(t, in)
		if got != want {
			t.Errorf("Parse(%q) = %#v, want %#v", in, got, want)
		}
	}
	if got := TypeName(mustParse(t, `{"a":[1,2.5,"s",null,true]}`)); got != "object" {
		t.Errorf("TypeName = %s", got)
	}
}

// Numbers print as RedisJSON prints them: integers as integers, floats
// in serde_json/ryu's shortest form; strings escape only what serde_json
// escapes.
func TestFormatScalars(t *testing.T) {
	for in, out := range map[string]string{
		"42": "42", "-7": "-7", "3.5": "3.5", "1.0": "1.0", "1e2": "100.0", "1E+2": "100.0",
		"1.6350000000001313e+308": "1.6350000000001313e308", "1512060373.222988": "1512060373.222988",
		"0.0001": "0.0001", "1e-7": "1e-7", "1e16": "1e16", "1e15": "1000000000000000.0",
		"18446744073709551615": "18446744073709551615", "-0.0": "-0.0", "123456789012345678901": "1.2345678901234568e20",
		"0.00001": "0.00001", "1.5e-5": "0.000015", "1e-6": "1e-6", "123.456e5": "12345600.0",
		`"a\/b\u00e9\n"`: `"a/bé\n"`, `"\u0001"`: `"\u0001"`, `"q\"b\\t\t\b\f\r"`: `"q\"b\\t\t\b\f\r"`,
	} {
		if got := Text(mustParse(t, in)); got != out {
			t.Errorf("Text(Parse(%s)) = %s, want %s", in, got, out)
		}
	}
	if got := string(Append(nil, math.Inf(1), nil)); got != "null" {
		t.Errorf("+Inf prints %s", got)
	}
}

func TestFormatIndent(t *testing.T) {
	v := mustParse(t, `{"a":[1,{}],"b":{"c":null},"d":[]}`)
	if got := string(Append(nil, v, &Format{})); got != `{"a":[1,{}],"b":{"c":null},"d":[]}` {
		t.Errorf("empty Format: %s", got)
	}
	want := "{\n-\"a\": [\n--1,\n--{}\n-],\n-\"b\": {\n--\"c\": null\n-},\n-\"d\": []\n}"
	if got := string(Append(nil, v, &Format{Indent: "-", Newline: "\n", Space: " "})); got != want {
		t.Errorf("indented:\n%s\nwant:\n%s", got, want)
	}
	m := &Multi{Keys: []string{"$.x", "$.x"}, Vals: []any{[]any{int64(1)}, []any{}}}
	if got := Text(m); got != `{"$.x":[1],"$.x":[]}` {
		t.Errorf("Multi: %s", got)
	}
}

func TestObject(t *testing.T) {
	o := &Object{}
	const n = 3 * objIndexAt
	for i := 0; i < n; i++ {
		o.Set(string(rune('A'+i)), int64(i))
	}
	o.Set("B", "b") // replaces in place
	if o.Len() != n || o.Keys()[1] != "B" || o.Values()[1] != "b" {
		t.Fatalf("after Set: len %d keys %v", o.Len(), o.Keys())
	}
	if !o.Remove("A") || o.Remove("A") {
		t.Fatal("Remove A")
	}
	for i, k := range o.Keys() {
		if o.Find(k) != i {
			t.Fatalf("Find(%q) = %d, want %d", k, o.Find(k), i)
		}
		if v, ok := o.Get(k); !ok || v != o.Values()[i] {
			t.Fatalf("Get(%q)", k)
		}
	}
	if _, ok := o.Get("A"); ok || o.Find("A") != -1 {
		t.Fatal("A still there")
	}
	c := Clone(o).(*Object)
	c.Set("new", true)
	c.Remove("C")
	if o.Len() != n-1 || o.Find("new") >= 0 || o.Find("C") < 0 {
		t.Fatal("Clone shares state with the original")
	}
	o.Clear()
	if o.Len() != 0 || o.Find("B") != -1 {
		t.Fatal("Clear")
	}
	if Size(c) <= Size(o) {
		t.Errorf("Size: clone %d, cleared %d", Size(c), Size(o))
	}
}

func TestEqualAndClone(t *testing.T) {
	a := mustParse(t, `{"a":[1,2.0,"x",{"b":null}],"c":true}`)
	b := Clone(a)
	if !Equal(a, b) {
		t.Fatal("clone not Equal")
	}
	b.(*Object).Values()[0].(*Array).Elems[0] = int64(5)
	if Equal(a, b) || Text(a) != `{"a":[1,2.0,"x",{"b":null}],"c":true}` {
		t.Fatal("clone shares arrays with the original")
	}
	for _, c := range [][2]string{{"1", "1.0"}, {`{"a":1,"b":2}`, `{"b":2,"a":1}`}, {"[1]", "[1,1]"}, {"null", "false"}} {
		if Equal(mustParse(t, c[0]), mustParse(t, c[1])) {
			t.Errorf("%s Equal %s", c[0], c[1])
		}
	}
	if f, ok := Num(uint64(math.MaxUint64)); !ok || f != 18446744073709551615.0 {
		t.Error("Num(uint64)")
	}
	if _, ok := Num("1"); ok {
		t.Error("Num(string)")
	}
}

// FuzzParse: Parse never panics, and what it accepts prints back to text
// that parses to an Equal value and prints the same again.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,2.5,-0.0,1e300,"x\u00e9\n"],"b":{"c":null,"d":true}}`, `[]`, `{}`, `"\ud83d\ude00"`,
		`18446744073709551615`, `-9223372036854775808`, `1E-7`, `[[[[[]]]]]`, `{"a":1,"a":2}`, ` 0 `, `"\u0000"`,
		`[1,]`, `{"a"}`, `nul`, "\"\xff\"", `1e999`, `[` + strings.Repeat("[", 200),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error type %T", err)
			}
			return
		}
		text := Append(nil, v, nil)
		w, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse(%q) ok, its text %q does not parse: %v", data, text, err)
		}
		if !Equal(v, w) {
			t.Fatalf("Parse(%q) printed as %q reparses to a different value", data, text)
		}
		if again := Append(nil, w, nil); string(again) != string(text) {
			t.Fatalf("%q prints as %q then %q", data, text, again)
		}
		pretty := Append(nil, v, &Format{Indent: "\t", Newline: "\n", Space: " "})
		if p, err := Parse(pretty); err != nil || !Equal(v, p) {
			t.Fatalf("indented form %q of %q: %v", pretty, data, err)
		}
	})
}
