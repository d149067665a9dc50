package resp

import (
	"errors"
	"io"
	"math"
	"reflect"
	"strconv"
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
		whole, wr, werr := parseAll(data, nil)
		chunks := []int{int(c1%17) + 1, int(c2%251) + 1}
		split, sr, serr := parseAll(data, chunks)
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
		refCmds, refErr := refParse(data)
		gotErr := ""
		if pe != nil {
			gotErr = pe.Msg
		}
		if !reflect.DeepEqual(whole, refCmds) || gotErr != refErr {
			t.Fatalf("differs from the reference model:\n got %q %q\n ref %q %q", whole, gotErr, refCmds, refErr)
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

// refParse is a direct, non-incremental transcription of Redis 7.0's
// processInputBuffer (processInlineBuffer, processMultibulkBuffer) over a
// buffer that arrived whole, used as the fuzzing oracle. It returns the
// requests and the protocol error ("" when Redis would wait for more).
func refParse(b []byte) (cmds [][]string, perr string) {
	strchr := func(from int, c byte) int { // C strchr: a NUL ends the string
		for i := from; i < len(b) && b[i] != 0; i++ {
			if b[i] == c {
				return i
			}
		}
		return -1
	}
	string2ll := func(s []byte) (int64, bool) {
		if len(s) == 0 || len(s) > 20 || s[0] == '+' || (s[0] == '0' && len(s) > 1) ||
			(s[0] == '-' && (len(s) == 1 || s[1] == '0')) {
			return 0, false
		}
		for i, c := range s {
			if (c < '0' || c > '9') && !(i == 0 && c == '-') {
				return 0, false
			}
		}
		v, err := strconv.ParseInt(string(s), 10, 64)
		return v, err == nil
	}
	pos := 0
	for pos < len(b) {
		if b[pos] != '*' {
			nl := strchr(pos, '\n')
			if nl < 0 {
				return cmds, ""
			}
			end := nl
			if end > pos && b[end-1] == '\r' {
				end--
			}
			args, ok := SplitArgs(b[pos:end], nil)
			if !ok {
				return cmds, "unbalanced quotes in request"
			}
			pos = nl + 1
			if len(args) > 0 {
				cmd := make([]string, len(args))
				for i, a := range args {
					cmd[i] = string(a)
				}
				cmds = append(cmds, cmd)
			}
			continue
		}
		nl := strchr(pos, '\r')
		if nl < 0 || nl > len(b)-2 {
			return cmds, ""
		}
		ll, ok := string2ll(b[pos+1 : nl])
		if !ok || ll > math.MaxInt32 {
			return cmds, "invalid multibulk length"
		}
		p := nl + 2
		if ll <= 0 {
			pos = p
			continue
		}
		var args []string
		for int64(len(args)) < ll {
			nl = strchr(p, '\r')
			if nl < 0 || nl > len(b)-2 {
				return cmds, ""
			}
			if b[p] != '$' {
				return cmds, "expected '$', got '" + string(b[p]) + "'"
			}
			bl, ok := string2ll(b[p+1 : nl])
			if !ok || bl < 0 || bl > DefaultMaxBulkLen {
				return cmds, "invalid bulk length"
			}
			p = nl + 2
			if int64(len(b)-p) < bl+2 {
				return cmds, ""
			}
			args = append(args, string(b[p:p+int(bl)]))
			p += int(bl) + 2
		}
		cmds = append(cmds, args)
		pos = p
	}
	return cmds, ""
}
