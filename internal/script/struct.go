package script

// struct: the binary packing library Redis bundles (lua_struct.c):
// struct.pack(fmt, ...), struct.unpack(fmt, s [, pos]), struct.size(fmt),
// with x86-64 sizes (short 2, int 4, long and size_t 8) and native
// little-endian byte order unless '>' is given.

import (
	"encoding/binary"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

const (
	structMaxIntSize = 32
	structMaxAlign   = 8
)

type structHeader struct {
	big   bool
	align int
}

func openStruct(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(structPack))
	t.RawSetString("unpack", L.NewFunction(structUnpack))
	t.RawSetString("size", L.NewFunction(structSize))
	return t
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// getnum reads an optional decimal number at fmt[*i].
func getnum(L *lua.LState, fmt string, i *int, df int) int {
	if *i >= len(fmt) || !isDigit(fmt[*i]) {
		return df
	}
	a := 0
	for *i < len(fmt) && isDigit(fmt[*i]) {
		d := int(fmt[*i] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			L.RaiseError("integral size overflow")
		}
		a = a*10 + d
		*i++
	}
	return a
}

func optsize(L *lua.LState, opt byte, fmt string, i *int) int {
	switch opt {
	case 'B', 'b', 'x':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'c':
		return getnum(L, fmt, i, 1)
	case 'i', 'I':
		sz := getnum(L, fmt, i, 4)
		if sz > structMaxIntSize {
			L.RaiseError("integral size %d is larger than limit of %d", sz, structMaxIntSize)
		}
		return sz
	}
	return 0
}

func gettoalign(n int, h *structHeader, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	if size > h.align {
		size = h.align
	}
	return (size - (n & (size - 1))) & (size - 1)
}

func controloptions(L *lua.LState, opt byte, fmt string, i *int, h *structHeader) {
	switch opt {
	case ' ':
	case '>':
		h.big = true
	case '<':
		h.big = false
	case '!':
		a := getnum(L, fmt, i, structMaxAlign)
		if a == 0 || a&(a-1) != 0 {
			L.RaiseError("alignment %d is not a power of 2", a)
		}
		h.align = a
	default:
		L.ArgError(1, "invalid format option '"+string(opt)+"'")
	}
}

func putBytes(b []byte, v []byte, big bool) []byte {
	if big {
		for i := len(v) - 1; i >= 0; i-- {
			b = append(b, v[i])
		}
		return b
	}
	return append(b, v...)
}

func structPack(L *lua.LState) int {
	fmt := L.CheckString(1)
	h := structHeader{align: 1}
	arg := 2
	total := 0
	var b []byte
	for i := 0; i < len(fmt); {
		opt := fmt[i]
		i++
		size := optsize(L, opt, fmt, &i)
		toalign := gettoalign(total, &h, opt, size)
		total += toalign
		for ; toalign > 0; toalign-- {
			b = append(b, 0)
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			n := float64(L.CheckNumber(arg))
			arg++
			var v uint64
			if n < 0 {
				v = uint64(int64(n))
			} else {
				v = uint64(n)
			}
			le := make([]byte, size)
			for k := 0; k < size; k++ {
				if k < 8 {
					le[k] = byte(v >> (8 * k))
				} else if n < 0 {
					le[k] = 0xff
				}
			}
			b = putBytes(b, le, h.big)
		case 'x':
			b = append(b, 0)
		case 'f':
			var le [4]byte
			binary.LittleEndian.PutUint32(le[:], math.Float32bits(float32(L.CheckNumber(arg))))
			arg++
			b = putBytes(b, le[:], h.big)
		case 'd':
			var le [8]byte
			binary.LittleEndian.PutUint64(le[:], math.Float64bits(float64(L.CheckNumber(arg))))
			arg++
			b = putBytes(b, le[:], h.big)
		case 'c', 's':
			s := L.CheckString(arg)
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				L.ArgError(arg, "string too short")
			}
			b = append(b, s[:size]...)
			if opt == 's' {
				b = append(b, 0)
				size++
			}
		default:
			controloptions(L, opt, fmt, &i, &h)
		}
		total += size
	}
	L.Push(lua.LString(b))
	return 1
}

func structUnpack(L *lua.LState) int {
	fmt := L.CheckString(1)
	data := L.CheckString(2)
	ld := len(data)
	pos := L.OptInt(3, 1) - 1
	if pos < 0 {
		L.ArgError(3, "offset must be 1 or greater")
	}
	h := structHeader{align: 1}
	L.SetTop(2)
	n := 0
	for i := 0; i < len(fmt); {
		opt := fmt[i]
		i++
		size := optsize(L, opt, fmt, &i)
		pos += gettoalign(pos, &h, opt, size)
		if size > ld || pos > ld-size {
			L.ArgError(2, "data string too short")
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			var v uint64
			for k := 0; k < size; k++ {
				var c byte
				if h.big {
					c = data[pos+size-1-k]
				} else {
					c = data[pos+k]
				}
				if k < 8 {
					v |= uint64(c) << (8 * k)
				}
			}
			signed := opt >= 'a' && opt <= 'z'
			if signed && size < 8 {
				mask := uint64(1) << (size*8 - 1)
				v = (v ^ mask) - mask
			}
			if signed {
				L.Push(lua.LNumber(float64(int64(v))))
			} else {
				L.Push(lua.LNumber(float64(v)))
			}
			n++
		case 'x':
		case 'f', 'd':
			le := make([]byte, size)
			for k := 0; k < size; k++ {
				if h.big {
					le[k] = data[pos+size-1-k]
				} else {
					le[k] = data[pos+k]
				}
			}
			if opt == 'f' {
				L.Push(lua.LNumber(math.Float32frombits(binary.LittleEndian.Uint32(le))))
			} else {
				L.Push(lua.LNumber(math.Float64frombits(binary.LittleEndian.Uint64(le))))
			}
			n++
		case 'c':
			if size == 0 {
				prev, ok := L.Get(-1).(lua.LNumber)
				if n == 0 || !ok {
					L.RaiseError("format 'c0' needs a previous size")
				}
				size = int(prev)
				L.Pop(1)
				n--
				if size > ld || pos > ld-size {
					L.ArgError(2, "data string too short")
				}
			}
			L.Push(lua.LString(data[pos : pos+size]))
			n++
		case 's':
			e := strings.IndexByte(data[pos:], 0)
			if e < 0 {
				L.RaiseError("unfinished string in data")
			}
			size = e + 1
			L.Push(lua.LString(data[pos : pos+e]))
			n++
		default:
			controloptions(L, opt, fmt, &i, &h)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos + 1))
	return n + 1
}

func structSize(L *lua.LState) int {
	fmt := L.CheckString(1)
	h := structHeader{align: 1}
	pos := 0
	for i := 0; i < len(fmt); {
		opt := fmt[i]
		i++
		size := optsize(L, opt, fmt, &i)
		pos += gettoalign(pos, &h, opt, size)
		if opt == 's' {
			L.ArgError(1, "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			L.ArgError(1, "option 'c0' has no fixed size")
		}
		if !(isDigit(opt) || (opt|0x20 >= 'a' && opt|0x20 <= 'z')) {
			controloptions(L, opt, fmt, &i, &h)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos))
	return 1
}
