package engine

// JSON documents: the value tree, a parser that accepts what RedisJSON's
// (serde_json-based) parser accepts, and a serializer that prints what
// RedisJSON prints. Commands are in json.go, paths in json_path.go.
//
// A node is one of: nil (null), bool, int64, uint64 (only integers above
// MaxInt64, as serde_json keeps them), float64, string, *jArr, *jObj.
// Integers and floats stay distinct, as in RedisJSON (ijson keeps "1" and
// "1.0" apart): "1.0" prints as 1.0, "1e2" as 100.0.

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

type jArr struct{ a []any }

// jObj keeps members in insertion order; idx is built for big objects.
type jObj struct {
	keys []string
	vals []any
	idx  map[string]int
}

const jObjIndexAt = 16

func (o *jObj) find(k string) int {
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

func (o *jObj) get(k string) (any, bool) {
	if i := o.find(k); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// set replaces k's value or appends k.
func (o *jObj) set(k string, v any) {
	if i := o.find(k); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
	if o.idx != nil {
		o.idx[k] = len(o.keys) - 1
	} else if len(o.keys) > jObjIndexAt {
		o.idx = make(map[string]int, len(o.keys))
		for i, x := range o.keys {
			o.idx[x] = i
		}
	}
}

func (o *jObj) remove(k string) bool {
	i := o.find(k)
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

func (o *jObj) clear() { o.keys, o.vals, o.idx = nil, nil, nil }

// jClone deep-copies a node.
func jClone(v any) any {
	switch x := v.(type) {
	case *jArr:
		a := make([]any, len(x.a))
		for i, e := range x.a {
			a[i] = jClone(e)
		}
		return &jArr{a: a}
	case *jObj:
		o := &jObj{keys: append([]string(nil), x.keys...), vals: make([]any, len(x.vals))}
		for i, e := range x.vals {
			o.vals[i] = jClone(e)
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

// jTypeName is JSON.TYPE's name for a node.
func jTypeName(v any) string {
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
	case *jArr:
		return "array"
	case *jObj:
		return "object"
	}
	return "null"
}

// jSize estimates the bytes a node occupies (MEMORY USAGE).
func jSize(v any) int64 {
	switch x := v.(type) {
	case string:
		return 16 + int64(len(x))
	case *jArr:
		n := int64(24 + 16*cap(x.a))
		for _, e := range x.a {
			n += jSize(e)
		}
		return n
	case *jObj:
		n := int64(56 + 32*cap(x.keys))
		for i, e := range x.vals {
			n += int64(len(x.keys[i])) + jSize(e)
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

type jParser struct {
	s     []byte
	pos   int
	depth int
}

// jsonParseError mimics serde_json's "<msg> at line L column C".
type jsonParseError struct{ msg string }

func (e *jsonParseError) Error() string { return e.msg }

const jMaxDepth = 128 // serde_json's recursion limit

// parseJSON parses a complete JSON text. The error text is what
// RedisJSON replies (serde_json's message, with no error code).
func parseJSON(s []byte) (any, error) {
	p := &jParser{s: s}
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
func (p *jParser) errAt(msg string, off int) error {
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
	return &jsonParseError{msg + " at line " + strconv.Itoa(line) + " column " + strconv.Itoa(col)}
}

func (p *jParser) eof(what string) error {
	return p.errAt("EOF while parsing "+what, len(p.s))
}

func (p *jParser) ws() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jParser) value() (any, error) {
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

func (p *jParser) ident(word string, v any) (any, error) {
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

func (p *jParser) number() (any, error) {
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
func (p *jParser) str() (string, error) {
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

func (p *jParser) hex4() (int, error) {
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

func (p *jParser) array() (any, error) {
	p.depth++
	if p.depth > jMaxDepth {
		return nil, p.errAt("recursion limit exceeded", p.pos+1)
	}
	p.pos++ // '['
	arr := &jArr{}
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
		arr.a = append(arr.a, v)
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

func (p *jParser) object() (any, error) {
	p.depth++
	if p.depth > jMaxDepth {
		return nil, p.errAt("recursion limit exceeded", p.pos+1)
	}
	p.pos++ // '{'
	obj := &jObj{}
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
		obj.set(k, v) // a duplicate key keeps its first position, last value
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

// jFormat holds JSON.GET's INDENT, NEWLINE and SPACE strings.
type jFormat struct {
	indent, newline, space string
}

func (f *jFormat) plain() bool {
	return f == nil || (f.indent == "" && f.newline == "" && f.space == "")
}

// appendJSON serializes v. With formatting, a non-empty container puts
// each member on a new line (NEWLINE then INDENT per level) and closes on
// a new line; SPACE follows each ':' (RedisJSON's RedisJsonFormatter).
func appendJSON(b []byte, v any, f *jFormat) []byte {
	if f.plain() {
		return appendJSONLevel(b, v, nil, 0)
	}
	return appendJSONLevel(b, v, f, 0)
}

func appendNewline(b []byte, f *jFormat, level int) []byte {
	b = append(b, f.newline...)
	for i := 0; i < level; i++ {
		b = append(b, f.indent...)
	}
	return b
}

func appendJSONLevel(b []byte, v any, f *jFormat, level int) []byte {
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
		return appendJSONFloat(b, x)
	case string:
		return appendJSONString(b, x)
	case *jArr:
		b = append(b, '[')
		for i, e := range x.a {
			if i > 0 {
				b = append(b, ',')
			}
			if f != nil {
				b = appendNewline(b, f, level+1)
			}
			b = appendJSONLevel(b, e, f, level+1)
		}
		if f != nil && len(x.a) > 0 {
			b = appendNewline(b, f, level)
		}
		return append(b, ']')
	case *jObj:
		b = append(b, '{')
		for i, k := range x.keys {
			if i > 0 {
				b = append(b, ',')
			}
			if f != nil {
				b = appendNewline(b, f, level+1)
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			if f != nil {
				b = append(b, f.space...)
			}
			b = appendJSONLevel(b, x.vals[i], f, level+1)
		}
		if f != nil && len(x.keys) > 0 {
			b = appendNewline(b, f, level)
		}
		return append(b, '}')
	case []any: // a list of matches, serialized as an array
		return appendJSONLevel(b, &jArr{a: x}, f, level)
	case *jMulti:
		return appendJSONLevel(b, &jObj{keys: x.keys, vals: x.vals}, f, level)
	}
	return b
}

// jMulti is JSON.GET's reply object for several paths.
type jMulti struct {
	keys []string
	vals []any
}

// appendJSONString escapes as serde_json does: '"', '\\' and control
// characters only (\b \f \n \r \t, others as \u00XX); '/' and non-ASCII
// are kept as they are.
func appendJSONString(b []byte, s string) []byte {
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

// appendJSONFloat prints a finite float as serde_json does (the ryu
// crate's format_finite): shortest round-trip digits; plain notation with
// a ".0" for integral values when the decimal point falls within 16
// digits, "0.000ddd" down to 1e-5, scientific otherwise ("1e16", "1e-7",
// "1.6350000000001313e308").
func appendJSONFloat(b []byte, f float64) []byte {
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

func jsonText(v any) string { return string(appendJSON(nil, v, nil)) }
