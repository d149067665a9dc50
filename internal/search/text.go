package search

import (
	"strings"
	"unicode/utf8"

	"github.com/kljensen/snowball"
)

// Text analysis, as RediSearch 2.x's default tokenizer: a word is a
// maximal run of bytes that are not separators (sepMap), case-folded; a
// backslash before a separator makes the separator part of the word;
// stop words are dropped without taking a position; every other word
// takes the next position (from 1, per field) and, when the field stems
// and the language has a stemmer, its Snowball stem is indexed too, at
// the same position, as the term "+stem" when it differs from the word.

// sepMap is RediSearch's ToksepMap_g: space, tab and
// ,./(){}[]:;~!@#$%^&*-=+|'`"<>?
var sepMap = func() (m [256]bool) {
	for _, c := range []byte(" \t,./(){}[]:;~!@#$%^&*-=+|'`\"<>?") {
		m[c] = true
	}
	return
}()

func isSep(c byte) bool { return sepMap[c] }

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
	var sb []byte // a word with escapes, rebuilt
	var pos uint32
	start, escaped := 0, false
	emit := func(w string) {
		w = foldTerm(w)
		if stop[w] {
			return
		}
		pos++
		fn(token{w, pos})
	}
	flush := func(end int) {
		if escaped {
			if len(sb) > 0 {
				emit(string(sb))
			}
			sb, escaped = sb[:0], false
		} else if end > start {
			emit(s[start:end]) // a view of s: no copy for a plain word
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isSep(s[i+1]):
			if !escaped {
				sb, escaped = append(sb[:0], s[start:i]...), true
			}
			sb = append(sb, s[i+1])
			i++
		case isSep(c):
			flush(i)
			start = i + 1
		default:
			if escaped {
				sb = append(sb, c)
			}
		}
	}
	flush(len(s))
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
