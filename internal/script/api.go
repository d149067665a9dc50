package script

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// allowedGlobals is the global environment of Redis 7.0.15's scripts
// (besides KEYS, ARGV and the libraries this file installs).
var allowedGlobals = []string{
	"_G", "_VERSION", "assert", "collectgarbage", "coroutine", "error", "gcinfo",
	"getmetatable", "ipairs", "load", "loadstring", "math", "next", "pairs", "pcall",
	"rawequal", "rawget", "rawset", "select", "setmetatable", "string", "table",
	"tonumber", "tostring", "type", "unpack", "xpcall",
}

func (s *scripting) initLua() {
	L := lua.NewState(lua.Options{SkipOpenLibs: true, CallStackSize: 1024, RegistrySize: 1024 * 20, RegistryMaxSize: 1024 * 1024})
	s.L = L
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{{"", lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath}, {lua.CoroutineLibName, lua.OpenCoroutine}} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	g := L.G.Global
	s.globals = g

	// Keep only Redis's globals.
	keep := map[string]bool{}
	for _, n := range allowedGlobals {
		keep[n] = true
	}
	var drop []lua.LValue
	g.ForEach(func(k, _ lua.LValue) {
		if ks, ok := k.(lua.LString); !ok || !keep[string(ks)] {
			drop = append(drop, k)
		}
	})
	for _, k := range drop {
		g.RawSet(k, lua.LNil)
	}
	g.RawSetString("gcinfo", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	}))
	g.RawSetString("pcall", L.NewFunction(luaPcall))
	g.RawSetString("collectgarbage", L.NewFunction(luaCollectGarbage))
	g.RawSetString("error", L.NewFunction(func(L *lua.LState) int {
		// Lua 5.1: numbers get the position prefix too; no value is nil.
		obj := L.Get(1)
		if n, ok := obj.(lua.LNumber); ok {
			obj = lua.LString(luaNumberString(float64(n)))
		}
		L.Error(obj, L.OptInt(2, 1))
		return 0
	}))
	// The originals run in the wrappers' frames, so that their errors
	// name them ("bad argument #1 to 'tonumber'").
	origToNumber := g.RawGetString("tonumber").(*lua.LFunction).GFunction
	g.RawSetString("tonumber", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() == 1 {
			if str, ok := L.Get(1).(lua.LString); ok {
				if f, ok := str2number(string(str)); ok {
					L.Push(lua.LNumber(f))
				} else {
					L.Push(lua.LNil)
				}
				return 1
			}
		}
		return origToNumber(L)
	}))
	origToString := g.RawGetString("tostring").(*lua.LFunction).GFunction
	g.RawSetString("tostring", L.NewFunction(func(L *lua.LState) int {
		if n, ok := L.Get(1).(lua.LNumber); ok && L.GetTop() >= 1 {
			L.Push(lua.LString(luaNumberString(float64(n))))
			return 1
		}
		return origToString(L)
	}))

	// math.random and math.randomseed are Redis's rand48, the same on
	// every platform.
	mathT := g.RawGetString("math").(*lua.LTable)
	mathT.RawSetString("random", L.NewFunction(s.mathRandom))
	mathT.RawSetString("randomseed", L.NewFunction(s.mathRandomseed))
	mathT.RawSetString("huge", lua.LNumber(math.Inf(1))) // gopher-lua has MaxFloat64
	wrapStringLib(L, g.RawGetString("string").(*lua.LTable))
	tableT := g.RawGetString("table").(*lua.LTable)
	tableT.RawSetString("concat", L.NewFunction(luaTableConcat))

	redis := L.NewTable()
	fns := map[string]lua.LGFunction{
		"call":               func(L *lua.LState) int { return s.command(L, true) },
		"pcall":              func(L *lua.LState) int { return s.command(L, false) },
		"log":                s.luaLog,
		"setresp":            s.luaSetResp,
		"sha1hex":            luaSha1hex,
		"error_reply":        luaErrorReply,
		"status_reply":       luaStatusReply,
		"set_repl":           s.luaSetRepl,
		"replicate_commands": func(L *lua.LState) int { L.Push(lua.LTrue); return 1 },
		"breakpoint":         func(L *lua.LState) int { L.Push(lua.LFalse); return 1 },
		"debug":              func(L *lua.LState) int { return 0 },
		"acl_check_cmd":      s.luaACLCheck,
	}
	for name, fn := range fns {
		redis.RawSetString(name, L.NewFunction(fn))
	}
	for name, v := range map[string]float64{
		"LOG_DEBUG": 0, "LOG_VERBOSE": 1, "LOG_NOTICE": 2, "LOG_WARNING": 3,
		"REPL_NONE": 0, "REPL_AOF": 1, "REPL_SLAVE": 2, "REPL_REPLICA": 2, "REPL_ALL": 3,
		"REDIS_VERSION_NUM": redisVersionNum,
	} {
		redis.RawSetString(name, lua.LNumber(v))
	}
	redis.RawSetString("REDIS_VERSION", lua.LString(redisVersion))
	g.RawSetString("redis", redis)
	g.RawSetString("cjson", openCJSON(L))
	g.RawSetString("bit", openBit(L))
	g.RawSetString("struct", openStruct(L))
	g.RawSetString("cmsgpack", openCMsgpack(L))
	s.errh = L.NewFunction(s.errHandler)
	g.RawSetString("__redis__err__handler", s.errh)

	// Read-only protection: every library table and the globals are
	// reached through empty proxies whose __newindex refuses writes.
	ro := L.NewFunction(func(L *lua.LState) int {
		L.RaiseError(msgReadonlyTable)
		return 0
	})
	s.readonly = map[*lua.LTable]bool{g: true}
	s.proxied = map[*lua.LTable]*lua.LTable{}
	protect := func(real *lua.LTable) *lua.LTable {
		p := L.NewTable()
		s.readonly[p], s.readonly[real] = true, true
		s.proxied[p] = real
		mt := L.NewTable()
		mt.RawSetString("__index", real)
		mt.RawSetString("__newindex", ro)
		mt.RawSetString("__metatable", lua.LFalse)
		L.SetMetatable(p, mt)
		return p
	}
	for _, name := range []string{"redis", "cjson", "bit", "struct", "cmsgpack", "string", "math", "table", "coroutine"} {
		g.RawSetString(name, protect(g.RawGetString(name).(*lua.LTable)))
	}
	gmt := L.NewTable()
	gmt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError(msgNoGlobal, L.ToString(2))
		return 0
	}))
	L.SetMetatable(g, gmt)
	s.env = protect(g)
	g.RawSetString("_G", s.env)
	// rawset and code compiled by loadstring or load would otherwise
	// bypass the proxies: rawset writes into a proxy (shadowing what it
	// protects for every later script), and a loaded chunk runs against
	// the real globals (gopher-lua gives it the state's globals), where
	// "redis = 1" or "x = 1" would last beyond the script. As in Redis,
	// both meet "Attempt to modify a readonly table".
	// (The originals run in the wrappers' frames, so that their errors
	// name them as Lua does: "bad argument #1 to 'load'".)
	origRawset := g.RawGetString("rawset").(*lua.LFunction).GFunction
	g.RawSetString("rawset", L.NewFunction(func(L *lua.LState) int {
		t := L.Get(1)
		if t, ok := t.(*lua.LTable); ok && s.readonly[t] {
			L.RaiseError(msgReadonlyTable)
		}
		origRawset(L)
		L.Push(t) // Lua 5.1's rawset returns its table
		return 1
	}))
	for _, name := range []string{"loadstring", "load"} {
		orig := g.RawGetString(name).(*lua.LFunction).GFunction
		g.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			n := orig(L)
			if n > 0 {
				if fn, ok := L.Get(-n).(*lua.LFunction); ok && !fn.IsG {
					fn.Env = s.codeEnv()
				}
			}
			return n
		}))
	}
	L.SetContext(s.kill)
}

// codeEnv is the globals of the code running now: a function
// library's (while one loads or runs), else the scripts'.
func (s *scripting) codeEnv() *lua.LTable {
	if fs := s.fns; fs != nil && (fs.loading != nil || (s.running && s.fcall.Load())) {
		return fs.env
	}
	return s.env
}

// luaPcall is Redis's pcall: an error raised as a table with an err
// field (redis.call's errors) is returned as its err string.
func luaPcall(L *lua.LState) int {
	L.CheckAny(1)
	v := L.Get(1)
	if v.Type() != lua.LTFunction && L.GetMetaField(v, "__call").Type() != lua.LTFunction {
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + v.Type().String() + " value"))
		return 2
	}
	if err := L.PCall(L.GetTop()-1, lua.MultRet, nil); err != nil {
		var obj lua.LValue = lua.LString(err.Error())
		if ae, ok := err.(*lua.ApiError); ok {
			obj = ae.Object
		}
		if t, ok := obj.(*lua.LTable); ok {
			if e, ok := t.RawGetString("err").(lua.LString); ok {
				obj = e
			}
		} else if str, ok := obj.(lua.LString); ok {
			obj = lua.LString(lua51Message(string(str)))
		}
		L.Push(lua.LFalse)
		L.Push(obj)
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// errTable is Redis's luaPushError: {err="CODE msg"}; a message without
// a leading '-' gets the code ERR.
func errTable(L *lua.LState, msg string) *lua.LTable {
	t := L.CreateTable(0, 1)
	t.RawSetString("err", lua.LString(errText(msg)))
	return t
}

func errText(msg string) string {
	if len(msg) > 0 && msg[0] == '-' {
		code, rest := "ERR", msg[1:]
		for i := 1; i < len(msg); i++ {
			if msg[i] == ' ' {
				code, rest = msg[1:i], msg[i+1:]
				break
			}
		}
		return code + " " + trimCRLF(rest)
	}
	return "ERR " + trimCRLF(msg)
}

func trimCRLF(s string) string {
	i, j := 0, len(s)
	for i < j && (s[i] == '\r' || s[i] == '\n') {
		i++
	}
	for j > i && (s[j-1] == '\r' || s[j-1] == '\n') {
		j--
	}
	return s[i:j]
}

// fail reports an error of redis.call (raised) or redis.pcall (returned).
func fail(L *lua.LState, raise bool, msg string) int {
	t := errTable(L, msg)
	if raise {
		L.Error(t, 0)
		return 0
	}
	L.Push(t)
	return 1
}

// command is redis.call (raise) and redis.pcall.
func (s *scripting) command(L *lua.LState, raise bool) int {
	if !s.running {
		return fail(L, true, msgOutsideScript)
	}
	n := L.GetTop()
	if n == 0 {
		return fail(L, raise, msgNoArgs)
	}
	s.arena, s.ends = s.arena[:0], s.ends[:0]
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			s.arena = append(s.arena, v...)
		case lua.LNumber:
			s.arena = resp.AppendG(s.arena, float64(v), 17)
		default:
			L.SetTop(0)
			return fail(L, raise, msgArgType)
		}
		s.ends = append(s.ends, len(s.arena))
	}
	L.SetTop(0)
	s.argv = s.argv[:0]
	start := 0
	for _, end := range s.ends {
		s.argv = append(s.argv, s.arena[start:end:end])
		start = end
	}
	argv := s.argv
	cmd := s.e.Lookup(argv)
	if cmd == nil || (cmd.Sub != nil && len(argv) >= 2 && cmd.Handler != nil && isContainer(s.e, cmd, argv)) {
		return fail(L, raise, msgUnknownCommand)
	}
	if (cmd.Arity > 0 && cmd.Arity != len(argv)) || len(argv) < -cmd.Arity {
		return fail(L, raise, msgWrongArgs)
	}
	if cmd.Has(engine.FlagNoScript) {
		return fail(L, raise, msgNoScriptCmd)
	}
	if msg := s.e.ScriptACLDenied(&s.sub, cmd, argv); msg != "" {
		return fail(L, raise, msg)
	}
	if s.ro && cmd.Has(engine.FlagWrite|engine.FlagMayReplicate) {
		// Redis counts may-replicate commands (PFCOUNT, PUBLISH) as
		// writes in read-only scripts.
		return fail(L, raise, msgWriteInRO)
	}
	s.w.Reset()
	s.w.Proto = s.resp
	if s.oom && !s.wrote.Load() && cmd.Has(engine.FlagDenyOOM) {
		s.w.Error(engine.ErrOOM)
	} else {
		if cmd.Has(engine.FlagWrite) {
			s.wrote.Store(true)
		}
		cl := s.sub.Client
		proto := cl.Proto
		cl.Proto = s.resp
		s.e.Exec(&s.sub, argv, &s.w)
		cl.Proto = proto
	}
	v, _, isErr := s.toLua(L, s.w.Buf)
	if isErr && raise {
		L.Error(v, 0)
		return 0
	}
	L.Push(v)
	return 1
}

// isContainer reports whether Lookup fell back to the container command
// because the subcommand is unknown (Redis: unknown command).
func isContainer(e *engine.Engine, cmd *engine.Command, argv [][]byte) bool {
	return e.Lookup(argv[:1]) == cmd
}

// toLua converts one RESP reply to a Lua value as Redis does; isErr
// tells an error reply.
func (s *scripting) toLua(L *lua.LState, b []byte) (lua.LValue, []byte, bool) {
	if len(b) == 0 {
		return lua.LNil, b, false
	}
	line, rest := splitLine(b[1:])
	switch b[0] {
	case ':':
		n, _ := strconv.ParseInt(string(line), 10, 64)
		return lua.LNumber(n), rest, false
	case '$':
		n, _ := strconv.Atoi(string(line))
		if n < 0 {
			return lua.LFalse, rest, false
		}
		return lua.LString(rest[:n]), rest[n+2:], false
	case '+':
		t := L.CreateTable(0, 1)
		t.RawSetString("ok", lua.LString(line))
		return t, rest, false
	case '-':
		return errTable(L, "-"+string(line)), rest, true
	case '*', '~', '%', '>':
		n, _ := strconv.Atoi(string(line))
		if n < 0 {
			return lua.LFalse, rest, false
		}
		switch b[0] {
		case '%':
			m := L.CreateTable(0, n)
			for i := 0; i < n; i++ {
				var k, v lua.LValue
				k, rest, _ = s.toLua(L, rest)
				v, rest, _ = s.toLua(L, rest)
				m.RawSet(k, v)
			}
			t := L.CreateTable(0, 1)
			t.RawSetString("map", m)
			return t, rest, false
		case '~':
			m := L.CreateTable(0, n)
			for i := 0; i < n; i++ {
				var k lua.LValue
				k, rest, _ = s.toLua(L, rest)
				m.RawSet(k, lua.LTrue)
			}
			t := L.CreateTable(0, 1)
			t.RawSetString("set", m)
			return t, rest, false
		}
		t := L.CreateTable(n, 0)
		for i := 0; i < n; i++ {
			var v lua.LValue
			v, rest, _ = s.toLua(L, rest)
			t.RawSetInt(i+1, v)
		}
		return t, rest, false
	case '_':
		return lua.LNil, rest, false
	case '#':
		return lua.LBool(len(line) > 0 && line[0] == 't'), rest, false
	case ',':
		d, _ := strconv.ParseFloat(string(line), 64)
		t := L.CreateTable(0, 1)
		t.RawSetString("double", lua.LNumber(d))
		return t, rest, false
	case '(':
		t := L.CreateTable(0, 1)
		t.RawSetString("big_number", lua.LString(line))
		return t, rest, false
	case '=':
		n, _ := strconv.Atoi(string(line))
		str := rest[:n]
		rest = rest[n+2:]
		v := L.CreateTable(0, 2)
		if len(str) >= 4 {
			v.RawSetString("format", lua.LString(str[:3]))
			v.RawSetString("string", lua.LString(str[4:]))
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("verbatim_string", v)
		return t, rest, false
	case '|':
		n, _ := strconv.Atoi(string(line))
		for i := 0; i < 2*n; i++ {
			_, rest, _ = s.toLua(L, rest)
		}
		return s.toLua(L, rest)
	}
	return lua.LNil, nil, false
}

func splitLine(b []byte) (line, rest []byte) {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\r' && b[i+1] == '\n' {
			return b[:i], b[i+2:]
		}
	}
	return b, nil
}

// reply converts the script's return value to a Redis reply, as Redis's
// luaReplyToRedisReply does.
func (s *scripting) reply(w *resp.Writer, v lua.LValue, depth int) {
	if depth > 1000 {
		w.Error("ERR reached lua stack limit")
		return
	}
	switch v := v.(type) {
	case lua.LString:
		w.BulkString(string(v))
	case lua.LBool:
		if s.resp == 2 {
			if v {
				w.Int(1)
			} else {
				w.Null()
			}
		} else {
			w.Bool(bool(v))
		}
	case lua.LNumber:
		w.Int(luaToInt64(float64(v)))
	case *lua.LTable:
		if e, ok := v.RawGetString("err").(lua.LString); ok {
			msg := string(e)
			// addReplyErrorFormat("-%s"): trailing newlines trimmed.
			for len(msg) > 0 && (msg[len(msg)-1] == '\n' || msg[len(msg)-1] == '\r') {
				msg = msg[:len(msg)-1]
			}
			w.Error(msg)
			return
		}
		if ok, isStr := v.RawGetString("ok").(lua.LString); isStr {
			w.Simple(mapCRLF(string(ok)))
			return
		}
		if d, ok := v.RawGetString("double").(lua.LNumber); ok {
			w.Double(float64(d))
			return
		}
		if b, ok := v.RawGetString("big_number").(lua.LString); ok {
			str := mapCRLF(string(b))
			w.BigNumber(str)
			return
		}
		if vt, ok := v.RawGetString("verbatim_string").(*lua.LTable); ok {
			f, ok1 := vt.RawGetString("format").(lua.LString)
			str, ok2 := vt.RawGetString("string").(lua.LString)
			if ok1 && ok2 {
				w.Verbatim(string(f), string(str))
				return
			}
		}
		if m, ok := v.RawGetString("map").(*lua.LTable); ok {
			n := 0
			m.ForEach(func(_, _ lua.LValue) { n++ })
			w.Map(n)
			m.ForEach(func(k, val lua.LValue) {
				s.reply(w, k, depth+1)
				s.reply(w, val, depth+1)
			})
			return
		}
		if m, ok := v.RawGetString("set").(*lua.LTable); ok {
			n := 0
			m.ForEach(func(_, _ lua.LValue) { n++ })
			w.Set(n)
			m.ForEach(func(k, _ lua.LValue) { s.reply(w, k, depth+1) })
			return
		}
		n := 0
		for v.RawGetInt(n+1) != lua.LNil {
			n++
		}
		w.Array(n)
		for i := 1; i <= n; i++ {
			s.reply(w, v.RawGetInt(i), depth+1)
		}
	default:
		w.Null()
	}
}

// luaToInt64 is C's (long long) cast of a double as x86-64 does it.
func luaToInt64(f float64) int64 {
	if f != f || f >= 9.223372036854775807e18 || f < -9.223372036854775808e18 {
		return math.MinInt64
	}
	return int64(f)
}

func mapCRLF(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '\r' || c == '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

func luaSha1hex(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.Error(errTable(L, "wrong number of arguments"), 0)
		return 0
	}
	var str string
	switch v := L.Get(1).(type) {
	case lua.LString:
		str = string(v)
	case lua.LNumber:
		str = luaNumberString(float64(v))
	}
	L.Push(lua.LString(sha1hex(str)))
	return 1
}

func luaErrorReply(L *lua.LState) int {
	if L.GetTop() != 1 || L.Get(1).Type() != lua.LTString {
		L.Push(errTable(L, "wrong number or type of arguments"))
		return 1
	}
	msg := L.ToString(1)
	if len(msg) == 0 || msg[0] != '-' {
		msg = "-" + msg
	}
	L.Push(errTable(L, msg))
	return 1
}

func luaStatusReply(L *lua.LState) int {
	if L.GetTop() != 1 || L.Get(1).Type() != lua.LTString {
		L.Push(errTable(L, "wrong number or type of arguments"))
		return 1
	}
	t := L.CreateTable(0, 1)
	t.RawSetString("ok", L.Get(1))
	L.Push(t)
	return 1
}

func (s *scripting) luaLog(L *lua.LState) int {
	n := L.GetTop()
	if n < 2 {
		L.Error(errTable(L, "redis.log() requires two arguments or more."), 0)
		return 0
	}
	lv, ok := toNumber(L.Get(1))
	if !ok {
		L.Error(errTable(L, "First argument must be a number (log level)."), 0)
		return 0
	}
	if level := int(lv); level < 0 || level > 3 {
		L.Error(errTable(L, "Invalid debug level."), 0)
		return 0
	}
	// Ordo has no server log to write to from the engine: the message
	// is accepted and dropped.
	return 0
}

// toNumber is lua_isnumber/lua_tonumber: numbers and numeric strings.
func toNumber(v lua.LValue) (float64, bool) {
	switch v := v.(type) {
	case lua.LNumber:
		return float64(v), true
	case lua.LString:
		return str2number(string(v))
	}
	return 0, false
}

func (s *scripting) luaSetResp(L *lua.LState) int {
	if !s.running {
		L.Error(errTable(L, "redis.setresp can only be called inside a script invocation"), 0)
		return 0
	}
	if L.GetTop() != 1 {
		L.Error(errTable(L, "redis.setresp() requires one argument."), 0)
		return 0
	}
	f, _ := toNumber(L.Get(1))
	if r := int(f); r != 2 && r != 3 {
		L.Error(errTable(L, "RESP version must be 2 or 3."), 0)
		return 0
	} else {
		s.resp = r
	}
	return 0
}

func (s *scripting) luaSetRepl(L *lua.LState) int {
	if !s.running {
		L.Error(errTable(L, "redis.set_repl can only be called inside a script invocation"), 0)
		return 0
	}
	if L.GetTop() != 1 {
		L.Error(errTable(L, "redis.set_repl() requires two arguments."), 0)
		return 0
	}
	f, _ := toNumber(L.Get(1))
	if flags := int(f); flags&^3 != 0 {
		L.Error(errTable(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."), 0)
		return 0
	}
	return 0
}

func (s *scripting) luaACLCheck(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		L.Error(errTable(L, msgNoArgs), 0)
		return 0
	}
	argv := make([][]byte, n)
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			argv[i-1] = []byte(v)
		case lua.LNumber:
			argv[i-1] = resp.AppendG(nil, float64(v), 17)
		default:
			L.Error(errTable(L, msgArgType), 0)
			return 0
		}
	}
	if s.e.Lookup(argv) == nil {
		L.Error(errTable(L, "Invalid command passed to redis.acl_check_cmd()"), 0)
		return 0
	}
	L.Push(lua.LTrue)
	return 1
}

// Redis's rand48 (rand.c), so math.random gives the same sequence as
// Redis on every platform.
const (
	rand48A    = 0x5DEECE66D
	rand48C    = 0xB
	rand48Mask = 1<<48 - 1
	lrand48Max = math.MaxInt32
)

func (s *scripting) lrand48() int32 {
	s.rand = (rand48A*s.rand + rand48C) & rand48Mask
	return int32(s.rand >> 17)
}

func (s *scripting) mathRandom(L *lua.LState) int {
	r := float64(s.lrand48()%lrand48Max) / float64(lrand48Max)
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r))
	case 1:
		u := L.CheckInt(1)
		if 1 > u {
			L.ArgError(1, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u)) + 1))
	case 2:
		l := L.CheckInt(1)
		u := L.CheckInt(2)
		if l > u {
			L.ArgError(2, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u-l+1)) + float64(l)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

func (s *scripting) mathRandomseed(L *lua.LState) int {
	seed := L.CheckInt(1)
	s.rand = (uint64(int32(seed))<<16 | 0x330E) & rand48Mask
	return 0
}

// luaCollectGarbage is Lua 5.1's collectgarbage over Go's collector:
// "count" reports the Lua heap in KB (not tracked: 0), "step" true,
// everything else 0.
func luaCollectGarbage(L *lua.LState) int {
	switch L.OptString(1, "collect") {
	case "count":
		L.Push(lua.LNumber(0))
	case "step":
		L.Push(lua.LTrue)
	case "collect", "stop", "restart", "setpause", "setstepmul":
		L.Push(lua.LNumber(0))
	default:
		L.ArgError(1, "invalid option '"+L.ToString(1)+"'")
	}
	return 1
}

// str2number is Lua 5.1's luaO_str2d as Redis builds it (glibc's strtod,
// then optional trailing white space): leading white space, a sign,
// then a decimal number, a hexadecimal one ("0x1.8p3", the exponent
// optional), "inf"/"infinity" or "nan"/"nan(chars)" in any case (a
// signed NaN keeps its sign: tostring(tonumber("-nan")) is "-nan").
func str2number(s string) (float64, bool) {
	isSpace := func(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	t := s[i:j]
	neg := false
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if t == "" {
		return 0, false
	}
	sign := func(f float64) float64 {
		if neg {
			return -f
		}
		return f
	}
	switch {
	case len(t) >= 3 && strings.EqualFold(t[:3], "nan"):
		rest := t[3:]
		if rest != "" {
			// nan(n-char-sequence)
			if len(rest) < 2 || rest[0] != '(' || rest[len(rest)-1] != ')' {
				return 0, false
			}
			for k := 1; k < len(rest)-1; k++ {
				c := rest[k]
				if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
					return 0, false
				}
			}
		}
		if neg {
			return math.Float64frombits(0xFFF8000000000000), true
		}
		return math.Float64frombits(0x7FF8000000000000), true
	case strings.EqualFold(t, "inf") || strings.EqualFold(t, "infinity"):
		return sign(math.Inf(1)), true
	}
	hex := len(t) >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')
	isDigit := func(c byte) bool {
		if hex {
			return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
		}
		return c >= '0' && c <= '9'
	}
	k := 0
	if hex {
		k = 2
	}
	digits := 0
	for k < len(t) && isDigit(t[k]) {
		k, digits = k+1, digits+1
	}
	if k < len(t) && t[k] == '.' {
		k++
		for k < len(t) && isDigit(t[k]) {
			k, digits = k+1, digits+1
		}
	}
	if digits == 0 {
		return 0, false
	}
	mant := k
	if k < len(t) && (!hex && (t[k] == 'e' || t[k] == 'E') || hex && (t[k] == 'p' || t[k] == 'P')) {
		k++
		if k < len(t) && (t[k] == '-' || t[k] == '+') {
			k++
		}
		e := 0
		for k < len(t) && t[k] >= '0' && t[k] <= '9' {
			k, e = k+1, e+1
		}
		if e == 0 {
			return 0, false // strtod stops before the exponent: trailing junk
		}
	}
	if k != len(t) {
		return 0, false
	}
	num := t
	if hex && mant == len(t) {
		num = t + "p0" // Go wants the binary exponent
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	return sign(f), true
}

// luaTableConcat is Lua 5.1's table.concat, with numbers formatted as
// Lua 5.1 does (%.14g).
func luaTableConcat(L *lua.LState) int {
	t := L.CheckTable(1)
	sep := L.OptString(2, "")
	i := L.OptInt(3, 1)
	j := t.Len()
	if L.GetTop() >= 4 && L.Get(4) != lua.LNil {
		j = L.CheckInt(4)
	}
	var b []byte
	for k := i; k <= j; k++ {
		switch v := t.RawGetInt(k).(type) {
		case lua.LString:
			b = append(b, v...)
		case lua.LNumber:
			b = append(b, luaNumberString(float64(v))...)
		default:
			L.RaiseError("invalid value (%s) at index %d in table for 'concat'", luaTypeName(v), k)
		}
		if k != j {
			b = append(b, sep...)
		}
	}
	L.Push(lua.LString(b))
	return 1
}

// wrapStringLib makes the string library see numbers as Lua 5.1 prints
// them (%.14g): gopher-lua would format 10/3 with 17 digits.
func wrapStringLib(L *lua.LState, str *lua.LTable) {
	conv := func(L *lua.LState, i int) {
		if n, ok := L.Get(i).(lua.LNumber); ok {
			L.Replace(i, lua.LString(luaNumberString(float64(n))))
		}
	}
	for _, name := range []string{"byte", "find", "gmatch", "gsub", "len", "lower", "match", "rep", "reverse", "sub", "upper", "format"} {
		orig := str.RawGetString(name).(*lua.LFunction)
		name := name
		str.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if L.GetTop() >= 1 {
				conv(L, 1)
			}
			switch name {
			case "gsub":
				if L.GetTop() >= 3 {
					conv(L, 3)
				}
			case "format":
				formatArgs(L, conv)
			}
			L.Insert(orig, 1)
			L.Call(L.GetTop()-1, lua.MultRet)
			return L.GetTop()
		}))
	}
}

// formatArgs converts the numbers given to %s in string.format's format.
func formatArgs(L *lua.LState, conv func(*lua.LState, int)) {
	f, ok := L.Get(1).(lua.LString)
	if !ok {
		return
	}
	arg := 1
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			continue
		}
		for i < len(f) && strings.IndexByte("-+ #0123456789.", f[i]) >= 0 {
			i++
		}
		arg++
		if i < len(f) && f[i] == 's' && arg <= L.GetTop() {
			conv(L, arg)
		}
	}
}
