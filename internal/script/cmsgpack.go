package script

// cmsgpack: the lua-cmsgpack 0.4.0 module Redis bundles
// (deps/lua/src/lua_cmsgpack.c): pack(...), unpack(s), unpack_one(s
// [, offset]) and unpack_limit(s, limit [, offset]), with its encoding
// choices and its error messages.
//
// Encoding: a number that is an integer in int64's range is packed in the
// smallest integer format (positive fixnum, uint 8/16/32/64, negative
// fixnum, int 8/16/32/64); another number as float 32 when converting it
// to float32 and back gives the same number, else as float 64; strings
// as fixstr, str 8, str 16 or str 32; booleans; a table whose keys are
// exactly 1..n as an array, any other table as a map (in Lua's iteration
// order); anything else, and tables nested 16 deep, as nil. Decoding
// turns every number into a Lua number (uint 64 through int64, as Lua
// 5.1's lua_pushinteger does) and refuses bin, ext and the other formats
// lua-cmsgpack does not know ("Bad data format in input.").

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

const cmsgpackMaxNesting = 16

func openCMsgpack(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(mpPack))
	t.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int { return mpUnpack(L, 0, 0) }))
	t.RawSetString("unpack_one", L.NewFunction(func(L *lua.LState) int {
		off := mpOptInt(L, 2, "unpack_one", 0)
		return mpUnpack(L, 1, off)
	}))
	t.RawSetString("unpack_limit", L.NewFunction(func(L *lua.LState) int {
		limit := mpCheckInt(L, 2, "unpack_limit")
		off := mpOptInt(L, 3, "unpack_limit", 0)
		return mpUnpack(L, limit, off)
	}))
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	return t
}

// mpCheckInt is luaL_checkint: a number or a numeric string, truncated.
func mpCheckInt(L *lua.LState, n int, fname string) int {
	v := L.Get(n)
	var f float64
	switch x := v.(type) {
	case lua.LNumber:
		f = float64(x)
	case lua.LString:
		g, ok := str2number(string(x))
		if !ok {
			mpTypeError(L, n, fname, v)
		}
		f = g
	default:
		mpTypeError(L, n, fname, v)
	}
	return int(int32(luaToInt64(f)))
}

func mpOptInt(L *lua.LState, n int, fname string, def int) int {
	if L.Get(n) == lua.LNil {
		return def
	}
	return mpCheckInt(L, n, fname)
}

func mpTypeError(L *lua.LState, n int, fname string, v lua.LValue) {
	got := v.Type().String()
	if n > L.GetTop() {
		got = "no value"
	}
	L.RaiseError("bad argument #%d to '%s' (number expected, got %s)", n, fname, got)
}

func mpPack(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		L.RaiseError("bad argument #0 to 'pack' (MessagePack pack needs input.)")
	}
	var b []byte
	for i := 1; i <= n; i++ {
		b = mpEncode(L, b, L.Get(i), 0)
	}
	L.Push(lua.LString(b))
	return 1
}

func mpEncode(L *lua.LState, b []byte, v lua.LValue, level int) []byte {
	switch x := v.(type) {
	case lua.LString:
		return mpEncodeBytes(b, string(x))
	case lua.LBool:
		if x {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		f := float64(x)
		if f >= -9223372036854775808 && f < 9223372036854775808 && f == math.Trunc(f) {
			return mpEncodeInt(b, int64(f))
		}
		return mpEncodeDouble(b, f)
	case *lua.LTable:
		if level == cmsgpackMaxNesting {
			return append(b, 0xc0)
		}
		if mpIsArray(x) {
			n := x.Len()
			b = mpEncodeHeader(b, 0x90, 0xdc, int64(n))
			for j := 1; j <= n; j++ {
				b = mpEncode(L, b, L.GetTable(x, lua.LNumber(j)), level+1)
			}
			return b
		}
		n := 0
		for k, _ := x.Next(lua.LNil); k != lua.LNil; k, _ = x.Next(k) {
			n++
		}
		b = mpEncodeHeader(b, 0x80, 0xde, int64(n))
		for k, val := x.Next(lua.LNil); k != lua.LNil; k, val = x.Next(k) {
			b = mpEncode(L, b, k, level+1)
			b = mpEncode(L, b, val, level+1)
		}
		return b
	}
	return append(b, 0xc0)
}

// mpIsArray is table_is_an_array: only keys 1..n (positive numbers that
// are C ints, without a hole).
func mpIsArray(t *lua.LTable) bool {
	count, max := 0, 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		f := float64(n)
		if !ok || f <= 0 || f > math.MaxInt32 || f != math.Trunc(f) {
			return false
		}
		if int(f) > max {
			max = int(f)
		}
		count++
	}
	return max == count
}

func mpEncodeBytes(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= 0xff:
		b = append(b, 0xd9, byte(n))
	case n <= 0xffff:
		b = append(b, 0xda, byte(n>>8), byte(n))
	default:
		b = append(b, 0xdb, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(b, s...)
}

// mpEncodeHeader writes an array (fix 0x90, 0xdc, 0xdd) or map (fix
// 0x80, 0xde, 0xdf) header.
func mpEncodeHeader(b []byte, fix, c16 byte, n int64) []byte {
	switch {
	case n <= 15:
		return append(b, fix|byte(n))
	case n <= 0xffff:
		return append(b, c16, byte(n>>8), byte(n))
	}
	return append(b, c16+1, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

func mpEncodeDouble(b []byte, d float64) []byte {
	if f := float32(d); float64(f) == d {
		u := math.Float32bits(f)
		return append(b, 0xca, byte(u>>24), byte(u>>16), byte(u>>8), byte(u))
	}
	u := math.Float64bits(d)
	return append(b, 0xcb, byte(u>>56), byte(u>>48), byte(u>>40), byte(u>>32),
		byte(u>>24), byte(u>>16), byte(u>>8), byte(u))
}

func mpEncodeInt(b []byte, n int64) []byte {
	u := uint64(n)
	be := func(code byte, size int) []byte {
		b = append(b, code)
		for i := size - 1; i >= 0; i-- {
			b = append(b, byte(u>>(8*i)))
		}
		return b
	}
	if n >= 0 {
		switch {
		case n <= 127:
			return append(b, byte(n))
		case n <= 0xff:
			return be(0xcc, 1)
		case n <= 0xffff:
			return be(0xcd, 2)
		case n <= 0xffffffff:
			return be(0xce, 4)
		}
		return be(0xcf, 8)
	}
	switch {
	case n >= -32:
		return append(b, byte(n))
	case n >= -128:
		return be(0xd0, 1)
	case n >= -32768:
		return be(0xd1, 2)
	case n >= -2147483648:
		return be(0xd2, 4)
	}
	return be(0xd3, 8)
}

// mpCursor is lua-cmsgpack's mp_cur.
type mpCursor struct {
	p   []byte
	err int // 0, mpEOF or mpBadFmt
}

const (
	mpEOF    = 1
	mpBadFmt = 2
)

func mpUnpack(L *lua.LState, limit, offset int) int {
	var s string
	switch v := L.Get(1).(type) {
	case lua.LString:
		s = string(v)
	case lua.LNumber:
		s = luaNumberString(float64(v))
	default:
		got := v.Type().String()
		if L.GetTop() < 1 {
			got = "no value"
		}
		name := "unpack"
		if limit == 1 {
			name = "unpack_one"
		} else if limit != 0 || offset != 0 {
			name = "unpack_limit"
		}
		L.RaiseError("bad argument #1 to '%s' (string expected, got %s)", name, got)
	}
	decodeAll := limit == 0 && offset == 0
	if offset < 0 || limit < 0 {
		L.RaiseError("Invalid request to unpack with offset of %d and limit of %d.", offset, len(s))
	} else if offset > len(s) {
		L.RaiseError("Start offset %d greater than input length %d.", offset, len(s))
	}
	if decodeAll {
		limit = math.MaxInt32
	}
	c := &mpCursor{p: []byte(s[offset:])}
	var out []lua.LValue
	for cnt := 0; len(c.p) > 0 && cnt < limit; cnt++ {
		v := mpDecode(L, c)
		switch c.err {
		case mpEOF:
			L.RaiseError("Missing bytes in input.")
		case mpBadFmt:
			L.RaiseError("Bad data format in input.")
		}
		out = append(out, v)
	}
	n := len(out)
	if !decodeAll {
		next := len(s) - len(c.p)
		if len(c.p) == 0 {
			next = -1
		}
		L.Push(lua.LNumber(next))
		n++
	}
	for _, v := range out {
		L.Push(v)
	}
	return n
}

func (c *mpCursor) need(n int) bool {
	if len(c.p) < n {
		c.err = mpEOF
		return false
	}
	return true
}

func (c *mpCursor) be(off, size int) uint64 {
	var u uint64
	for i := 0; i < size; i++ {
		u = u<<8 | uint64(c.p[off+i])
	}
	return u
}

func mpDecode(L *lua.LState, c *mpCursor) lua.LValue {
	if !c.need(1) {
		return lua.LNil
	}
	num := func(size int, conv func(u uint64) float64) lua.LValue {
		if !c.need(1 + size) {
			return lua.LNil
		}
		v := lua.LNumber(conv(c.be(1, size)))
		c.p = c.p[1+size:]
		return v
	}
	str := func(hdr, size int) lua.LValue {
		if !c.need(hdr) {
			return lua.LNil
		}
		n := size
		if hdr > 1 {
			n = int(c.be(1, hdr-1))
		}
		if !c.need(hdr + n) {
			return lua.LNil
		}
		v := lua.LString(c.p[hdr : hdr+n])
		c.p = c.p[hdr+n:]
		return v
	}
	coll := func(hdr int, n int, isMap bool) lua.LValue {
		if !c.need(hdr) {
			return lua.LNil
		}
		if hdr > 1 {
			n = int(c.be(1, hdr-1))
		}
		c.p = c.p[hdr:]
		t := L.NewTable()
		for i := 1; i <= n; i++ {
			if isMap {
				k := mpDecode(L, c)
				if c.err != 0 {
					return t
				}
				v := mpDecode(L, c)
				if c.err != 0 {
					return t
				}
				switch kk := k.(type) {
				case *lua.LNilType:
					L.Error(lua.LString("table index is nil"), 0)
				case lua.LNumber:
					if kk != kk {
						L.Error(lua.LString("table index is NaN"), 0)
					}
				}
				t.RawSet(k, v)
			} else {
				v := mpDecode(L, c)
				if c.err != 0 {
					return t
				}
				t.RawSetInt(i, v)
			}
		}
		return t
	}
	b := c.p[0]
	switch b {
	case 0xcc:
		return num(1, func(u uint64) float64 { return float64(u) })
	case 0xd0:
		return num(1, func(u uint64) float64 { return float64(int8(u)) })
	case 0xcd:
		return num(2, func(u uint64) float64 { return float64(u) })
	case 0xd1:
		return num(2, func(u uint64) float64 { return float64(int16(u)) })
	case 0xce:
		return num(4, func(u uint64) float64 { return float64(u) })
	case 0xd2:
		return num(4, func(u uint64) float64 { return float64(int32(u)) })
	case 0xcf, 0xd3:
		return num(8, func(u uint64) float64 { return float64(int64(u)) })
	case 0xc0:
		c.p = c.p[1:]
		return lua.LNil
	case 0xc3:
		c.p = c.p[1:]
		return lua.LTrue
	case 0xc2:
		c.p = c.p[1:]
		return lua.LFalse
	case 0xca:
		return num(4, func(u uint64) float64 { return float64(math.Float32frombits(uint32(u))) })
	case 0xcb:
		return num(8, func(u uint64) float64 { return math.Float64frombits(u) })
	case 0xd9:
		return str(2, 0)
	case 0xda:
		return str(3, 0)
	case 0xdb:
		return str(5, 0)
	case 0xdc:
		return coll(3, 0, false)
	case 0xdd:
		return coll(5, 0, false)
	case 0xde:
		return coll(3, 0, true)
	case 0xdf:
		return coll(5, 0, true)
	}
	switch {
	case b&0x80 == 0:
		c.p = c.p[1:]
		return lua.LNumber(b)
	case b&0xe0 == 0xe0:
		c.p = c.p[1:]
		return lua.LNumber(int8(b))
	case b&0xe0 == 0xa0:
		return str(1, int(b&0x1f))
	case b&0xf0 == 0x90:
		return coll(1, int(b&0xf), false)
	case b&0xf0 == 0x80:
		return coll(1, int(b&0xf), true)
	}
	c.err = mpBadFmt
	return lua.LNil
}
