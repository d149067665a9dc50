package engine

import "testing"

func TestIncrLongDoubleMatchesRedis(t *testing.T) {
	// Expected values are redis-server 7.0's replies to INCRBYFLOAT.
	cases := []struct{ cur, incr, want string }{
		{"10.5", "0.1", "10.6"},
		{"", "3.0e3", "3000"},
		{"5.0e3", "2.0e2", "5200"},
		{"0", "-0", "0"},
		{"1", "0.00000000000000001", "1.00000000000000001"},
		{"", "1.1", "1.1"},
		{"", "0x10", "16"},
		{"", "0x1p4", "16"},
		{"", "0X1A", "26"},
		{"", "0x.8", "0.5"},
		{"", "0x1P-2", "0.25"},
	}
	for _, c := range cases {
		got, err := IncrLongDouble(c.cur, []byte(c.incr), ErrNotFloat)
		if err != "" || got != c.want {
			t.Errorf("%s + %s = %q (%s), want %q", c.cur, c.incr, got, err, c.want)
		}
	}
	if _, err := IncrLongDouble("abc", []byte("1"), ErrNotFloat); err != ErrNotFloat {
		t.Errorf("non-float current value: %q", err)
	}
	for _, inf := range []string{"inf", "infinity", "-Infinity", "+inf"} {
		if _, err := IncrLongDouble("1", []byte(inf), ErrNotFloat); err != "ERR increment would produce NaN or Infinity" {
			t.Errorf("%s increment: %q", inf, err)
		}
	}
	for _, bad := range []string{"0x", "1e5000", " 1", "1e-5000", "nan", "--1"} {
		if _, err := IncrLongDouble("1", []byte(bad), ErrNotFloat); err != ErrNotFloat {
			t.Errorf("%q increment: %q, want not-a-float", bad, err)
		}
	}
}
