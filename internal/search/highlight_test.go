package search_test

import (
	"compress/gzip"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/resp"
)

// Cases ported from RediSearch's tests/pytests/test_summarize.py and
// test_highlight.py (FT.ADD idx doc 1.0 FIELDS … becomes HSET doc …);
// their expected replies are the specification.

func genesis(t *testing.T) string {
	t.Helper()
	f, err := os.Open("testdata/genesis.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	// RediSearch's test reads the file in Python's text mode, which
	// turns its CRLF line ends into "\n".
	return strings.ReplaceAll(string(b), "\r\n", "\n")
}

// docField is the value of field name of the first document of an
// FT.SEARCH reply.
func docField(t *testing.T, v resp.Value, name string) string {
	t.Helper()
	if v.Kind == resp.KindError {
		t.Fatalf("error %s", v.Str)
	}
	if len(v.Elems) < 3 {
		t.Fatalf("no document: %s", flat(v))
	}
	fs := v.Elems[2].Elems
	for i := 0; i+1 < len(fs); i += 2 {
		if fs[i].Str == name {
			return fs[i+1].Str
		}
	}
	t.Fatalf("no field %s in %s", name, flat(v))
	return ""
}

func TestFTSummarizeGenesis(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "SCHEMA", "txt", "TEXT")
	txt := genesis(t)
	c.do("HSET", "gen1", "txt", txt)

	res := c.c.Do("FT.SEARCH", "idx", "abraham isaac jacob",
		"SUMMARIZE", "FIELDS", "1", "txt", "LEN", "20",
		"HIGHLIGHT", "FIELDS", "1", "txt", "TAGS", "<b>", "</b>")
	s := docField(t, res, "txt")
	for _, w := range []string{"<b>Abraham</b>", "<b>Isaac</b>", "<b>Jacob</b>"} {
		if !strings.Contains(s, w) {
			t.Errorf("summary lacks %s: %q", w, s)
		}
	}
	res = c.c.Do("FT.SEARCH", "idx", "abraham isaac jacob", "HIGHLIGHT", "fields", "1", "txt", "TAGS", "<i>", "</i>")
	if s := docField(t, res, "txt"); len(s) < 160000 || !strings.Contains(s, "<i>Abraham</i>") {
		t.Errorf("whole highlighted text: %d bytes", len(s))
	}
	res = c.c.Do("FT.SEARCH", "idx", "abraham isaac jacob", "SUMMARIZE", "FIELDS", "1", "txt", "FRAGS", "10000")
	if s := docField(t, res, "txt"); !strings.Contains(s, "... ") || strings.Contains(s, "<b>") {
		t.Errorf("summary of every fragment: %q", s[:min(len(s), 200)])
	}

	// A custom separator: four fragments of equal score, in text order.
	res = c.c.Do("FT.SEARCH", "idx", "isaac", "SUMMARIZE", "FIELDS", "1", "txt",
		"SEPARATOR", "\r\n", "FRAGS", "4", "LEN", "3")
	want := "name Isaac: and\r\nwith Isaac,\r\nIsaac. {21:4} And Abraham circumcised his son Isaac\r\nson Isaac was\r\n"
	if got := docField(t, res, "txt"); got != want {
		t.Errorf("separator summary\n got %q\nwant %q", got, want)
	}

	// No matched term: the head of the field.
	res = c.c.Do("FT.SEARCH", "idx", "-blah", "SUMMARIZE", "LEN", "3")
	if got, want := docField(t, res, "txt"), " The First Book of Moses, called Genesis {1:1} In the"; got != want {
		t.Errorf("-blah summary\n got %q\nwant %q", got, want)
	}
	// Highlighting without a match leaves the field as it is.
	res = c.c.Do("FT.SEARCH", "idx", "-blah", "HIGHLIGHT")
	if got := docField(t, res, "txt"); got != txt {
		t.Errorf("-blah highlight changed the text (%d bytes, want %d)", len(got), len(txt))
	}
}

func TestFTSummarizePrefixExpansion(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "SCHEMA", "txt", "TEXT")
	c.do("HSET", "gen1", "txt", genesis(t))
	res := c.c.Do("FT.SEARCH", "idx", "begi*",
		"HIGHLIGHT", "FIELDS", "1", "txt", "TAGS", "<b>", "</b>",
		"SUMMARIZE", "FIELDS", "1", "txt", "LEN", "20")
	// RediSearch accepts any of these (its prefix expansion may stop
	// early); Ordo expands to every term, so it gives the second.
	possible := []string{
		"is] one, and they have all one language; and this they <b>begin</b> to do: and now nothing will be restrained from them, which... ",
		"First Book of Moses, called Genesis {1:1} In the <b>beginning</b> God created the heaven and the earth. {1:2} And the earth... the mighty hunter before the LORD. {10:10} And the <b>beginning</b> of his kingdom was Babel, and Erech, and Accad, and Calneh... is] one, and they have all one language; and this they <b>begin</b> to do: and now nothing will be restrained from them, which... ",
		"49:3} Reuben, thou [art] my firstborn, my might, and the <b>beginning of</b> my strength, the excellency of dignity, and the excellency... ",
	}
	got := docField(t, res, "txt")
	ok := false
	for _, p := range possible {
		ok = ok || got == p
	}
	if !ok {
		t.Errorf("prefix summary: %q", got)
	}
}

func TestFTSummarizeMultiField(t *testing.T) {
	c, _ := newClient(t)
	p1 := "Redis is an open-source in-memory database project implementing a networked, in-memory key-value store with optional durability. Redis supports different kinds of abstract data structures, such as strings, lists, maps, sets, sorted sets, hyperloglogs, bitmaps and spatial indexes. The project is mainly developed by Salvatore Sanfilippo and is currently sponsored by Redis Labs.[4] Redis Labs creates and maintains the official Redis Enterprise Pack."
	p2 := "Redis typically holds the whole dataset in memory. Versions up to 2.4 could be configured to use what they refer to as virtual memory[19] in which some of the dataset is stored on disk, but this feature is deprecated. Persistence is now achieved in two different ways: one is called snapshotting, and is a semi-persistent durability mode where the dataset is asynchronously transferred from memory to disk from time to time, written in RDB dump format. Since version 1.1 the safer alternative is AOF, an append-only file (a journal) that is written as operations modifying the dataset in memory are processed. Redis is able to rewrite the append-only file in the background in order to avoid an indefinite growth of the journal."
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "SCHEMA", "txt1", "TEXT", "txt2", "TEXT")
	c.do("HSET", "redis", "txt1", p1, "txt2", p2)
	res := c.c.Do("FT.SEARCH", "idx", "memory persistence salvatore", "HIGHLIGHT", "TAGS", "<b>", "</b>",
		"SUMMARIZE", "LEN", "5", "RETURN", "2", "txt1", "txt2")
	if res.Kind == resp.KindError {
		t.Fatal(res.Str)
	}
	res = c.c.Do("FT.SEARCH", "idx", "memory persistence salvatore", "SUMMARIZE", "FIELDS", "2", "txt1", "txt2", "LEN", "5")
	if got, want := docField(t, res, "txt1"), "memory database project implementing a networked, in-memory ... by Salvatore Sanfilippo... "; got != want {
		t.Errorf("txt1\n got %q\nwant %q", got, want)
	}
	if got, want := docField(t, res, "txt2"), "dataset in memory. Versions... as virtual memory[19] in... persistent durability mode where the dataset is asynchronously transferred from memory... "; got != want {
		t.Errorf("txt2\n got %q\nwant %q", got, want)
	}
}

func TestFTSummarizeMetaAndReturn(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "SCHEMA", "foo", "TEXT", "bar", "TEXT", "baz", "TEXT")
	c.do("HSET", "doc1", "foo", "pill", "bar", "pillow", "baz", "piller")
	// RETURN restricts the fields: the summarized ones are not added.
	c.want("[1 doc1 [baz piller]]", "FT.SEARCH", "idx", "pill pillow piller", "RETURN", "1", "baz", "SUMMARIZE", "FIELDS", "2", "foo", "bar")
	c.want("[1 doc1 [foo pill...  bar pillow...  baz piller... ]]", "FT.SEARCH", "idx", "pill pillow piller", "RETURN", "3", "foo", "bar", "baz", "SUMMARIZE")
	// NOCONTENT: nothing to highlight.
	c.want("[1 doc1]", "FT.SEARCH", "idx", "pill", "NOCONTENT", "HIGHLIGHT")

	// testIssue364: a field without a match is cut back to a separator.
	c.want("OK", "FT.CREATE", "i364", "ON", "HASH", "PREFIX", "1", "d", "SCHEMA", "building_type", "TEXT", "description", "TEXT")
	c.do("HSET", "d1", "building_type", "Retail and Shops", "description", "To change the use from a Restaurant to a Personal Service Shop (Great Clips)")
	c.do("HSET", "d2", "building_type", "Retail and Shops", "description", "To change the use from a Restaurant to a Personal Service Shop (Great Clips) at the end")
	res := c.c.Do("FT.SEARCH", "i364", "retail", "RETURN", "1", "description", "SUMMARIZE")
	got := map[string]string{}
	for i := 1; i+1 < len(res.Elems); i += 2 {
		got[res.Elems[i].Str] = res.Elems[i+1].Elems[1].Str
	}
	if got["d1"] != "To change the use from a Restaurant to a Personal Service Shop (Great Clips)" ||
		got["d2"] != "To change the use from a Restaurant to a Personal Service Shop (Great Clips) at the" {
		t.Errorf("issue 364: %q", got)
	}
}

func TestFTHighlightOverflowAndFailed(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "netflix", "ON", "HASH", "PREFIX", "1", "n", "SCHEMA", "title", "TEXT", "rating", "TEXT",
		"leve", "TEXT", "description", "TEXT", "year", "NUMERIC", "uscore", "NUMERIC", "usize", "NUMERIC")
	c.do("HSET", "n15ad80086ccc7f", "title", "The Vampire Diaries", "rating", "TV-14", "level",
		"Parents strongly cautioned. May be unsuitable for children ages 14 and under.",
		"description", "90", "year", "2017", "uscore", "91", "usize", "80")
	res := c.c.Do("FT.SEARCH", "netflix", "vampire", "highlight")
	for name, want := range map[string]string{"title": "The <b>Vampire</b> Diaries", "rating": "TV-14",
		"level":       "Parents strongly cautioned. May be unsuitable for children ages 14 and under.",
		"description": "90", "year": "2017", "uscore": "91", "usize": "80"} {
		if got := docField(t, res, name); got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}

	// testFailedHighlight: NOINDEX, empty and stop-word fields.
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "doc1", "SCHEMA", "f1", "TEXT", "f2", "TEXT", "f3", "TEXT", "NOINDEX")
	c.do("HSET", "doc1", "f1", "foo foo foo", "f2", "bar bar bar", "f3", "baz baz baz")
	c.want("[1 doc1 [f1 foo foo foo f2 bar bar bar f3 baz baz baz]]", "FT.SEARCH", "idx", "foo")
	c.want("[1 doc1 [f1 <b>foo</b> <b>foo</b> <b>foo</b> f2 bar bar bar f3 baz baz baz]]", "FT.SEARCH", "idx", "foo", "highlight", "fields", "1", "f1")
	c.want("[1 doc1 [f1 foo foo foo f2 bar bar bar f3 baz baz baz]]", "FT.SEARCH", "idx", "foo", "highlight", "fields", "1", "f2")
	c.want("[1 doc1 [f1 foo foo foo f2 bar bar bar f3 baz baz baz]]", "FT.SEARCH", "idx", "foo", "highlight", "fields", "1", "f3")
	c.want("OK", "FT.CREATE", "idx3", "ON", "HASH", "PREFIX", "1", "doc3", "SCHEMA", "f1", "TEXT", "f2", "TEXT", "f3", "TEXT")
	c.do("HSET", "doc3", "f1", "foo foo foo", "f2", "not a", "f3", "")
	c.want("[1 doc3 [f1 <b>foo</b> <b>foo</b> <b>foo</b> f2 not a f3 ]]", "FT.SEARCH", "idx3", "foo", "highlight", "fields", "1", "f1")
	c.want("[1 doc3 [f1 foo foo foo f2 not a f3 ]]", "FT.SEARCH", "idx3", "foo", "highlight", "fields", "1", "f2")
}

func TestFTHighlightAliasAndErrors(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "SCHEMA", "f1", "AS", "f1_alias", "TEXT", "f2", "AS", "f2_alias", "TEXT", "n", "NUMERIC")
	c.do("HSET", "doc", "f1", "foo foo foo", "f2", "baz baz baz")
	// As RediSearch: without RETURN the hash fields keep their names and
	// the alias highlights nothing; with RETURN it does.
	c.want("[1 doc [f1 foo foo foo f2 baz baz baz]]", "FT.SEARCH", "idx", "foo", "highlight", "fields", "1", "f1_alias")
	c.want("!No such property `f1`", "FT.SEARCH", "idx", "foo", "highlight", "fields", "1", "f1")
	c.want("[1 doc [f1_alias <b>foo</b> <b>foo</b> <b>foo</b>]]", "FT.SEARCH", "idx", "foo", "highlight", "fields", "1", "f1_alias", "RETURN", "1", "f1_alias")
	c.want("!Property `f1` is not in schema", "FT.SEARCH", "idx", "foo", "highlight", "RETURN", "1", "f1")
	c.want("!Bad arguments for HIGHLIGHT", "FT.SEARCH", "idx", "foo", "highlight", "fields", "3", "f1_alias")
	c.want("!Bad arguments for HIGHLIGHT", "FT.SEARCH", "idx", "foo", "highlight", "tags", "<b>")
	c.want("!Bad arguments for SUMMARIZE", "FT.SEARCH", "idx", "foo", "summarize", "len", "x")
	c.want("!Bad arguments for SUMMARIZE", "FT.SEARCH", "idx", "foo", "summarize", "frags", "-1")
	c.want("OK", "FT.CREATE", "nooff", "ON", "HASH", "PREFIX", "1", "zz", "NOOFFSETS", "SCHEMA", "body", "TEXT")
	c.want("!Cannot use HIGHLIGHT/SUMMARIZE because NOOFSETS was specified at index level", "FT.SEARCH", "nooff", "hello", "SUMMARIZE", "FIELDS", "1", "body")
	c.want("OK", "FT.CREATE", "nohl", "ON", "HASH", "PREFIX", "1", "zz", "NOHL", "SCHEMA", "body", "TEXT")
	c.want("!Cannot use HIGHLIGHT/SUMMARIZE because NOOFSETS was specified at index level", "FT.SEARCH", "nohl", "hello", "HIGHLIGHT")
}

func TestFTHighlightContract(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "doc:", "SCHEMA", "body", "TEXT", "rank", "NUMERIC", "SORTABLE")
	c.do("HSET", "doc:1", "body", "the quick brown fox jumps over the lazy dog", "rank", "3")
	c.do("HSET", "doc:2", "body", "a brown dog ran past the brown fence", "rank", "1")
	c.do("HSET", "doc:3", "body", "no match here", "rank", "2")
	c.want("[2 doc:2 [body a <b>brown</b> <b>dog</b> ran past the <b>brown</b> fence] doc:1 [body the quick <b>brown</b> fox jumps over the lazy <b>dog</b>]]",
		"FT.SEARCH", "idx", "brown|dog", "SORTBY", "rank", "ASC", "HIGHLIGHT", "FIELDS", "1", "body", "RETURN", "1", "body")

	// Stems are highlighted: the word's own spelling, in every TEXT field.
	c.want("OK", "FT.CREATE", "mf", "ON", "HASH", "PREFIX", "1", "m:", "SCHEMA", "title", "TEXT", "body", "TEXT")
	c.do("HSET", "m:1", "title", "a brown report on dogs", "body", "the brown dog walked")
	c.want("[1 m:1 [title a <b>brown</b> report on <b>dogs</b> body the <b>brown</b> <b>dog</b> walked]]",
		"FT.SEARCH", "mf", "brown dog", "HIGHLIGHT", "FIELDS", "2", "title", "body")
	c.want("[1 m:1 [title a <b>brown</b> report on dogs body the <b>brown</b> dog walked]]",
		"FT.SEARCH", "mf", "@title:brown", "HIGHLIGHT")
	// Prefixes, and a negated term is not highlighted. Once FIELDS names
	// a field, only the named fields are processed, with their own tags.
	c.want("[1 m:1 [title a <<brown>> <<report>> on dogs body the brown dog walked]]",
		"FT.SEARCH", "mf", "brown (rep*|-xyz)", "HIGHLIGHT", "FIELDS", "1", "title", "TAGS", "<<", ">>", "HIGHLIGHT")

	// A fragment's summary with its highlight: LEN 5 is 5/2 words of 6
	// bytes on each side, cut back to whole words.
	c.want("OK", "FT.CREATE", "sum", "ON", "HASH", "PREFIX", "1", "s:", "SCHEMA", "body", "TEXT")
	body := strings.Repeat("lorem ipsum dolor sit amet ", 4) + "and then a brown fox appeared " + strings.Repeat("lorem ipsum dolor sit amet ", 4)
	c.do("HSET", "s:1", "body", body)
	c.want("[1 s:1 [body and then a <b>brown</b> fox... ]]",
		"FT.SEARCH", "sum", "brown", "SUMMARIZE", "FIELDS", "1", "body", "FRAGS", "1", "LEN", "5", "HIGHLIGHT", "FIELDS", "1", "body")
	// The default LEN 20: 60 bytes each side.
	c.want("[1 s:1 [body ipsum dolor sit amet lorem ipsum dolor sit amet and then a <b>brown</b> fox appeared lorem ipsum dolor sit amet lorem ipsum dolor... ]]",
		"FT.SEARCH", "sum", "brown", "SUMMARIZE", "FIELDS", "1", "body", "HIGHLIGHT")
	// SUMMARIZE alone has no tags.
	c.want("[1 s:1 [body ipsum dolor sit amet lorem ipsum dolor sit amet and then a brown fox appeared lorem ipsum dolor sit amet lorem ipsum dolor... ]]",
		"FT.SEARCH", "sum", "brown", "SUMMARIZE")
}

func TestFTHighlightJSON(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "j", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA", "$.title", "AS", "title", "TEXT", "$.tags[*]", "AS", "tags", "TEXT", "$.n", "AS", "n", "NUMERIC")
	c.do("JSON.SET", "j:1", "$", `{"title":"hello big world","tags":["hello","x"],"n":5}`)
	c.want("!HIGHLIGHT/SUMMARIZE on JSON indexes requires RETURN with explicit field names", "FT.SEARCH", "j", "hello", "HIGHLIGHT")
	c.want("!HIGHLIGHT/SUMMARIZE is not supported for JSON fields with multi-value JSONPath", "FT.SEARCH", "j", "hello", "HIGHLIGHT", "RETURN", "1", "tags")
	c.want("[1 j:1 [title <b>hello</b> big world n 5]]", "FT.SEARCH", "j", "hello", "HIGHLIGHT", "RETURN", "2", "title", "n")
	c.want("[1 j:1 [$.title <b>hello</b> big world]]", "FT.SEARCH", "j", "hello", "HIGHLIGHT", "RETURN", "1", "$.title")
	c.want("!HIGHLIGHT is not supported on FT.AGGREGATE", "FT.AGGREGATE", "j", "hello", "HIGHLIGHT")
	// LEN 1 leaves no context but the byte after the match (fragmenter.c).
	c.want("[1 j:1 [title <b>hello</b> ... ]]", "FT.SEARCH", "j", "hello", "SUMMARIZE", "FIELDS", "1", "title", "LEN", "1", "HIGHLIGHT", "RETURN", "1", "title")
}
