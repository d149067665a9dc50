package search_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// Cases ported from RediSearch's tests/pytests (test.py, test_scorers):
// FT.ADD idx doc score FIELDS … becomes HSET doc … __score score.

func TestFTStemming(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "SCHEMA", "title", "TEXT")
	c.do("HSET", "doc1", "title", "hello kitty", "__score", "0.5")
	c.do("HSET", "doc2", "title", "hello kitties")
	c.want("[2 doc2 doc1]", "FT.SEARCH", "idx", "hello kitty", "NOCONTENT")
	c.want("[1 doc1]", "FT.SEARCH", "idx", "hello kitty", "NOCONTENT", "VERBATIM")
	c.want("!No such language foofoofian", "FT.SEARCH", "idx", "hello kitty", "NOCONTENT", "LANGUAGE", "foofoofian")
	// testExpander: the stem is a term of its own, "+stem".
	// (Order aside: the word and its stem at one position give a "slop"
	// of 10 in RediSearch's scorer, so the exact word can rank lower.)
	c.want("[2]", "FT.SEARCH", "idx", "kitties", "LIMIT", "0", "0", "EXPANDER", "SBSTEM")
	c.want("[1 doc2]", "FT.SEARCH", "idx", "kitties", "NOCONTENT", "EXPANDER", "noexpander")
	c.want("[2 doc2 doc1]", "FT.SEARCH", "idx", "kitti", "NOCONTENT")
	c.want("[0]", "FT.SEARCH", "idx", "kitti", "NOCONTENT", "VERBATIM")
	c.want("[2 doc2 doc1]", "FT.SEARCH", "idx", `\+kitti`, "NOCONTENT", "VERBATIM")
	// A quoted phrase is verbatim.
	c.want("[1 doc2]", "FT.SEARCH", "idx", `"hello kitties"`, "NOCONTENT")
	c.want("[1 doc1]", "FT.SEARCH", "idx", `"kitty"`, "NOCONTENT")

	// NOSTEM and another language.
	c.want("OK", "FT.CREATE", "ns", "ON", "HASH", "PREFIX", "1", "n:", "SCHEMA", "t", "TEXT", "NOSTEM")
	c.do("HSET", "n:1", "t", "running")
	c.do("HSET", "n:2", "t", "run")
	// The query is still expanded: its stem "run" is searched as a word.
	c.want("[2 n:1 n:2]", "FT.SEARCH", "ns", "running", "NOCONTENT")
	c.want("[1 n:1]", "FT.SEARCH", "ns", "running", "NOCONTENT", "VERBATIM")
	c.want("[1 n:2]", "FT.SEARCH", "ns", "runs", "NOCONTENT")
	c.want("OK", "FT.CREATE", "es", "ON", "HASH", "PREFIX", "1", "e:", "LANGUAGE", "spanish", "SCHEMA", "t", "TEXT")
	c.do("HSET", "e:1", "t", "corriendo")
	c.want("[1 e:1]", "FT.SEARCH", "es", "correr", "NOCONTENT")
	c.want("[0]", "FT.SEARCH", "es", "correr", "NOCONTENT", "LANGUAGE", "english")
	c.want("!Invalid language", "FT.CREATE", "bad", "LANGUAGE", "klingon", "SCHEMA", "t", "TEXT")
	// LANGUAGE_FIELD: each document's own language.
	c.want("OK", "FT.CREATE", "lf", "ON", "HASH", "PREFIX", "1", "l:", "LANGUAGE_FIELD", "lang", "SCHEMA", "t", "TEXT")
	c.do("HSET", "l:1", "t", "corriendo", "lang", "spanish")
	c.do("HSET", "l:2", "t", "corriendo")
	c.want("[1 l:1]", "FT.SEARCH", "lf", "correr", "NOCONTENT", "LANGUAGE", "spanish")
	// The default LANGUAGE_FIELD is __language.
	c.want("OK", "FT.CREATE", "dl", "ON", "HASH", "PREFIX", "1", "m:", "SCHEMA", "t", "TEXT")
	c.do("HSET", "m:1", "t", "corriendo", "__language", "spanish")
	c.want("[1 m:1]", "FT.SEARCH", "dl", "correr", "NOCONTENT", "LANGUAGE", "spanish")
}

func TestFTStopwords(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "d", "ON", "HASH", "PREFIX", "1", "a:", "SCHEMA", "t", "TEXT")
	c.want("OK", "FT.CREATE", "none", "ON", "HASH", "PREFIX", "1", "a:", "STOPWORDS", "0", "SCHEMA", "t", "TEXT")
	c.want("OK", "FT.CREATE", "own", "ON", "HASH", "PREFIX", "1", "a:", "STOPWORDS", "2", "foo", "Bar", "SCHEMA", "t", "TEXT")
	c.do("HSET", "a:1", "t", "to be or not to be foo")
	c.do("HSET", "a:2", "t", "bar baz")
	c.want("[0]", "FT.SEARCH", "d", "be", "NOCONTENT")
	c.want("[1 a:1]", "FT.SEARCH", "none", "be", "NOCONTENT")
	c.want("[1 a:1]", "FT.SEARCH", "own", "be", "NOCONTENT")
	c.want("[0]", "FT.SEARCH", "own", "foo", "NOCONTENT")
	c.want("[0]", "FT.SEARCH", "own", "bar", "NOCONTENT")
	c.want("[1 a:2]", "FT.SEARCH", "d", "bar baz", "NOCONTENT")
	// A stop word in a query is dropped; stop words take no position, so
	// the phrase matches across them.
	c.want("[1 a:2]", "FT.SEARCH", "own", "baz foo", "NOCONTENT")
	c.do("HSET", "a:3", "t", "the quick and the dead")
	c.want("[1 a:3]", "FT.SEARCH", "d", `"quick dead"`, "NOCONTENT")
	c.want("[1 a:3]", "FT.SEARCH", "d", `"quick the dead"`, "NOCONTENT")
	c.want("[0]", "FT.SEARCH", "none", `"quick dead"`, "NOCONTENT")
}

func TestFTSlopInOrder(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "SCHEMA", "title", "TEXT")
	c.do("HSET", "doc1", "title", "t1 t2")
	c.do("HSET", "doc2", "title", "t1 t3 t2")
	c.do("HSET", "doc3", "title", "t1 t3 t4 t2")
	c.do("HSET", "doc4", "title", "t1 t3 t4 t5 t2")
	n := func(args ...string) string {
		v := c.c.Do(append([]string{"FT.SEARCH", "idx"}, args...)...)
		return flat(v.Elems[0])
	}
	if got := c.do("FT.SEARCH", "idx", "t1|t4 t3|t2", "SLOP", "0", "INORDER", "NOCONTENT"); got != "[4 doc1 doc2 doc3 doc4]" {
		t.Errorf("t1|t4 t3|t2: %s", got)
	}
	c.want("[1 doc1]", "FT.SEARCH", "idx", "t2 t1", "SLOP", "0", "NOCONTENT")
	for _, tc := range []struct {
		want string
		args []string
	}{
		{"0", []string{"t2 t1", "SLOP", "0", "INORDER"}},
		{"1", []string{"t1 t2", "SLOP", "0", "INORDER"}},
		{"2", []string{"t1 t2", "SLOP", "1", "INORDER"}},
		{"3", []string{"t1 t2", "SLOP", "2", "INORDER"}},
		{"4", []string{"t1 t2", "SLOP", "3", "INORDER"}},
		{"4", []string{"t1 t2", "INORDER"}},
		{"0", []string{"t t1", "INORDER"}},
		{"2", []string{"t1 t2 t3 t4"}},
		{"0", []string{"t1 t2 t3 t4", "INORDER"}},
	} {
		if got := n(tc.args...); got != tc.want {
			t.Errorf("%q: %s results, want %s", tc.args, got, tc.want)
		}
	}
	// testSlopInOrderIssue1986
	c.do("FLUSHALL")
	c.do("HSET", "doc1", "title", "t1 t2")
	c.do("HSET", "doc2", "title", "t2 t1")
	c.do("HSET", "doc3", "title", "t1")
	c.want("[1 doc2 [title t2 t1]]", "FT.SEARCH", "idx", "t2 t1", "SLOP", "0", "INORDER")
	c.want("[1 doc1 [title t1 t2]]", "FT.SEARCH", "idx", "t1 t2", "SLOP", "0", "INORDER")
	c.want("[1 doc1]", "FT.SEARCH", "idx", `"t1 t2"`, "NOCONTENT")
	c.want("[0]", "FT.SEARCH", "idx", `"t1 t3"`, "NOCONTENT")
}

func TestFTExactAndInfields(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "SCHEMA", "title", "TEXT", "WEIGHT", "10.0", "body", "TEXT")
	c.do("HSET", "doc1", "title", "hello world", "body", "lorem ist ipsum", "__score", "0.5")
	c.do("HSET", "doc2", "title", "hello another world", "body", "lorem ist ipsum lorem lorem")
	c.want("[1 doc1]", "FT.SEARCH", "idx", `"hello world"`, "VERBATIM", "NOCONTENT")
	c.want("[1 doc2]", "FT.SEARCH", "idx", `hello "another world"`, "VERBATIM", "NOCONTENT")
	// A phrase does not cross fields.
	c.want("[0]", "FT.SEARCH", "idx", `"world lorem"`, "NOCONTENT")

	c.do("FLUSHALL")
	c.do("HSET", "doc1", "title", "hello world", "body", "lorem ipsum", "__score", "0.5")
	c.do("HSET", "doc2", "title", "hello world lorem ipsum", "body", "hello world")
	c.want("[2 doc2 doc1]", "FT.SEARCH", "idx", "hello world", "VERBATIM", "INFIELDS", "1", "title", "NOCONTENT")
	c.want("[1 doc2]", "FT.SEARCH", "idx", "hello world", "VERBATIM", "INFIELDS", "1", "body", "NOCONTENT")
	c.want("[1 doc2]", "FT.SEARCH", "idx", "hello", "VERBATIM", "INFIELDS", "1", "body", "NOCONTENT")
	c.want("[1 doc2]", "FT.SEARCH", "idx", `"hello world"`, "VERBATIM", "INFIELDS", "1", "body", "NOCONTENT")
	c.want("[1 doc1]", "FT.SEARCH", "idx", `"lorem ipsum"`, "VERBATIM", "INFIELDS", "1", "body", "NOCONTENT")
	c.want("[2 doc2 doc1]", "FT.SEARCH", "idx", "lorem ipsum", "INFIELDS", "2", "body", "title", "NOCONTENT")
}

func TestFTFieldSelectors(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "doc", "SCHEMA",
		"TiTle", "TEXT", "BoDy", "TEXT", "יוניקוד", "TEXT", "field.with,punct", "TEXT")
	c.do("HSET", "doc1", "TiTle", "hello world", "BoDy", "foo bar", "יוניקוד", "unicode", "field.with,punct", "punt")
	c.do("HSET", "doc2", "BoDy", "hello world", "TiTle", "foo bar", "יוניקוד", "unicode", "field.with,punct", "punt", "__score", "0.5")
	for _, tc := range []struct{ q, want string }{
		{"@TiTle:hello world", "[1 doc1]"},
		{"@BoDy:hello world", "[1 doc2]"},
		{"@BoDy:hello @TiTle:world", "[0]"},
		{"@BoDy:hello world @TiTle:world", "[0]"},
		{"@BoDy:(hello|foo) @TiTle:(world|bar)", "[2 doc1 doc2]"},
		{"@BoDy:(hello|foo world|bar)", "[2 doc1 doc2]"},
		{"@BoDy|TiTle:(hello world)", "[2 doc1 doc2]"},
		{"@יוניקוד:(unicode)", "[2 doc1 doc2]"},
		{`@field\.with\,punct:(punt)`, "[2 doc1 doc2]"},
	} {
		v := c.c.Do("FT.SEARCH", "idx", tc.q, "NOCONTENT")
		got := flat(v)
		if len(v.Elems) > 1 {
			ids := strings.Fields(strings.Trim(got, "[]"))
			slices.Sort(ids[1:])
			got = "[" + strings.Join(ids, " ") + "]"
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.q, got, tc.want)
		}
	}
}

func TestFTPrefixSuffixFuzzy(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "SCHEMA", "t", "TEXT")
	c.do("HSET", "d1", "t", "hello world")
	c.do("HSET", "d2", "t", "help wanted")
	c.do("HSET", "d3", "t", "yellow submarine")
	c.want("[2 d1 d2]", "FT.SEARCH", "idx", "hel*", "NOCONTENT")
	c.want("[1 d1]", "FT.SEARCH", "idx", "*llo", "NOCONTENT")
	c.want("[1 d2]", "FT.SEARCH", "idx", "*ant*", "NOCONTENT")
	c.want("[2 d1 d3]", "FT.SEARCH", "idx", "*ell*", "NOCONTENT")
	c.want("[1 d3]", "FT.SEARCH", "idx", "*mar*", "NOCONTENT")
	c.want("[1 d3]", "FT.SEARCH", "idx", "@t:*mar*", "NOCONTENT")
	c.want("[1 d1]", "FT.SEARCH", "idx", "@t:*llo", "NOCONTENT")
	c.want("[1 d1]", "FT.SEARCH", "idx", "@t:%hallo%", "NOCONTENT")
	c.want("[1 d1]", "FT.SEARCH", "idx", "%hallo%", "NOCONTENT")
	c.want("[2 d1 d2]", "FT.SEARCH", "idx", "%%helo%%", "NOCONTENT")
	c.want("[1 d1]", "FT.SEARCH", "idx", "%word%", "NOCONTENT")
	c.want("[0]", "FT.SEARCH", "idx", "%wo%", "NOCONTENT")
	c.want("[1 d2]", "FT.SEARCH", "idx", "hel* -world", "NOCONTENT")
	c.want("[1 d2]", "FT.SEARCH", "idx", "$p*", "PARAMS", "2", "p", "wan", "NOCONTENT")
}

// TestFTScores checks WITHSCORES against the values RediSearch's
// test_scorers and test.py expect.
func TestFTScores(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "SCORE_FIELD", "__score", "SCHEMA", "title", "TEXT", "WEIGHT", "10", "body", "TEXT")
	// " body" (with a space) is not the body field: as in testTFIDFScorerExplanation.
	c.do("HSET", "doc1", "title", "hello world", " body", "lorem ist ipsum", "__score", "0.5")
	c.do("HSET", "doc2", "title", "hello another world", " body", "lorem ist ipsum lorem lorem", "__score", "1")
	c.do("HSET", "doc3", "title", "hello yet another world", " body", "lorem ist ipsum lorem lorem", "__score", "0.1")
	// Words TFIDF 20 (two terms, TF 10, IDF 1) x score / norm 10 / slop 1, 2 and 3.
	c.want("[3 doc1 1 doc2 1 doc3 0.066666666666666666]", "FT.SEARCH", "idx", "hello world", "SCORER", "TFIDF", "WITHSCORES", "NOCONTENT")
	c.want("[3 doc2 1 doc1 0.5 doc3 0.10000000000000001]", "FT.SEARCH", "idx", "hello world", "SCORER", "DOCSCORE", "WITHSCORES", "NOCONTENT")
	c.want("[3 doc1 20 doc2 20 doc3 20]", "FT.SEARCH", "idx", "hello world", "SCORER", "DISMAX", "WITHSCORES", "NOCONTENT")
	c.want("!Scoring function `NOSUCHSCORER` not found", "FT.SEARCH", "idx", "foo", "SCORER", "NOSUCHSCORER")
	c.want("[0]", "FT.SEARCH", "idx", "foo", "SCORER", "TFIDF")

	// test_resp3 / testExpireDocs: * scores 1 / the document's largest
	// term frequency.
	c.do("FLUSHALL")
	c.want("OK", "FT.CREATE", "idx1", "PREFIX", "1", "doc", "SCHEMA", "f1", "TEXT", "f2", "TEXT")
	c.do("HSET", "doc1", "f1", "3", "f2", "3")
	c.do("HSET", "doc2", "f1", "3", "f2", "2", "f3", "4")
	c.want("[2 doc2 [f1 3 f2 2 f3 4] doc1 [f1 3 f2 3]]", "FT.SEARCH", "idx1", "*")
	c.want("[2 doc2 1 nil [f1 3 f2 2] doc1 0.5 nil [f1 3 f2 3]]", "FT.SEARCH", "idx1", "*", "VERBATIM", "WITHSCORES", "WITHPAYLOADS", "RETURN", "2", "f1", "f2")
	c.want("[2 doc1 0.5 $3 [f2 3 f1 3] doc2 1 $2 [f2 2 f1 3]]", "FT.SEARCH", "idx1", "*", "WITHSCORES", "WITHSORTKEYS", "RETURN", "2", "f2", "f1", "SORTBY", "f2", "DESC")

	// BM25 as RediSearch 2.x computes it: idf x f / (f + k1 x (0.5 + 0.5 x
	// average length)), k1 the C float 1.2f.
	c.do("FLUSHALL")
	c.want("OK", "FT.CREATE", "b", "SCHEMA", "t", "TEXT")
	c.do("HSET", "x1", "t", "alpha beta")
	c.do("HSET", "x2", "t", "alpha gamma delta")
	// avg length (2+3)/2 = 2.5; idf(alpha) = logb(1 + 2/2) = 1: 1/(1 + 1.2f x 1.75) = 0.3225…
	c.want("[2 x1 0.32258063647799162 x2 0.32258063647799162]", "FT.SEARCH", "b", "alpha", "SCORER", "BM25", "WITHSCORES", "NOCONTENT")
	// TFIDF.DOCNORM divides by the document's length instead.
	c.want("[2 x1 0.5 x2 0.33333333333333331]", "FT.SEARCH", "b", "alpha", "SCORER", "TFIDF.DOCNORM", "WITHSCORES", "NOCONTENT")
}

func TestFTGeo(t *testing.T) {
	var hotels [][3]string
	b, err := os.ReadFile("testdata/hotels.json") // RediSearch's tests/pytests/hotels.py
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &hotels); err != nil {
		t.Fatal(err)
	}
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "SCHEMA", "name", "TEXT", "location", "GEO")
	for i, h := range hotels {
		c.do("HSET", fmt.Sprint("hotel", i), "name", h[0], "location", h[2]+","+h[1])
	}
	count := func(args ...string) string {
		v := c.c.Do(append([]string{"FT.SEARCH", "idx"}, args...)...)
		if len(v.Elems) == 0 {
			return flat(v)
		}
		return flat(v.Elems[0])
	}
	gsearch := func(q, lon, lat, dist, unit string) string {
		return count(q, "GEOFILTER", "location", lon, lat, dist, unit, "LIMIT", "0", "20", "NOCONTENT")
	}
	inline := func(q, lon, lat, dist, unit string) string {
		return count(fmt.Sprintf("%s @location:[%s %s %s %s]", q, lon, lat, dist, unit), "LIMIT", "0", "20", "NOCONTENT")
	}
	for _, tc := range []struct{ q, lon, lat, dist, unit, want string }{
		{"hilton", "-0.1757", "51.5156", "1", "km", "3"},
		{"hilton", "-0.1757", "51.5156", "10", "km", "14"},
		{"hilton", "-0.1757", "51.5156", "10000", "m", "14"},
		{"heathrow", "-0.44155", "51.45865", "10", "m", "1"},
		{"heathrow", "-0.44155", "51.45865", "10", "km", "5"},
		{"heathrow", "-0.44155", "51.45865", "5", "km", "3"},
	} {
		if got := gsearch(tc.q, tc.lon, tc.lat, tc.dist, tc.unit); got != tc.want {
			t.Errorf("GEOFILTER %v: %s", tc, got)
		}
		if got := inline(tc.q, tc.lon, tc.lat, tc.dist, tc.unit); got != tc.want {
			t.Errorf("inline %v: %s", tc, got)
		}
	}
	c.want("[1 hotel94]", "FT.SEARCH", "idx", "heathrow", "GEOFILTER", "location", "-0.44155", "51.45865", "10", "m", "NOCONTENT")
	c.want("[3 hotel21 hotel2 hotel79]", "FT.SEARCH", "idx", "@location:[$lon $lat $r km]", "PARAMS", "6", "lon", "-0.1757", "lat", "51.5156", "r", "1", "NOCONTENT", "SORTBY", "name")
	// testGeoErrors
	c.want("!Bad arguments for <lon>: Could not convert argument to expected type", "FT.SEARCH", "idx", "hilton", "GEOFILTER", "location", "lon", "51.5156", "1", "km")
	c.want("!Bad arguments for <lat>: Could not convert argument to expected type", "FT.SEARCH", "idx", "hilton", "GEOFILTER", "location", "51.5156", "lat", "1", "km")
	c.want("!Bad arguments for <radius>: Could not convert argument to expected type", "FT.SEARCH", "idx", "hilton", "GEOFILTER", "location", "-0.1757", "51.5156", "radius", "km")
	c.want("!Unknown distance unit fake", "FT.SEARCH", "idx", "hilton", "GEOFILTER", "location", "-0.1757", "51.5156", "1", "fake")
	c.want("!GEOFILTER requires 5 arguments", "FT.SEARCH", "idx", "hilton", "GEOFILTER", "location", "-0.1757", "51.5156", "1")
	// Never stale: a moved hotel leaves the radius at once; a bad value
	// is an indexing failure.
	c.do("HSET", "hotel2", "location", "10,10")
	c.want("[2]", "FT.SEARCH", "idx", "hilton", "GEOFILTER", "location", "-0.1757", "51.5156", "1", "km", "LIMIT", "0", "0")
	c.do("HSET", "hotel2", "location", "not a point")
	c.want("[0]", "FT.SEARCH", "idx", "@name:paddington", "NOCONTENT")
}

func TestFTOptions(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "p:", "SCHEMA",
		"name", "TEXT", "SORTABLE", "raw", "TEXT", "SORTABLE", "UNF", "age", "NUMERIC", "SORTABLE",
		"city", "TAG", "INDEXMISSING", "secret", "TEXT", "NOINDEX")
	c.do("HSET", "p:1", "name", "bob", "raw", "b", "age", "30", "city", "Paris", "secret", "xyzzy")
	c.do("HSET", "p:2", "name", "Alice", "raw", "A", "age", "30")
	c.do("HSET", "p:3", "name", "carol", "raw", "c", "age", "25", "city", "Rome")
	// SORTABLE text sorts case-folded; UNF keeps the value as is.
	c.want("[3 p:2 p:1 p:3]", "FT.SEARCH", "idx", "*", "SORTBY", "name", "NOCONTENT")
	c.want("[3 p:2 p:1 p:3]", "FT.SEARCH", "idx", "*", "SORTBY", "raw", "NOCONTENT")
	c.do("HSET", "p:2", "raw", "Z")
	c.want("[3 p:2 p:1 p:3]", "FT.SEARCH", "idx", "*", "SORTBY", "raw", "NOCONTENT") // "Z" < "b"
	// Several SORTBY: Ordo's extension.
	c.want("[3 p:2 p:1 p:3]", "FT.SEARCH", "idx", "*", "SORTBY", "age", "DESC", "SORTBY", "name", "ASC", "NOCONTENT")
	c.want("[3 p:1 p:2 p:3]", "FT.SEARCH", "idx", "*", "SORTBY", "age", "DESC", "SORTBY", "name", "DESC", "NOCONTENT")
	// NOINDEX: stored and returned, not searchable.
	c.want("[0]", "FT.SEARCH", "idx", "xyzzy", "NOCONTENT")
	c.want("!Unknown field at offset 0 near secret", "FT.SEARCH", "idx", "@secret:xyzzy")
	// INDEXMISSING and ismissing().
	c.want("[1 p:2]", "FT.SEARCH", "idx", "ismissing(@city)", "NOCONTENT")
	c.want("[2 p:1 p:3]", "FT.SEARCH", "idx", "-ismissing(@city)", "NOCONTENT", "SORTBY", "name")
	c.want("!'ismissing' requires field 'age' to be defined with 'INDEXMISSING'", "FT.SEARCH", "idx", "ismissing(@age)")
	c.do("HSET", "p:2", "city", "Oslo")
	c.want("[0]", "FT.SEARCH", "idx", "ismissing(@city)", "NOCONTENT")
	// INKEYS and RETURN … AS.
	c.want("[1 p:3 [years 25]]", "FT.SEARCH", "idx", "*", "INKEYS", "2", "p:3", "nope", "RETURN", "3", "age", "AS", "years")
	c.want("[2 p:1 p:3]", "FT.SEARCH", "idx", "*", "INKEYS", "3", "p:1", "p:3", "p:1", "NOCONTENT", "SORTBY", "name")
	c.want("!Bad arguments for INKEYS: Expected an argument, but none provided", "FT.SEARCH", "idx", "*", "INKEYS", "4", "foo")
	// FILTER's errors, TIMEOUT and DIALECT accepted.
	c.want("!FILTER requires 3 arguments", "FT.SEARCH", "idx", "*", "FILTER", "age", "5")
	c.want("!Bad upper range: inf", "FT.SEARCH", "idx", "*", "FILTER", "age", "5", "inf")
	c.want("!Bad lower range: inf", "FT.SEARCH", "idx", "*", "FILTER", "age", "inf", "5")
	c.want("[1 p:3]", "FT.SEARCH", "idx", "*", "FILTER", "age", "-inf", "(30", "TIMEOUT", "100", "DIALECT", "2", "NOCONTENT")
}

func TestFTPhonetic(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "SCHEMA", "name", "TEXT", "PHONETIC", "dm:en", "plain", "TEXT")
	c.do("HSET", "d1", "name", "Smith", "plain", "Smith")
	c.do("HSET", "d2", "name", "Schmidt", "plain", "Schmidt")
	c.want("[2 d2 d1]", "FT.SEARCH", "idx", "@name:smith", "NOCONTENT") // d1's three same-position matches: slop 10
	c.want("[1 d1]", "FT.SEARCH", "idx", "@plain:smith", "NOCONTENT")
	c.want("[1 d1]", "FT.SEARCH", "idx", "@name:smith", "VERBATIM", "NOCONTENT")
	c.want("!Matcher Format: <2 chars algorithm>:<2 chars language>. Support algorithms: double metaphone (dm). Supported languages: English (en), French (fr), Portuguese (pt) and Spanish (es)",
		"FT.CREATE", "bad", "SCHEMA", "n", "TEXT", "PHONETIC", "xx")
}

// TestFTExplainScore: EXPLAINSCORE's texts, as test_scorers and
// testExpireDocs expect them.
func TestFTExplainScore(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "SCORE_FIELD", "__score", "SCHEMA", "title", "TEXT", "WEIGHT", "10", "body", "TEXT")
	c.do("HSET", "doc1", "title", "hello world", " body", "lorem ist ipsum", "__score", "0.5")
	c.do("HSET", "doc2", "title", "hello another world", " body", "lorem ist ipsum lorem lorem", "__score", "1")
	c.do("HSET", "doc3", "title", "hello yet another world", " body", "lorem ist ipsum lorem lorem", "__score", "0.1")
	terms := "[[(Weight 1.00 * total children TFIDF 20.00) [(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00) (TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)]]]"
	c.want("[3 doc1 [1 [Final TFIDF : words TFIDF 20.00 * document score 0.50 / norm 10 / slop 1 "+terms+"]] "+
		"doc2 [1 [Final TFIDF : words TFIDF 20.00 * document score 1.00 / norm 10 / slop 2 "+terms+"]] "+
		"doc3 [0.066666666666666666 [Final TFIDF : words TFIDF 20.00 * document score 0.10 / norm 10 / slop 3 "+terms+"]]]",
		"FT.SEARCH", "idx", "hello world", "SCORER", "TFIDF", "WITHSCORES", "EXPLAINSCORE", "NOCONTENT")
	c.want("[3 doc2 [1 Document's score is 1.00] doc1 [0.5 Document's score is 0.50] doc3 [0.10000000000000001 Document's score is 0.10]]",
		"FT.SEARCH", "idx", "hello world", "SCORER", "DOCSCORE", "WITHSCORES", "EXPLAINSCORE", "NOCONTENT")
	c.do("FLUSHALL")
	c.want("OK", "FT.CREATE", "e", "PREFIX", "1", "doc", "SCHEMA", "t", "TEXT")
	c.do("HSET", "doc1", "t", "foo")
	c.want("[1 doc1 [1 [Final TFIDF : words TFIDF 1.00 * document score 1.00 / norm 1 / slop 1 [(TFIDF 1.00 = Weight 1.00 * Frequency 1)]]] [t foo]]",
		"FT.SEARCH", "e", "*", "WITHSCORES", "EXPLAINSCORE")
}

func TestFTIndexEmpty(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "SCHEMA", "t", "TAG", "INDEXEMPTY", "u", "TAG")
	c.do("HSET", "a", "t", "", "u", "")
	c.do("HSET", "b", "t", "x", "u", "x")
	c.want("[1 a]", "FT.SEARCH", "idx", `@t:{""}`, "NOCONTENT")
	c.want("!Use `INDEXEMPTY` in field creation in order to index and query for empty strings", "FT.SEARCH", "idx", `@u:{""}`, "NOCONTENT")
	c.want("[1 b]", "FT.SEARCH", "idx", `@u:{x}`, "NOCONTENT")
}

// TestFTOptional: ~term does not filter; it adds to the score where present.
func TestFTOptional(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "SCHEMA", "t", "TEXT")
	c.do("HSET", "d1", "t", "foo baz")
	c.do("HSET", "d2", "t", "foo bar")
	c.do("HSET", "d3", "t", "bar")
	c.want("[2 d2 d1]", "FT.SEARCH", "idx", "foo ~bar", "NOCONTENT")
	c.want("[3 d3 d2 d1]", "FT.SEARCH", "idx", "~foo", "NOCONTENT", "SORTBY", "t")
}
