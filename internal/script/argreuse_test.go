package script

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestReusableArgs: FCALL reuses a function's keys or args table only
// when the function's code reads nothing but its elements and length.
func TestReusableArgs(t *testing.T) {
	for _, tc := range []struct {
		fn         string
		keys, args bool
	}{
		{"function(keys, args) if redis.call('get',keys[1]) == args[1] then return redis.call('del',keys[1]) else return 0 end end", true, true},
		{"function(keys, args) return {#keys, #args, keys[1], args[2]} end", true, true},
		{"function(keys, args) for i = 1, #keys do redis.call('set', keys[i], args[i]) end return 1 end", true, true},
		{"function(keys, args) local n = 0 for i = 1, #args do n = n + tonumber(args[i]) end return n end", true, true},
		{"function(keys) return keys[1] end", true, true},       // args: dropped by the call
		{"function() return 1 end", true, true},                 // both dropped
		{"function(keys, ...) return keys[1] end", true, false}, // args is ...
		{"function(...) return 1 end", false, false},
		{"function(keys, args) saved = keys end", false, true},
		{"function(keys, args) return keys end", false, true},
		{"function(keys, args) return args, 1 end", true, false},
		{"function(keys, args) local k = keys return k[1] end", false, true},
		{"function(keys, args) return unpack(args) end", true, false},
		{"function(keys, args) return redis.call('mget', unpack(keys)) end", false, true},
		{"function(keys, args) return function() return keys[1] end end", false, true},
		{"function(keys, args) local f = function() return args end return f()[1] end", true, false},
		{"function(keys, args) keys[1] = 'x' return keys[1] end", false, true},
		{"function(keys, args) args.n = 1 return 1 end", true, false},
		{"function(keys, args) setmetatable(keys, {}) return 1 end", false, true},
		{"function(keys, args) local t = {keys} return 1 end", false, true},
		{"function(keys, args) local t = {} t.k = args return 1 end", true, false},
		{"function(keys, args) local t = {} t[args] = 1 return 1 end", true, false},
		{"function(keys, args) return keys == args end", false, false},
		{"function(keys, args) keys = {} return #keys end", false, true},
		{"function(keys, args) return keys:foo() end", false, true},
		{"function(keys, args) table.insert(keys, 'x') return #keys end", false, true},
		{"function(keys, args) return coroutine.wrap(function() return keys end)()[1] end", false, true},
		{"function(keys, args) for k, v in pairs(args) do end return 1 end", true, false},
		{"function(keys, args) if keys then return 1 end return 0 end", false, true},
		{"function(keys, args) return keys[1] .. args[1] end", true, true},
	} {
		fn := compileFunction(t, tc.fn)
		got := reusableArgs(fn)
		if got != [2]bool{tc.keys, tc.args} {
			t.Errorf("%s: reusable %v, want [%v %v]", tc.fn, got, tc.keys, tc.args)
		}
	}
	if got := reusableArgs(nil); got != [2]bool{} {
		t.Errorf("nil function: %v", got)
	}
	L := lua.NewState()
	defer L.Close()
	if got := reusableArgs(L.NewFunction(func(*lua.LState) int { return 0 })); got != [2]bool{} {
		t.Errorf("Go function: %v", got)
	}
}

// compileFunction compiles "f = <src>" and returns the function's closure.
func compileFunction(t *testing.T, src string) *lua.LFunction {
	t.Helper()
	L := lua.NewState()
	t.Cleanup(L.Close)
	if err := L.DoString("f = " + src); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	fn, ok := L.GetGlobal("f").(*lua.LFunction)
	if !ok || !strings.HasPrefix(src, "function") {
		t.Fatalf("%s: not a function", src)
	}
	return fn
}
