// Package jsonval is the JSON value model of Ordo's JSON.* commands: a
// value tree, a parser that accepts what RedisJSON's (serde_json-based)
// parser accepts with its error messages, and a formatter that prints
// what RedisJSON prints. Paths over these values are in
// internal/ds/jsonpath; the commands are in the engine's cmd_json.go.
//
// A value is one of: nil (null), bool, int64, uint64 (only integers above
// MaxInt64, as serde_json keeps them), float64, string, *Array, *Object.
// Integers and floats stay distinct, as in RedisJSON (ijson keeps "1" and
// "1.0" apart): "1.0" prints as 1.0, "1e2" as 100.0.
//
// # Guarantees
//
//   - Parse accepts what serde_json accepts (RFC 8259 JSON texts nested
//     at most MaxDepth deep) and never panics; its errors read as
//     RedisJSON's ("expected value at line 1 column 1").
//   - Append of a parsed value parses back to an Equal value; floats
//     print in serde_json's shortest round-trip form.
//   - Object keeps members in insertion order and finds keys in constant
//     time once large.
//   - No package state: functions are safe for concurrent use on
//     distinct values, and on shared values that nobody modifies.
//
// # Not safe
//
// Values are mutable trees without locking: concurrent modification of
// one tree, or reading it while another goroutine modifies it, is a
// data race. Clone before sharing. Values must be acyclic (an Array that
// contains itself makes Append, Clone, Size and Equal recurse forever).
package jsonval

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Array is a JSON array; Elems may be modified in place.
type Array struct{ Elems []any }

// Object is a JSON object: members in insertion order, with a key index
// built for big objects. Modify it through its methods only.
type Object struct {
	keys []string
	vals []any
	idx  map[string]int
}

const objIndexAt = 16

// Len is the number of members.
func (o *Object) Len() int { return len(o.keys) }

// Keys are the member names in order. The slice is o's own: read it, do
// not modify it, and do not keep it across changes to o.
func (o *Object) Keys() []string { return o.keys }

// Values are the member values in the order of Keys, under the same
// rules (to replace a value, use Set).
func (o *Object) Values() []any { return o.vals }

// Find is the position of key k in Keys, or -1.
func (o *Object) Find(k string) int {
	if o.idx != nil {
		if i, ok := o.idx[k]; ok {
			return i
		}
		return -1
	}
	for i, x := range o.keys {
		if x == k {
			return i
		}
	}
	return -1
}

// Get is k's value.
func (o *Object) Get(k string) (any, bool) {
	if i := o.Find(k); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// Set replaces k's value or appends k.
func (o *Object) Set(k string, v any) {
	if i := o.Find(k); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
	if o.idx != nil {
		o.idx[k] = len(o.keys) - 1
	} else if len(o.keys) > objIndexAt {
		o.idx = make(map[string]int, len(o.keys))
		for i, x := range o.keys {
			o.idx[x] = i
		}
	}
}

// Remove deletes member k, reporting whether it was there.
func (o *Object) Remove(k string) bool {
	i := o.Find(k)
	if i < 0 {
		return false
	}
	o.keys = append(o.keys[:i], o.keys[i+1:]...)
	o.vals = append(o.vals[:i], o.vals[i+1:]...)
	if o.idx != nil {
		delete(o.idx, k)
		for j := i; j < len(o.keys); j++ {
			o.idx[o.keys[j]] = j
		}
	}
	return true
}

// Clear removes all members.
func (o *Object) Clear() { o.keys, o.vals, o.idx = nil, nil, nil }

// Clone deep-copies a node.
func Clone(v any) any {
	switch x := v.(type) {
	case *Array:
		a := make([]any, len(x.Elems))
		for i, e := range x.Elems {
			a[i] = Clone(e)
		}
		return &Array{Elems: a}
	case *Object:
		o := &Object{keys: append([]string(nil), x.keys...), vals: make([]any, len(x.vals))}
		for i, e := range x.vals {
			o.vals[i] = Clone(e)
		}
		if x.idx != nil {
			o.idx = make(map[string]int, len(x.idx))
			for k, i := range x.idx {
				o.idx[k] = i
			}
		}
		return o
	}
	return v
}

// TypeName is JSON.TYPE's name for a node.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case int64, uint64:
		return "integer"
	case float64:
		return "number"
	case string:
		return "string"
	case *Array:
		return "array"
	case *Object:
		return "object"
	}
	return "null"
}

// Size estimates the bytes a node occupies (MEMORY USAGE).
func Size(v any) int64 {
	switch x := v.(type) {
	case string:
		return 16 + int64(len(x))
	case *Array:
		n := int64(24 + 16*cap(x.Elems))
		for _, e := range x.Elems {
			n += Size(e)
		}
		return n
	case *Object:
		n := int64(56 + 32*cap(x.keys))
		for i, e := range x.vals {
			n += int64(len(x.keys[i])) + Size(e)
		}
		if x.idx != nil {
			n += int64(48 * len(x.idx))
		}
		return n
	case int64, uint64, float64:
		return 16
	}
	return 16
}

// ---- parsing (serde_json's grammar and error messages) ----

type parser struct {
	s     []byte
	pos   int
	depth int
}

// ParseError is a parse failure; its text mimics serde_json's "<msg> at line L column C".
type ParseError struct{ Msg string }

func (e *ParseError) Error() string { return e.Msg }

// MaxDepth is how deeply arrays and objects may nest (serde_json's
// recursion limit).
const MaxDepth = 128

// Parse parses a complete JSON text (leading and trailing whitespace
// allowed). The error text is what
// RedisJSON replies (serde_json's message, with no error code).
func Parse(s []byte) (any, error) {
	p := &parser{s: s}
	p.ws()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.pos < len(p.s) {
		return nil, p.errAt("trailing characters", p.pos+1)
	}
	return v, nil
}

// errAt reports msg at byte offset off (1-based column of the character
// at off-1, as serde_json counts: column of the last character read).
func (p *parser) errAt(msg string, off int) error {
	if off > len(p.s) {
		off = len(p.s)
	}
	line, col := 1, 0
	for i := 0; i < off; i++ {
		if p.s[i] == '\n' {
			line++
			col = 0
		} else {
			col++
		}
	}
	return &ParseError{Msg: msg + " at line " + strconv.Itoa(line) + " column " + strconv.Itoa(col)}
}

func (p *parser) eof(what string) error {
	return p.errAt("EOF while parsing "+what, len(p.s))
}

func (p *parser) ws() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() (any, error) {
	if p.pos >= len(p.s) {
		return nil, p.eof("a value")
	}
	switch c := p.s[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		p.pos++
		return p.str()
	case c == 't':
		return p.ident("true", true)
	case c == 'f':
		return p.ident("false", false)
	case c == 'n':
		return p.ident("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, p.errAt("expected value", p.pos+1)
}

func (p *parser) ident(word string, v any) (any, error) {
	for i := 0; i < len(word); i++ {
		if p.pos >= len(p.s) {
			return nil, p.eof("a value")
		}
		if p.s[p.pos] != word[i] {
			return nil, p.errAt("expected ident", p.pos+1)
		}
		p.pos++
	}
	return v, nil
}

func (p *parser) number() (any, error) {
	start := p.pos
	if p.s[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.pos >= len(p.s) {
		return nil, p.eof("a value")
	}
	if p.s[p.pos] == '0' {
		p.pos++
		if p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			return nil, p.errAt("invalid number", p.pos+1)
		}
	} else if digits() == 0 {
		return nil, p.errAt("invalid number", p.pos+1)
	}
	isFloat := false
	if p.pos < len(p.s) && p.s[p.pos] == '.' {
		isFloat = true
		p.pos++
		if p.pos >= len(p.s) {
			return nil, p.eof("a value")
		}
		if digits() == 0 {
			return nil, p.errAt("invalid number", p.pos+1)
		}
	}
	if p.pos < len(p.s) && (p.s[p.pos] == 'e' || p.s[p.pos] == 'E') {
		isFloat = true
		p.pos++
		if p.pos < len(p.s) && (p.s[p.pos] == '+' || p.s[p.pos] == '-') {
			p.pos++
		}
		if p.pos >= len(p.s) {
			return nil, p.eof("a value")
		}
		if digits() == 0 {
			return nil, p.errAt("invalid number", p.pos+1)
		}
	}
	text := string(p.s[start:p.pos])
	if !isFloat {
		if text[0] == '-' {
			if n, err := strconv.ParseInt(text, 10, 64); err == nil {
				return n, nil
			}
		} else if n, err := strconv.ParseUint(text, 10, 64); err == nil {
			if n <= math.MaxInt64 {
				return int64(n), nil
			}
			return n, nil
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && math.IsInf(f, 0) {
		return nil, p.errAt("number out of range", p.pos)
	}
	return f, nil
}

// str parses a string body (the opening quote consumed).
func (p *parser) str() (string, error) {
	var b []byte
	start := p.pos
	for {
		if p.pos >= len(p.s) {
			return "", p.eof("a string")
		}
		c := p.s[p.pos]
		switch {
		case c == '"':
			var s string
			if b == nil {
				s = string(p.s[start:p.pos])
			} else {
				s = string(append(b, p.s[start:p.pos]...))
			}
			p.pos++
			if !utf8.ValidString(s) {
				return "", p.errAt("invalid unicode code point", p.pos)
			}
			return s, nil
		case c < 0x20:
			return "", p.errAt("control character (\\u0000-\\u001F) found while parsing a string", p.pos+1)
		case c == '\\':
			b = append(b, p.s[start:p.pos]...)
			p.pos++
			if p.pos >= len(p.s) {
				return "", p.eof("a string")
			}
			e := p.s[p.pos]
			p.pos++
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, err := p.hex4()
				if err != nil {
					return "", err
				}
				if r >= 0xD800 && r <= 0xDBFF {
					if p.pos+1 < len(p.s) && p.s[p.pos] == '\\' && p.s[p.pos+1] == 'u' {
						p.pos += 2
						r2, err := p.hex4()
						if err != nil {
							return "", err
						}
						if r2 < 0xDC00 || r2 > 0xDFFF {
							return "", p.errAt("lone leading surrogate in hex escape", p.pos)
						}
						r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
					} else {
						return "", p.errAt("unexpected end of hex escape", p.pos)
					}
				} else if r >= 0xDC00 && r <= 0xDFFF {
					return "", p.errAt("lone leading surrogate in hex escape", p.pos)
				}
				b = utf8.AppendRune(b, rune(r))
			default:
				return "", p.errAt("invalid escape", p.pos)
			}
			start = p.pos
		default:
			p.pos++
		}
	}
}

func (p *parser) hex4() (int, error) {
	r := 0
	for i := 0; i < 4; i++ {
		if p.pos >= len(p.s) {
			return 0, p.eof("a string")
		}
		c := p.s[p.pos]
		p.pos++
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'f':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = int(c-'A') + 10
		default:
			return 0, p.errAt("invalid escape", p.pos)
		}
		r = r<<4 | d
	}
	return r, nil
}

func (p *parser) array() (any, error) {
	p.depth++
	if p.depth > MaxDepth {
		return nil, p.errAt("recursion limit exceeded", p.pos+1)
	}
	p.pos++ // '['
	arr := &Array{}
	p.ws()
	if p.pos >= len(p.s) {
		return nil, p.eof("a list")
	}
	if p.s[p.pos] == ']' {
		p.pos++
		p.depth--
		return arr, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		arr.Elems = append(arr.Elems, v)
		p.ws()
		if p.pos >= len(p.s) {
			return nil, p.eof("a list")
		}
		switch p.s[p.pos] {
		case ',':
			p.pos++
			p.ws()
			if p.pos < len(p.s) && p.s[p.pos] == ']' {
				return nil, p.errAt("trailing comma", p.pos+1)
			}
		case ']':
			p.pos++
			p.depth--
			return arr, nil
		default:
			return nil, p.errAt("expected `,` or `]`", p.pos+1)
		}
	}
}

func (p *parser) object() (any, error) {
	p.depth++
	if p.depth > MaxDepth {
		return nil, p.errAt("recursion limit exceeded", p.pos+1)
	}
	p.pos++ // '{'
	obj := &Object{}
	p.ws()
	if p.pos >= len(p.s) {
		return nil, p.eof("an object")
	}
	if p.s[p.pos] == '}' {
		p.pos++
		p.depth--
		return obj, nil
	}
	for {
		if p.pos >= len(p.s) {
			return nil, p.eof("an object")
		}
		if p.s[p.pos] != '"' {
			return nil, p.errAt("key must be a string", p.pos+1)
		}
		p.pos++
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.pos >= len(p.s) {
			return nil, p.eof("an object")
		}
		if p.s[p.pos] != ':' {
			return nil, p.errAt("expected `:`", p.pos+1)
		}
		p.pos++
		p.ws()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		obj.Set(k, v) // a duplicate key keeps its first position, last value
		p.ws()
		if p.pos >= len(p.s) {
			return nil, p.eof("an object")
		}
		switch p.s[p.pos] {
		case ',':
			p.pos++
			p.ws()
			if p.pos < len(p.s) && p.s[p.pos] == '}' {
				return nil, p.errAt("trailing comma", p.pos+1)
			}
		case '}':
			p.pos++
			p.depth--
			return obj, nil
		default:
			return nil, p.errAt("expected `,` or `}`", p.pos+1)
		}
	}
}

// ---- serializing (serde_json's compact output, RedisJSON's formatter) ----

// Format holds JSON.GET's INDENT, NEWLINE and SPACE strings; a nil or
// empty Format prints compactly.
type Format struct {
	Indent, Newline, Space string
}

func (f *Format) plain() bool {
	return f == nil || (f.Indent == "" && f.Newline == "" && f.Space == "")
}

// Append serializes v. With formatting, a non-empty container puts
// each member on a new line (NEWLINE then INDENT per level) and closes on
// a new line; SPACE follows each ':' (RedisJSON's RedisJsonFormatter).
func Append(b []byte, v any, f *Format) []byte {
	if f.plain() {
		return appendLevel(b, v, nil, 0)
	}
	return appendLevel(b, v, f, 0)
}

func appendNewline(b []byte, f *Format, level int) []byte {
	b = append(b, f.Newline...)
	for i := 0; i < level; i++ {
		b = append(b, f.Indent...)
	}
	return b
}

func appendLevel(b []byte, v any, f *Format, level int) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		if x {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case uint64:
		return strconv.AppendUint(b, x, 10)
	case float64:
		return appendFloat(b, x)
	case string:
		return appendString(b, x)
	case *Array:
		b = append(b, '[')
		for i, e := range x.Elems {
			if i > 0 {
				b = append(b, ',')
			}
			if f != nil {
				b = appendNewline(b, f, level+1)
			}
			b = appendLevel(b, e, f, level+1)
		}
		if f != nil && len(x.Elems) > 0 {
			b = appendNewline(b, f, level)
		}
		return append(b, ']')
	case *Object:
		b = append(b, '{')
		for i, k := range x.keys {
			if i > 0 {
				b = append(b, ',')
			}
			if f != nil {
				b = appendNewline(b, f, level+1)
			}
			b = appendString(b, k)
			b = append(b, ':')
			if f != nil {
				b = append(b, f.Space...)
			}
			b = appendLevel(b, x.vals[i], f, level+1)
		}
		if f != nil && len(x.keys) > 0 {
			b = appendNewline(b, f, level)
		}
		return append(b, '}')
	case []any: // a list of matches, serialized as an array
		return appendLevel(b, &Array{Elems: x}, f, level)
	case *Multi:
		return appendLevel(b, &Object{keys: x.Keys, vals: x.Vals}, f, level)
	}
	return b
}

// Multi is JSON.GET's reply object for several paths: it prints as an
// object with Keys and Vals in order, without an index.
type Multi struct {
	Keys []string
	Vals []any
}

// appendString escapes as serde_json does: '"', '\\' and control
// characters only (\b \f \n \r \t, others as \u00XX); '/' and non-ASCII
// are kept as they are.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendFloat prints a finite float as serde_json does (the ryu
// crate's format_finite): shortest round-trip digits; plain notation with
// a ".0" for integral values when the decimal point falls within 16
// digits, "0.000ddd" down to 1e-5, scientific otherwise ("1e16", "1e-7",
// "1.6350000000001313e308").
func appendFloat(b []byte, f float64) []byte {
	if f == 0 {
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(b, "null"...) // not representable; RedisJSON refuses such results
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddddde±XX
	mant, exps, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(exps)
	n := len(digits)
	kk := exp + 1 // position of the decimal point
	k := kk - n
	switch {
	case k >= 0 && kk <= 16:
		b = append(b, digits...)
		for i := 0; i < k; i++ {
			b = append(b, '0')
		}
		return append(b, '.', '0')
	case kk > 0 && kk <= 16:
		b = append(b, digits[:kk]...)
		b = append(b, '.')
		return append(b, digits[kk:]...)
	case kk > -5 && kk <= 0:
		b = append(b, '0', '.')
		for i := 0; i < -kk; i++ {
			b = append(b, '0')
		}
		return append(b, digits...)
	case n == 1:
		b = append(b, digits...)
		b = append(b, 'e')
		return strconv.AppendInt(b, int64(kk-1), 10)
	default:
		b = append(b, digits[0], '.')
		b = append(b, digits[1:]...)
		b = append(b, 'e')
		return strconv.AppendInt(b, int64(kk-1), 10)
	}
}

// Text is v printed compactly.
func Text(v any) string { return string(Append(nil, v, nil)) }

// Num is the value of a number (int64, uint64 or float64) as a float64;
// ok is false for other values.
func Num(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// Equal reports whether a and b are the same value: the same kinds
// (int64 1 and float64 1.0 differ), equal numbers and strings, arrays
// with Equal elements and objects with the same keys in the same order
// and Equal values.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case *Array:
		y, ok := b.(*Array)
		if !ok || len(x.Elems) != len(y.Elems) {
			return false
		}
		for i := range x.Elems {
			if !Equal(x.Elems[i], y.Elems[i]) {
				return false
			}
		}
		return true
	case *Object:
		y, ok := b.(*Object)
		if !ok || len(x.keys) != len(y.keys) {
			return false
		}
		for i, k := range x.keys {
			if y.keys[i] != k || !Equal(x.vals[i], y.vals[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}
