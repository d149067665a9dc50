package search

import (
	"fmt"
	"strings"
	"testing"
)

type mapSource map[string]string

func (m mapSource) Get(f string) (string, bool) { v, ok := m[f]; return v, ok }

// show renders a parsed query as an S-expression.
func show(n *node) string {
	switch n.op {
	case opAll:
		return "*"
	case opNone:
		return "none"
	case opTerm:
		return n.field + ":" + n.term
	case opPrefix:
		return n.field + ":" + n.term + "*"
	case opTag:
		var ts []string
		for _, t := range n.tags {
			s := t.val
			if t.prefix {
				s += "*"
			}
			ts = append(ts, s)
		}
		return "@" + n.field + "{" + strings.Join(ts, "|") + "}"
	case opNum:
		return fmt.Sprintf("@%s[%q %v %q %v]", n.field, n.lo, n.loEx, n.hi, n.hiEx)
	case opSuffix:
		return n.field + ":*" + n.term
	case opInfix:
		return n.field + ":*" + n.term + "*"
	case opFuzzy:
		return fmt.Sprintf("%s:%%%d%s", n.field, n.dist, n.term)
	case opGeo:
		return fmt.Sprintf("@%s[%v]", n.field, n.geo)
	case opMissing:
		return "ismissing(@" + n.field + ")"
	case opIDs:
		return "ids"
	case opOpt:
		return "~" + show(n.kids[0])
	}
	if n.op == opAnd && n.exact {
		return "(phrase " + strings.Join(func() (ks []string) {
			for _, k := range n.kids {
				ks = append(ks, show(k))
			}
			return
		}(), " ") + ")"
	}
	var ks []string
	for _, k := range n.kids {
		ks = append(ks, show(k))
	}
	return "(" + [...]string{opAnd: "and", opOr: "or", opNot: "not"}[n.op] + " " + strings.Join(ks, " ") + ")"
}

func TestParseQuery(t *testing.T) {
	params := map[string]string{"lo": "(5", "tag": "a b", "w": "Word"}
	for _, c := range []struct{ q, want string }{
		{"*", "*"},
		{"hello", ":hello"},
		{"Hello World", "(and :hello :world)"},
		{"hello | world", "(or :hello :world)"},
		{"a b | c", "(or (and :a :b) :c)"},
		{"-hello world", "(and (not :hello) :world)"},
		{"(a | b) c", "(and (or :a :b) :c)"},
		{"@title:hello world", "(and title:hello :world)"},
		{"@title:(hello | world)", "(or title:hello title:world)"},
		{"hel*", ":hel*"},
		{"@t:{a | B\\ c | pre*}", "@t{a|B c|pre*}"},
		{"@t:{$tag}", "@t{a b}"},
		{"$w", ":word"},
		{"@n:[1 2]", `@n["\x03\x80\x011" false "\x03\x80\x012" false]`},
		{"@n:[(1 +inf]", `@n["\x03\x80\x011" true "\x04" false]`},
		{"@n:[$lo inf]", `@n["\x03\x80\x015" true "\x04" false]`},
		{"@n:[-inf (0]", `@n["\x00" false "\x02" true]`},
		{`"hello world"`, "(phrase :hello :world)"},
		{"", "none"},
	} {
		n, err := parseQuery(c.q, params, nil)
		if err != nil {
			t.Errorf("%q: %v", c.q, err)
			continue
		}
		if got := show(n); got != c.want {
			t.Errorf("%q: got %s, want %s", c.q, got, c.want)
		}
	}
	for _, c := range []struct{ q, err string }{
		{"(hello", "Syntax error at offset 6 near "},
		{"hello)", "Syntax error at offset 5 near )"},
		{"@n:[1]", "Syntax error at offset 5 near ]"},
		{"@n:[1 x]", "Syntax error at offset 6 near x"},
		{"@t:{a", "Syntax error at offset 4 near a"},
		{"$nope", "No such parameter `nope`"},
		{"a | ", "Syntax error at offset 4 near "},
		{"@:x", "Syntax error at offset 0 near @"}, {"a ~", "Syntax error at offset 3 near "},
	} {
		_, err := parseQuery(c.q, params, nil)
		if err == nil || err.Error() != c.err {
			t.Errorf("%q: error %v, want %q", c.q, err, c.err)
		}
	}
}

func TestTokenize(t *testing.T) {
	// RediSearch's separators (no newline among them), a backslash
	// escaping one, stop words taking no position; in a word, an
	// unescaped backslash and control characters are removed
	// (DefaultNormalize), so "u\\v\nw" is "uvw".
	var got []string
	stop := map[string]bool{"the": true}
	tokenize("Hello, World! ÉCOLE foo-bar a\\-b  x.y the q?r`s/t|u\\v\nw", stop, func(t token) {
		got = append(got, fmt.Sprintf("%s@%d", t.word, t.pos))
	})
	want := "hello@1 world@2 école@3 foo@4 bar@5 a-b@6 x@7 y@8 q@9 r@10 s@11 t@12 uvw@13"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %q, want %q", strings.Join(got, " "), want)
	}
}

var fuzzIndex = func() *index {
	args := []string{"FT.CREATE", "i", "SCHEMA", "n", "NUMERIC", "t", "TAG", "title", "TEXT", "x", "TEXT", "PHONETIC", "dm:en", "g", "GEO", "m", "TEXT", "INDEXMISSING"}
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	ix, err := parseCreate(b, 0)
	if err != "" {
		panic(err)
	}
	for i, v := range [][]string{
		{"title", "hello world running", "x", "Smith the runner", "n", "3", "t", "a,b", "g", "2.35,48.85"},
		{"title", "worlds", "m", "x"},
	} {
		h := mapSource{}
		for j := 0; j < len(v); j += 2 {
			h[v[j]] = v[j+1]
		}
		ix.add(fmt.Sprint("d", i), h)
	}
	return ix
}()

// FuzzParseQuery: the parser never panics, and a query it accepts
// evaluates without panicking over an empty index.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"*", "a b | -c", "@t:{a|b*}", "@n:[(1 +inf]", "@x:(a|b)", `"a b"`, "$p", "((a)", "@t:{\\", "-",
		"(a b)=>{$weight: 2.0; $slop: 1; $inorder: true}", "a=>{$phonetic: false}", `"a b" => {$slop:$p;}`,
		"~(a|b)=>{$weight:0.5}", "@t:{x}=>{$weight:\"\"}", "a=>{}", "a=>{$x:1", "a=>[KNN 3 @v $b]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		n, err := parseQuery(q, map[string]string{"p": "v"}, nil)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("%q: error of type %T", q, err)
			}
			return
		}
		_ = show(n)
		explainNode(new(strings.Builder), n, 0)
		// With a schema: fields resolve and the query evaluates.
		if n, err = parseQuery(q, map[string]string{"p": "v"}, fuzzIndex); err == nil {
			fuzzIndex.eval(n)
			for _, slop := range []int{-1, 1} {
				qc := fuzzIndex.newQctx()
				qc.slop = slop
				for _, id := range qc.eval(n) {
					if r := qc.match(n, id); r != nil {
						fuzzIndex.scoreDoc(scorerTFIDF, r, fuzzIndex.sdoc(id))
						fuzzIndex.scoreDoc(scorerBM25, r, fuzzIndex.sdoc(id))
					}
				}
			}
		}
	})
}

// FuzzCreateAndSearch: any FT.CREATE arguments are parsed without panic;
// an accepted schema indexes documents and answers queries without panic.
func FuzzCreateAndSearch(f *testing.F) {
	for _, s := range []string{
		"ON HASH PREFIX 1 d: SCHEMA t TEXT WEIGHT 2 PHONETIC dm:en n NUMERIC SORTABLE g GEO tag TAG SEPARATOR | INDEXEMPTY",
		"ON JSON SCHEMA $.a AS a TEXT $.b[*] AS b TAG $[\"c\"] AS c NUMERIC",
		"LANGUAGE spanish STOPWORDS 0 SCHEMA t TEXT NOSTEM INDEXMISSING",
	} {
		f.Add(s, "hello world 3.5 a|b 2.35,48.85", "@t:(hel* | %wrld%) -@n:[1 (5]")
	}
	f.Fuzz(func(t *testing.T, create, value, query string) {
		args := [][]byte{[]byte("FT.CREATE"), []byte("i")}
		for _, a := range strings.Fields(create) {
			args = append(args, []byte(a))
		}
		ix, errText := parseCreate(args, 0)
		if errText != "" {
			return
		}
		doc := mapSource{}
		for _, fd := range ix.fields {
			doc[fd.name] = value
		}
		ix.add("d:1", doc)
		ix.add("d:2", mapSource{"t": value + " " + value})
		n, err := parseQuery(query, map[string]string{"p": value}, ix)
		if err != nil {
			return
		}
		qc := ix.newQctx()
		qc.slop, qc.inorder = 1, true
		for _, id := range qc.eval(n) {
			if r := qc.matchDoc(n, id); r != nil {
				for _, sc := range []string{scorerTFIDF, scorerDocNorm, scorerBM25, scorerBM25STD, scorerDisMax} {
					ix.scoreDoc(sc, r, ix.sdoc(id))
					ix.explain(sc, r, ix.sdoc(id))
				}
			}
		}
		if id, ok := ix.idOf("d:1"); ok {
			ix.remove(id)
		}
	})
}

func TestParseAttributes(t *testing.T) {
	ix := fuzzIndex
	for _, c := range []struct{ q, want string }{
		{"(foo bar)=>{$weight: 2.0; $slop: 1; $inorder: true}", "w2 s1 i2"},
		{"(foo bar) => {$slop: -1;}", "w0 s-1 i0"},
		{"foo=>{$WEIGHT:0.5;;}", "w0.5 s0 i0"},
		{"foo=>{}", "w0 s0 i0"},
		{"foo=>{$inorder: 0}", "w0 s0 i1"},
		{"foo=>{$weight:$p}", "w3 s0 i0"},
	} {
		n, err := parseQuery(c.q, map[string]string{"p": "3"}, ix)
		if err != nil {
			t.Errorf("%q: %v", c.q, err)
			continue
		}
		got := fmt.Sprintf("w%g s%d i%d", n.weight, n.nslop, n.ninorder)
		if n.hasSlop == false && n.nslop != 0 || got != c.want {
			t.Errorf("%q: got %s, want %s", c.q, got, c.want)
		}
	}
	// A stop word takes no attributes (RediSearch has no node for it).
	if _, err := parseQuery("a=>{$weight:x}", nil, ix); err != nil {
		t.Errorf("stop word: %v", err)
	}
	for _, c := range []struct{ q, want string }{
		{"foo=>{$weight:x}", "Invalid value (x) for `weight`"},
		{"foo=>{$weight:-1}", "Invalid value (-1) for `weight`"},
		{`foo=>{$weight:""}`, "Invalid value () for `weight`"},
		{"foo=>{$weight:$e}", "Invalid value () for `weight`"},
		{"foo=>{$slop:-2}", "Invalid value (-2) for `slop`"},
		{"foo=>{$slop:1.5}", "Invalid value (1.5) for `slop`"},
		{"foo=>{$inorder:yes}", "Invalid value (yes) for `inorder`"},
		{"foo=>{$foo:1}", "Invalid attribute foo"},
		{"@title:foo=>{$phonetic:true}", "field does not support phonetics"},
		{"@title:foo=>{$phonetic:false}", "field does not support phonetics"},
		{"foo=>{$weight:$nope}", "No such parameter `nope`"},
		{"foo=>{weight:1}", "Syntax error at offset 6 near weight"},
		{"foo=>{$weight 1}", "Syntax error at offset 14 near 1"},
		{"foo=>{$weight:1", "Syntax error at offset 15 near "},
		{"foo=>$weight", "Syntax error at offset 5 near $"},
	} {
		_, err := parseQuery(c.q, map[string]string{"e": ""}, ix)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v, want %s", c.q, err, c.want)
		}
	}
}
