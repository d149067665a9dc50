package listpack

import (
	"bytes"
	"strings"
	"testing"
)

// TestEntries checks elements against the bytes Redis's lpAppend writes.
func TestEntries(t *testing.T) {
	cases := []struct {
		in   string
		want []byte
	}{
		{"0", []byte{0x00, 0x01}},
		{"127", []byte{0x7f, 0x01}},
		{"128", []byte{0xC0, 0x80, 0x02}},
		{"-1", []byte{0xDF, 0xFF, 0x02}},
		{"-4096", []byte{0xD0, 0x00, 0x02}},
		{"4096", []byte{0xF1, 0x00, 0x10, 0x03}},
		{"-0", []byte{0x82, '-', '0', 0x03}},
		{"007", []byte{0x83, '0', '0', '7', 0x04}},
		{"+7", []byte{0x82, '+', '7', 0x03}},
		{"abc", []byte{0x83, 'a', 'b', 'c', 0x04}},
		{"9223372036854775807", []byte{0xF4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x09}},
		{"9223372036854775808", append([]byte{0x80 | 19}, append([]byte("9223372036854775808"), 20)...)},
	}
	for _, c := range cases {
		if got := AppendEntry(nil, []byte(c.in)); !bytes.Equal(got, c.want) {
			t.Errorf("entry %q = %x, want %x", c.in, got, c.want)
		}
		if n := EntrySize([]byte(c.in)); n != len(c.want) {
			t.Errorf("EntrySize(%q) = %d, want %d", c.in, n, len(c.want))
		}
	}
	// Strings past the 6- and 12-bit lengths, and their backlens.
	for _, n := range []int{63, 64, 4095, 4096, 20000} {
		s := []byte(strings.Repeat("x", n))
		e := AppendEntry(nil, s)
		if len(e) != EntrySize(s) {
			t.Errorf("%d bytes: entry of %d, EntrySize %d", n, len(e), EntrySize(s))
		}
		enc := len(e) - BacklenSize(len(e)-BacklenSize(len(e)))
		if !bytes.HasSuffix(e[:enc], s) {
			t.Errorf("%d bytes: the string does not end the encoding", n)
		}
	}
}

// TestEncodingSize reads back the size of every kind of element
// AppendEntry writes, and refuses unknown bytes and cut length headers.
func TestEncodingSize(t *testing.T) {
	for _, in := range []string{"0", "127", "128", "-4096", "4096", "-32769", "8388608",
		"2147483648", "9223372036854775807", "abc", strings.Repeat("y", 63),
		strings.Repeat("y", 64), strings.Repeat("y", 4095), strings.Repeat("y", 4096)} {
		e := AppendEntry(nil, []byte(in))
		size, ok := EncodingSize(e, 0)
		if !ok || size+BacklenSize(size) != len(e) {
			t.Errorf("%.10q: EncodingSize = %d, %v for an element of %d bytes", in, size, ok, len(e))
		}
	}
	for _, bad := range [][]byte{{0xF5}, {0xFE}, {0xE1}, {0xF0, 1, 0, 0}} {
		if size, ok := EncodingSize(bad, 0); ok {
			t.Errorf("EncodingSize(%x) = %d, want not ok", bad, size)
		}
	}
}
