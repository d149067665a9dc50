package rdb

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestCRC64CheckVector(t *testing.T) {
	if got := CRC64(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64(123456789) = %016x, want e9c6d914c4b8d9ca", got)
	}
	// Incremental use gives the same result.
	if got := CRC64(CRC64(0, []byte("1234")), []byte("56789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("incremental crc64 = %016x", got)
	}
}

func TestLZFRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	inputs := [][]byte{
		[]byte(strings.Repeat("a", 100)),
		[]byte(strings.Repeat("abcdefgh", 1000)),
		[]byte("hello hello hello hello hello world world world"),
	}
	for n := 21; n < 20000; n = n*3/2 + 1 {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abcd"[r.IntN(4)] // compressible
		}
		inputs = append(inputs, b)
		c := make([]byte, n)
		for i := range c {
			c[i] = byte(r.Uint32()) // not compressible
		}
		inputs = append(inputs, c)
	}
	for _, in := range inputs {
		c := lzfCompress(in, len(in)-4)
		if c == nil {
			continue
		}
		if len(c) > len(in)-4 {
			t.Fatalf("compressed %d bytes to %d, over the limit", len(in), len(c))
		}
		out, ok := lzfDecompress(c, len(in))
		if !ok || !bytes.Equal(out, in) {
			t.Fatalf("round trip of %d bytes failed", len(in))
		}
	}
	if c := lzfCompress([]byte(strings.Repeat("x", 1000)), 996); c == nil || len(c) > 30 {
		t.Fatalf("a run of 1000 bytes compressed to %d bytes", len(c))
	}
}

func TestLZFDecompressCorrupt(t *testing.T) {
	for _, c := range [][]byte{
		{0x20, 0x00},            // back reference before the start
		{0x05, 'a'},             // literal past the input
		{0x00, 'a', 0xe0},       // truncated long reference
		{0x00, 'a', 0x20, 0x00}, // reference expanding past n
		{0x01, 'a', 'b', 0x1f},  // truncated literal
		{0x00, 'a', 0x20, 0x00, 0x00},
	} {
		if _, ok := lzfDecompress(c, 3); ok {
			t.Errorf("lzfDecompress(%x) accepted corrupt input", c)
		}
	}
}

func TestListpackEncoding(t *testing.T) {
	// The element encoding itself is tested in internal/ds/listpack.
	long := strings.Repeat("x", 5000)
	elems := [][]byte{[]byte("a"), []byte(strings.Repeat("y", 100)), []byte(long), []byte("-123456789"), []byte("8388607"), []byte("-2147483648")}
	lp := buildListpack(elems)
	var got [][]byte
	if _, err := readListpack(lp, func(e []byte) error { got = append(got, bytes.Clone(e)); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, elems) {
		t.Fatalf("listpack round trip: %q", got)
	}
}

func sample() []*Value {
	var big [][]byte
	var scores []float64
	for i := 0; i < 300; i++ {
		big = append(big, []byte("member:"+strconv.Itoa(i)))
		scores = append(scores, float64(i)/3)
	}
	return []*Value{
		{Kind: KindString, Str: []byte("hello")},
		{Kind: KindString, Str: []byte("12345")},
		{Kind: KindString, Str: []byte(strings.Repeat("compress me ", 50))},
		{Kind: KindList, Elems: [][]byte{[]byte("a"), []byte("1"), []byte(strings.Repeat("z", 9000)), []byte("b")}},
		{Kind: KindList, Elems: big},
		{Kind: KindSet, Compact: true, Elems: [][]byte{[]byte("-5"), []byte("1"), []byte("70000")}},
		{Kind: KindSet, Elems: [][]byte{[]byte("x"), []byte("y")}},
		{Kind: KindHash, Compact: true, Elems: [][]byte{[]byte("f"), []byte("v"), []byte("n"), []byte("12")}},
		{Kind: KindHash, Elems: [][]byte{[]byte("f"), []byte("v")}},
		{Kind: KindZSet, Compact: true, Elems: [][]byte{[]byte("a"), []byte("b"), []byte("c")}, Scores: []float64{-1.5, 2, math.Inf(1)}},
		{Kind: KindZSet, Elems: big, Scores: scores},
	}
}

func TestValueRoundTrip(t *testing.T) {
	for _, compress := range []bool{false, true} {
		for _, v := range sample() {
			p := Dump(v, compress)
			if !VerifyPayload(p) {
				t.Fatalf("VerifyPayload rejected our own payload")
			}
			got, err := DecodeValue(p)
			if err != nil {
				t.Fatalf("%s: %v", v.Kind, err)
			}
			if !sameValue(got, v) {
				t.Fatalf("%s (compact %v) did not round-trip", v.Kind, v.Compact)
			}
		}
	}
}

// sameValue compares values as Redis would see them: sets, hashes and
// sorted sets as maps, lists and strings exactly.
func sameValue(a, b *Value) bool {
	if a.Kind != b.Kind || a.Len() != b.Len() {
		return false
	}
	switch a.Kind {
	case KindString:
		return bytes.Equal(a.Str, b.Str)
	case KindList:
		return reflect.DeepEqual(a.Elems, b.Elems)
	}
	m := map[string]string{}
	step := 1
	if a.Kind == KindHash {
		step = 2
	}
	val := func(v *Value, i int) string {
		switch v.Kind {
		case KindHash:
			return string(v.Elems[i+1])
		case KindZSet:
			return strconv.FormatFloat(v.Scores[i], 'g', -1, 64)
		}
		return ""
	}
	for i := 0; i < len(a.Elems); i += step {
		m[string(a.Elems[i])] = val(a, i)
	}
	for i := 0; i < len(b.Elems); i += step {
		if w, ok := m[string(b.Elems[i])]; !ok || w != val(b, i) {
			return false
		}
	}
	return true
}

func TestVerifyPayload(t *testing.T) {
	p := Dump(&Value{Kind: KindString, Str: []byte("x")}, true)
	for i := range p {
		q := bytes.Clone(p)
		q[i] ^= 1
		if VerifyPayload(q) && i < len(p)-10 {
			t.Errorf("flipping byte %d went unnoticed", i)
		}
	}
	if VerifyPayload(p[:9]) {
		t.Error("short payload accepted")
	}
}

func TestDecodeErrorsCarryPosition(t *testing.T) {
	body := AppendValue(nil, &Value{Kind: KindHash, Compact: true, Elems: [][]byte{[]byte("f"), []byte("v")}}, false)
	for n := 0; n < len(body); n++ {
		_, err := DecodeValue(body[:n])
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("truncated at %d: error %v is not an *Error", n, err)
		}
		if e.Pos > int64(n) {
			t.Fatalf("truncated at %d: error at %d", n, e.Pos)
		}
	}
	// An empty set is refused as Redis refuses it.
	_, err := DecodeValue([]byte{TypeSet, 0})
	if !errors.Is(err, ErrEmptyKey) {
		t.Fatalf("empty set: %v", err)
	}
	// Duplicates in a hashtable encoding.
	_, err = DecodeValue([]byte{TypeSet, 2, 1, 'a', 1, 'a'})
	if err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Fatalf("duplicate set member: %v", err)
	}
}

func TestFileRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, true)
	w.Aux("redis-ver", "7.0.15")
	w.Function([]byte("#!lua name=lib\nredis.register_function('f', function() return 1 end)"))
	vals := sample()
	w.SelectDB(0, uint64(len(vals)), 1)
	for i, v := range vals {
		exp := int64(-1)
		if i == 2 {
			exp = 1<<42 + 5
		}
		w.Entry([]byte("k"+strconv.Itoa(i)), v, exp)
	}
	w.SelectDB(3, 1, 0)
	w.Entry([]byte("12"), vals[0], -1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var got []Entry
	var aux []string
	var funcs int
	version, err := ReadFile(bytes.NewReader(buf.Bytes()), Handler{
		Aux:      func(k, v []byte) error { aux = append(aux, string(k)+"="+string(v)); return nil },
		Function: func([]byte) error { funcs++; return nil },
		Entry:    func(e *Entry) error { got = append(got, *e); return nil },
	})
	if err != nil || version != Version {
		t.Fatal(version, err)
	}
	if len(got) != len(vals)+1 || funcs != 1 || len(aux) != 1 || aux[0] != "redis-ver=7.0.15" {
		t.Fatalf("read %d entries, %d functions, aux %v", len(got), funcs, aux)
	}
	if got[2].ExpireAt != 1<<42+5 || got[1].ExpireAt != -1 || got[len(vals)].DB != 3 || string(got[len(vals)].Key) != "12" {
		t.Fatalf("entries: %+v", got)
	}
	// Any flipped bit is noticed (checksum or structure), never a panic.
	data := buf.Bytes()
	for i := 0; i < len(data); i += 7 {
		q := bytes.Clone(data)
		q[i] ^= 0x10
		if _, err := ReadFile(bytes.NewReader(q), Handler{}); err == nil {
			t.Fatalf("flipping byte %d went unnoticed", i)
		}
	}
}

func TestModuleTypeName(t *testing.T) {
	// RedisJSON's type "ReJSON-RL", encoding version 3.
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var id uint64
	for _, c := range "ReJSON-RL" {
		id = id<<6 | uint64(strings.IndexRune(chars, c))
	}
	id = id<<10 | 3
	if got := ModuleTypeName(id); got != "ReJSON-RL (encoding version 3)" {
		t.Fatal(got)
	}
}
