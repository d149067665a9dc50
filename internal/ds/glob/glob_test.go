package glob

import "testing"

func TestMatch(t *testing.T) {
	cases := []struct {
		pat, s string
		nocase bool
		want   bool
	}{
		{"*", "", false, false}, // stringmatchlen: KEYS/SCAN special-case a lone "*"
		{"**", "", false, false},
		{"*?", "", false, false},
		{"a*", "a", false, true},
		{"a**", "a", false, true},
		{"*a*", "a", false, true},
		{"*", "anything", false, true},
		{"h?llo", "hello", false, true},
		{"h?llo", "hllo", false, false},
		{"h*llo", "heeeello", false, true},
		{"h[ae]llo", "hallo", false, true},
		{"h[ae]llo", "hillo", false, false},
		{"h[^e]llo", "hallo", false, true},
		{"h[^e]llo", "hello", false, false},
		{"h[a-b]llo", "hbllo", false, true},
		{"h[b-a]llo", "hallo", false, true}, // reversed range
		{"h\\*llo", "h*llo", false, true},
		{"h\\*llo", "hello", false, false},
		{"HELLO", "hello", false, false},
		{"HELLO", "hello", true, true},
		{"h[A-Z]llo", "hello", true, true},
		{"user:*:name", "user:42:name", false, true},
		{"user:*:name", "user:42:age", false, false},
		{"a[", "a", false, false},
		{"a[bc", "ab", false, true}, // unterminated set
		{"a\\", "a\\", false, true}, // trailing backslash
		{"**a", "bba", false, true},
		{"", "", false, true},
		{"", "a", false, false},
	}
	for _, c := range cases {
		if got := Match([]byte(c.pat), []byte(c.s), c.nocase); got != c.want {
			t.Errorf("Match(%q, %q, %v) = %v, want %v", c.pat, c.s, c.nocase, got, c.want)
		}
	}
}

// TestMatchManyStars: a pattern of many stars that cannot match fails
// fast (Redis 7.0's skipLongerMatches), instead of trying every split.
func TestMatchManyStars(t *testing.T) {
	s := make([]byte, 4000)
	for i := range s {
		s[i] = 'a'
	}
	pat := []byte("a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b")
	if Match(pat, s, false) {
		t.Fatal("matched")
	}
	if !Match(pat[:len(pat)-2], s, false) {
		t.Fatal("no match")
	}
}

func BenchmarkMatch(b *testing.B) {
	pat, s := []byte("user:*:session:[0-9]*"), []byte("user:1234567:session:42")
	for i := 0; i < b.N; i++ {
		if !Match(pat, s, false) {
			b.Fatal("no match")
		}
	}
}
