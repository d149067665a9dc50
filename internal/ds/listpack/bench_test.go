package listpack

import (
	"strconv"
	"testing"
)

// BenchmarkAppendEntry appends the elements of a typical stream entry
// (small integers and short strings) into a reused buffer: the cost XADD
// and the RDB writer pay per field.
func BenchmarkAppendEntry(b *testing.B) {
	elems := [][]byte{[]byte("name"), []byte("alice"), []byte("age"), []byte("31"),
		[]byte("city"), []byte("paris"), []byte(strconv.Itoa(1 << 20))}
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for _, e := range elems {
			buf = AppendEntry(buf, e)
		}
	}
	b.SetBytes(int64(len(buf)))
}

// BenchmarkParseInt is string2ll on canonical and non-canonical input.
func BenchmarkParseInt(b *testing.B) {
	in := [][]byte{[]byte("1732456789012"), []byte("-42"), []byte("007"), []byte("alice")}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range in {
			ParseInt(s)
		}
	}
}
