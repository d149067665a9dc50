package tuple

import (
	"bytes"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// ratOf is an independent reference for decimal values.
func ratOf(t testing.TB, s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("big.Rat cannot parse %q", s)
	}
	return r
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

func TestDecimalParseAndString(t *testing.T) {
	cases := map[string]string{
		"25500":            "25500",
		"25500.05":         "25500.05",
		"25500.10":         "25500.1",
		"-0.001":           "-0.001",
		"0.000":            "0",
		"-0":               "0",
		"+7":               "7",
		"007.50":           "7.5",
		"1.5e-3":           "0.0015",
		"12E3":             "12000",
		".5":               "0.5",
		"5.":               "5",
		"9007199254740993": "9007199254740993", // 2^53+1: beyond float64
		"123456789012345678901234567890.000000000000000000001": "123456789012345678901234567890.000000000000000000001",
	}
	for in, want := range cases {
		d, err := ParseDecimal(in)
		if err != nil {
			t.Errorf("ParseDecimal(%q): %v", in, err)
			continue
		}
		if got := d.String(); got != want {
			t.Errorf("ParseDecimal(%q).String() = %q, want %q", in, got, want)
		}
	}
	for _, bad := range []string{"", "-", ".", "1.2.3", "abc", "NaN", "inf", "1e", "1 2", "0x10", "1_000", "--1", "1e99999999999"} {
		if _, err := ParseDecimal(bad); err == nil {
			t.Errorf("ParseDecimal(%q) accepted", bad)
		}
	}
	if MustDecimal("25500.10") != MustDecimal("25500.1") {
		t.Error("25500.10 and 25500.1 are different Go values")
	}
}

func randDecimalString(r *rand.Rand) string {
	var b strings.Builder
	if r.IntN(2) == 0 {
		b.WriteByte('-')
	}
	n := r.IntN(25)
	for i := 0; i < n; i++ {
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	if r.IntN(2) == 0 {
		b.WriteByte('.')
		for i := r.IntN(25); i >= 0; i-- {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
	} else if n == 0 {
		b.WriteByte('0')
	}
	return b.String()
}

func TestDecimalOrderMatchesValue(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var vals []string
	for i := 0; i < 3000; i++ {
		vals = append(vals, randDecimalString(r))
	}
	vals = append(vals, "0", "-0.001", "25500", "25500.05", "25500.1", "25500.12346", "25505.2", "-25500", "1e30", "-1e30", "1e-30")
	for i := 0; i < 20000; i++ {
		a, b := vals[r.IntN(len(vals))], vals[r.IntN(len(vals))]
		checkDecimalPair(t, a, b)
	}
}

func checkDecimalPair(t testing.TB, a, b string) {
	da, errA := ParseDecimal(a)
	db, errB := ParseDecimal(b)
	if errA != nil || errB != nil {
		return
	}
	want := ratOf(t, da.String()).Cmp(ratOf(t, db.String()))
	if got := da.Cmp(db); got != want {
		t.Fatalf("Cmp(%s, %s) = %d, want %d", a, b, got, want)
	}
	pa, pb := MustPack(da), MustPack(db)
	if got := sign(bytes.Compare(pa, pb)); got != want {
		t.Fatalf("order of Pack(%s) %x vs Pack(%s) %x = %d, want %d", a, pa, b, pb, got, want)
	}
	back, err := Unpack(pa)
	if err != nil || len(back) != 1 || back[0] != da {
		t.Fatalf("Unpack(Pack(%s)) = %v, %v", a, back, err)
	}
	if ratOf(t, a).Cmp(ratOf(t, da.String())) != 0 {
		t.Fatalf("ParseDecimal(%s) changed the value to %s", a, da)
	}
}

func TestIntegerOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var vals []*big.Int
	for _, n := range []int64{0, 1, -1, 255, 256, -255, -256, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		vals = append(vals, big.NewInt(n))
	}
	for i := 0; i < 2000; i++ {
		bits := r.IntN(300)
		x := new(big.Int)
		for j := 0; j < bits; j += 32 {
			x.Lsh(x, 32).Or(x, big.NewInt(int64(r.Uint32())))
		}
		if r.IntN(2) == 0 {
			x.Neg(x)
		}
		vals = append(vals, x)
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i].Cmp(vals[j]) < 0 })
	var prev []byte
	for i, v := range vals {
		p, err := Pack(v)
		if err != nil {
			t.Fatalf("Pack(%v): %v", v, err)
		}
		if i > 0 && bytes.Compare(prev, p) > 0 {
			t.Fatalf("Pack(%v) sorts before Pack(%v)", v, vals[i-1])
		}
		got, err := Unpack(p)
		if err != nil || len(got) != 1 {
			t.Fatalf("Unpack(Pack(%v)): %v %v", v, got, err)
		}
		switch g := got[0].(type) {
		case int64:
			if !v.IsInt64() || v.Int64() != g {
				t.Fatalf("round trip %v -> %v", v, g)
			}
		case *big.Int:
			if g.Cmp(v) != 0 {
				t.Fatalf("round trip %v -> %v", v, g)
			}
		}
		prev = p
	}
	huge := new(big.Int).Lsh(big.NewInt(1), 8*256)
	if _, err := Pack(huge); err == nil {
		t.Error("an integer of 257 bytes was accepted")
	}
}

func TestFloatOrder(t *testing.T) {
	vals := []float64{math.Inf(-1), -math.MaxFloat64, -1e10, -1.5, -math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0,
		math.SmallestNonzeroFloat64, 1, 1.5, 1e10, math.MaxFloat64, math.Inf(1)}
	for i := 1; i < len(vals); i++ {
		a, b := MustPack(vals[i-1]), MustPack(vals[i])
		if bytes.Compare(a, b) >= 0 {
			t.Errorf("Pack(%v) >= Pack(%v)", vals[i-1], vals[i])
		}
	}
	for _, v := range vals {
		got, _ := Unpack(MustPack(v))
		if math.Float64bits(got[0].(float64)) != math.Float64bits(v) {
			t.Errorf("round trip %v -> %v", v, got[0])
		}
	}
	if _, err := Pack(math.NaN()); err == nil {
		t.Error("NaN accepted")
	}
}

func TestStringsBinarySafeAndPrefix(t *testing.T) {
	vals := []string{"", "\x00", "\x00\x00", "\x00\xff", "\x01", "a", "a\x00", "a\x00b", "a:b", "ab", "b", "\xff", "\xff\xff"}
	for i := 1; i < len(vals); i++ {
		if bytes.Compare(MustPack(vals[i-1]), MustPack(vals[i])) >= 0 {
			t.Errorf("Pack(%q) >= Pack(%q)", vals[i-1], vals[i])
		}
		// Two-element tuples: the first element's bytes never bleed into the second.
		x, y := MustPack(vals[i-1], "zzz"), MustPack(vals[i], "")
		if bytes.Compare(x, y) >= 0 {
			t.Errorf("Pack(%q, zzz) >= Pack(%q, \"\")", vals[i-1], vals[i])
		}
	}
	for _, v := range vals {
		got, err := Unpack(MustPack(v, []byte(v), int64(7)))
		if err != nil || !reflect.DeepEqual(got, Tuple{v, []byte(v), int64(7)}) {
			t.Errorf("round trip %q: %#v %v", v, got, err)
		}
	}
	begin, end, _ := PrefixRange(int64(56))
	for _, in := range [][]any{{int64(56)}, {int64(56), MustDecimal("28.44"), "90"}, {int64(56), "\xff\xff"}} {
		p := MustPack(in...)
		if bytes.Compare(p, begin) < 0 || bytes.Compare(p, end) >= 0 {
			t.Errorf("%v outside PrefixRange(56)", in)
		}
	}
	for _, out := range [][]any{{int64(55), "zz"}, {int64(57)}, {int64(560)}} {
		p := MustPack(out...)
		if bytes.Compare(p, begin) >= 0 && bytes.Compare(p, end) < 0 {
			t.Errorf("%v inside PrefixRange(56)", out)
		}
	}
}

// The composite index of the secondary-indexing page: room, price, id.
func TestCompositeOrderLikeThePage(t *testing.T) {
	rows := []struct {
		room  int64
		price string
		id    string
	}{{56, "28.44", "90"}, {56, "10", "2"}, {56, "100.5", "7"}, {44, "9.99", "1"}, {56, "-3", "4"}}
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = string(MustPack(r.room, MustDecimal(r.price), r.id))
	}
	sort.Strings(keys)
	var got []string
	for _, k := range keys {
		tu, _ := Unpack([]byte(k))
		got = append(got, strconv.FormatInt(tu[0].(int64), 10)+":"+tu[1].(Decimal).String()+":"+tu[2].(string))
	}
	want := []string{"44:9.99:1", "56:-3:4", "56:10:2", "56:28.44:90", "56:100.5:7"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("composite order %v, want %v", got, want)
	}
}

func TestUnpackGarbageNeverPanics(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 20000; i++ {
		b := make([]byte, r.IntN(20))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		Unpack(b) //nolint: only the absence of a panic matters here
	}
}

func FuzzDecimalOrder(f *testing.F) {
	f.Add("25500.12346", "25505.2")
	f.Add("-0.001", "0")
	f.Add("1e-5", "0.00001")
	f.Fuzz(func(t *testing.T, a, b string) { checkDecimalPair(t, a, b) })
}

func FuzzUnpack(f *testing.F) {
	f.Add(MustPack("a\x00b", int64(-300), MustDecimal("-12.5"), 1.5, true))
	f.Fuzz(func(t *testing.T, b []byte) {
		tu, err := Unpack(b)
		if err != nil {
			return
		}
		p, err := Pack(tu...)
		if err != nil {
			t.Fatalf("Pack(Unpack(%x)) failed: %v", b, err)
		}
		again, err := Unpack(p)
		if err != nil || !reflect.DeepEqual(again, tu) {
			t.Fatalf("Unpack(Pack(Unpack(%x))) = %v, %v; want %v", b, again, err, tu)
		}
	})
}
