// Package glob is Redis's glob matcher (util.c's stringmatchlen), used by
// KEYS, SCAN/HSCAN/SSCAN/ZSCAN MATCH, CONFIG GET and COMMAND LIST FILTERBY
// PATTERN.
//
// # Guarantees
//
//   - Byte-wise matching of * ? [abc] [a-z] (reversed ranges allowed)
//     [^...] and \ escapes, with Redis's treatment of malformed patterns:
//     an unterminated [ set ends at the end of the pattern, a trailing \
//     matches a literal backslash. nocase folds ASCII letters only.
//   - Recursion is bounded: past 1000 nested stars the match fails
//     rather than exhausting the stack. As in Redis 7.0 (skipLongerMatches),
//     a star whose rest of pattern matches nowhere ends the whole match, so
//     the time is polynomial, not exponential, in the number of stars.
//   - The empty string matches only the empty pattern, as in Redis (a
//     lone "*" included: KEYS and SCAN special-case it before matching).
//   - Pure functions: safe for concurrent use, no allocation.
package glob

// Match reports whether s matches the glob pattern as Redis's
// stringmatchlen does (KEYS, SCAN MATCH, CONFIG GET): * ? [abc] [^a-z]
// and \ escapes, byte-wise. As there, the empty string matches only the
// empty pattern (not even "*" or "**": callers that treat a lone "*" as
// "everything", as KEYS and SCAN do, test for it themselves).
func Match(pattern, s []byte, nocase bool) bool {
	skipLonger := false
	return matchAt(pattern, s, nocase, 0, &skipLonger)
}

func foldByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// matchAt is stringmatchlen_impl. skipLonger is Redis's
// skipLongerMatches: once the rest of the pattern after a star matches
// nowhere in the rest of the string, no earlier star can make it match
// either, so the whole match fails at once (this keeps patterns with many
// stars polynomial, as in Redis 7.0).
func matchAt(p, s []byte, nocase bool, depth int, skipLonger *bool) bool {
	if depth > 1000 { // bounded recursion: fail rather than exhaust the stack
		return false
	}
	for len(p) > 0 && len(s) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for i := 0; i < len(s); i++ {
				if matchAt(p[1:], s[i:], nocase, depth+1, skipLonger) {
					return true
				}
				if *skipLonger {
					return false
				}
			}
			*skipLonger = true
			return false
		case '?':
			s = s[1:]
		case '[':
			p = p[1:]
			not := len(p) > 0 && p[0] == '^'
			if not {
				p = p[1:]
			}
			match := false
			for {
				if len(p) == 0 {
					break
				}
				if p[0] == '\\' && len(p) >= 2 {
					p = p[1:]
					if p[0] == s[0] {
						match = true
					}
				} else if p[0] == ']' {
					break
				} else if len(p) >= 3 && p[1] == '-' {
					start, end := p[0], p[2]
					if start > end {
						start, end = end, start
					}
					c := s[0]
					if nocase {
						start, end, c = foldByte(start), foldByte(end), foldByte(c)
					}
					p = p[2:]
					if c >= start && c <= end {
						match = true
					}
				} else if nocase && foldByte(p[0]) == foldByte(s[0]) || p[0] == s[0] {
					match = true
				}
				p = p[1:]
			}
			if len(p) == 0 { // unterminated [: Redis treats the end as ']'
				p = []byte{']'}
			}
			if not {
				match = !match
			}
			if !match {
				return false
			}
			s = s[1:]
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if nocase {
				if foldByte(p[0]) != foldByte(s[0]) {
					return false
				}
			} else if p[0] != s[0] {
				return false
			}
			s = s[1:]
		}
		p = p[1:]
		if len(s) == 0 {
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			break
		}
	}
	return len(p) == 0 && len(s) == 0
}
