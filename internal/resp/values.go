package resp

import (
	"strconv"
	"unsafe"
)

// Value mode (EnableValues): the Writer records each reply element as an
// entry of a flat list instead of encoding it, for callers in the same
// process (the embedded DB) that would otherwise parse the bytes back.
// Each Writer method applies the same protocol rules as in byte mode and
// records what ParseReply would return for the bytes it writes, so Value
// gives exactly ParseReply's result without any encoding or parsing. The
// server's path pays one predictable nil check per method.

// tape is a value-mode Writer's content: entries in write order (an
// aggregate's entry precedes its elements), their strings in one buffer.
type tape struct {
	ents []ent
	str  []byte
	// pending holds Raw bytes that do not yet form a complete reply (a
	// caller writing one reply in several Raw pieces).
	pending []byte
}

// ent is one reply element: for strings n is the length and off the
// start in tape.str; for integers and booleans n is the value; for
// aggregates n is the number of elements that follow (2 per map pair).
type ent struct {
	n    int64
	off  int
	kind Kind
}

// EnableValues switches w to value mode (see Value), keeping Proto; any
// content is dropped. Buf is unused in value mode.
func (w *Writer) EnableValues() {
	w.Buf = w.Buf[:0]
	if w.t == nil {
		w.t = &tape{}
	}
	w.Reset()
}

// ValueMode reports whether w records values rather than bytes.
func (w *Writer) ValueMode() bool { return w.t != nil }

// Capacity is the memory, in bytes, w's buffers hold (for a caller that
// keeps writers for reuse and drops those a large reply grew).
func (w *Writer) Capacity() int {
	n := cap(w.Buf)
	if w.t != nil {
		n += cap(w.t.ents)*int(unsafe.Sizeof(ent{})) + cap(w.t.str) + cap(w.t.pending)
	}
	return n
}

// Sub returns an empty Writer in w's protocol and mode, for a part of a
// reply built apart and then added with Append.
func (w *Writer) Sub() *Writer {
	s := &Writer{Proto: w.Proto}
	if w.t != nil {
		s.t = &tape{}
	}
	return s
}

// Append adds what src holds to w.
func (w *Writer) Append(src *Writer) {
	switch {
	case src.t == nil:
		w.Raw(src.Buf)
	case w.t == nil:
		w.Buf = src.t.appendRESP(w.Buf, w.Proto)
	default:
		w.t.appendTape(src.t)
	}
}

func (t *tape) reset() {
	t.ents = t.ents[:0]
	t.str = t.str[:0]
	t.pending = t.pending[:0]
}

func (t *tape) add(k Kind, n int64) {
	t.ents = append(t.ents, ent{kind: k, n: n})
}

func (t *tape) addString(k Kind, s string) {
	t.ents = append(t.ents, ent{kind: k, n: int64(len(s)), off: len(t.str)})
	t.str = append(t.str, s...)
}

func (t *tape) addBytes(k Kind, b []byte) {
	t.ents = append(t.ents, ent{kind: k, n: int64(len(b)), off: len(t.str)})
	t.str = append(t.str, b...)
}

// addError records an error reply with newlines made spaces (Error).
func (t *tape) addError(msg string) {
	off := len(t.str)
	t.str = append(t.str, msg...)
	for i := off; i < len(t.str); i++ {
		if c := t.str[i]; c == '\r' || c == '\n' {
			t.str[i] = ' '
		}
	}
	t.ents = append(t.ents, ent{kind: KindError, n: int64(len(msg)), off: off})
}

// header records what Writer.header would encode: an integer, or an
// aggregate's header (a map's n is its pairs; a negative count is a null,
// as ParseReply reads "*-1").
func (t *tape) header(c byte, n int64) {
	k := Kind(c)
	switch {
	case k == KindInt:
	case n < 0:
		k, n = KindNull, 0
	case k == KindMap:
		n *= 2
	}
	t.add(k, n)
}

func (t *tape) appendTape(src *tape) {
	base := len(t.str)
	t.str = append(t.str, src.str...)
	for _, e := range src.ents {
		if isStringKind(e.kind) {
			e.off += base
		}
		t.ents = append(t.ents, e)
	}
	if len(src.pending) > 0 {
		t.raw(src.pending)
	}
}

// raw records the replies encoded in b (Raw in value mode): the only
// place a value-mode Writer parses. An incomplete end is kept for the
// next Raw.
func (t *tape) raw(b []byte) {
	if len(t.pending) > 0 {
		t.pending = append(t.pending, b...)
		b = t.pending
	}
	for len(b) > 0 {
		v, n, err := ParseReply(b)
		if err != nil {
			break
		}
		t.addValue(v)
		b = b[n:]
	}
	t.pending = append(t.pending[:0], b...) // b may be pending's end: append moves
}

func (t *tape) addValue(v Value) {
	switch v.Kind {
	case KindInt, KindBool:
		t.add(v.Kind, v.Int)
	case KindNull:
		t.add(KindNull, 0)
	case KindArray, KindSet, KindPush, KindMap: // ParseReply drops attributes
		t.add(v.Kind, int64(len(v.Elems)))
		for _, e := range v.Elems {
			t.addValue(e)
		}
	default:
		t.addString(v.Kind, v.Str)
	}
}

func isStringKind(k Kind) bool {
	switch k {
	case KindSimple, KindError, KindBulk, KindDouble, KindBigNum, KindVerbatim:
		return true
	}
	return false
}

func isAggregateKind(k Kind) bool {
	switch k {
	case KindArray, KindSet, KindPush, KindMap:
		return true
	}
	return false
}

// appendRESP encodes the tape as RESP (for a value-mode part appended to
// a byte-mode Writer).
func (t *tape) appendRESP(dst []byte, proto int) []byte {
	crlf := func(dst []byte) []byte { return append(dst, '\r', '\n') }
	for _, e := range t.ents {
		switch {
		case e.kind == KindNull && proto == 3:
			dst = append(dst, "_\r\n"...)
		case e.kind == KindNull:
			dst = append(dst, "$-1\r\n"...)
		case e.kind == KindBool:
			if e.n != 0 {
				dst = append(dst, "#t\r\n"...)
			} else {
				dst = append(dst, "#f\r\n"...)
			}
		case e.kind == KindInt:
			dst = append(dst, ':')
			dst = crlf(strconv.AppendInt(dst, e.n, 10))
		case isAggregateKind(e.kind):
			n := e.n
			if e.kind == KindMap {
				n /= 2
			}
			dst = append(dst, byte(e.kind))
			dst = crlf(strconv.AppendInt(dst, n, 10))
		case e.kind == KindBulk:
			dst = append(dst, '$')
			dst = crlf(strconv.AppendInt(dst, e.n, 10))
			dst = crlf(append(dst, t.str[e.off:e.off+int(e.n)]...))
		case e.kind == KindVerbatim:
			dst = append(dst, '=')
			dst = crlf(strconv.AppendInt(dst, e.n+4, 10))
			dst = append(dst, "txt:"...)
			dst = crlf(append(dst, t.str[e.off:e.off+int(e.n)]...))
		default: // one-line strings
			dst = append(dst, byte(e.kind))
			dst = crlf(append(dst, t.str[e.off:e.off+int(e.n)]...))
		}
	}
	return append(dst, t.pending...)
}

// Value returns the first reply w holds, exactly as ParseReply would
// return it from the same reply written in byte mode (attributes dropped,
// nulls of every form KindNull, verbatim strings without their format).
// Its strings share one allocation; nested aggregates share another. It
// returns ErrIncomplete if w holds no complete reply. In byte mode it is
// ParseReply(w.Buf).
func (w *Writer) Value() (Value, error) {
	if w.t == nil {
		v, _, err := ParseReply(w.Buf)
		return v, err
	}
	t := w.t
	// The extent of the first reply, the elements its aggregates hold,
	// and the span of its strings (anything truncated or cut is not).
	need, end, elems := int64(1), 0, 0
	lo, hi := len(t.str), 0
	for need > 0 {
		if end == len(t.ents) {
			return Value{}, ErrIncomplete
		}
		e := t.ents[end]
		end++
		need--
		if isAggregateKind(e.kind) {
			need += e.n
			elems += int(e.n)
		} else if isStringKind(e.kind) {
			lo, hi = min(lo, e.off), max(hi, e.off+int(e.n))
		}
	}
	var b valueBuilder
	b.ents = t.ents[:end]
	if lo < hi {
		b.s = string(t.str[lo:hi]) // one copy for every string of the reply
		b.base = lo
	}
	if elems > 0 {
		b.pool = make([]Value, elems)
	}
	v := b.build()
	return v, nil
}

type valueBuilder struct {
	ents []ent
	i    int
	s    string // the strings, from t.str[base:]
	base int
	pool []Value
}

var noElems = []Value{}

func (b *valueBuilder) build() Value {
	e := b.ents[b.i]
	b.i++
	switch {
	case e.kind == KindInt || e.kind == KindBool:
		return Value{Kind: e.kind, Int: e.n}
	case e.kind == KindNull:
		return Value{Kind: KindNull}
	case isAggregateKind(e.kind):
		n := int(e.n)
		var elems []Value
		if n == 0 {
			elems = noElems
		} else {
			elems = b.pool[:n:n]
			b.pool = b.pool[n:]
		}
		for j := range elems {
			elems[j] = b.build()
		}
		return Value{Kind: e.kind, Elems: elems}
	}
	if e.n == 0 {
		return Value{Kind: e.kind}
	}
	off := e.off - b.base
	return Value{Kind: e.kind, Str: b.s[off : off+int(e.n)]}
}
