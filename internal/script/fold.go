package script

import lua "github.com/yuin/gopher-lua"

// Reading a global in gopher-lua is a GETGLOBAL: the script's globals
// are an empty read-only proxy, so each read costs a miss there, the
// proxy's __index in its metatable and the read in the real globals;
// redis.call then costs the same again in the redis table's proxy. The
// lock-release script spends a fifth of its time on them.
//
// Every global a script can read is fixed once the state is made (the
// tables are read-only, rawset refuses them, loaded code runs behind the
// same proxies), except KEYS and ARGV, which each EVAL sets. So a
// compiled script's reads of the others are folded into constants:
// GETGLOBAL of such a name becomes a LOADK of its value, and a
// GETTABLEKS of a field of a read-only library table that follows it
// (redis.call, string.format) a LOADK of the field. Error messages do not
// change: gopher-lua names the function a call reaches from the call's
// debug record, made by the compiler.

// fold rewrites p and the functions nested in it; value returns the
// value of a foldable global (ok false: leave the read as it is), field
// the value of a field of a folded table (nil: leave it).
func fold(p *lua.FunctionProto, value func(name string) (lua.LValue, bool), field func(t lua.LValue, key string) lua.LValue) {
	for _, np := range p.FunctionPrototypes {
		fold(np, value, field)
	}
	code := p.Code
	targets := jumpTargets(p)
	for pc := 0; pc < len(code); pc++ {
		inst := code[pc]
		if int(inst>>26) != lua.OP_GETGLOBAL {
			continue
		}
		a, bx := int(inst>>18)&0xff, int(inst&0x3ffff)
		if bx >= len(p.Constants) {
			continue
		}
		name, ok := p.Constants[bx].(lua.LString)
		if !ok {
			continue
		}
		v, ok := value(string(name))
		if !ok {
			continue
		}
		k := constant(p, v)
		if k < 0 {
			return
		}
		code[pc] = loadK(a, k)
		// R(A2) := R(A)[K(C)] right after, not reached by a jump (so R(A)
		// holds the value just loaded).
		if pc+1 >= len(code) || targets[pc+1] {
			continue
		}
		next := code[pc+1]
		a2, b2, c2 := int(next>>18)&0xff, int(next&0x1ff), int(next>>9)&0x1ff
		if int(next>>26) != lua.OP_GETTABLEKS || b2 != a || c2&0x100 == 0 || c2&0xff >= len(p.Constants) {
			continue
		}
		key, ok := p.Constants[c2&0xff].(lua.LString)
		if !ok {
			continue
		}
		f := field(v, string(key))
		if f == nil {
			continue
		}
		if k := constant(p, f); k >= 0 {
			code[pc+1] = loadK(a2, k)
			pc++
		}
	}
}

// constant is the index of v among p's constants, added if needed, or
// -1 when LOADK cannot reach one more.
func constant(p *lua.FunctionProto, v lua.LValue) int {
	for i, c := range p.Constants {
		if c == v {
			return i
		}
	}
	if len(p.Constants) >= 1<<18-1 {
		return -1
	}
	p.Constants = append(p.Constants, v)
	return len(p.Constants) - 1
}

func loadK(a, k int) uint32 {
	return uint32(lua.OP_LOADK)<<26 | uint32(a)<<18 | uint32(k)
}

// jumpTargets marks the instructions some other instruction may jump to
// (beyond the one after it).
func jumpTargets(p *lua.FunctionProto) []bool {
	code := p.Code
	t := make([]bool, len(code)+2)
	mark := func(pc int) {
		if pc >= 0 && pc < len(t) {
			t[pc] = true
		}
	}
	for pc := 0; pc < len(code); pc++ {
		inst := code[pc]
		sbx := int(inst&0x3ffff) - (1<<18-1)>>1
		switch int(inst >> 26) {
		case lua.OP_JMP, lua.OP_FORLOOP, lua.OP_FORPREP:
			mark(pc + 1 + sbx)
		case lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST, lua.OP_TESTSET, lua.OP_LOADBOOL, lua.OP_TFORLOOP:
			mark(pc + 2) // these skip the next instruction
		case lua.OP_SETLIST:
			if int(inst>>9)&0x1ff == 0 {
				pc++ // the next word is data
			}
		case lua.OP_CLOSURE:
			bx := int(inst & 0x3ffff)
			if bx < len(p.FunctionPrototypes) {
				pc += int(p.FunctionPrototypes[bx].NumUpvalues)
			}
		}
	}
	return t[:len(code)]
}

// foldGlobals folds a script's or a loaded function's reads of the
// globals other than KEYS and ARGV, and of the fields of the read-only
// library tables.
func (s *scripting) foldGlobals(p *lua.FunctionProto) {
	fold(p, func(name string) (lua.LValue, bool) {
		if name == "KEYS" || name == "ARGV" {
			return nil, false
		}
		v := s.globals.RawGetString(name)
		return v, v != lua.LNil
	}, func(t lua.LValue, key string) lua.LValue {
		tb, ok := t.(*lua.LTable)
		if !ok || !s.readonly[tb] {
			return nil
		}
		if real := s.proxied[tb]; real != nil {
			tb = real
		}
		if tb == s.globals && (key == "KEYS" || key == "ARGV") {
			return nil // _G.KEYS: each EVAL's own
		}
		if v := tb.RawGetString(key); v != lua.LNil {
			return v
		}
		return nil
	})
}
