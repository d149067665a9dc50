package search

import (
	"strings"
	"unicode/utf8"

	"github.com/kljensen/snowball"
)

// Text analysis, as RediSearch 2.x's simple tokenizer (src/toksep.h,
// DefaultNormalize in src/tokenize.c), for indexing, highlighting and
// query words alike:
//   - a word is a maximal run of bytes that are not separators (sepMap);
//     a separator after an unescaped backslash is part of the word (so
//     `hello\-world` is one word, `hello\\,world` two);
//   - the text ends at its first NUL byte, as toksep's C-string loop does
//     (RediSearch's test_terms_trie_encoding.py testNulStopsTokenization);
//   - in a word, control characters (0x00-0x1f, 0x7f) are removed, \r and
//     \n included: they are not separators, so "Genesis\r\nIsaac" is the
//     one word "genesisisaac", as in RediSearch; unescaped backslashes are
//     removed (an escaped one is kept); the word is then lower-cased
//     (Unicode; invalid UTF-8 is lower-cased byte by byte);
//   - a word that becomes empty takes no position, nor does a stop word;
//     every other word takes the next position (from 1, per field) and,
//     when the field stems and the language has a stemmer, its Snowball
//     stem is indexed too, at the same position, as the term "+stem" when
//     it differs from the word.

// sepMap is RediSearch's ToksepMap_g: space, tab and
// ,./(){}[]:;~!@#$%^&*-=+|'`"<>?
var sepMap = func() (m [256]bool) {
	for _, c := range []byte(" \t,./(){}[]:;~!@#$%^&*-=+|'`\"<>?") {
		m[c] = true
	}
	return
}()

func isSep(c byte) bool { return sepMap[c] }

// isCtl reports a control character (C's iscntrl), removed from words.
func isCtl(c byte) bool { return c < 0x20 || c == 0x7f }

// stemPrefix marks an indexed stem (RediSearch's STEM_PREFIX).
const stemPrefix = "+"

// stemFactor scales a field's weight for the frequency of a stem
// (RediSearch's STEM_TOKEN_FACTOR).
const stemFactor float32 = 0.2

// languages are the LANGUAGE values RediSearch accepts; those the Snowball
// library implements stem, the others index words unstemmed.
var languages = map[string]bool{
	"arabic": false, "armenian": false, "basque": false, "catalan": false, "danish": false,
	"dutch": false, "english": true, "finnish": false, "french": true, "german": false,
	"greek": false, "hindi": false, "hungarian": true, "indonesian": false, "irish": false,
	"italian": false, "lithuanian": false, "nepali": false, "norwegian": true,
	"portuguese": false, "romanian": false, "russian": true, "serbian": false,
	"spanish": true, "swedish": true, "tamil": false, "turkish": false, "yiddish": false,
	"chinese": false,
}

// validLanguage reports whether RediSearch knows the language (any case).
func validLanguage(l string) bool {
	_, ok := languages[strings.ToLower(l)]
	return ok
}

// stem returns the Snowball stem of word in language ("" if the language
// has no stemmer here).
func stem(word, lang string) string {
	lang = strings.ToLower(lang)
	if !languages[lang] || word == "" {
		return ""
	}
	// The library trims and lower-cases; a word with other characters it
	// cannot handle is returned as is.
	s, err := snowball.Stem(word, lang, true)
	if err != nil {
		return ""
	}
	return s
}

// token is one word of a text with its position.
type token struct {
	word string
	pos  uint32
}

// tokenize calls fn for every word of s that is not a stop word (stop may
// be nil), with positions from 1.
func tokenize(s string, stop map[string]bool, fn func(t token)) {
	var pos uint32
	textWords(s, func(_, _ int, w string) {
		if stop[w] {
			return
		}
		pos++
		fn(token{w, pos})
	})
}

// textWords calls fn for each non-empty normalized word of s (stop words
// included) with s[off:end], the word as written. The highlighter
// (hlTokens) and the indexer share it, so they never disagree.
func textWords(s string, fn func(off, end int, w string)) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	var buf []byte
	start, escaped := 0, false
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			c := s[i]
			if !isSep(c) || escaped {
				escaped = !escaped && c == '\\'
				continue
			}
		}
		if i > start {
			if w := normWord(s[start:i], &buf); w != "" {
				fn(start, i, w)
			}
		}
		start, escaped = i+1, false
	}
}

// normWord is DefaultNormalize: raw without its control characters,
// unescaped backslashes and unescaped blanks, case-folded. A word with
// none of those is folded in place (no copy when already lower case);
// buf is scratch space for the others.
func normWord(raw string, buf *[]byte) string {
	plain := true
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c == '\\' || c == ' ' || isCtl(c) {
			plain = false
			break
		}
	}
	if plain {
		return foldTerm(raw)
	}
	b := (*buf)[:0]
	escaped, ascii := false, true
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case (c == ' ' || c == '\t') && !escaped, isCtl(c):
		case c == '\\' && !escaped:
			escaped = true
			continue
		default:
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A' // folded here: one string, not two
			}
			ascii = ascii && c < utf8.RuneSelf
			b = append(b, c)
		}
		escaped = false
	}
	*buf = b
	if len(b) == 0 {
		return ""
	}
	if !ascii {
		return foldTerm(string(b))
	}
	return string(b)
}

// foldTerm is the case-folded form of a word (Unicode lower case; invalid
// UTF-8 is kept byte for byte).
func foldTerm(w string) string {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			if !utf8.ValidString(w) {
				return asciiLower(w)
			}
			return strings.ToLower(w)
		}
	}
	return w
}

func asciiLower(w string) string {
	b := []byte(w)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// levenshtein is the edit distance of a and b (runes), or more than max
// once it exceeds max.
func levenshtein(a, b string, max int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > max || -d > max {
		return max + 1
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > max {
			return max + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
