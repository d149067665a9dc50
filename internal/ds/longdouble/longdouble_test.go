package longdouble

import (
	"math/big"
	"testing"
)

func TestParseFormat(t *testing.T) {
	// Round trips as redis-server 7.0 prints them (INCRBYFLOAT key 0).
	for in, want := range map[string]string{
		"10.5":                "10.5",
		"3.0e3":               "3000",
		"-0":                  "0",
		"0x10":                "16",
		"0x.8":                "0.5",
		"0X1A":                "26",
		"1.00000000000000001": "1.00000000000000001",
		"+1.5":                "1.5",
	} {
		f, ok := Parse([]byte(in))
		if !ok {
			t.Fatalf("Parse(%q) refused", in)
		}
		if got := Format(f); got != want {
			t.Errorf("Format(Parse(%q)) = %q, want %q", in, got, want)
		}
	}
	for _, bad := range []string{"", " 1", "1 ", "nan", "-nan", "--1", "+-1", "1_0", "0x", "0x.", "1e5000", "1e-5000", "abc"} {
		if _, ok := Parse([]byte(bad)); ok {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	for _, inf := range []string{"inf", "-Infinity", "+INF"} {
		if f, ok := Parse([]byte(inf)); !ok || !f.IsInf() {
			t.Errorf("Parse(%q) = %v %v, want an infinity", inf, f, ok)
		}
	}
}

func TestAdd(t *testing.T) {
	p := func(s string) *big.Float {
		f, ok := Parse([]byte(s))
		if !ok {
			t.Fatalf("Parse(%q)", s)
		}
		return f
	}
	if s, ok := Add(p("10.5"), p("0.1")); !ok || Format(s) != "10.6" {
		t.Fatalf("10.5 + 0.1 = %v %v", s, ok)
	}
	if _, ok := Add(p("1"), p("inf")); ok {
		t.Fatal("1 + inf accepted")
	}
	big1 := p("0x1p16383")
	if _, ok := Add(big1, big1); ok {
		t.Fatal("overflow accepted")
	}
}

func BenchmarkIncr(b *testing.B) {
	cur, incr := []byte("10.5"), []byte("0.1")
	for i := 0; i < b.N; i++ {
		x, _ := Parse(cur)
		y, _ := Parse(incr)
		s, _ := Add(x, y)
		_ = Format(s)
	}
}
