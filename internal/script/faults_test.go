package script_test

import (
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

// TestLuaNumberEdges: strings Lua 5.1 (glibc's strtod) reads as numbers,
// nan and inf among them, and how numbers that are not integers become
// replies: (long long) of nan or inf is LLONG_MIN on x86-64.
func TestLuaNumberEdges(t *testing.T) {
	d := redistest.NewDiff(t)
	strs := []string{"-nan", "nan", "NaN", "+nan", "nan(123)", "nan(", "nan()", "-nan(x_1)", "nanx",
		"inf", "-inf", "+INF", "infinity", "-Infinity", "infinit", "infx",
		"0x10", "0X1f", "-0x10", "0x", "0x1p4", "0x1.8", "0x1.8p1", "0xg", "0x1p", "1e", "1e+", "1e5", "1E-2",
		".5", "5.", ".", "-", "+", "", " ", " 12 ", "\t-3\n", "1_000", "1e400", "-1e400", "4e-400",
		"9223372036854775807", "9223372036854775808", "-9223372036854775809", "1.5", "-0", "0x8000000000000000"}
	for _, s := range strs {
		eval(d, "return tonumber(ARGV[1])", s)
		eval(d, "return tostring(tonumber(ARGV[1]))", s)
		eval(d, "return {tonumber(ARGV[1])}", s)
		eval(d, "return redis.call('echo', tonumber(ARGV[1]) or 'x')", s)
	}
	for _, body := range []string{
		"return 0/0", "return -(0/0)", "return 1/0", "return -1/0", "return math.huge", "return -math.huge",
		"return tostring(0/0)", "return tostring(-(0/0))", "return tostring(1/0)", "return tostring(-1/0)",
		"return {0/0, 1/0, -1/0, 2^63, -2^63, 2^64, 1e300}", "return 9.5", "return -9.5", "return -0",
		"return tostring(-0)", "return tostring(2^63)", "return string.format('%d', 0/0)",
		"return math.floor(0/0)", "return redis.call('set', 'n', 0/0)", "return redis.call('get', 'n')",
		"return redis.call('set', 'n', 1/0)", "return redis.call('get', 'n')",
		"return {double = 0/0}", "return {double = 1/0}", "return {double = -1/0}",
	} {
		eval(d, body)
	}
	d.Both("HELLO", "3")
	for _, body := range []string{"return {double = 0/0}", "return {double = 1/0}", "return {double = -1/0}", "return {double = -0}"} {
		eval(d, body)
	}
	d.Both("HELLO", "2")
}
