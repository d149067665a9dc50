package engine_test

import "testing"

// TestScriptFlagsOOMAndStale: what a script declares (allow-oom,
// allow-stale, no-writes, or no shebang at all) decides whether it runs
// over maxmemory and on a stale replica, as Redis's scriptFlagsToCmdFlags,
// scriptPrepareForRun and scriptVerifyOOM: refused at dispatch, refused
// at its first denyoom command, or run; compared byte for byte.
func TestScriptFlagsOOMAndStale(t *testing.T) {
	r, o := startPair(t)
	tw := newTwin(t, r.Addr, o.Addr)
	tw.do(1, "FUNCTION", "LOAD", "#!lua name=flib\n"+
		"redis.register_function{function_name='w_oom', callback=function(k) return redis.call('SET', k[1], 'x') end, flags={'allow-oom'}}\n"+
		"redis.register_function{function_name='w', callback=function(k) return redis.call('SET', k[1], 'x') end}\n"+
		"redis.register_function{function_name='ro', callback=function(k) return redis.call('GET', k[1]) end, flags={'no-writes'}}\n"+
		"redis.register_function{function_name='st', callback=function() return 5 end, flags={'no-writes','allow-stale'}}")
	tw.do(1, "SET", "filler", "some bytes")
	tw.do(1, "CONFIG", "SET", "maxmemory", "1")
	for _, c := range [][]string{
		{"FCALL", "w", "1", "a"},
		{"FCALL", "w_oom", "1", "b"},
		{"FCALL", "ro", "1", "b"},
		{"EVAL", "#!lua flags=allow-oom\nreturn redis.call('SET', KEYS[1], 'y')", "1", "c"},
		{"EVAL", "#!lua\nreturn redis.call('SET', KEYS[1], 'y')", "1", "c"},
		{"EVAL", "return redis.call('SET', KEYS[1], 'y')", "1", "c"},
		{"EVAL", "return redis.pcall('SET', KEYS[1], 'y')", "1", "c"},
		{"EVAL", "redis.call('DEL', 'none'); return redis.call('SET', KEYS[1], 'z')", "1", "c"},
		{"EVAL", "return redis.call('GET', KEYS[1])", "1", "c"},
		{"EVAL", "#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])", "1", "c"},
	} {
		tw.do(1, c...)
	}
	tw.do(1, "CONFIG", "SET", "maxmemory", "0")
	// A replica whose master never answers (port 1), not serving stale data.
	tw.do(1, "CONFIG", "SET", "replica-serve-stale-data", "no")
	tw.do(1, "REPLICAOF", "127.0.0.1", "1")
	for _, c := range [][]string{
		{"FCALL", "ro", "1", "a"},
		{"FCALL", "st", "0"},
		{"FCALL", "w", "1", "a"},
		{"EVAL", "#!lua flags=no-writes,allow-stale\nreturn 7", "0"},
		{"EVAL", "#!lua flags=no-writes\nreturn 7", "0"},
		{"EVAL", "return 7", "0"},
		{"EVAL_RO", "return 7", "0"},
	} {
		tw.do(1, c...)
	}
	tw.do(1, "CONFIG", "SET", "replica-serve-stale-data", "yes")
	tw.do(1, "FCALL", "w", "1", "a")
	tw.do(1, "EVAL", "return 8", "0")
	tw.do(1, "REPLICAOF", "NO", "ONE")
}
