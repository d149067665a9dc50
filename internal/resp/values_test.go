package resp

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
)

// both is a byte-mode and a value-mode Writer receiving the same calls:
// the value writer's Value must equal ParseReply of the other's bytes.
type both struct{ b, v *Writer }

func newBoth(proto int) both {
	b := &Writer{Proto: proto}
	v := &Writer{Proto: proto}
	v.EnableValues()
	return both{b, v}
}

func (x both) do(f func(w *Writer)) { f(x.b); f(x.v) }

func (x both) check(t *testing.T, what string) {
	t.Helper()
	want, n, werr := ParseReply(x.b.Buf)
	got, gerr := x.v.Value()
	if werr != nil || gerr != nil {
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%s: parsed error %v, value error %v (bytes %q)", what, werr, gerr, x.b.Buf)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\nvalue  %#v\nparsed %#v\nbytes %q", what, got, want, x.b.Buf[:n])
	}
}

// TestValueModeMatchesParsedBytes writes each reply shape both ways, in
// RESP2 and RESP3, and compares Value with ParseReply of the bytes.
func TestValueModeMatchesParsedBytes(t *testing.T) {
	cases := []struct {
		name string
		f    func(w *Writer)
	}{
		{"simple", func(w *Writer) { w.Simple("PONG") }},
		{"ok", func(w *Writer) { w.OK() }},
		{"error with newlines", func(w *Writer) { w.Error("ERR bad\r\nthing\n") }},
		{"int", func(w *Writer) { w.Int(-42) }},
		{"bulk", func(w *Writer) { w.Bulk([]byte("a\r\nb\x00")) }},
		{"empty bulk", func(w *Writer) { w.BulkString("") }},
		{"bulk int", func(w *Writer) { w.BulkInt(math.MinInt64) }},
		{"null", func(w *Writer) { w.Null() }},
		{"null array", func(w *Writer) { w.NullArray() }},
		{"negative array", func(w *Writer) { w.Array(-1) }},
		{"empty array", func(w *Writer) { w.Array(0) }},
		{"empty map", func(w *Writer) { w.Map(0) }},
		{"bools", func(w *Writer) { w.Array(2); w.Bool(true); w.Bool(false) }},
		{"doubles", func(w *Writer) {
			w.Array(6)
			w.Double(1.5)
			w.Double(math.Inf(1))
			w.Double(math.Inf(-1))
			w.Double(math.NaN())
			w.Double(0.1)
			w.DoubleText([]byte("3.1400"))
		}},
		{"verbatim", func(w *Writer) { w.Verbatim("txt", "line1\r\nline2") }},
		{"big number", func(w *Writer) { w.BigNumber("123456789012345678901234567890") }},
		{"nested", func(w *Writer) {
			w.Map(2)
			w.BulkString("k")
			w.Set(2)
			w.Int(1)
			w.Array(2)
			w.Null()
			w.Error("WRONGTYPE x")
			w.Simple("s")
			w.Push(1)
			w.Double(2)
		}},
		{"raw whole", func(w *Writer) { w.Array(2); w.Raw([]byte("$1\r\na\r\n:5\r\n")) }},
		{"raw pieces", func(w *Writer) {
			w.Array(2)
			w.Raw([]byte("*2\r\n$3\r"))
			w.Raw([]byte("\nabc\r\n"))
			w.Raw([]byte(":7\r\n"))
			w.Int(1)
		}},
		{"raw resp3", func(w *Writer) { w.Raw([]byte("%1\r\n+a\r\n~1\r\n#t\r\n")) }},
		{"raw attribute", func(w *Writer) { w.Raw([]byte("|1\r\n+ttl\r\n:3\r\n$1\r\nx\r\n")) }},
		{"raw blob error and verbatim", func(w *Writer) {
			w.Array(2)
			w.Raw([]byte("!5\r\nERR x\r\n=7\r\ntxt:abc\r\n"))
		}},
		{"insert header", func(w *Writer) {
			w.Array(2)
			w.Int(1)
			at := w.Len()
			w.BulkString("a")
			w.BulkString("b")
			w.InsertHeader(at, KindArray, 2)
		}},
		{"insert map header", func(w *Writer) {
			at := w.Len()
			w.BulkString("a")
			w.Int(1)
			if w.Proto == 3 {
				w.InsertHeader(at, KindMap, 1)
			} else {
				w.InsertHeader(at, KindArray, 2)
			}
		}},
		{"truncate", func(w *Writer) {
			at := w.Len()
			w.Array(2)
			w.Int(1)
			w.Truncate(at)
			w.Error("ERR replaced")
		}},
		{"truncated strings", func(w *Writer) {
			w.BulkString("gone")
			w.Truncate(0)
			w.Array(2)
			w.BulkString("")
			w.BulkString("kept")
		}},
		{"cut", func(w *Writer) {
			start := w.Len()
			w.Array(2)
			hdr := w.Len()
			w.Error("ERR only this")
			w.Cut(start, hdr)
		}},
		{"sub and append", func(w *Writer) {
			sub := w.Sub()
			sub.BulkString("x")
			sub.Double(2.5)
			w.Array(2)
			w.Append(sub)
		}},
		{"append byte-mode part", func(w *Writer) {
			sub := &Writer{Proto: w.Proto}
			sub.BulkString("x")
			sub.Null()
			w.Array(2)
			w.Append(sub)
		}},
		{"empty", func(w *Writer) {}},
		{"incomplete", func(w *Writer) { w.Array(2); w.Int(1) }},
	}
	for _, proto := range []int{2, 3} {
		for _, c := range cases {
			x := newBoth(proto)
			x.do(c.f)
			x.check(t, "RESP"+strconv.Itoa(proto)+" "+c.name)
		}
	}
}

// TestValueModeErrorAt checks the positions API the engine uses to look
// back at a reply (error statistics, CLIENT REPLY, FT.PROFILE) in both
// modes.
func TestValueModeErrorAt(t *testing.T) {
	for _, values := range []bool{false, true} {
		w := &Writer{Proto: 2}
		if values {
			w.EnableValues()
		}
		w.Int(1)
		at := w.Len()
		if w.IsErrorAt(at) {
			t.Fatal("error past the end")
		}
		w.Error("WRONGTYPE Operation\nagainst")
		msg, ok := w.ErrorAt(at)
		if !ok || string(msg) != "WRONGTYPE Operation against" {
			t.Fatalf("values %v: ErrorAt = %q, %v", values, msg, ok)
		}
		if _, ok := w.ErrorAt(0); ok {
			t.Fatalf("values %v: an integer read as an error", values)
		}
		w.Truncate(at)
		if w.Len() != at || w.IsErrorAt(at) {
			t.Fatalf("values %v: Truncate left %d", values, w.Len())
		}
	}
}

// TestValueModeRandomReplies writes random well-formed replies both ways.
func TestValueModeRandomReplies(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var gen func(w *Writer, r *rand.Rand, depth int)
	gen = func(w *Writer, r *rand.Rand, depth int) {
		k := r.IntN(14)
		if depth > 3 && k >= 10 {
			k = r.IntN(10)
		}
		switch k {
		case 0:
			w.Simple("s" + strconv.Itoa(r.IntN(100)))
		case 1:
			w.Error("ERR e" + strconv.Itoa(r.IntN(100)))
		case 2:
			w.Int(r.Int64() - r.Int64())
		case 3:
			w.BulkString(string(make([]byte, r.IntN(40))))
		case 4:
			w.Null()
		case 5:
			w.NullArray()
		case 6:
			w.Bool(r.IntN(2) == 0)
		case 7:
			w.Double(r.NormFloat64() * 1e10)
		case 8:
			w.Verbatim("txt", "v")
		case 9:
			w.BigNumber("12345678901234567890")
		default:
			n := r.IntN(5)
			switch k {
			case 10:
				w.Array(n)
			case 11:
				w.Set(n)
			case 12:
				w.Push(n)
			case 13:
				w.Map(n)
				n *= 2
			}
			for range n {
				gen(w, r, depth+1)
			}
		}
	}
	for i := range 2000 {
		proto := 2 + i%2
		x := newBoth(proto)
		seed := rng.Uint64()
		gen(x.b, rand.New(rand.NewPCG(seed, 1)), 0)
		gen(x.v, rand.New(rand.NewPCG(seed, 1)), 0)
		x.check(t, "random reply "+strconv.Itoa(i))
	}
}
