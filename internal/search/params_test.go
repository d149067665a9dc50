package search_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ordo-db/ordo"
)

// TestParamTerms: a $param standing for a word or a prefix of a TEXT
// query is one term, unescaped and case-folded as RediSearch resolves it
// (query_param.c: rm_normalize), so it finds what the same text written
// in the query finds. The expectations are RediSearch's own
// (tests/pytests/test_search_params.py, test_expression and
// test_binary_data: each query with a param equals the literal one).
func TestParamTerms(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "SCHEMA", "name", "TEXT", "id", "NUMERIC", "bin", "TEXT")
	for _, d := range [][]string{
		{"key1", "Bob", "17"}, {"key2", "Alice", "31"}, {"key3", "Carol", "13"},
		{"key4", `John\ Doe`, "0"}, {"key5", "$val1", "99"}, {"key6", "John Doh", "100"}, {"key7", "John", "100"},
	} {
		c.do("HSET", d[0], "name", d[1], "id", d[2])
	}
	c.do("HSET", "bin1", "bin", "\xd7\x93\xd7\x90\xd7\x98\xd7\x94")
	c.do("HSET", "bin2", "bin", "10010101001010101100101011001101010101")
	same := func(want string, literal string, param ...string) {
		t.Helper()
		c.want(want, "FT.SEARCH", "idx", literal, "NOCONTENT")
		c.want(want, append([]string{"FT.SEARCH", "idx"}, append(param, "NOCONTENT")...)...)
	}
	same("[2 key2 key1]", "@name:(Alice|Bob)", "@name:($val1|Bob)", "PARAMS", "2", "val1", "Alice")
	same("[2 key2 key1]", "@name:(Alice|Bob)", "@name:(Alice|$val1)", "PARAMS", "2", "val1", "Bob")
	same("[1 key2]", "@name:(Alice)", "@name:($val1)", "PARAMS", "2", "val1", "ALICE")
	// The escaped space: one word in the document, in the query, and in
	// the param's value.
	same("[1 key4]", `@name:(John\ Doe)`, "@name:($val1)", "PARAMS", "2", "val1", `John\ Doe`)
	// Unescaped, a param's space stays inside its one term (RediSearch
	// does not split a value), which is the same word "john doe".
	c.want("[1 key4]", "FT.SEARCH", "idx", "@name:($v)", "PARAMS", "2", "v", "John Doe", "NOCONTENT")
	c.want("[0]", "FT.SEARCH", "idx", "@name:($v)", "PARAMS", "2", "v", "John Doh", "NOCONTENT")
	same("[7 key3 key4 key5 key6 key7 bin1 bin2]", "-(@name:(Alice|Bob))", "-(@name:($val1|Bob))", "PARAMS", "2", "val1", "Alice")
	same("[2 key6 key7]", "@name:(John ~Doh)", "@name:(John ~$val1)", "PARAMS", "2", "val1", "Doh")
	// Prefixes: "$p*" is the value's term as a prefix.
	same("[1 key4]", `@name:John\ D*`, "@name:$p*", "PARAMS", "2", "p", `John\ D`)
	same("[3 key4 key6 key7]", "@name:JOH*", "@name:$p*", "PARAMS", "2", "p", "JOH")
	same("[1 bin2]", "@bin:10010101001010101100101011001101010101", "@bin:$val", "PARAMS", "2", "val", "10010101001010101100101011001101010101")
	same("[1 bin1]", "@bin:\xd7\x93\xd7\x90\xd7\x98\xd7\x94", "@bin:$val", "PARAMS", "2", "val", "\xd7\x93\xd7\x90\xd7\x98\xd7\x94")
	same("[1 bin2]", "@bin:10010*", "@bin:$val*", "PARAMS", "2", "val", "10010")
	same("[1 bin1]", "@bin:\xd7\x93\xd7\x90*", "@bin:$val*", "PARAMS", "2", "val", "\xd7\x93\xd7\x90")
	// Suffixes, infixes and fuzzy terms take params too (*$p, *$p*, %$p%).
	same("[1 key4]", `@name:*n\ doe`, "@name:*$p", "PARAMS", "2", "p", `N\ DOE`)
	same("[2 key2 key3]", "@name:*LIC*|@name:*aro*", "@name:*$p*|@name:*$q*", "PARAMS", "4", "p", "LIC", "q", "aro")
	same("[1 key2]", "@name:%alise%", "@name:%$p%", "PARAMS", "2", "p", "ALISE")
	same("[1 key4]", `%%jphn\ doh%%`, "%%$p%%", "PARAMS", "2", "p", "jphn doh")
	c.want("!No such parameter `q`", "FT.SEARCH", "idx", "*$q*", "PARAMS", "2", "p", "x")
	c.want("!No such parameter `q`", "FT.SEARCH", "idx", "%$q%", "PARAMS", "2", "p", "x")
	// A stop word written in the query is dropped; a param's value is not
	// (RediSearch's parser checks literal terms only): it is searched, and
	// stop words are not indexed.
	c.want("[2 key6 key7]", "FT.SEARCH", "idx", "@name:(John the)", "NOCONTENT")
	c.want("[0]", "FT.SEARCH", "idx", "@name:(John $p)", "PARAMS", "2", "p", "the", "NOCONTENT")
	c.want("[2 key6 key7]", "FT.SEARCH", "idx", "@name:(John|$p)", "PARAMS", "2", "p", "the", "NOCONTENT")
	// A control character is dropped, as documents' words drop it.
	same("[1 key2]", "@name:alice", "@name:$v", "PARAMS", "2", "v", "Al\r\nice")
}

// TestTypedWordsTokenized: the typed API's Words splits its strings into
// words as documents are split (punctuation, spaces, a backslash escaping
// one), and Prefix takes its value as FT.SEARCH takes a "$p*" param: the
// same documents as the query strings.
func TestTypedWordsTokenized(t *testing.T) {
	ctx := context.Background()
	db, err := ordo.Open("", &ordo.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.CreateIndex(ctx, ordo.IndexSpec{Name: "idx", Prefixes: []string{"d:"}, Fields: []ordo.IndexField{ordo.TextField("t")}})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"d:1": `John\ Doe`, "d:2": "John Doh", "d:3": "foo-bar baz", "d:4": "foo", "d:5": "The Bar",
	} {
		if err := db.Do(ctx, "HSET", k, "t", v).Err(); err != nil {
			t.Fatal(err)
		}
	}
	keys := func(q ordo.Query) []string {
		t.Helper()
		r, err := db.Search(ctx, "idx", q, ordo.SearchOptions{NoContent: true})
		if err != nil {
			t.Fatal(err)
		}
		var ks []string
		for _, d := range r.Docs {
			ks = append(ks, d.Key)
		}
		slices.Sort(ks)
		return ks
	}
	ftKeys := func(args ...any) []string {
		t.Helper()
		v, err := db.Do(ctx, append([]any{"FT.SEARCH", "idx"}, append(args, "NOCONTENT")...)...).Slice()
		if err != nil {
			t.Fatal(err)
		}
		var ks []string
		for _, x := range v[1:] {
			ks = append(ks, x.(string))
		}
		slices.Sort(ks)
		return ks
	}
	for _, c := range []struct {
		q    ordo.Query
		ft   []any
		want []string
	}{
		{ordo.Words("", "foo-bar"), []any{"foo bar"}, []string{"d:3"}},
		{ordo.Words("t", "FOO,bar", "baz"), []any{"@t:(FOO bar baz)"}, []string{"d:3"}},
		{ordo.Words("", `John\ Doe`), []any{`John\ Doe`}, []string{"d:1"}},
		{ordo.Words("", "the bar"), []any{"the bar"}, []string{"d:3", "d:5"}}, // "the" is a stop word
		{ordo.Words("", "John Doh"), []any{"John Doh"}, []string{"d:2"}},
		{ordo.Prefix("", `JOHN\ D`), []any{"$p*", "PARAMS", 2, "p", `JOHN\ D`}, []string{"d:1"}},
		{ordo.Prefix("t", "Jo"), []any{"@t:$p*", "PARAMS", 2, "p", "Jo"}, []string{"d:1", "d:2"}},
	} {
		got, ft := keys(c.q), ftKeys(c.ft...)
		if !slices.Equal(got, c.want) || !slices.Equal(ft, c.want) {
			t.Errorf("%v: typed %v, FT.SEARCH %v, want %v", c.ft, got, ft, c.want)
		}
	}
}
