package search

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func words(s string) []string {
	var out []string
	textWords(s, func(_, _ int, w string) { out = append(out, w) })
	return out
}

// TestTextWordsRediSearch ports RediSearch's tokenizer rules as its
// documentation and tests state them: docs/Escaping.md ("The rules of
// text field tokenization"), tests/pytests/test_issues.py test_4732 (an
// escaped backslash before a separator) and test_terms_trie_encoding.py
// (testControlCharsStrippedFromToken, testNulStopsTokenization), plus
// what src/toksep.h and DefaultNormalize (src/tokenize.c) do with \r, \n,
// tabs and backslashes.
func TestTextWordsRediSearch(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		// Escaping.md rule 1: punctuation separates, repeats collapse.
		{"foo-bar.baz...bag", "foo|bar|baz|bag"},
		// Rule 2: a backslash escapes a separator.
		{`hello\-world hello-world`, "hello-world|hello|world"},
		// Rule 2 (bis): underscores are not separators.
		{"hello_world", "hello_world"},
		// Rule 4: lower case.
		{"Hello WORLD École", "hello|world|école"},
		// test_4732: `hello\\,world` and `hello\\ world` are `hello\`, world.
		{`hello\\,world`, `hello\|world`},
		{`hello\\ world`, `hello\|world`},
		// testControlCharsStrippedFromToken: 'a\x01b' is the one term 'ab'.
		{"a\x01b", "ab"},
		// testNulStopsTokenization: nothing after a NUL is indexed.
		{"foo\x00bar", "foo"},
		{"\x00foo", ""},
		// \r and \n are control characters, not separators (ToksepMap_g
		// has only space and tab): the genesis.txt case.
		{"Genesis\r\nIsaac", "genesisisaac"},
		{"the\r\n\r\n    {1:1} In", "the|1|1|in"},
		// Tab separates; an escaped tab does not, and is removed.
		{"tab\there", "tab|here"},
		{"tab\\\there", "tabhere"},
		// An escaped space stays in the word.
		{`a\ b`, "a b"},
		// DEL, \v, \f and other control bytes are removed; a word left
		// empty is no word.
		{"x\x7fy \x1f \x0b\x0c z", "xy|z"},
		// An unescaped backslash is removed, an escaped one kept.
		{`hel\lo`, "hello"},
		{`\\`, `\`},
		{`\`, ""},
		{`a\`, "a"},
		// Every separator of ToksepMap_g.
		{"a,b.c/d(e)f{g}h[i]j:k;l~m!n@o#p$q%r^s&t*u-v=w+x|y'z`A\"B<C>D?E", "a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q|r|s|t|u|v|w|x|y|z|a|b|c|d|e"},
	} {
		if got := strings.Join(words(c.text), "|"); got != c.want {
			t.Errorf("%q: got %q, want %q", c.text, got, c.want)
		}
	}
}

// TestTextWordsEveryByte checks "a"+b+"b" for every byte against the two
// tables that define RediSearch's tokenizer: ToksepMap_g (a separator
// splits) and iscntrl (removed), the backslash (removed unless escaped),
// anything else kept and lower-cased.
func TestTextWordsEveryByte(t *testing.T) {
	seps := " \t,./(){}[]:;~!@#$%^&*-=+|'`\"<>?"
	for b := 1; b < 256; b++ {
		c := byte(b)
		var want string
		switch {
		case strings.IndexByte(seps, c) >= 0:
			want = "a|b"
		case c < 0x20 || c == 0x7f || c == '\\':
			want = "ab"
		case c >= 'A' && c <= 'Z':
			want = "a" + string(rune(c+'a'-'A')) + "b"
		default:
			want = "a" + string([]byte{c}) + "b"
		}
		if got := strings.Join(words("a"+string([]byte{c})+"b"), "|"); got != want {
			t.Errorf("byte %#x: got %q, want %q", c, got, want)
		}
	}
}

// TestHighlightTokensAgree: the highlighter reads a text's words, offsets
// and positions exactly as the indexer does (one tokenizer for both).
func TestHighlightTokensAgree(t *testing.T) {
	text := "The\r\nFirst Book, of\x01 Moses\\-x \x00 after"
	stop := map[string]bool{"the": true, "of": true}
	var idx, hl []string
	tokenize(text, stop, func(tk token) { idx = append(idx, tk.word) })
	var offs []int
	var raws []string
	hlTokens(text, stop, func(pos uint32, off, n int, w string) {
		hl = append(hl, w)
		offs = append(offs, off)
		raws = append(raws, text[off:off+n])
		if int(pos) != len(hl) {
			t.Errorf("%q at position %d, want %d", w, pos, len(hl))
		}
	})
	want := "thefirst|book|moses-x"
	if g := strings.Join(idx, "|"); g != want {
		t.Errorf("indexed %q, want %q", g, want)
	}
	if g := strings.Join(hl, "|"); g != want {
		t.Errorf("highlighted %q, want %q", g, want)
	}
	if len(offs) == 3 && (offs[0] != 0 || offs[1] != 11 || offs[2] != 21) {
		t.Errorf("offsets %v, want [0 11 21]", offs)
	}
	if g := strings.Join(raws, "|"); g != "The\r\nFirst|Book|Moses\\-x" {
		t.Errorf("raw words %q", g)
	}
}

// quoteWord escapes w for a query: a backslash before each separator and
// backslash.
func quoteWord(w string) string {
	var sb strings.Builder
	for i := 0; i < len(w); i++ {
		if isSep(w[i]) || w[i] == '\\' {
			sb.WriteByte('\\')
		}
		sb.WriteByte(w[i])
	}
	return sb.String()
}

// TestQueryWordsAgree: every word a document is indexed under is found by
// the query that names it (separators escaped), and a query word reads
// white space and control characters as the lexer does: they separate.
func TestQueryWordsAgree(t *testing.T) {
	for _, text := range []string{
		`hello\-world`, `hello\\,world`, "Genesis\r\nIsaac", "a\x01b", "x\x7fy",
		`a\ b`, "Über", `e\.g\.`, "tab\\\there", `hel\lo`, "a_b",
	} {
		for _, w := range words(text) {
			if !utf8.ValidString(w) {
				continue
			}
			q := quoteWord(w)
			n, err := parseQuery(q, nil, nil)
			if err != nil {
				t.Errorf("%q (word %q of %q): %v", q, w, text, err)
				continue
			}
			if got := show(n); got != ":"+w {
				t.Errorf("%q (word %q of %q): parsed as %s", q, w, text, got)
			}
		}
	}
	for _, c := range []struct{ q, want string }{
		// RediSearch's lexer skips space and cntrl between tokens.
		{"tab\x01here", "(and :tab :here)"},
		{"genesis\r\nisaac", "(and :genesis :isaac)"},
		{"a\x0bb\x0cc", "(and :a :b :c)"},
		// An escaped control character is removed, as in documents.
		{"tab\\\there", ":tabhere"},
		{`hel\lo`, ":hello"},
		{`abc\`, ":abc"},
		{`hello\\`, `:hello\`},
	} {
		n, err := parseQuery(c.q, nil, nil)
		if err != nil {
			t.Errorf("%q: %v", c.q, err)
			continue
		}
		if got := show(n); got != c.want {
			t.Errorf("%q: parsed as %s, want %s", c.q, got, c.want)
		}
	}
}

// FuzzTokenQueryAgree: any word a text is indexed under is found by the
// query naming it (its separators and backslashes escaped).
func FuzzTokenQueryAgree(f *testing.F) {
	for _, s := range []string{"Genesis\r\nIsaac", `hello\-world`, `hello\\,world`, "a\x01b\x00c", "Über straße", `\`, "1e5 -3 $x %y%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		textWords(text, func(off, end int, w string) {
			if off < 0 || end > len(text) || off >= end || strings.IndexByte(w, 0) >= 0 {
				t.Fatalf("%q: word %q at [%d:%d]", text, w, off, end)
			}
			q := quoteWord(w)
			n, err := parseQuery(q, nil, nil)
			if err != nil {
				t.Fatalf("%q (word %q of %q): %v", q, w, text, err)
			}
			if got := show(n); got != ":"+w {
				t.Fatalf("%q (word %q of %q): parsed as %s", q, w, text, got)
			}
		})
	})
}
