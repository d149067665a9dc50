package hll

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestPatLen pins the hash and register of a few elements; the index and
// count were read from redis-server 7.0.15 (PFADD k <ele>; PFDEBUG
// DECODE k gives "Z:<index> v:<count>,1 ..."), and the engine's
// differential tests compare the bytes of thousands more.
func TestPatLen(t *testing.T) {
	for _, c := range []struct {
		ele   string
		hash  uint64
		index int
		count uint8
	}{
		{"", 0xd8dfea6585bc9732, 5938, 2},
		{"a", 0x53d2470a9b43b1a7, 12711, 2},
		{"abcdefgh", 0xf3a65df559914567, 1383, 1},
		{"hello world", 0xa919bc3051f624b7, 9399, 4},
	} {
		if h := MurmurHash64A([]byte(c.ele), hashSeed); h != c.hash {
			t.Errorf("MurmurHash64A(%q) = %#x, want %#x", c.ele, h, c.hash)
		}
		if i, n := PatLen([]byte(c.ele)); i != c.index || n != c.count {
			t.Errorf("PatLen(%q) = %d, %d; want %d, %d", c.ele, i, n, c.index, c.count)
		}
	}
}

func TestNew(t *testing.T) {
	b := New()
	if !Valid(b) || Encoding(b) != Sparse || len(b) != HeaderSize+2 {
		t.Fatalf("New: %q", b)
	}
	if got := Decode(b); got != "Z:16384" {
		t.Errorf("Decode(New()) = %q", got)
	}
	if card, valid := Cached(b); card != 0 || !valid {
		t.Errorf("Cached(New()) = %d, %v", card, valid)
	}
	if n, err := Count(b); n != 0 || err != nil {
		t.Errorf("Count(New()) = %d, %v", n, err)
	}
	d, err := ToDense(b)
	if err != nil || len(d) != DenseSize || !Valid(d) || Encoding(d) != Dense {
		t.Fatalf("ToDense(New()): %v", err)
	}
}

func TestValid(t *testing.T) {
	d, _ := ToDense(New())
	for _, c := range []struct {
		b    []byte
		want bool
	}{
		{New(), true}, {d, true}, {nil, false}, {[]byte("HYLL"), false},
		{append([]byte("HYLX"), New()[4:]...), false},
		{append([]byte("HYLL\x02"), New()[5:]...), false},
		{d[:len(d)-1], false}, {append(d, 0), false},
		{New()[:HeaderSize], true}, // opcodes are checked when read
	} {
		if got := Valid(c.b); got != c.want {
			t.Errorf("Valid(%q...) = %v", c.b[:min(len(c.b), 20)], got)
		}
	}
}

// TestSparseDenseAgree adds the same elements to a sparse HLL (never
// promoted for size) and a dense one: the registers, the counts and the
// promoted form must agree at every step.
func TestSparseDenseAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sparseMax := range []int64{1 << 30, 3000, 200, 0} {
		s := New()
		d, _ := ToDense(New())
		for i := 0; i < 20000; i++ {
			ele := []byte(strconv.Itoa(rng.IntN(1 << 20)))
			idx, n := PatLen(ele)
			need := NeedsSet(s, idx, n)
			var r int
			s, r = Set(s, idx, n, sparseMax)
			if r < 0 || (r == 1) != need {
				t.Fatalf("max %d step %d: Set = %d, NeedsSet = %v", sparseMax, i, r, need)
			}
			d, _ = Set(d, idx, n, sparseMax)
			if i%997 == 0 || i < 50 {
				sc, err := Count(s)
				dc, _ := Count(d)
				if err != nil || sc != dc {
					t.Fatalf("max %d step %d: sparse %d (%v), dense %d", sparseMax, i, sc, err, dc)
				}
				if Encoding(s) == Sparse && int64(len(s)) > max(sparseMax, HeaderSize+2) {
					t.Fatalf("max %d: sparse string of %d bytes", sparseMax, len(s))
				}
				sd, err := ToDense(s)
				if err != nil || !bytes.Equal(sd[HeaderSize:], d[HeaderSize:]) {
					t.Fatalf("max %d step %d: promoted registers differ (%v)", sparseMax, i, err)
				}
				for j := 0; j < Registers; j += 97 {
					v1, ok1 := Get(s, j)
					v2, _ := Get(d, j)
					if !ok1 || v1 != v2 {
						t.Fatalf("register %d: %d/%v vs %d", j, v1, ok1, v2)
					}
				}
			}
		}
		if sparseMax == 1<<30 && Encoding(s) != Dense {
			// Values above 32 force promotion whatever the limit.
			t.Logf("still sparse after 20000 adds: %d bytes", len(s))
		}
	}
}

func TestMergeAndCountRegisters(t *testing.T) {
	a, b := New(), New()
	for i := 0; i < 3000; i++ {
		idx, n := PatLen([]byte("a" + strconv.Itoa(i)))
		a, _ = Set(a, idx, n, 3000)
		idx, n = PatLen([]byte("b" + strconv.Itoa(i)))
		b, _ = Set(b, idx, n, 1<<20)
	}
	var regs [Registers]uint8
	if Merge(&regs, a) != nil || Merge(&regs, b) != nil {
		t.Fatal("Merge failed")
	}
	got := CountRegisters(&regs)
	if got < 5700 || got > 6300 {
		t.Errorf("union of 6000 distinct elements counted %d", got)
	}
	// The union equals the HLL built by adding everything.
	u := New()
	for _, p := range []string{"a", "b"} {
		for i := 0; i < 3000; i++ {
			idx, n := PatLen([]byte(p + strconv.Itoa(i)))
			u, _ = Set(u, idx, n, 3000)
		}
	}
	if c, _ := Count(u); c != got {
		t.Errorf("union count %d, merged %d", c, got)
	}
}

func TestCache(t *testing.T) {
	b := New()
	SetCache(b, 12345)
	if c, ok := Cached(b); c != 12345 || !ok {
		t.Errorf("Cached = %d %v", c, ok)
	}
	Invalidate(b)
	if _, ok := Cached(b); ok {
		t.Error("still valid after Invalidate")
	}
}

// TestCorrupt: malformed sparse strings are reported, never read or
// written out of bounds (random opcodes included).
func TestCorrupt(t *testing.T) {
	hdr := New()[:HeaderSize]
	for _, ops := range []string{"", "\x7f", "\x7f\xfe", "\x7f\xff\x00", "\xff", "\x7f\xff\x80",
		string(bytes.Repeat([]byte{0xff}, 4097)), string(bytes.Repeat([]byte{0x3f}, 257))} {
		b := append(append([]byte{}, hdr...), ops...)
		if _, err := Count(b); err == nil {
			t.Errorf("Count(%q) accepted", ops)
		}
		var regs [Registers]uint8
		if Merge(&regs, b) == nil {
			t.Errorf("Merge(%q) accepted", ops)
		}
		if _, err := ToDense(b); err == nil {
			t.Errorf("ToDense(%q) accepted", ops)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		b := append([]byte{}, hdr...)
		for n := rng.IntN(40); n > 0; n-- {
			b = append(b, byte(rng.IntN(256)))
		}
		bb := append([]byte{}, b...)
		Count(bb)
		var regs [Registers]uint8
		Merge(&regs, bb)
		ToDense(bb)
		Get(bb, rng.IntN(Registers))
		Set(bb, rng.IntN(Registers), uint8(1+rng.IntN(50)), int64(rng.IntN(100)))
		Decode(b)
	}
}

func TestSelfTest(t *testing.T) {
	if testing.Short() {
		t.Skip("adds ten million elements")
	}
	if err := SelfTest(3000, rand.New(rand.NewPCG(5, 6))); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkPatLen(b *testing.B) {
	ele := []byte("element:123456")
	for i := 0; i < b.N; i++ {
		PatLen(ele)
	}
}

func benchSet(b *testing.B, dense bool) {
	h := New()
	if dense {
		h, _ = ToDense(h)
	}
	eles := make([][]byte, 4096)
	for i := range eles {
		eles[i] = []byte("e:" + strconv.Itoa(i))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i&4095 == 0 && !dense {
			h = New()
		}
		idx, n := PatLen(eles[i&4095])
		h, _ = Set(h, idx, n, 3000)
	}
}

func BenchmarkSetSparse(b *testing.B) { benchSet(b, false) }
func BenchmarkSetDense(b *testing.B)  { benchSet(b, true) }

func BenchmarkCountDense(b *testing.B) {
	h, _ := ToDense(New())
	for i := 0; i < 100000; i++ {
		idx, n := PatLen([]byte(strconv.Itoa(i)))
		h, _ = Set(h, idx, n, 3000)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Count(h)
	}
}

func BenchmarkCountSparse(b *testing.B) {
	h := New()
	for i := 0; i < 500; i++ {
		idx, n := PatLen([]byte(strconv.Itoa(i)))
		h, _ = Set(h, idx, n, 3000)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Count(h)
	}
}

// TestPromoteLongRun: a run of zeros above 32 does not fit a sparse VAL
// opcode, so the HLL is promoted however small it is. ("1692856687" was
// found by search; redis-server promotes on it too, see the engine tests.)
func TestPromoteLongRun(t *testing.T) {
	idx, n := PatLen([]byte("1692856687"))
	if n != 33 {
		t.Fatalf("PatLen = %d, %d", idx, n)
	}
	b := New()
	if !NeedsSet(b, idx, n) {
		t.Fatal("NeedsSet false")
	}
	b, r := Set(b, idx, n, 3000)
	if r != 1 || Encoding(b) != Dense || len(b) != DenseSize {
		t.Fatalf("Set: %d, encoding %d, %d bytes", r, Encoding(b), len(b))
	}
	if v, _ := Get(b, idx); v != 33 {
		t.Errorf("register %d = %d", idx, v)
	}
}
