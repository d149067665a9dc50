package search_test

import "testing"

// TestFTTokenization: documents with control characters, \r\n, tabs,
// escaped separators and punctuation are found by the queries that find
// them in RediSearch (docs/Escaping.md; tests/pytests/test_issues.py
// test_4732; test_terms_trie_encoding.py testControlCharsStrippedFromToken
// and testNulStopsTokenization), and HIGHLIGHT marks the same words.
func TestFTTokenization(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "SCHEMA", "t", "TEXT", "NOSTEM")
	c.do("HSET", "crlf", "t", "Genesis\r\nIsaac")
	c.do("HSET", "tab", "t", "tab\there")
	c.do("HSET", "ctl", "t", "a\x01b c\x7fd")
	c.do("HSET", "nul", "t", "foo\x00bar")
	c.do("HSET", "esc", "t", `hello\-world`)
	c.do("HSET", "dash", "t", "hello-world")
	c.do("HSET", "bs", "t", `hello\\,world`)
	c.do("HSET", "punct", "t", "fox-baz.qux...bag")

	// \r and \n are not separators: one word, "genesisisaac".
	c.want("[0]", "FT.SEARCH", "idx", "isaac", "NOCONTENT")
	c.want("[0]", "FT.SEARCH", "idx", "genesis", "NOCONTENT")
	c.want("[1 crlf]", "FT.SEARCH", "idx", "genesisisaac", "NOCONTENT")
	c.want("[1 crlf]", "FT.SEARCH", "idx", "GenesisIsaac", "NOCONTENT")
	// Tab separates; in a query, control characters separate words.
	c.want("[1 tab]", "FT.SEARCH", "idx", "here", "NOCONTENT")
	c.want("[1 tab]", "FT.SEARCH", "idx", "tab\x01here", "NOCONTENT")
	// Other control characters are removed from the word.
	c.want("[1 ctl]", "FT.SEARCH", "idx", "ab", "NOCONTENT")
	c.want("[1 ctl]", "FT.SEARCH", "idx", "cd", "NOCONTENT")
	c.want("[0]", "FT.SEARCH", "idx", "a", "NOCONTENT")
	// Nothing after a NUL is indexed.
	c.want("[1 nul]", "FT.SEARCH", "idx", "foo", "NOCONTENT")
	c.want("[0]", "FT.SEARCH", "idx", "bar", "NOCONTENT")
	// An escaped separator joins; an escaped backslash does not escape.
	c.want("[1 esc]", "FT.SEARCH", "idx", `hello\-world`, "NOCONTENT")
	c.want("[1 dash]", "FT.SEARCH", "idx", "hello", "NOCONTENT")
	c.want("[2]", "FT.SEARCH", "idx", "world", "LIMIT", "0", "0")
	c.want("[1 bs]", "FT.SEARCH", "idx", `@t:(hello\\)`, "NOCONTENT")
	c.want("[1 punct]", "FT.SEARCH", "idx", "bag", "NOCONTENT")
	c.want("[1 punct]", "FT.SEARCH", "idx", `"baz qux bag"`, "NOCONTENT")

	// The highlighter reads the same words as the index.
	c.want("[1 crlf [t <b>Genesis\r\nIsaac</b>]]", "FT.SEARCH", "idx", "genesisisaac", "HIGHLIGHT")
	c.want("[1 ctl [t <b>a\x01b</b> c\x7fd]]", "FT.SEARCH", "idx", "ab", "HIGHLIGHT")
	c.want("[1 nul [t <b>foo</b>\x00bar]]", "FT.SEARCH", "idx", "foo|bar", "HIGHLIGHT")
	c.want(`[1 esc [t <b>hello\-world</b>]]`, "FT.SEARCH", "idx", `hello\-world`, "HIGHLIGHT")
}
