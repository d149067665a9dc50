package resp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// parseAll reads every request from data, delivered in chunks of the
// given sizes (cycled; nil = all at once), until an error.
func parseAll(data []byte, chunks []int) (cmds [][]string, r *Reader, err error) {
	r = NewReader(&chunkReader{data: data, sizes: chunks})
	for {
		args, err := r.ReadCommand()
		if err != nil {
			return cmds, r, err
		}
		cmd := make([]string, len(args))
		for i, a := range args {
			cmd[i] = string(a)
		}
		cmds = append(cmds, cmd)
	}
}

// chunkReader returns data in pieces of the given sizes.
type chunkReader struct {
	data  []byte
	sizes []int
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(c.data)
	if len(c.sizes) > 0 {
		n = min(n, c.sizes[c.i%len(c.sizes)])
		c.i++
	}
	n = copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func TestReaderRequests(t *testing.T) {
	cases := []struct {
		in   string
		want []string // commands joined by "|", arguments by ","
		err  string   // protocol error text after "Protocol error: ", "" for EOF
	}{
		{"*1\r\n$4\r\nPING\r\n", []string{"PING"}, ""},
		{"*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", []string{"ECHO,"}, ""},
		{"PING\r\n", []string{"PING"}, ""},
		{"PING\n", []string{"PING"}, ""},
		{"\r\n\r\n\nPING\r\n", []string{"PING"}, ""},
		{"*0\r\n*-1\r\n*1\r\n$1\r\nx\r\n", []string{"x"}, ""},
		{"SET k \"a b\"\r\n", []string{"SET,k,a b"}, ""},
		{"SET k 'a\\'b'\r\n", []string{"SET,k,a'b"}, ""},
		{"SET k \"\\x41\\x00\"\r\n", []string{"SET,k,A\x00"}, ""},
		{"*2\r\n$3\r\nGET\r\n$3\r\na\r\n\r\n", []string{"GET,a\r\n"}, ""},
		{"*1\r\n$3\r\nabcxy", []string{"abc"}, ""}, // payload taken by length, the next 2 bytes skipped
		{"*1\r\nx\r\n", nil, "expected '$', got 'x'"},
		{"*1\r\nx", nil, ""}, // waits for the line's CRLF
		{"*1\r\n$-1\r\n", nil, "invalid bulk length"},
		{"*1\r\n$536870913\r\n", nil, "invalid bulk length"},
		{"*2147483648\r\n", nil, "invalid multibulk length"},
		{"*2147483647\r\n", nil, ""},
		{"*01\r\n", nil, "invalid multibulk length"},
		{"*a\r\n", nil, "invalid multibulk length"},
		{"GET \"a\r\n", nil, "unbalanced quotes in request"},
		{"GET 'a'b\r\n", nil, "unbalanced quotes in request"},
		{"PING\x00\r\n", nil, ""}, // a NUL ends the search for the line end
		{strings.Repeat("x", InlineMaxSize+1), nil, "too big inline request"},
		{"*" + strings.Repeat("1", InlineMaxSize+1), nil, "too big mbulk count string"},
		{"*1\r\n$" + strings.Repeat("1", InlineMaxSize+1), nil, "too big bulk count string"},
		{"PING\r\n*1\r\n$x\r\n", []string{"PING"}, "invalid bulk length"},
	}
	for _, tc := range cases {
		for _, chunks := range [][]int{nil, {1}, {3, 5, 7}} {
			cmds, _, err := parseAll([]byte(tc.in), chunks)
			var got []string
			for _, c := range cmds {
				got = append(got, strings.Join(c, ","))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("%q chunks %v: commands %q, want %q", tc.in, chunks, got, tc.want)
			}
			var pe *ProtocolError
			switch {
			case tc.err == "" && err != io.EOF:
				t.Errorf("%q chunks %v: error %v, want EOF", tc.in, chunks, err)
			case tc.err != "" && (!errors.As(err, &pe) || pe.Msg != tc.err):
				t.Errorf("%q chunks %v: error %v, want %q", tc.in, chunks, err, tc.err)
			}
		}
	}
}

func TestReaderUnauthenticated(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{"*11\r\n", "unauthenticated multibulk length"},
		{"*1\r\n$16385\r\n", "unauthenticated bulk length"},
		{"*1\r\n$-2\r\n", "invalid bulk length"},
		{"*10\r\n$16384\r\n", ""},
	} {
		r := NewReader(strings.NewReader(tc.in))
		r.Authenticated = false
		_, err := r.ReadCommand()
		var pe *ProtocolError
		if tc.err == "" {
			if err != io.EOF {
				t.Errorf("%q: %v, want EOF", tc.in, err)
			}
		} else if !errors.As(err, &pe) || pe.Msg != tc.err {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.err)
		}
	}
}

func TestReaderMaxBulkLen(t *testing.T) {
	r := NewReader(strings.NewReader("*1\r\n$1048577\r\n"))
	r.MaxBulkLen = 1 << 20
	if _, err := r.ReadCommand(); err == nil || err.Error() != "Protocol error: invalid bulk length" {
		t.Fatalf("got %v", err)
	}
}

// TestReaderHugeDeclaredLengths: lengths that are declared but never sent
// cost nothing: the buffer holds only what arrived.
func TestReaderHugeDeclaredLengths(t *testing.T) {
	for _, in := range []string{
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$536870912\r\nabc",
		"*2147483647\r\n$1\r\na\r\n$1\r\nb\r\n",
	} {
		r := NewReader(strings.NewReader(in))
		if _, err := r.ReadCommand(); err != io.EOF {
			t.Fatalf("%q: %v", in, err)
		}
		if len(r.buf) > readChunk || cap(r.args) > 16 {
			t.Fatalf("%q: buffer %d bytes, %d argument slots", in, len(r.buf), cap(r.args))
		}
	}
}

// TestReaderBigArgument: a 3 MB argument arriving in small pieces is
// assembled intact, and so is the next request.
func TestReaderBigArgument(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 3<<16)
	var in []byte
	in = append(in, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$"...)
	in = strconv.AppendInt(in, int64(len(big)), 10)
	in = append(in, "\r\n"...)
	in = append(in, big...)
	in = append(in, "\r\nPING\r\n"...)
	cmds, r, err := parseAll(in, []int{1000, 4096, 65536})
	if err != io.EOF || len(cmds) != 2 || cmds[0][2] != string(big) || cmds[1][0] != "PING" {
		t.Fatalf("err %v, %d commands", err, len(cmds))
	}
	if len(r.buf) > 4*len(big) {
		t.Fatalf("buffer grew to %d for a %d-byte argument", len(r.buf), len(big))
	}
}

// TestReaderShrinksAfterBigRequest: once a big request has been consumed,
// the next read gives the big buffer back.
func TestReaderShrinksAfterBigRequest(t *testing.T) {
	big := strings.Repeat("x", 4<<20)
	args := []string{"RPUSH", "k"}
	for i := 0; i < 20000; i++ {
		args = append(args, "e")
	}
	in := AppendCommand(nil, "SET", "k", big)
	in = AppendCommand(in, args...)
	pr, pw := io.Pipe()
	go func() {
		pw.Write(in)
		pw.Write([]byte("PING\r\n"))
		pw.Close()
	}()
	r := NewReader(pr)
	for i := 0; i < 2; i++ {
		if _, err := r.ReadCommand(); err != nil {
			t.Fatal(err)
		}
	}
	if a, err := r.ReadCommand(); err != nil || string(a[0]) != "PING" {
		t.Fatalf("%q %v", a, err)
	}
	if len(r.buf) > shrinkOver || cap(r.spans) > 4096 {
		t.Fatalf("buffer %d bytes, %d spans kept after the big requests", len(r.buf), cap(r.spans))
	}
}

// TestReaderPipelineDepth: 10,000 requests in one buffer, parsed in order
// with TryCommand after a single fill, as the server does.
func TestReaderPipelineDepth(t *testing.T) {
	var in []byte
	for i := 0; i < 10000; i++ {
		if i%2 == 0 {
			in = AppendCommand(in, "ECHO", strconv.Itoa(i))
		} else {
			in = append(in, "ECHO "+strconv.Itoa(i)+"\r\n\r\n"...)
		}
	}
	r := NewReader(bytes.NewReader(in))
	n := 0
	for {
		args, err := r.TryCommand()
		if err == ErrIncomplete {
			if err := r.Fill(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if string(args[1]) != strconv.Itoa(n) {
			t.Fatalf("request %d: %q", n, args)
		}
		n++
	}
	if n != 10000 {
		t.Fatalf("%d requests", n)
	}
}

func TestSplitArgs(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"", nil, true},
		{"   ", nil, true},
		{"a b  c", []string{"a", "b", "c"}, true},
		{"\"a b\" c", []string{"a b", "c"}, true},
		{"\"\\n\\r\\t\\b\\a\\\\\\\"\\z\"", []string{"\n\r\t\b\a\\\"z"}, true},
		{"\"\\x4a\\x4B\\x4\"", []string{"JKx4"}, true},
		{"'a\\'b' 'c\\n'", []string{"a'b", "c\\n"}, true},
		{"x\"y z\"w", nil, false},
		{"ab\"c d\"", []string{"abc d"}, true},
		{"\"\"", []string{""}, true},
		{"''", []string{""}, true},
		{"\"a", nil, false},
		{"'a", nil, false},
		{"\"a\\\"", nil, false},
		{"\"a\"\"b\"", nil, false},
		{"a\vb", []string{"a\vb"}, true},
		{"\va", []string{"a"}, true},
		{"a\x00b", []string{"a", "b"}, true},
	}
	for _, tc := range cases {
		got, ok := SplitArgs([]byte(tc.in), nil)
		var gs []string
		for _, g := range got {
			gs = append(gs, string(g))
		}
		if ok != tc.ok || (ok && strings.Join(gs, "\x01") != strings.Join(tc.want, "\x01")) || (ok && len(gs) != len(tc.want)) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q, %v", tc.in, gs, ok, tc.want, tc.ok)
		}
	}
}

// TestAppendDoubleMatchesC compares AppendDouble with C's "%.17g" on
// values whose formatting was computed with C (Python's %-formatting).
func TestAppendDoubleMatchesC(t *testing.T) {
	f, err := os.Open("testdata/double_17g.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		hex, want, _ := strings.Cut(line, " ")
		bits, err := strconv.ParseUint(hex, 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		d := math.Float64frombits(bits)
		if got := string(AppendDouble(nil, d)); got != want {
			t.Errorf("%v (%s): got %s, want %s", d, hex, got, want)
		}
		n++
	}
	if n < 400 {
		t.Fatalf("only %d values", n)
	}
	for d, want := range map[float64]string{math.Inf(1): "inf", math.Inf(-1): "-inf"} {
		if got := string(AppendDouble(nil, d)); got != want {
			t.Errorf("%v: %s", d, got)
		}
	}
}

// TestWriterDoubleRESP: doubles are bulk strings in RESP2 and ',' in RESP3.
func TestWriterDoubleRESP(t *testing.T) {
	w := &Writer{Proto: 2}
	w.Double(1.5)
	w.Double(math.Inf(-1))
	if string(w.Buf) != "$3\r\n1.5\r\n$4\r\n-inf\r\n" {
		t.Fatalf("RESP2: %q", w.Buf)
	}
	w = &Writer{Proto: 3}
	w.Double(0.1)
	w.Double(math.Inf(1))
	if string(w.Buf) != ",0.10000000000000001\r\n,inf\r\n" {
		t.Fatalf("RESP3: %q", w.Buf)
	}
}

// TestFillOnce: the caller-driven read tells a drained source (fewer
// bytes than the room offered) from a full buffer, passes errors through,
// and parses what it filled exactly as Fill does, a request bigger than
// the buffer included.
func TestFillOnce(t *testing.T) {
	big := strings.Repeat("x", 3*readChunk)
	src := []byte("*2\r\n$4\r\nECHO\r\n$" + strconv.Itoa(len(big)) + "\r\n" + big + "\r\nPING\r\n")
	r := NewReader(nil)
	var got [][]string
	fulls := 0
	for len(src) > 0 || r.Buffered() > 0 {
		args, err := r.TryCommand()
		if err == nil {
			cmd := []string{}
			for _, a := range args {
				cmd = append(cmd, string(a))
			}
			got = append(got, cmd)
			continue
		}
		if err != ErrIncomplete {
			t.Fatal(err)
		}
		drained, err := r.FillOnce(func(p []byte) (int, error) {
			n := copy(p, src)
			src = src[n:]
			return n, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if drained != (len(src) == 0) {
			t.Fatalf("drained=%v with %d bytes left", drained, len(src))
		}
		if !drained {
			fulls++
		}
	}
	if len(got) != 2 || got[0][0] != "ECHO" || got[0][1] != big || got[1][0] != "PING" {
		t.Fatalf("parsed %d requests: %.60q", len(got), got)
	}
	if fulls == 0 {
		t.Fatal("a request over the buffer never filled it")
	}
	boom := errors.New("boom")
	if _, err := r.FillOnce(func([]byte) (int, error) { return 0, boom }); err != boom {
		t.Fatalf("error: %v", err)
	}
	if _, err := r.FillOnce(func([]byte) (int, error) { return 0, nil }); err != io.ErrNoProgress {
		t.Fatalf("no bytes, no error: %v", err)
	}
}
