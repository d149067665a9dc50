package resp

import (
	"math"
	"strconv"
)

// Writer appends replies to Buf in the protocol version Proto (2 or 3).
// RESP3-only types degrade to their RESP2 forms exactly as Redis does:
// maps and sets become arrays, doubles become bulk strings, booleans
// become integers, and null becomes a null bulk or null array.
//
// In value mode (EnableValues, values.go) it records the replies as
// values instead, which Value returns as ParseReply would have parsed
// them. Code that looks back at what it wrote uses positions (Len) and
// IsErrorAt, Truncate, Cut and InsertHeader, which work in both modes,
// never Buf directly.
type Writer struct {
	Buf   []byte
	Proto int
	t     *tape // non-nil in value mode
}

// Reset empties the writer, keeping its capacity.
func (w *Writer) Reset() {
	w.Buf = w.Buf[:0]
	if w.t != nil {
		w.t.reset()
	}
}

// Len is the current position: the number of bytes written since the
// last Reset (entries in value mode). Positions are for IsErrorAt,
// Truncate, Cut and InsertHeader.
func (w *Writer) Len() int {
	if w.t != nil {
		return len(w.t.ents)
	}
	return len(w.Buf)
}

// IsErrorAt reports whether a reply written from position at on is an
// error reply.
func (w *Writer) IsErrorAt(at int) bool {
	if w.t != nil {
		return at < len(w.t.ents) && w.t.ents[at].kind == KindError
	}
	return at < len(w.Buf) && w.Buf[at] == '-'
}

// ErrorAt returns the text of the error reply at position at (without
// the '-' and the line end); ok is false if none is there. The bytes are
// the writer's, valid until its next change.
func (w *Writer) ErrorAt(at int) (msg []byte, ok bool) {
	if !w.IsErrorAt(at) {
		return nil, false
	}
	if w.t != nil {
		e := w.t.ents[at]
		return w.t.str[e.off : e.off+int(e.n)], true
	}
	b := w.Buf[at+1:]
	n := 0
	for n < len(b) && b[n] != '\r' {
		n++
	}
	return b[:n], true
}

// Truncate drops what was written from position at on.
func (w *Writer) Truncate(at int) {
	if w.t != nil {
		if at < len(w.t.ents) {
			w.t.ents = w.t.ents[:at]
		}
		return
	}
	if at < len(w.Buf) {
		w.Buf = w.Buf[:at]
	}
}

// Cut drops what was written between positions from and to.
func (w *Writer) Cut(from, to int) {
	if w.t != nil {
		w.t.ents = append(w.t.ents[:from], w.t.ents[to:]...)
		return
	}
	w.Buf = append(w.Buf[:from], w.Buf[to:]...)
}

// InsertHeader writes, before what w holds from position at on, the
// header of an aggregate (kind '*' or '%', written as given) of n
// elements (pairs for a map): Redis's addReplyDeferredLen.
func (w *Writer) InsertHeader(at int, kind Kind, n int) {
	if w.t != nil {
		c := int64(n)
		if kind == KindMap {
			c *= 2
		}
		w.t.ents = append(w.t.ents, ent{})
		copy(w.t.ents[at+1:], w.t.ents[at:])
		w.t.ents[at] = ent{kind: kind, n: c}
		return
	}
	var hb [24]byte
	h := append(hb[:0], byte(kind))
	h = strconv.AppendInt(h, int64(n), 10)
	h = append(h, '\r', '\n')
	end := len(w.Buf)
	w.Buf = append(w.Buf, h...)
	copy(w.Buf[at+len(h):], w.Buf[at:end])
	copy(w.Buf[at:], h)
}

// header writes an integer or an aggregate's header (c is its RESP type
// byte); in value mode it records the entry instead. The value-mode check
// sits here, out of line, so that the methods calling header stay small
// enough to be inlined on the server's path.
func (w *Writer) header(c byte, n int64) {
	if w.t != nil {
		w.t.header(c, n)
		return
	}
	w.appendHeader(c, n)
}

// appendHeader appends the bytes of a header (c, n, CRLF).
func (w *Writer) appendHeader(c byte, n int64) {
	w.Buf = append(w.Buf, c)
	w.Buf = strconv.AppendInt(w.Buf, n, 10)
	w.Buf = append(w.Buf, '\r', '\n')
}

// Simple writes a status reply (+OK).
func (w *Writer) Simple(s string) {
	if w.t != nil {
		w.t.addString(KindSimple, s)
		return
	}
	w.Buf = append(w.Buf, '+')
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// OK writes +OK.
func (w *Writer) OK() {
	if w.t != nil {
		w.t.addString(KindSimple, "OK")
		return
	}
	w.Buf = append(w.Buf, "+OK\r\n"...)
}

// Error writes an error reply; msg must start with its code ("ERR ...").
// Newlines in msg are replaced by spaces, as Redis does.
func (w *Writer) Error(msg string) {
	if w.t != nil {
		w.t.addError(msg)
		return
	}
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
	if w.bulkHeader(b) {
		return
	}
	w.Buf = append(w.Buf, b...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// BulkString writes a bulk string.
func (w *Writer) BulkString(s string) {
	if w.bulkStringHeader(s) {
		return
	}
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// bulkHeader writes the header of the bulk string b; in value mode it
// records the whole string instead and reports true (see header).
func (w *Writer) bulkHeader(b []byte) bool {
	if w.t != nil {
		w.t.addBytes(KindBulk, b)
		return true
	}
	w.appendHeader('$', int64(len(b)))
	return false
}

// bulkStringHeader is bulkHeader for a string.
func (w *Writer) bulkStringHeader(s string) bool {
	if w.t != nil {
		w.t.addString(KindBulk, s)
		return true
	}
	w.appendHeader('$', int64(len(s)))
	return false
}

// BulkInt writes an integer as a bulk string.
func (w *Writer) BulkInt(n int64) {
	var tmp [24]byte
	w.Bulk(strconv.AppendInt(tmp[:0], n, 10))
}

// Null writes the null bulk string ($-1, or _ in RESP3).
func (w *Writer) Null() {
	if w.t != nil {
		w.t.add(KindNull, 0)
		return
	}
	if w.Proto == 3 {
		w.Buf = append(w.Buf, "_\r\n"...)
	} else {
		w.Buf = append(w.Buf, "$-1\r\n"...)
	}
}

// NullArray writes the null array (*-1, or _ in RESP3).
func (w *Writer) NullArray() {
	if w.t != nil {
		w.t.add(KindNull, 0)
		return
	}
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
	if w.t != nil {
		k, n := KindInt, int64(0)
		if w.Proto == 3 {
			k = KindBool
		}
		if b {
			n = 1
		}
		w.t.add(k, n)
		return
	}
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
	w.DoubleText(AppendDouble(tmp[:0], d))
}

// DoubleText writes a double already formatted (b is its text) as Double
// does: a ',' double in RESP3, a bulk string in RESP2.
func (w *Writer) DoubleText(b []byte) {
	if w.Proto == 3 {
		if w.t != nil {
			w.t.addBytes(KindDouble, b)
			return
		}
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
	if w.t != nil {
		w.t.addString(KindVerbatim, s)
		return
	}
	w.header('=', int64(len(s)+4))
	w.Buf = append(w.Buf, format...)
	w.Buf = append(w.Buf, ':')
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// BigNumber writes a big number (its decimal text) in RESP3, a bulk
// string in RESP2.
func (w *Writer) BigNumber(s string) {
	if w.Proto != 3 {
		w.BulkString(s)
		return
	}
	if w.t != nil {
		w.t.addString(KindBigNum, s)
		return
	}
	w.Buf = append(w.Buf, '(')
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// Raw appends bytes that are already encoded replies. In value mode they
// are parsed (a reply split over several Raw calls is recorded once
// complete); writers with a method for what they write use it instead.
func (w *Writer) Raw(b []byte) {
	if w.t != nil {
		w.t.raw(b)
		return
	}
	w.Buf = append(w.Buf, b...)
}

// AppendDouble formats d as Redis 7.0 replies with doubles: "%.17g".
func AppendDouble(dst []byte, d float64) []byte {
	// An integer of at most 17 digits prints exactly, as its digits: the
	// common case of sorted-set scores (counters, geohash-like codes).
	if d > -1e17 && d < 1e17 && d == float64(int64(d)) && (d != 0 || !math.Signbit(d)) {
		return strconv.AppendInt(dst, int64(d), 10)
	}
	return AppendG(dst, d, 17)
}

// AppendG formats d as C's printf("%.<prec>g") does (Go's 'g' verb differs
// in when it switches to exponent form and in exponent padding), glibc's
// "inf", "-inf", "nan" and "-nan" included. 1 <= prec <= 17.
//
// It formats once, in 'e' form with prec digits (correctly rounded, as
// glibc), and lays those digits out: C defines %g's fixed form as the one
// with the same prec significant digits, so the digits are the same.
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
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], d, 'e', prec-1, 64)
	neg := e[0] == '-'
	if neg {
		e = e[1:]
	}
	i := len(e) - 1
	for e[i] != 'e' {
		i--
	}
	x := 0
	for _, c := range e[i+2:] {
		x = x*10 + int(c-'0')
	}
	if e[i+1] == '-' {
		x = -x
	}
	// The significant digits, trailing zeros removed (%g without '#').
	var dg [24]byte
	digits := append(dg[:0], e[0])
	if i > 1 {
		digits = append(digits, e[2:i]...)
	}
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if neg {
		dst = append(dst, '-')
	}
	if x < -4 || x >= prec {
		dst = append(dst, digits[0])
		if len(digits) > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
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
	if x < 0 {
		// 0.000ddd
		dst = append(dst, '0', '.')
		for k := -1; k > x; k-- {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	// x+1 digits before the point, padded with zeros.
	if len(digits) <= x+1 {
		dst = append(dst, digits...)
		for k := len(digits); k <= x; k++ {
			dst = append(dst, '0')
		}
		return dst
	}
	dst = append(dst, digits[:x+1]...)
	dst = append(dst, '.')
	return append(dst, digits[x+1:]...)
}
