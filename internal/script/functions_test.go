package script_test

import (
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

const libA = "#!lua name=mylib\n" +
	"redis.register_function('f1', function(keys, args) return redis.call('get', keys[1]) end)\n" +
	"redis.register_function{function_name='f2', callback=function(keys, args) return {#keys, #args, args[1]} end, flags={'no-writes'}, description='desc'}\n"

func funcDiff(t *testing.T) *redistest.Diff {
	d := redistest.NewDiff(t)
	d.Do("FUNCTION", "FLUSH")
	t.Cleanup(func() { d.Do("FUNCTION", "FLUSH") })
	return d
}

func TestFunctionLoadAndCall(t *testing.T) {
	d := funcDiff(t)
	d.Do("FUNCTION", "LOAD", libA)
	d.Do("FUNCTION", "LOAD", libA)
	d.Do("FUNCTION", "LOAD", "REPLACE", libA)
	d.Do("FUNCTION", "LOAD", "BOGUS", libA)
	d.Do("SET", "k", "v")
	d.Do("FCALL", "f1", "1", "k")
	d.Do("FCALL", "F1", "1", "k")
	d.Do("FCALL_RO", "f1", "1", "k")
	d.Do("FCALL_RO", "f2", "1", "k", "a", "b")
	d.Do("FCALL", "f2", "0")
	d.Do("FCALL", "nof", "0")
	d.Do("FCALL", "nof", "x")
	d.Do("FCALL", "f1", "x")
	d.Do("FCALL", "f1", "2", "k")
	d.Do("FCALL", "f1", "-1")
	d.DoSorted("FUNCTION", "LIST")
	d.DoSorted("FUNCTION", "LIST", "WITHCODE")
	d.DoSorted("FUNCTION", "LIST", "LIBRARYNAME", "MY*")
	d.DoSorted("FUNCTION", "LIST", "LIBRARYNAME", "x*")
	d.DoSorted("FUNCTION", "LIST", "LIBRARYNAME")
	d.DoSorted("FUNCTION", "LIST", "foo")
	d.Do("FUNCTION", "STATS")
	d.Do("FUNCTION", "KILL")
	d.Do("FUNCTION", "HELP")
	d.Redis.DoRaw("HELLO", "3")
	d.Ordo.DoRaw("HELLO", "3")
	d.DoSorted("FUNCTION", "LIST")
	d.Do("FUNCTION", "STATS")
	d.Redis.DoRaw("HELLO", "2")
	d.Ordo.DoRaw("HELLO", "2")
	d.Do("FUNCTION", "DELETE", "MYLIB")
	d.Do("FUNCTION", "DELETE", "mylib")
	d.Do("FCALL", "f1", "1", "k")
	d.Do("FUNCTION", "FLUSH", "xx")
	d.Do("FUNCTION", "FLUSH", "SYNC", "x")
	d.Do("FUNCTION", "FLUSH", "ASYNC")
}

func TestFunctionLoadErrors(t *testing.T) {
	d := funcDiff(t)
	for _, code := range []string{
		"redis.register_function('f1', function() end)",
		"#!lua",
		"#!lua name=a-b\nreturn 1",
		"#!lua name=\nreturn 1",
		"#!lua\nreturn 1",
		"#!js name=x\nreturn 1",
		"#!lua name=x name=y\nreturn 1",
		"#!lua name=x foo=bar\nreturn 1",
		"#!lua name=x\nreturn 1",
		"#!lua name=x\nredis.call('set','x','y')",
		"#!lua name=x\nlocal s = string.format('%d', 1)",
		"#!lua name=x\nx = 1",
		"#!lua name=x\nerror('boom')",
		"#!lua name=x\nlocal i = 0 while true do i = i + 1 end", // the 500 ms load timeout
		"#!lua name=x\nredis.register_function('f 1', function() end)",
		"#!lua name=x\nredis.register_function('f3')",
		"#!lua name=x\nredis.register_function(1, 2, 3)",
		"#!lua name=x\nredis.register_function(function() end, 'a')",
		"#!lua name=x\nredis.register_function('a', function() end) redis.register_function('a', function() end)",
		"#!lua name=x\nredis.register_function('f3')",
		"#!lua name=x\nredis.register_function{function_name='a'}",
		"#!lua name=x\nredis.register_function{callback=function() end}",
		"#!lua name=x\nredis.register_function{function_name='a', callback=function() end, flags={'bad'}}",
		"#!lua name=x\nredis.register_function{function_name='a', callback=function() end, flags='no-writes'}",
		"#!lua name=x\nredis.register_function{function_name='a', callback=function() end, foo=1}",
		"#!lua name=x\nredis.register_function{function_name={}, callback=function() end}",
		"#!lua name=x\nredis.register_function{function_name='a', callback=1}",
		"#!lua name=x\nredis.register_function{function_name='a', callback=function() end, description={}}",
		"#!lua name=x\nredis.register_function{function_name='a', callback=function() end, flags={'ALLOW-OOM','allow-stale','no-cluster','allow-cross-slot-keys'}}",
		"#!lua name=y\nredis.register_function('a', function() end)",
		"#!lua name=z\nredis.log(redis.LOG_WARNING, 'x') redis.register_function('v', function() return redis.REDIS_VERSION end) return redis.REDIS_VERSION_NUM",
	} {
		d.Do("FUNCTION", "LOAD", code)
	}
	d.DoSorted("FUNCTION", "LIST", "LIBRARYNAME", "x")
	d.Do("FCALL", "v", "0")
	// One function per library: the reply's exact bytes (Redis lists a
	// library's functions in hash order).
	d.Do("FUNCTION", "LIST", "LIBRARYNAME", "x", "WITHCODE")
	d.Do("FUNCTION", "LIST", "LIBRARYNAME", "y")
	d.Redis.DoRaw("HELLO", "3")
	d.Ordo.DoRaw("HELLO", "3")
	d.Do("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "x")
	d.Redis.DoRaw("HELLO", "2")
	d.Ordo.DoRaw("HELLO", "2")
}

func TestFunctionRuntime(t *testing.T) {
	d := funcDiff(t)
	d.Do("FUNCTION", "LOAD", "#!lua name=e1\n"+
		"redis.register_function('e1', function(keys, args) return redis.call('incr', 'k') end)\n"+
		"redis.register_function('e2', function(keys, args) error('boom') end)\n"+
		"redis.register_function('e3', function(keys, args) return KEYS end)\n"+
		"redis.register_function('e4', function(keys, args) return {#keys, #args, keys[1], args[1]} end)\n"+
		"redis.register_function('e5', function(keys, args) redis.call('set', keys[1], args[1]) return redis.call('get', keys[1]) end)\n"+
		"redis.register_function('e6', function(keys, args) gvar = 1 end)\n"+
		"redis.register_function('e7', function(keys, args) return type(redis.register_function) end)\n"+
		"redis.register_function{function_name='e8', callback=function(keys, args) return redis.call('set', 'a', 'b') end, flags={'no-writes'}}\n")
	d.Do("SET", "k", "v")
	for _, f := range []string{"e1", "e2", "e3", "e6", "e7", "e8"} {
		d.Do("FCALL", f, "0")
	}
	d.Do("SET", "k", "1")
	d.Do("FCALL", "e1", "0")
	d.Do("FCALL", "e4", "1", "a", "b", "c")
	d.Do("FCALL", "e5", "1", "key", "val")
	d.Do("EVAL", "return KEYS[1]", "1", "x")
	d.Do("FCALL", "e3", "0")
	d.Do("FCALL_RO", "e5", "1", "key", "val")
	// FCALL and FUNCTION are not allowed from scripts; FCALL works in MULTI.
	d.Do("EVAL", "return redis.call('fcall', 'e4', 0)", "0")
	d.Do("EVAL", "return redis.pcall('function', 'list')", "0")
	d.Do("MULTI")
	d.Do("FCALL", "e4", "1", "a", "b")
	d.Do("FCALL", "e5", "1", "key", "v2")
	d.Do("EXEC")
}

func TestFunctionDumpRestore(t *testing.T) {
	d := funcDiff(t)
	d.Do("FUNCTION", "LOAD", libA)
	d.Do("FUNCTION", "DUMP")
	// Redis's payload restores into Ordo and Ordo's into Redis.
	payload := string(d.Redis.Do("FUNCTION", "DUMP").Str)
	d.Do("FUNCTION", "RESTORE", payload)
	d.Do("FUNCTION", "RESTORE", payload, "REPLACE")
	d.Do("FUNCTION", "RESTORE", payload, "BOGUS")
	d.Do("FUNCTION", "RESTORE", payload, "FLUSH", "x")
	d.Do("FUNCTION", "RESTORE", "xxxxxxxxxxxxxxxx")
	d.Do("FUNCTION", "DELETE", "mylib")
	d.Do("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function('f1', function() return 1 end)")
	d.Do("FUNCTION", "RESTORE", payload)
	d.Do("FUNCTION", "RESTORE", payload, "REPLACE")
	d.Do("FUNCTION", "RESTORE", payload, "FLUSH")
	d.DoSorted("FUNCTION", "LIST")
	d.Do("FCALL", "f2", "0", "x")
	d.Do("FUNCTION", "FLUSH")
	d.Do("FUNCTION", "RESTORE", payload, "APPEND")
	d.DoSorted("FUNCTION", "LIST", "WITHCODE")
	ordo := string(d.Ordo.Do("FUNCTION", "DUMP").Str)
	if ordo != payload {
		t.Errorf("FUNCTION DUMP: ordo %q, redis %q", ordo, payload)
	}
	d.Do("FUNCTION", "FLUSH")
	d.Do("FUNCTION", "RESTORE", ordo)
	d.Do("FCALL", "f2", "0", "y")
	d.Do("FUNCTION", "STATS")
}

// TestFunctionArgTables: every FCALL's keys and args hold exactly its own
// arguments, and a table a function kept from an earlier call keeps that
// call's (Ordo refills one pair of tables for the functions whose code
// cannot keep them).
func TestFunctionArgTables(t *testing.T) {
	d := funcDiff(t)
	d.Do("FUNCTION", "LOAD", "#!lua name=args\n"+
		"local kept\n"+
		"redis.register_function('plain', function(keys, args) return {#keys, #args, keys[1], keys[2], keys[3], args[1], args[2], args[3]} end)\n"+
		"redis.register_function('loop', function(keys, args) local r = {} for i = 1, #keys do r[#r+1] = keys[i] .. '=' .. (args[i] or '?') end return r end)\n"+
		"redis.register_function('keep', function(keys, args) if not kept then kept = {keys, args} end return #keys end)\n"+
		"redis.register_function('kept', function(keys, args) return {kept[1][1], kept[1][2], #kept[1], kept[2][1], #kept[2]} end)\n"+
		"redis.register_function('grow', function(keys, args) keys[#keys+1] = 'extra' args.x = 'y' return {#keys, args.x} end)\n"+
		"redis.register_function('meta', function(keys, args) setmetatable(args, {__index = function() return 'm' end}) return args[9] end)\n"+
		"redis.register_function('one', function(keys) return {keys[1], #keys} end)\n")
	d.Do("FCALL", "plain", "2", "k1", "k2", "a1")
	d.Do("FCALL", "keep", "2", "first1", "first2", "arg1")
	d.Do("FCALL", "plain", "1", "k", "a1", "a2", "a3")
	d.Do("FCALL", "keep", "1", "second", "arg2", "arg3")
	d.Do("FCALL", "kept", "0")
	d.Do("FCALL", "grow", "1", "g")
	d.Do("FCALL", "plain", "1", "p", "q")
	d.Do("FCALL", "meta", "0", "a")
	d.Do("FCALL", "plain", "0", "b")
	d.Do("FCALL", "loop", "3", "x", "y", "z", "1", "2")
	d.Do("FCALL", "loop", "1", "w", "9")
	d.Do("FCALL", "one", "3", "a", "b", "c", "d")
	d.Do("FCALL", "plain", "3", "a", "b", "c", "d", "e", "f")
	d.Do("FCALL", "plain", "0")
	d.Do("EVAL", "return {#KEYS, KEYS[1], ARGV[1]}", "1", "ek", "ea")
	d.Do("FCALL", "plain", "1", "after", "eval")
	d.Do("FCALL", "kept", "0")
}
