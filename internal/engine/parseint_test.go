package engine

import (
	"strconv"
	"testing"
)

// TestParseInt checks ParseInt against Redis's string2ll rules: a
// canonical decimal int64 (no '+', no leading zeros, no "-0"), at most
// 20 bytes, using strconv as the arithmetic reference.
func TestParseInt(t *testing.T) {
	ref := func(s string) (int64, bool) {
		if s == "" || len(s) > 20 || s[0] == '+' || (s[0] == '0' && len(s) > 1) ||
			(s[0] == '-' && (len(s) == 1 || s[1] == '0')) {
			return 0, false
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, false
		}
		return n, true
	}
	cases := []string{"", "0", "-0", "00", "01", "+1", "-", "1", "-1", "12a", "a", " 1", "1 ",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616", "99999999999999999999", "-99999999999999999999",
		"922337203685477580", "9223372036854775800", "-922337203685477581", "123456789012345678901"}
	for i := int64(1); i < 1<<62; i *= 7 {
		cases = append(cases, strconv.FormatInt(i, 10), strconv.FormatInt(-i, 10), strconv.FormatInt(i, 10)+"x")
	}
	for _, s := range cases {
		n, ok := ParseInt([]byte(s))
		wn, wok := ref(s)
		if n != wn || ok != wok {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, %v", s, n, ok, wn, wok)
		}
	}
	if a := testing.AllocsPerRun(100, func() { ParseInt([]byte("value")) }); a != 0 {
		t.Errorf("ParseInt of a non-number allocates %v times", a)
	}
}
