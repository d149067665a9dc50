package script

import lua "github.com/yuin/gopher-lua"

// FCALL passes a function two fresh tables, its keys and its arguments.
// Making them costs two tables, their arrays and the garbage they become
// (a sixth of an FCALL of a small function). When a function's code can
// never let a table out of its frame, the next call cannot tell a fresh
// table from the last one refilled, so FCALL reuses one pair of tables
// for all such functions (scripting.fkeysT, fargvT).
//
// reusableArgs decides it from the function's bytecode: parameter r (0:
// keys, 1: args) may be reused when its register is only ever read as
// the table of an index (keys[1], args.x) or of a length (#keys), never
// written, copied, passed, returned, captured by a closure, compared or
// stored; a table passed to a parameter the function does not declare is
// dropped by the call (unless the function takes ...). Any instruction
// that touches the register otherwise, or that this does not know, keeps
// the table fresh. Nothing else can reach a frame's registers: the debug
// library is not loaded, and a closure reaches a local only through the
// capture that follows its CLOSURE.
func reusableArgs(fn *lua.LFunction) (ok [2]bool) {
	if fn == nil || fn.IsG || fn.Proto == nil {
		return ok
	}
	p := fn.Proto
	for r := range ok {
		ok[r] = r < int(p.NumParameters) || p.IsVarArg == 0
	}
	touch := func(lo, hi int) {
		for r := range ok {
			if lo <= r && r <= hi && r < int(p.NumParameters) {
				ok[r] = false
			}
		}
	}
	rk := func(x int) { // an RK operand: a register unless its top bit is set
		if x&0x100 == 0 {
			touch(x, x)
		}
	}
	code := p.Code
	for pc := 0; pc < len(code); pc++ {
		inst := code[pc]
		op := int(inst >> 26)
		a, b, c := int(inst>>18)&0xff, int(inst&0x1ff), int(inst>>9)&0x1ff
		switch op {
		case lua.OP_GETTABLE: // R(A) := R(B)[RK(C)]: B may be a parameter
			touch(a, a)
			rk(c)
		case lua.OP_GETTABLEKS, lua.OP_LEN: // R(A) := R(B)[K(C)], #R(B)
			touch(a, a)
		case lua.OP_MOVE:
			touch(a, a)
			// "for i = 1, #keys" copies keys to a temporary and takes the
			// length there, in place: the copy is gone at once.
			if pc+1 < len(code) && int(code[pc+1]>>26) == lua.OP_LEN &&
				int(code[pc+1]>>18)&0xff == a && int(code[pc+1]&0x1ff) == a {
				pc++
				continue
			}
			touch(b, b)
		case lua.OP_MOVEN, lua.OP_UNM, lua.OP_NOT, lua.OP_TESTSET:
			touch(a, a)
			touch(b, b)
		case lua.OP_LOADK, lua.OP_LOADBOOL, lua.OP_GETUPVAL, lua.OP_GETGLOBAL,
			lua.OP_SETGLOBAL, lua.OP_SETUPVAL, lua.OP_NEWTABLE, lua.OP_TEST:
			touch(a, a)
		case lua.OP_LOADNIL:
			touch(a, b)
		case lua.OP_SETTABLE:
			touch(a, a)
			rk(b)
			rk(c)
		case lua.OP_SETTABLEKS:
			touch(a, a)
			rk(c)
		case lua.OP_SELF:
			touch(a, a+1)
			touch(b, b)
			rk(c)
		case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW:
			touch(a, a)
			rk(b)
			rk(c)
		case lua.OP_CONCAT:
			touch(a, a)
			touch(b, c)
		case lua.OP_EQ, lua.OP_LT, lua.OP_LE:
			rk(b)
			rk(c)
		case lua.OP_JMP, lua.OP_NOP, lua.OP_CLOSE:
		case lua.OP_CALL, lua.OP_TAILCALL:
			// R(A) called with R(A+1..A+B-1), results in R(A..A+C-2); a
			// count of 0 means up to the top of the frame (a tail call
			// has no results).
			hi := 255
			if b > 0 && (c > 0 || op == lua.OP_TAILCALL) {
				hi = max(a+b-1, a+c-2)
			}
			touch(a, hi)
		case lua.OP_RETURN, lua.OP_VARARG: // R(A..A+B-2)
			hi := 255
			if b > 0 {
				hi = a + b - 2
			}
			touch(a, hi)
		case lua.OP_SETLIST: // R(A)[...] = R(A+1..A+B)
			hi := 255
			if b > 0 {
				hi = a + b
			}
			touch(a, hi)
			if c == 0 {
				pc++ // the block number is the next word
			}
		case lua.OP_FORLOOP, lua.OP_FORPREP:
			touch(a, a+3)
		case lua.OP_TFORLOOP:
			touch(a, a+2+c)
		case lua.OP_CLOSURE:
			touch(a, a)
			bx := int(inst & 0x3ffff)
			if bx >= len(p.FunctionPrototypes) {
				return [2]bool{}
			}
			// The captures: MOVE 0 B takes the local in register B.
			for n := int(p.FunctionPrototypes[bx].NumUpvalues); n > 0 && pc+1 < len(code); n-- {
				pc++
				if int(code[pc]>>26) == lua.OP_MOVE {
					b := int(code[pc] & 0x1ff)
					touch(b, b)
				}
			}
		default:
			return [2]bool{}
		}
	}
	return ok
}
