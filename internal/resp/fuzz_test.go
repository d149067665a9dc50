package resp

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// FuzzReader checks, for any input: no panic; the same requests and the
// same final error whether the bytes arrive at once or in pieces of any
// size (the reader is resumable); every argument is made of bytes that
// arrived; the buffer grows only with bytes that arrived.
//
//	go test ./internal/resp -run '^$' -fuzz FuzzReader -fuzztime 3m
//
// Inputs that found bugs are kept in testdata/fuzz/FuzzReader and run by
// the ordinary `go test`.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"*1\r\n$4\r\nPING\r\n",
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nvalue\r\n",
		"PING\r\n\r\nECHO \"a\\x41\\n\" 'b\\'c'\r\n",
		"*0\r\n*-1\r\n*1\r\n$0\r\n\r\n",
		"*1\r\nx\r\n",
		"*2147483648\r\n",
		"*1\r\n$-1\r\n",
		"GET \"a\r\n",
		"PING\x00\r\n",
		"*1\rx$4\r\nPING\r\n",
		"*2\r\n$4\r\nECHO\r\n$1\r\nabcd\r\n",
		"\n\n\r\nPING\n",
	} {
		f.Add([]byte(s), uint8(1), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, c1, c2 uint8) {
		if len(data) > InlineMaxSize/2 {
			// The 64 KB line limits depend on how much has arrived, so
			// chunking legitimately changes the outcome of longer inputs.
			return
		}
		whole, werr, wr := parseAll(data, nil)
		chunks := []int{int(c1%17) + 1, int(c2%251) + 1}
		split, serr, sr := parseAll(data, chunks)
		if !reflect.DeepEqual(whole, split) {
			t.Fatalf("requests differ with chunks %v:\n whole %q\n split %q", chunks, whole, split)
		}
		if errString(werr) != errString(serr) {
			t.Fatalf("errors differ with chunks %v: %v vs %v", chunks, werr, serr)
		}
		var pe *ProtocolError
		if werr != io.EOF && !errors.As(werr, &pe) {
			t.Fatalf("unexpected error %v", werr)
		}
		total := 0
		for _, cmd := range whole {
			if len(cmd) == 0 {
				t.Fatal("empty request returned")
			}
			for _, a := range cmd {
				total += len(a)
			}
		}
		if total > len(data) {
			t.Fatalf("%d argument bytes from %d input bytes", total, len(data))
		}
		for _, r := range []*Reader{wr, sr} {
			if len(r.buf) > 2*len(data)+readChunk {
				t.Fatalf("buffer of %d bytes for %d input bytes", len(r.buf), len(data))
			}
		}
		// Inline requests round-trip through SplitArgs.
		for _, cmd := range whole {
			line := quoteArgs(cmd)
			back, ok := SplitArgs([]byte(line), nil)
			if !ok || len(back) != len(cmd) {
				t.Fatalf("SplitArgs(%q) = %q, %v", line, back, ok)
			}
			for i := range cmd {
				if string(back[i]) != cmd[i] {
					t.Fatalf("SplitArgs(%q)[%d] = %q, want %q", line, i, back[i], cmd[i])
				}
			}
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// quoteArgs writes args as an inline request line the way redis-cli
// quotes arguments (sdscatrepr).
func quoteArgs(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('"')
		for j := 0; j < len(a); j++ {
			switch c := a[j]; c {
			case '\\', '"':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '\n':
				b.WriteString("\\n")
			case '\r':
				b.WriteString("\\r")
			case '\t':
				b.WriteString("\\t")
			case '\a':
				b.WriteString("\\a")
			case '\b':
				b.WriteString("\\b")
			default:
				if c < 0x20 || c >= 0x7f {
					b.WriteString("\\x")
					b.WriteByte("0123456789abcdef"[c>>4])
					b.WriteByte("0123456789abcdef"[c&15])
				} else {
					b.WriteByte(c)
				}
			}
		}
		b.WriteByte('"')
	}
	return b.String()
}
