package script_test

import "testing"

func TestCMsgpackPack(t *testing.T) {
	d := funcDiff(t)
	for _, e := range []string{
		"0", "1", "127", "128", "255", "256", "65535", "65536", "4294967295", "4294967296",
		"2^53", "2^63", "-2^63", "-2^63-4096", "2^64", "-1", "-32", "-33", "-128", "-129",
		"-32768", "-32769", "-2147483648", "-2147483649", "-2^40",
		"0.5", "0.1", "-1.5", "1e300", "1/0", "-1/0", "3.4028234663852886e38", "1e-45", "-0",
		"''", "'a'", "string.rep('x', 31)", "string.rep('x', 32)", "string.rep('x', 255)",
		"string.rep('x', 256)", "string.rep('x', 65535)", "string.rep('x', 65536)",
		"true", "false", "nil", "function() end",
		"{}", "{1, 2, 3}", "{1, 2, nil, 4}", "{[1]=1, [3]=3}", "{[1.5]=1}", "{[-1]=1}", "{a=1}",
		"{{1, {2, {3}}}, 'x'}", "{1, 'a', true, 0.25}", "{n={1,2}}",
		"{1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16}", "1, 'a', {2}",
	} {
		eval(d, "local s = cmsgpack.pack("+e+") return {#s, s:byte(1, 12)}")
	}
	eval(d, "local t = {} for i = 1, 70000 do t[i] = i % 3 end local s = cmsgpack.pack(t) return {#s, s:byte(1, 5)}")
	eval(d, "local t = {} t.t = t return #cmsgpack.pack(t)")
	eval(d, "local t = {} t[1] = t return {cmsgpack.pack(t):byte(1, -1)}")
	eval(d, "return cmsgpack.pack()")
	eval(d, "return {cmsgpack._NAME, cmsgpack._VERSION, cmsgpack._COPYRIGHT, cmsgpack._DESCRIPTION}")
	eval(d, "cmsgpack.x = 1")
}

func TestCMsgpackUnpack(t *testing.T) {
	d := funcDiff(t)
	for _, e := range []string{
		"0", "127", "200", "-1", "-100", "-1000", "70000", "-70000", "2^40", "-2^40", "0.5", "0.1", "1e300",
		"'abc'", "string.rep('y', 40)", "string.rep('y', 300)", "true", "false",
		"{1, 2, 3}", "{a=1}", "{{1, {2, {3}}}, 'x'}", "{1, 'a', true, 0.25}",
	} {
		eval(d, "local v = cmsgpack.unpack(cmsgpack.pack("+e+")) if type(v) == 'number' then return tostring(v) end return v")
	}
	for _, s := range []string{
		`'\193'`, `'\217\001a'`, `'\196\001a'`, `'\146\001'`, `'\147\001'`, `''`, `5`, `'\129\192\001'`,
		`'\207\255\255\255\255\255\255\255\255'`, `'\207\128\000\000\000\000\000\000\000'`,
		`'\211\255\255\255\255\255\255\255\254'`, `'\202\063\192\000\000'`, `'\203\063\185\153\153\153\153\153\154'`,
		`'\218\000\002ab'`, `'\219\000\000\000\002ab'`, `'\220\000\002\001\002'`, `'\221\000\000\000\001\001'`,
		`'\222\000\001\161a\001'`, `'\223\000\000\000\001\161a\001'`, `'\145'`, `'\218\000'`, `'\204'`,
		`'\001\002\003'`, `'\192'`, `'\150\001\192\003'`,
	} {
		eval(d, "local r = {cmsgpack.unpack("+s+")} for i, v in ipairs(r) do if type(v) == 'number' then r[i] = tostring(v) end end return r")
	}
	eval(d, "return cmsgpack.unpack()")
	eval(d, "return cmsgpack.unpack({})")
	for _, args := range []string{
		`'\001\002', 0`, `'\001\002', 1`, `'\001\002', 2`, `'\001\002', 3`, `'\001\002', -1`, `'\001\002'`,
		`'\001\002', 'x'`, `'\001\002', '1'`, `'\001\002', 1.9`,
	} {
		eval(d, "return {cmsgpack.unpack_one("+args+")}")
	}
	for _, args := range []string{
		`'\001\002\003', 2`, `'\001\002\003', 0`, `'\001\002\003', 5, 1`, `'\001\002\003', -1`,
		`'\001\002\003'`, `'\001\002\003', 'x'`, `'\001\002\003', 1, 3`, `'\001\002\003', 1, 4`,
	} {
		eval(d, "return {cmsgpack.unpack_limit("+args+")}")
	}
	// A stream read with unpack_one and the returned offsets.
	eval(d, "local s = cmsgpack.pack(1, 'two', {3}) local out, off = {}, 0 "+
		"while off >= 0 do local v off, v = cmsgpack.unpack_one(s, off) out[#out+1] = type(v) == 'table' and v[1] or v end return out")
}
