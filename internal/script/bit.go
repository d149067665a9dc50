package script

// bit: the LuaBitOp module Redis bundles. Numbers are taken modulo 2^32
// as LuaBitOp's tobit does, and results are signed 32-bit numbers.

import (
	"math"
	"math/bits"

	lua "github.com/yuin/gopher-lua"
)

func openBit(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	arg := func(L *lua.LState, i int) uint32 {
		v, ok := toNumber(L.Get(i))
		if !ok {
			L.ArgError(i, "number expected, got "+luaTypeName(L.Get(i)))
		}
		return tobit(v)
	}
	ret := func(L *lua.LState, x uint32) int {
		L.Push(lua.LNumber(int32(x)))
		return 1
	}
	fold := func(op func(a, b uint32) uint32) lua.LGFunction {
		return func(L *lua.LState) int {
			x := arg(L, 1)
			for i := 2; i <= L.GetTop(); i++ {
				x = op(x, arg(L, i))
			}
			return ret(L, x)
		}
	}
	fns := map[string]lua.LGFunction{
		"tobit": func(L *lua.LState) int { return ret(L, arg(L, 1)) },
		"bnot":  func(L *lua.LState) int { return ret(L, ^arg(L, 1)) },
		"band":  fold(func(a, b uint32) uint32 { return a & b }),
		"bor":   fold(func(a, b uint32) uint32 { return a | b }),
		"bxor":  fold(func(a, b uint32) uint32 { return a ^ b }),
		"lshift": func(L *lua.LState) int {
			return ret(L, arg(L, 1)<<(arg(L, 2)&31))
		},
		"rshift": func(L *lua.LState) int {
			return ret(L, arg(L, 1)>>(arg(L, 2)&31))
		},
		"arshift": func(L *lua.LState) int {
			return ret(L, uint32(int32(arg(L, 1))>>(arg(L, 2)&31)))
		},
		"rol": func(L *lua.LState) int {
			return ret(L, bits.RotateLeft32(arg(L, 1), int(arg(L, 2)&31)))
		},
		"ror": func(L *lua.LState) int {
			return ret(L, bits.RotateLeft32(arg(L, 1), -int(arg(L, 2)&31)))
		},
		"bswap": func(L *lua.LState) int { return ret(L, bits.ReverseBytes32(arg(L, 1))) },
		"tohex": func(L *lua.LState) int {
			x := arg(L, 1)
			n := int32(8)
			if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
				n = int32(arg(L, 2))
			}
			digits := "0123456789abcdef"
			if n < 0 {
				n = -n
				digits = "0123456789ABCDEF"
			}
			if n > 8 {
				n = 8
			}
			buf := make([]byte, n)
			for i := int(n) - 1; i >= 0; i-- {
				buf[i] = digits[x&15]
				x >>= 4
			}
			L.Push(lua.LString(buf))
			return 1
		},
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	return t
}

// tobit is LuaBitOp's normalisation: the number rounded and wrapped to
// 32 bits through the 2^52+2^51 addition trick.
func tobit(f float64) uint32 {
	return uint32(math.Float64bits(f + 6755399441055744.0))
}
