package resp

import (
	"math"
	"strconv"
)

// Writer appends replies to Buf in the protocol version Proto (2 or 3).
// RESP3-only types degrade to their RESP2 forms exactly as Redis does:
// maps and sets become arrays, doubles become bulk strings, booleans
// become integers, and null becomes a null bulk or null array.
type Writer struct {
	Buf   []byte
	Proto int
}

// Reset empties the buffer, keeping its capacity.
func (w *Writer) Reset() { w.Buf = w.Buf[:0] }

// Len is the number of bytes written since the last Reset.
func (w *Writer) Len() int { return len(w.Buf) }

func (w *Writer) header(c byte, n int64) {
	w.Buf = append(w.Buf, c)
	w.Buf = strconv.AppendInt(w.Buf, n, 10)
	w.Buf = append(w.Buf, '\r', '\n')
}

// Simple writes a status reply (+OK).
func (w *Writer) Simple(s string) {
	w.Buf = append(w.Buf, '+')
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// OK writes +OK.
func (w *Writer) OK() { w.Buf = append(w.Buf, "+OK\r\n"...) }

// Error writes an error reply; msg must start with its code ("ERR ...").
// Newlines in msg are replaced by spaces, as Redis does.
func (w *Writer) Error(msg string) {
	w.Buf = append(w.Buf, '-')
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		w.Buf = append(w.Buf, c)
	}
	w.Buf = append(w.Buf, '\r', '\n')
}

// Int writes an integer reply.
func (w *Writer) Int(n int64) { w.header(':', n) }

// Bulk writes a bulk string.
func (w *Writer) Bulk(b []byte) {
	w.header('$', int64(len(b)))
	w.Buf = append(w.Buf, b...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// BulkString writes a bulk string.
func (w *Writer) BulkString(s string) {
	w.header('$', int64(len(s)))
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// BulkInt writes an integer as a bulk string.
func (w *Writer) BulkInt(n int64) {
	var tmp [24]byte
	w.Bulk(strconv.AppendInt(tmp[:0], n, 10))
}

// Null writes the null bulk string ($-1, or _ in RESP3).
func (w *Writer) Null() {
	if w.Proto == 3 {
		w.Buf = append(w.Buf, "_\r\n"...)
	} else {
		w.Buf = append(w.Buf, "$-1\r\n"...)
	}
}

// NullArray writes the null array (*-1, or _ in RESP3).
func (w *Writer) NullArray() {
	if w.Proto == 3 {
		w.Buf = append(w.Buf, "_\r\n"...)
	} else {
		w.Buf = append(w.Buf, "*-1\r\n"...)
	}
}

// Array writes the header of an array of n elements.
func (w *Writer) Array(n int) { w.header('*', int64(n)) }

// Map writes the header of a map of n key/value pairs (an array of 2n in RESP2).
func (w *Writer) Map(n int) {
	if w.Proto == 3 {
		w.header('%', int64(n))
	} else {
		w.header('*', int64(2*n))
	}
}

// Set writes the header of a set of n elements (an array in RESP2).
func (w *Writer) Set(n int) {
	if w.Proto == 3 {
		w.header('~', int64(n))
	} else {
		w.header('*', int64(n))
	}
}

// Push writes the header of a push message of n elements (an array in RESP2).
func (w *Writer) Push(n int) {
	if w.Proto == 3 {
		w.header('>', int64(n))
	} else {
		w.header('*', int64(n))
	}
}

// Bool writes a boolean (#t/#f in RESP3, :1/:0 in RESP2).
func (w *Writer) Bool(b bool) {
	switch {
	case w.Proto == 3 && b:
		w.Buf = append(w.Buf, "#t\r\n"...)
	case w.Proto == 3:
		w.Buf = append(w.Buf, "#f\r\n"...)
	case b:
		w.Buf = append(w.Buf, ":1\r\n"...)
	default:
		w.Buf = append(w.Buf, ":0\r\n"...)
	}
}

// Double writes a double as Redis 7.0 does: "%.17g" as a bulk string in
// RESP2, a ',' double in RESP3, and inf/-inf for infinities.
func (w *Writer) Double(d float64) {
	var tmp [32]byte
	b := AppendDouble(tmp[:0], d)
	if w.Proto == 3 {
		w.Buf = append(w.Buf, ',')
		w.Buf = append(w.Buf, b...)
		w.Buf = append(w.Buf, '\r', '\n')
		return
	}
	w.Bulk(b)
}

// Verbatim writes a verbatim string (=, with a 3-letter format) in RESP3,
// a bulk string in RESP2.
func (w *Writer) Verbatim(format, s string) {
	if w.Proto != 3 {
		w.BulkString(s)
		return
	}
	w.header('=', int64(len(s)+4))
	w.Buf = append(w.Buf, format...)
	w.Buf = append(w.Buf, ':')
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// Raw appends bytes that are already a valid reply.
func (w *Writer) Raw(b []byte) { w.Buf = append(w.Buf, b...) }

// AppendDouble formats d as C's "%.17g" does (Redis's addReplyDouble):
// inf, -inf, and nan or -nan by the sign of the NaN.
func AppendDouble(dst []byte, d float64) []byte { return AppendG(dst, d, 17) }

// AppendG formats d as C's printf("%.<prec>g") does (Go's 'g' verb differs
// in when it switches to exponent form and in exponent padding), glibc's
// "inf", "-inf", "nan" and "-nan" included.
func AppendG(dst []byte, d float64, prec int) []byte {
	switch {
	case math.IsInf(d, 1):
		return append(dst, "inf"...)
	case math.IsInf(d, -1):
		return append(dst, "-inf"...)
	case d != d:
		if math.Signbit(d) {
			return append(dst, "-nan"...)
		}
		return append(dst, "nan"...)
	}
	if d == 0 {
		if math.Signbit(d) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	}
	// Exponent of d once rounded to prec significant digits.
	e := strconv.AppendFloat(nil, d, 'e', prec-1, 64)
	i := len(e) - 1
	for e[i] != 'e' {
		i--
	}
	x, _ := strconv.Atoi(string(e[i+1:]))
	if x < -4 || x >= prec {
		// Mantissa with trailing zeros removed, exponent at least two digits.
		mant := e[:i]
		if dot := indexByte(mant, '.'); dot >= 0 {
			j := len(mant)
			for j > dot+1 && mant[j-1] == '0' {
				j--
			}
			if j == dot+1 {
				j = dot
			}
			mant = mant[:j]
		}
		dst = append(dst, mant...)
		dst = append(dst, 'e')
		if x < 0 {
			dst = append(dst, '-')
			x = -x
		} else {
			dst = append(dst, '+')
		}
		if x < 10 {
			dst = append(dst, '0')
		}
		return strconv.AppendInt(dst, int64(x), 10)
	}
	f := strconv.AppendFloat(dst, d, 'f', prec-1-x, 64)
	if indexByte(f[len(dst):], '.') >= 0 {
		j := len(f)
		for f[j-1] == '0' {
			j--
		}
		if f[j-1] == '.' {
			j--
		}
		f = f[:j]
	}
	return f
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
