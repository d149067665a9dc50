package resp

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"
)

// refParseInt is Redis's string2ll written as its grammar, apart from
// parseInt's own code: "0" or an optional '-' and digits without a
// leading zero, within int64 (so no '+', no "-0", no spaces).
func refParseInt(b []byte) (int64, bool) {
	if !intGrammar.Match(b) {
		return 0, false
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

var intGrammar = regexp.MustCompile(`^(0|-?[1-9][0-9]*)$`)

// TestParseIntFastPath checks that the multibulk and bulk lengths a
// request carries are parsed exactly as before the fast path: the same
// numbers accepted and the same refused (leading zeros, signs, spaces,
// overflow), so the same protocol errors reach clients.
func TestParseIntFastPath(t *testing.T) {
	cases := []string{"", "0", "00", "01", "1", "9", "10", "-1", "-0", "+1", " 1", "1 ", "1a", "a1",
		"123456789012345678", "999999999999999999", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809", "12345678901234567890", "1\x00", ":", "/"}
	rng := rand.New(rand.NewPCG(3, 4))
	const alphabet = "0123456789-+ a"
	for range 20000 {
		n := rng.IntN(22)
		b := make([]byte, n)
		for i := range b {
			if rng.IntN(8) == 0 {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			} else {
				b[i] = byte('0' + rng.IntN(10))
			}
		}
		cases = append(cases, string(b))
	}
	for _, c := range cases {
		gv, gok := parseInt([]byte(c))
		wv, wok := refParseInt([]byte(c))
		if gv != wv || gok != wok {
			t.Fatalf("parseInt(%q) = %d, %v; want %d, %v", c, gv, gok, wv, wok)
		}
	}
}
