package search

import (
	"strings"

	"github.com/antzucaro/matchr"
)

// Phonetic matching: a TEXT field declared PHONETIC dm:en (dm:fr, dm:pt,
// dm:es are accepted and use the same English rules) indexes, for every
// word, its Double Metaphone primary and secondary codes as the terms
// "<code" (RediSearch's PHONETIC_PREFIX). A query term searched in such a
// field also matches the documents sharing one of its codes, unless the
// query is VERBATIM, as RediSearch's phonetic expander does. The codes
// come from github.com/antzucaro/matchr's DoubleMetaphone.

const phoneticPrefix = "<"

// validPhonetic reports whether m is a PHONETIC matcher RediSearch knows.
func validPhonetic(m string) bool {
	switch strings.ToLower(m) {
	case "dm:en", "dm:fr", "dm:pt", "dm:es":
		return true
	}
	return false
}

// phoneticCodes are the distinct non-empty Double Metaphone codes of w.
func phoneticCodes(w string) []string {
	if w == "" {
		return nil
	}
	p, s := matchr.DoubleMetaphone(w)
	switch {
	case p == "" && s == "":
		return nil
	case s == "" || s == p:
		return []string{p}
	case p == "":
		return []string{s}
	}
	return []string{p, s}
}
