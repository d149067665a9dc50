package script

// cjson: the lua-cjson module Redis bundles (encode, decode, null), with
// its defaults (14 significant digits, '/' escaped, sparse arrays refused
// beyond ratio 2 past index 10, nesting limited to 1000) and its error
// messages.

import (
	"math"
	"strconv"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"

	"github.com/ordo-db/ordo/internal/resp"
)

const jsonMaxDepth = 1000

// cjsonNull is cjson.null (a light userdata in lua-cjson).
var cjsonNull = &lua.LUserData{}

func openCJSON(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("encode", L.NewFunction(cjsonEncode))
	t.RawSetString("decode", L.NewFunction(cjsonDecode))
	t.RawSetString("null", cjsonNull)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	// Configuration functions: accepted, defaults kept.
	for _, name := range []string{"encode_sparse_array", "encode_max_depth", "decode_max_depth",
		"encode_number_precision", "encode_keep_buffer", "encode_invalid_numbers", "decode_invalid_numbers"} {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int { return 0 }))
	}
	t.RawSetString("new", L.NewFunction(func(L *lua.LState) int {
		L.Push(openCJSON(L))
		return 1
	}))
	return t
}

func cjsonEncode(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.RaiseError("bad argument #1 to 'encode' (expected 1 argument)")
	}
	var e jsonEncoder
	if msg := e.encode(L.Get(1), 0); msg != "" {
		L.RaiseError("%s", msg)
	}
	L.Push(lua.LString(e.buf))
	return 1
}

type jsonEncoder struct{ buf []byte }

func luaTypeName(v lua.LValue) string {
	switch v.Type() {
	case lua.LTFunction:
		return "function"
	case lua.LTUserData:
		return "userdata"
	case lua.LTThread:
		return "thread"
	case lua.LTChannel:
		return "userdata"
	}
	return v.Type().String()
}

func (e *jsonEncoder) encode(v lua.LValue, depth int) string {
	switch v := v.(type) {
	case lua.LString:
		e.buf = appendJSONString(e.buf, string(v))
	case lua.LNumber:
		f := float64(v)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return "Cannot serialise number: must not be NaN or Inf"
		}
		e.buf = resp.AppendG(e.buf, f, 14)
	case lua.LBool:
		if v {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case *lua.LNilType:
		e.buf = append(e.buf, "null"...)
	case *lua.LUserData:
		if v == cjsonNull {
			e.buf = append(e.buf, "null"...)
			return ""
		}
		return "Cannot serialise userdata: type not supported"
	case *lua.LTable:
		depth++
		if depth > jsonMaxDepth {
			return "Cannot serialise, excessive nesting (" + strconv.Itoa(depth) + ")"
		}
		n, isArray := arrayLength(v)
		if n == -2 {
			return "Cannot serialise table: excessively sparse array"
		}
		if isArray && n > 0 {
			e.buf = append(e.buf, '[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					e.buf = append(e.buf, ',')
				}
				if msg := e.encode(v.RawGetInt(i), depth); msg != "" {
					return msg
				}
			}
			e.buf = append(e.buf, ']')
			return ""
		}
		e.buf = append(e.buf, '{')
		first := true
		var msg string
		for k, val := v.Next(lua.LNil); k != lua.LNil; k, val = v.Next(k) {
			if !first {
				e.buf = append(e.buf, ',')
			}
			first = false
			switch k := k.(type) {
			case lua.LString:
				e.buf = appendJSONString(e.buf, string(k))
			case lua.LNumber:
				e.buf = append(e.buf, '"')
				e.buf = resp.AppendG(e.buf, float64(k), 14)
				e.buf = append(e.buf, '"')
			default:
				return "Cannot serialise " + luaTypeName(k) + ": table key must be a number or string"
			}
			e.buf = append(e.buf, ':')
			if msg = e.encode(val, depth); msg != "" {
				return msg
			}
		}
		e.buf = append(e.buf, '}')
	default:
		return "Cannot serialise " + luaTypeName(v) + ": type not supported"
	}
	return ""
}

// arrayLength is lua-cjson's lua_array_length: the array length if every
// key is a positive integer, -1 (object) otherwise, -2 when too sparse.
func arrayLength(t *lua.LTable) (int, bool) {
	max, items := 0, 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		if !ok || float64(n) < 1 || float64(n) != math.Floor(float64(n)) {
			return -1, false
		}
		if int(n) > max {
			max = int(n)
		}
		items++
	}
	if max > items*2 && max > 10 {
		return -2, false
	}
	return max, true
}

func appendJSONString(b []byte, s string) []byte {
	const hexd = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b = append(b, '\\', '"')
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == '/':
			b = append(b, '\\', '/')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20 || c == 0x7f:
			b = append(b, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// Decoding, with lua-cjson's tokens and messages.

type jsonTok int

const (
	tObjBegin jsonTok = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tWhitespace
	tError
	tUnknown
)

var jsonTokNames = []string{"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING",
	"T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR", "T_UNKNOWN"}

type jsonToken struct {
	typ   jsonTok
	index int
	str   string
	num   float64
	b     bool
	err   string
}

type jsonDecoder struct {
	L     *lua.LState
	data  string
	pos   int
	depth int
}

type jsonError struct{ msg string }

func cjsonDecode(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.RaiseError("bad argument #1 to 'decode' (expected 1 argument)")
	}
	var data string
	switch v := L.Get(1).(type) {
	case lua.LString:
		data = string(v)
	case lua.LNumber:
		data = luaNumberString(float64(v))
	default:
		L.RaiseError("bad argument #1 to 'decode' (string expected, got %s)", luaTypeName(v))
	}
	d := &jsonDecoder{L: L, data: data}
	v, msg := d.decode()
	if msg != "" {
		L.RaiseError("%s", msg)
	}
	L.Push(v)
	return 1
}

func (d *jsonDecoder) decode() (v lua.LValue, msg string) {
	defer func() {
		if r := recover(); r != nil {
			je, ok := r.(jsonError)
			if !ok {
				panic(r)
			}
			v, msg = lua.LNil, je.msg
		}
	}()
	tok := d.next()
	v = d.value(tok)
	tok = d.next()
	if tok.typ != tEnd {
		d.fail("the end", tok)
	}
	return v, ""
}

func (d *jsonDecoder) fail(exp string, tok jsonToken) {
	found := jsonTokNames[tok.typ]
	if tok.typ == tError {
		found = tok.err
	}
	panic(jsonError{"Expected " + exp + " but found " + found + " at character " + strconv.Itoa(tok.index+1)})
}

func (d *jsonDecoder) value(tok jsonToken) lua.LValue {
	switch tok.typ {
	case tString:
		return lua.LString(tok.str)
	case tNumber:
		return lua.LNumber(tok.num)
	case tBoolean:
		return lua.LBool(tok.b)
	case tNull:
		return cjsonNull
	case tObjBegin:
		return d.object(tok)
	case tArrBegin:
		return d.array(tok)
	}
	d.fail("value", tok)
	return nil
}

func (d *jsonDecoder) enter(tok jsonToken) {
	d.depth++
	if d.depth > jsonMaxDepth {
		panic(jsonError{"Found too many nested data structures (" + strconv.Itoa(d.depth) + ") at character " + strconv.Itoa(tok.index+1)})
	}
}

func (d *jsonDecoder) object(open jsonToken) lua.LValue {
	d.enter(open)
	t := d.L.NewTable()
	tok := d.next()
	if tok.typ == tObjEnd {
		d.depth--
		return t
	}
	for {
		if tok.typ != tString {
			d.fail("object key string", tok)
		}
		key := tok.str
		tok = d.next()
		if tok.typ != tColon {
			d.fail("colon", tok)
		}
		t.RawSetString(key, d.value(d.next()))
		tok = d.next()
		if tok.typ == tObjEnd {
			d.depth--
			return t
		}
		if tok.typ != tComma {
			d.fail("comma or object end", tok)
		}
		tok = d.next()
	}
}

func (d *jsonDecoder) array(open jsonToken) lua.LValue {
	d.enter(open)
	t := d.L.NewTable()
	tok := d.next()
	if tok.typ == tArrEnd {
		d.depth--
		return t
	}
	for i := 1; ; i++ {
		t.RawSetInt(i, d.value(tok))
		tok = d.next()
		if tok.typ == tArrEnd {
			d.depth--
			return t
		}
		if tok.typ != tComma {
			d.fail("comma or array end", tok)
		}
		tok = d.next()
	}
}

func (d *jsonDecoder) next() jsonToken {
	s := d.data
	for d.pos < len(s) && (s[d.pos] == ' ' || s[d.pos] == '\t' || s[d.pos] == '\n' || s[d.pos] == '\r') {
		d.pos++
	}
	tok := jsonToken{index: d.pos}
	if d.pos >= len(s) {
		tok.typ = tEnd
		return tok
	}
	c := s[d.pos]
	switch c {
	case '{':
		tok.typ = tObjBegin
	case '}':
		tok.typ = tObjEnd
	case '[':
		tok.typ = tArrBegin
	case ']':
		tok.typ = tArrEnd
	case ':':
		tok.typ = tColon
	case ',':
		tok.typ = tComma
	case '"':
		return d.stringToken()
	default:
		switch {
		case c == '-' || (c >= '0' && c <= '9'):
			return d.numberToken()
		case hasPrefix(s[d.pos:], "true"):
			tok.typ, tok.b = tBoolean, true
			d.pos += 4
			return tok
		case hasPrefix(s[d.pos:], "false"):
			tok.typ = tBoolean
			d.pos += 5
			return tok
		case hasPrefix(s[d.pos:], "null"):
			tok.typ = tNull
			d.pos += 4
			return tok
		case hasPrefix(s[d.pos:], "inf") || hasPrefix(s[d.pos:], "nan"):
			return d.numberToken()
		}
		tok.typ, tok.err = tError, "invalid token"
		return tok
	}
	d.pos++
	return tok
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

func (d *jsonDecoder) stringToken() jsonToken {
	s := d.data
	tok := jsonToken{index: d.pos, typ: tString}
	d.pos++
	var b []byte
	for {
		if d.pos >= len(s) {
			return jsonToken{index: d.pos, typ: tError, err: "unexpected end of string"}
		}
		c := s[d.pos]
		if c == '"' {
			d.pos++
			break
		}
		if c != '\\' {
			b = append(b, c)
			d.pos++
			continue
		}
		if d.pos+1 >= len(s) {
			return jsonToken{index: d.pos, typ: tError, err: "unexpected end of string"}
		}
		switch s[d.pos+1] {
		case '"', '\\', '/':
			b = append(b, s[d.pos+1])
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
			r, n := decodeUnicodeEscape(s[d.pos:])
			if n == 0 {
				return jsonToken{index: d.pos, typ: tError, err: "invalid unicode escape code"}
			}
			b = utf8.AppendRune(b, r)
			d.pos += n
			continue
		default:
			return jsonToken{index: d.pos, typ: tError, err: "invalid escape code"}
		}
		d.pos += 2
	}
	tok.str = string(b)
	return tok
}

// decodeUnicodeEscape decodes \uXXXX (and a surrogate pair) at s; it
// returns the rune and the bytes consumed, 0 if invalid.
func decodeUnicodeEscape(s string) (rune, int) {
	hex4 := func(s string) (rune, bool) {
		if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(s[2:6], 16, 32)
		return rune(v), err == nil
	}
	r, ok := hex4(s)
	if !ok {
		return 0, 0
	}
	if r >= 0xDC00 && r <= 0xDFFF {
		return 0, 0
	}
	if r >= 0xD800 && r <= 0xDBFF {
		lo, ok := hex4(s[6:])
		if !ok || lo < 0xDC00 || lo > 0xDFFF {
			return 0, 0
		}
		return (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000, 12
	}
	return r, 6
}

func (d *jsonDecoder) numberToken() jsonToken {
	s := d.data
	start := d.pos
	i := start
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	if hasPrefix(s[i:], "inf") || hasPrefix(s[i:], "nan") {
		i += 3
		if hasPrefix(s[i:], "inity") {
			i += 5
		}
	} else {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i < len(s) && s[i] == '.' {
			i++
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		}
		if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
			j := i + 1
			if j < len(s) && (s[j] == '+' || s[j] == '-') {
				j++
			}
			if j < len(s) && s[j] >= '0' && s[j] <= '9' {
				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
				i = j
			}
		}
	}
	f, err := strconv.ParseFloat(s[start:i], 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return jsonToken{index: start, typ: tError, err: "invalid number"}
		}
	}
	d.pos = i
	return jsonToken{index: start, typ: tNumber, num: f}
}
