package search_test

import (
	"strconv"
	"strings"
	"testing"
)

// TestAlias ports test.py's testAlias: an alias works wherever an index
// name does, moves with ALIASUPDATE, goes with the index, and cannot
// name another alias.
func TestAlias(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "doc1", "SCHEMA", "t1", "TEXT")
	c.want("OK", "FT.CREATE", "idx2", "ON", "HASH", "PREFIX", "1", "doc2", "SCHEMA", "t1", "TEXT")
	c.want("!ERR wrong number of arguments for 'ft.aliasadd' command", "FT.ALIASADD", "myIndex")
	c.want("OK", "FT.ALIASADD", "myIndex", "idx")
	c.do("HSET", "doc1", "t1", "hello")
	c.want("[1 doc1 [t1 hello]]", "FT.SEARCH", "myIndex", "hello")
	c.want("!Alias already exists", "FT.ALIASADD", "myIndex", "idx2")
	c.want("OK", "FT.ALIASADD", "alias2", "idx")
	c.want("OK", "FT.DROP", "myIndex")
	c.want("OK", "FT.ALIASADD", "myIndex", "idx2")
	c.want("OK", "FT.ALIASADD", "alias2", "idx2")
	c.do("HSET", "doc2", "t1", "hello")
	c.want("[1 doc2 [t1 hello]]", "FT.SEARCH", "alias2", "hello")
	c.want("!Unknown index name (or name is an alias itself)", "FT.ALIASADD", "alias3", "myIndex")
	c.want("OK", "FT.ALIASDEL", "myIndex")
	c.want("!myIndex: no such index", "FT.SEARCH", "myIndex", "foo")
	c.want("!Alias does not exist", "FT.ALIASDEL", "myIndex")
	c.want("OK", "FT.CREATE", "idx3", "ON", "HASH", "PREFIX", "1", "doc3", "SCHEMA", "t1", "TEXT")
	c.do("HSET", "doc3", "t1", "foo")
	c.want("OK", "FT.ALIASADD", "myIndex", "idx3")
	c.want("[1 doc3 [t1 foo]]", "FT.SEARCH", "myIndex", "foo")
	c.want("OK", "FT.ALIASUPDATE", "myIndex", "idx2")
	c.want("[1 doc2 [t1 hello]]", "FT.SEARCH", "myIndex", "hello")
	c.want("[1 [t1 hello]]", "FT.AGGREGATE", "myIndex", "hello", "LOAD", "1", "@t1")
	c.want("!Unknown index name (or name is an alias itself)", "FT.ALIASUPDATE", "updateIndex", "fake_idx")
	if got := c.do("FT.INFO", "myIndex"); got[:15] != "[index_name idx" {
		t.Errorf("FT.INFO through an alias: %s", got)
	}
}

// TestAlterTagvals: FT.ALTER … SCHEMA ADD indexes existing documents for
// the new field; FT.TAGVALS (test_tags.py's
// testTagVals) lists a TAG field's distinct values.
func TestAlterTagvals(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "SCHEMA", "title", "TEXT")
	c.do("HSET", "d1", "title", "hello", "n", "5", "tags", "Foo 1,x")
	c.do("HSET", "d2", "title", "world", "n", "7", "tags", "bar 2,x")
	c.want("!Unknown field at offset 0 near n", "FT.SEARCH", "idx", "@n:[5 5]")
	c.want("OK", "FT.ALTER", "idx", "SCHEMA", "ADD", "n", "NUMERIC", "SORTABLE")
	c.want("[1 d1]", "FT.SEARCH", "idx", "@n:[5 5]", "NOCONTENT")
	c.want("OK", "FT.ALTER", "idx", "SKIPINITIALSCAN", "SCHEMA", "ADD", "tags", "TAG")
	c.want("[bar 2 foo 1 x]", "FT.TAGVALS", "idx", "tags") // indexed all the same (see alter.go)
	c.want("!Duplicate field in schema - n", "FT.ALTER", "idx", "SCHEMA", "ADD", "n", "TEXT")
	c.want("!Unknown index name", "FT.ALTER", "nosuch", "SCHEMA", "ADD", "x", "TEXT")
	c.want("!ALTER must be followed by SCHEMA", "FT.ALTER", "idx", "ADD", "x", "TEXT")
	c.want("!Unknown action passed to ALTER SCHEMA", "FT.ALTER", "idx", "SCHEMA", "DROP", "x")
	c.want("!Not a tag field", "FT.TAGVALS", "idx", "title")
	c.want("!No such field", "FT.TAGVALS", "idx", "fake_tags")
	c.want("!Unknown Index name", "FT.TAGVALS", "fake_idx", "tags")
	c.want("!ERR wrong number of arguments for 'ft.tagvals' command", "FT.TAGVALS", "idx")
}

// TestSuggestions ports test_suggest.py.
func TestSuggestions(t *testing.T) {
	c, _ := newClient(t)
	c.want("1", "FT.SUGADD", "ac", "hello world", "1")
	c.want("1", "FT.SUGADD", "ac", "hello world", "1", "INCR")
	c.want("[hello world]", "FT.SUGGET", "ac", "hello")
	for i, term := range []string{"hello werld", "hallo world", "yellow world", "wazzup", "herp", "derp"} {
		c.want(itoa(i+2), "FT.SUGADD", "ac", term, itoa(i+1))
	}
	c.want("7", "FT.SUGLEN", "ac")
	c.want("[hello world hello werld]", "FT.SUGGET", "ac", "hello")
	c.want("[hello world hello werld yellow world hallo world]", "FT.SUGGET", "ac", "hello", "FUZZY")
	c.want("[hello world]", "FT.SUGGET", "ac", "hello", "FUZZY", "MAX", "1")
	c.want("1", "FT.SUGDEL", "ac", "hello world")
	c.want("0", "FT.SUGDEL", "ac", "world")
	c.want("[hello werld]", "FT.SUGGET", "ac", "hello")
	c.want("nil", "FT.SUGGET", "nosuch", "hello")
	c.want("0", "FT.SUGLEN", "nosuch")
	// Errors (testSuggestErrors).
	c.want("!ERR invalid score", "FT.SUGADD", "ac", "olah", "not_a_number")
	c.want("!Unknown argument `REDIS`", "FT.SUGADD", "ac", "olah", "1", "REDIS", "PAYLOAD", "payload")
	c.want("!Unrecognized argument: FUZZ", "FT.SUGGET", "ac", "olah", "FUZZ")
	// Payloads (testSuggestPayload).
	c.want("1", "FT.SUGADD", "pl", "hello world", "1", "PAYLOAD", "foo")
	c.want("2", "FT.SUGADD", "pl", "hello werld", "1", "PAYLOAD", "bar")
	c.want("3", "FT.SUGADD", "pl", "hello nopayload", "1", "PAYLOAD", "")
	c.want("4", "FT.SUGADD", "pl", "hello nopayload2", "1")
	c.want("[hello world foo hello werld bar hello nopayload  hello nopayload2 nil]", "FT.SUGGET", "pl", "hello", "WITHPAYLOADS")
	// Scores (testSuggestMax): float32 arithmetic printed with %.17g.
	for i := range 10 {
		c.want(itoa(i+1), "FT.SUGADD", "sug", "test"+itoa(i), itoa(i+1))
	}
	c.want("[test9 7.0710678100585938 test8 6.3639612197875977 test7 5.6568541526794434]",
		"FT.SUGGET", "sug", "test", "MAX", "3", "WITHSCORES")

}

func itoa(i int) string { return strconv.Itoa(i) }

// TestDictionaries ports test_spell_check.py's dictionary cases.
func TestDictionaries(t *testing.T) {
	c, _ := newClient(t)
	c.want("3", "FT.DICTADD", "dict", "term1", "term2", "term3")
	c.want("1", "FT.DICTADD", "dict", "term1", "term2", "term4")
	c.want("[term1 term2 term3 term4]", "FT.DICTDUMP", "dict")
	c.want("2", "FT.DICTDEL", "dict", "term1", "term2", "term5")
	c.want("0", "FT.DICTDEL", "nodict", "term1")
	c.want("!could not open dict key", "FT.DICTDUMP", "nodict")
	c.want("!ERR wrong number of arguments for 'ft.dictadd' command", "FT.DICTADD", "dict")
	c.want("OK", "FLUSHALL")
	c.want("!could not open dict key", "FT.DICTDUMP", "dict")
}

// TestSynonyms: a synonym group makes its terms match each other, for
// documents indexed before and after; FT.SYNDUMP lists term -> groups.
func TestSynonyms(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "SCHEMA", "title", "TEXT")
	c.do("HSET", "d1", "title", "a boy")
	c.want("OK", "FT.SYNUPDATE", "idx", "id1", "boy", "child", "offspring")
	c.do("HSET", "d2", "title", "the child")
	c.want("[2 d1 d2]", "FT.SEARCH", "idx", "child", "NOCONTENT")
	c.want("[2 d1 d2]", "FT.SEARCH", "idx", "offspring", "NOCONTENT")
	c.want("OK", "FT.SYNUPDATE", "idx", "id2", "SKIPINITIALSCAN", "baby", "child")
	c.want("[baby [id2] boy [id1] child [id1 id2] offspring [id1]]", "FT.SYNDUMP", "idx")
	c.want("[1 [title a boy]]", "FT.AGGREGATE", "idx", "boy", "VERBATIM", "LOAD", "1", "@title")
	c.want("!Unknown index name", "FT.SYNDUMP", "nosuch")
}

// TestExplain ports test.py's testExplain (without stemming's expanded
// terms: Ordo does not stem).
func TestExplain(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "SCHEMA", "foo", "TEXT", "bar", "NUMERIC", "SORTABLE", "t", "TAG")
	q := `(hello world) (hello|world) (@bar:[10 100]|@bar:[200 (300]) -@foo:x* @t:{a|b*}`
	want := "INTERSECT {\n  INTERSECT {\n    hello\n    world\n  }\n  UNION {\n    hello\n    world\n  }\n" +
		"  UNION {\n    NUMERIC {10.000000 <= @bar <= 100.000000}\n    NUMERIC {200.000000 <= @bar < 300.000000}\n  }\n" +
		"  NOT{\n    @foo:PREFIX{x*}\n  }\n  TAG:@t {\n    a\n    PREFIX{b*}\n  }\n}\n"
	if got := flat(c.c.Do("FT.EXPLAIN", "idx", q)); got != want {
		t.Errorf("FT.EXPLAIN\n got %q\nwant %q", got, want)
	}
	c.want("[UNION {   INTERSECT {     hello     world   }   NUMERIC {-inf <= @bar <= inf} }]", "FT.EXPLAINCLI", "idx", "hello world | @bar:[-inf +inf]")
	c.want("<WILDCARD>}\n", "FT.EXPLAIN", "idx", "*")
	c.want("!idx2: no such index", "FT.EXPLAIN", "idx2", "*")
}

// TestProfileConfig: FT.PROFILE's reply shape; FT.CONFIG GET/SET/HELP.
func TestProfileConfig(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "SCHEMA", "t", "TEXT")
	c.do("HSET", "d1", "t", "hello world")
	got := c.c.Do("FT.PROFILE", "idx", "SEARCH", "QUERY", "hello world", "NOCONTENT")
	if len(got.Elems) != 2 || flat(got.Elems[0]) != "[1 d1]" || len(got.Elems[1].Elems) != 5 {
		t.Fatalf("FT.PROFILE: %s", flat(got))
	}
	if it := flat(got.Elems[1].Elems[3]); it != "[Iterators profile [Type INTERSECT Time 0 Counter 1 Child iterators [Type TEXT Term hello Time 0 Counter 1 Size 1] [Type TEXT Term world Time 0 Counter 1 Size 1]]]" {
		t.Errorf("iterators: %s", it)
	}
	c.want("!No `SEARCH` or `AGGREGATE` provided", "FT.PROFILE", "idx", "FOO", "QUERY", "x")
	c.want("!The QUERY keyword is expected", "FT.PROFILE", "idx", "SEARCH", "x", "y")
	c.want(c.do("FT.SEARCH", "idx", "("), "FT.PROFILE", "idx", "SEARCH", "QUERY", "(")
	c.want("[[TIMEOUT 500]]", "FT.CONFIG", "GET", "TIMEOUT")
	c.want("OK", "FT.CONFIG", "SET", "MAXAGGREGATERESULTS", "1")
	c.want("[[MAXAGGREGATERESULTS 1]]", "FT.CONFIG", "GET", "maxaggregateresults")
	c.do("HSET", "d2", "t", "hello")
	c.want("[2 []]", "FT.AGGREGATE", "idx", "*")
	c.want("!LIMIT exceeds maximum of 1", "FT.AGGREGATE", "idx", "*", "LIMIT", "0", "2")
	c.want("!Invalid option", "FT.CONFIG", "SET", "NOSUCH", "1")
	c.want("[]", "FT.CONFIG", "GET", "NOSUCH")
	c.want("[[MINPREFIX Description Set the minimum prefix for expansions (`*`) Value 2]]", "FT.CONFIG", "HELP", "MINPREFIX")
}

// TestCommandInfoExt: client libraries probe the commands.
func TestCommandInfoExt(t *testing.T) {
	c, _ := newClient(t)
	for _, cmd := range []string{"ft.aggregate", "ft.cursor", "ft.aliasadd", "ft.sugget", "ft.config", "ft.profile", "ft.explain"} {
		if got := c.do("COMMAND", "INFO", cmd); !strings.HasPrefix(got, "[["+cmd+" ") {
			t.Errorf("COMMAND INFO %s: %s", cmd, got)
		}
		if got := c.do("COMMAND", "DOCS", cmd); strings.HasPrefix(got, "!") {
			t.Errorf("COMMAND DOCS %s: %s", cmd, got)
		}
	}
}

func TestArityErrorsExt(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "SCHEMA", "t", "TEXT")
	c.want("!ERR wrong number of arguments for 'ft.cursor' command", "FT.CURSOR", "READ", "idx")
	c.want("!ERR wrong number of arguments for 'ft.synupdate' command", "FT.SYNUPDATE", "idx", "g", "SKIPINITIALSCAN")
	c.want("!Unknown subcommand", "FT.CURSOR", "FOO", "idx", "1")
}
