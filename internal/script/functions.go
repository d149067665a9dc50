package script

// Redis 7.0 Functions: FUNCTION LOAD/DELETE/FLUSH/LIST/STATS/KILL/DUMP/
// RESTORE/HELP, FCALL and FCALL_RO.
//
// A library is Lua code starting with a "#!lua name=<lib>" line; loading
// it runs the code once, in an environment where only redis.register_function,
// redis.log, the LOG_* constants and redis.REDIS_VERSION(_NUM) exist (any
// other global, redis.call included, raises "Script attempted to access
// nonexistent global variable"), as Redis's function_lua.c does. The
// registered callbacks then run, through FCALL, with the full scripting
// API (but no KEYS and ARGV globals: they get keys and args as their two
// arguments), in the engine's one Lua state, like EVAL scripts; errors
// read "... script: <function>, on @user_function:<line>.".
//
// Libraries belong to one engine. FUNCTION LOAD, DELETE, FLUSH and
// RESTORE are logged as themselves; an AOF rewrite re-emits one FUNCTION
// LOAD per library (engine.StateRewriter). FUNCTION DUMP is Redis's
// payload (FUNCTION2 records, RDB version and CRC64), so payloads move
// between redis-server and Ordo both ways.
//
// Differences from Redis 7.0: FUNCTION LIST lists libraries and their
// functions in name order (Redis: hash order), and FUNCTION DUMP writes
// libraries in name order; FUNCTION STATS is answered after a running
// function ends, so its running_script is always nil. RDB files (SAVE's
// dump.rdb, rdb-import) carry the libraries too (engine.FunctionStore).

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/ordo-db/ordo/internal/ds/glob"
	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/rdb"
	"github.com/ordo-db/ordo/internal/resp"
)

// Error replies of FUNCTION and FCALL, as Redis 7.0 words them.
const (
	ErrFuncNotFound     = "ERR Function not found"
	ErrLibNotFound      = "ERR Library not found"
	ErrBadNumKeys       = "ERR Bad number of keys provided"
	msgMissingMetadata  = "Missing library metadata"
	msgInvalidMetadata  = "Invalid library metadata"
	msgBadName          = "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"
	msgNoFunctions      = "No functions registered"
	msgRestorePolicy    = "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE."
	msgFuncFlushOption  = "ERR FUNCTION FLUSH only supports SYNC|ASYNC option"
	msgBadPayload       = "ERR DUMP payload version or checksum are wrong"
	msgRegisterOutside  = "redis.register_function can only be called on FUNCTION LOAD command"
	funcChunkName       = "user_function"
	msgCompileFunction  = "ERR Error compiling function: "
	msgRegisterFunction = "ERR Error registering functions: "
)

// loadTimeout is how long FUNCTION LOAD may run a library's code.
const loadTimeout = 500 * time.Millisecond

// scriptFlagNames are Redis's scripts_flags_def, in its order (the order
// FUNCTION LIST prints them in).
var scriptFlagNames = []string{"no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"}

var functionHelp = []string{
	"FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"LOAD [REPLACE] <FUNCTION CODE>",
	"    Create a new library with the given library name and code.",
	"DELETE <LIBRARY NAME>",
	"    Delete the given library.",
	"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
	"    Return general information on all the libraries:",
	"    * Library name",
	"    * The engine used to run the Library",
	"    * Library description",
	"    * Functions list",
	"    * Library code (if WITHCODE is given)",
	"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
	"STATS",
	"    Return information about the current function running:",
	"    * Function name",
	"    * Command used to run the function",
	"    * Duration in MS that the function is running",
	"    If no function is running, return nil",
	"    In addition, returns a list of available engines.",
	"KILL",
	"    Kill the current running function.",
	"FLUSH [ASYNC|SYNC]",
	"    Delete all the libraries.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the libraries.",
	"    * SYNC: Synchronously flush the libraries.",
	"DUMP",
	"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
	"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
	"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
	"    control how to handle existing libraries (default APPEND):",
	"    * FLUSH: delete all existing libraries.",
	"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
	"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
	"      libraries with the new libraries (notice that even on this option there is a chance of failure",
	"      in case of functions name collision with another library).",
	"HELP",
	"    Prints this help.",
}

// library is one loaded function library.
type library struct {
	name  string
	code  string
	funcs map[string]*function // by name (case-sensitive within a library)
}

// function is one registered function.
type function struct {
	name  string
	desc  *string
	flags uint8 // bit i: scriptFlagNames[i]
	lib   *library
	sc    *luaScript
}

// libSet is a set of libraries and the index of their functions
// (function names are case-insensitive, library names are not).
type libSet struct {
	libs  map[string]*library
	funcs map[string]*function
}

// byName is the function named name in any case; a name already in
// lower case (the usual) is looked up without a copy.
func (ls *libSet) byName(name []byte) *function {
	for _, c := range name {
		if c >= 'A' && c <= 'Z' {
			return ls.funcs[strings.ToLower(string(name))]
		}
	}
	return ls.funcs[string(name)]
}

func newLibSet() *libSet {
	return &libSet{libs: map[string]*library{}, funcs: map[string]*function{}}
}

func (ls *libSet) add(l *library) {
	ls.libs[l.name] = l
	for _, f := range l.funcs {
		k := strings.ToLower(f.name)
		if ls.funcs[k] == nil { // Redis's dictAdd keeps the first
			ls.funcs[k] = f
		}
	}
}

func (ls *libSet) remove(l *library) {
	delete(ls.libs, l.name)
	for _, f := range l.funcs {
		k := strings.ToLower(f.name)
		if ls.funcs[k] != nil && ls.funcs[k].lib == l {
			delete(ls.funcs, k)
		}
	}
}

func (ls *libSet) clone() *libSet {
	n := newLibSet()
	for _, l := range ls.libs {
		n.add(l)
	}
	return n
}

func (ls *libSet) sorted() []*library {
	out := make([]*library, 0, len(ls.libs))
	for _, l := range ls.libs {
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b *library) int { return strings.Compare(a.name, b.name) })
	return out
}

// functionState is the functions part of an engine's scripting.
type functionState struct {
	set     *libSet
	env     *lua.LTable // the globals proxy of every library
	envMeta *lua.LTable // its metatable: __index switches at load time
	loadAPI *lua.LTable // the globals seen while a library loads
	loading *library    // the library being loaded (register_function)
}

func (s *scripting) initFunctions() {
	L := s.L
	fs := &functionState{set: newLibSet()}
	s.fns = fs
	noGlobal := L.NewFunction(func(L *lua.LState) int {
		L.RaiseError(msgNoGlobal, L.ToString(2))
		return 0
	})
	ro := L.NewFunction(func(L *lua.LState) int {
		L.RaiseError(msgReadonlyTable)
		return 0
	})
	protect := func(real *lua.LTable) *lua.LTable {
		em := L.NewTable()
		em.RawSetString("__index", noGlobal)
		L.SetMetatable(real, em)
		p := L.NewTable()
		mt := L.NewTable()
		mt.RawSetString("__index", real)
		mt.RawSetString("__newindex", ro)
		mt.RawSetString("__metatable", lua.LFalse)
		L.SetMetatable(p, mt)
		return p
	}
	// The load-time API.
	redis := L.NewTable()
	redis.RawSetString("register_function", L.NewFunction(s.luaRegisterFunction))
	redis.RawSetString("log", L.NewFunction(s.luaLog))
	for name, v := range map[string]float64{
		"LOG_DEBUG": 0, "LOG_VERBOSE": 1, "LOG_NOTICE": 2, "LOG_WARNING": 3,
		"REDIS_VERSION_NUM": redisVersionNum,
	} {
		redis.RawSetString(name, lua.LNumber(v))
	}
	redis.RawSetString("REDIS_VERSION", lua.LString(redisVersion))
	api := L.NewTable()
	api.RawSetString("redis", protect(redis))
	fs.loadAPI = api
	em := L.NewTable()
	em.RawSetString("__index", noGlobal)
	L.SetMetatable(api, em)

	// The libraries' globals: the scripting globals (without KEYS and
	// ARGV, cleared before every FCALL), or the load API while loading.
	fs.env = L.NewTable()
	fs.envMeta = L.NewTable()
	fs.envMeta.RawSetString("__index", s.globals)
	fs.envMeta.RawSetString("__newindex", ro)
	fs.envMeta.RawSetString("__metatable", lua.LFalse)
	L.SetMetatable(fs.env, fs.envMeta)
}

func (s *scripting) functions() *functionState {
	if s.fns == nil {
		s.initFunctions()
	}
	return s.fns
}

// RewriteState implements engine.StateRewriter: one FUNCTION LOAD per
// library, in name order.
func (s *scripting) RewriteState(emit func(db int, args [][]byte)) {
	if s.fns == nil {
		return
	}
	for _, l := range s.fns.set.sorted() {
		emit(0, [][]byte{[]byte("FUNCTION"), []byte("LOAD"), []byte(l.code)})
	}
}

// FunctionCodes implements engine.FunctionStore: the code of every
// library, in name order.
func (s *scripting) FunctionCodes() [][]byte {
	if s.fns == nil {
		return nil
	}
	var codes [][]byte
	for _, l := range s.fns.set.sorted() {
		codes = append(codes, []byte(l.code))
	}
	return codes
}

// LoadFunction implements engine.FunctionStore: a library read from an
// RDB file replaces a loaded one of the same name.
func (s *scripting) LoadFunction(code []byte) error {
	if _, msg := s.createLibrary(s.functions().set, string(code), true, 0); msg != "" {
		return errors.New(msg)
	}
	return nil
}

// validName is Redis's functionsVerifyName.
func validName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// createLibrary is Redis's functionsCreateWithLibraryCtx: it parses the
// metadata, runs the code and adds the library to set; it returns the
// library's name or an error message (without the ERR code).
func (s *scripting) createLibrary(set *libSet, code string, replace bool, timeout time.Duration) (string, string) {
	if !strings.HasPrefix(code, "#!") {
		return "", msgMissingMetadata
	}
	end := strings.IndexByte(code, '\n')
	if end < 0 {
		return "", msgInvalidMetadata
	}
	parts, ok := resp.SplitArgs([]byte(code[:end]), nil)
	if !ok || len(parts) == 0 {
		return "", msgInvalidMetadata
	}
	eng := string(parts[0][2:])
	var name string
	named := false
	for _, p := range parts[1:] {
		if len(p) >= 5 && strings.EqualFold(string(p[:5]), "name=") {
			if named {
				return "", "Invalid metadata value, name argument was given multiple times"
			}
			name, named = string(p[5:]), true
			continue
		}
		return "", "Invalid metadata value given: " + string(p)
	}
	if !named {
		return "", "Library name was not given"
	}
	if !validName(name) {
		return "", msgBadName
	}
	if !strings.EqualFold(eng, "lua") {
		return "", "Engine '" + eng + "' not found"
	}
	old := set.libs[name]
	if old != nil && !replace {
		return "", "Library '" + name + "' already exists"
	}
	lib := &library{name: name, code: code, funcs: map[string]*function{}}
	if msg := s.runLibrary(lib, code[end:], timeout); msg != "" {
		return "", msg
	}
	if len(lib.funcs) == 0 {
		return "", msgNoFunctions
	}
	for _, f := range sortedFuncs(lib) {
		if g := set.funcs[strings.ToLower(f.name)]; g != nil && g.lib != old {
			return "", "Function " + f.name + " already exists"
		}
	}
	if old != nil {
		set.remove(old)
	}
	set.add(lib)
	return name, ""
}

// runLibrary compiles and runs a library's code (after its shebang line,
// the newline kept) with the load API as globals, for at most timeout
// (0: no limit).
func (s *scripting) runLibrary(lib *library, body string, timeout time.Duration) string {
	fs := s.functions()
	L := s.L
	fn, err := L.Load(strings.NewReader(body), funcChunkName)
	if err != nil {
		return msgCompileFunction[4:] + compileErrorIn(err, body, funcChunkName)
	}
	fn.Env = fs.env
	fn.Proto.IsVarArg &^= lua.VarArgNeedsArg
	fs.envMeta.RawSetString("__index", fs.loadAPI)
	fs.loading = lib
	defer func() {
		fs.envMeta.RawSetString("__index", s.globals)
		fs.loading = nil
		L.SetTop(0)
	}()
	var ctx context.Context
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), timeout)
		defer cancel()
		L.SetContext(ctx)
		defer L.SetContext(s.kill)
	}
	L.Push(fn)
	if err := L.PCall(0, 0, nil); err != nil {
		if ctx != nil && ctx.Err() != nil {
			return msgRegisterFunction[4:] + "ERR FUNCTION LOAD timeout"
		}
		return msgRegisterFunction[4:] + quoteArgErrors(luaErrorMessage(err))
	}
	// Loaded: from now on the functions' globals are the scripts' (a
	// function called while its library loads saw the load API's).
	for _, f := range lib.funcs {
		if fn := f.sc.fn; fn != nil && !fn.IsG && fn.Proto != nil {
			s.foldGlobals(fn.Proto)
		}
	}
	return ""
}

// luaRegisterFunction is redis.register_function(name, callback) and
// redis.register_function{function_name=, callback=, flags=, description=}.
func (s *scripting) luaRegisterFunction(L *lua.LState) int {
	fs := s.fns
	raise := func(msg string) int {
		L.Error(errTable(L, msg), 0)
		return 0
	}
	if fs == nil || fs.loading == nil {
		return raise(msgRegisterOutside)
	}
	n := L.GetTop()
	if n < 1 || n > 2 {
		return raise("wrong number of arguments to redis.register_function")
	}
	f := &function{lib: fs.loading}
	var cb *lua.LFunction
	if n == 1 {
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			return raise("calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
		}
		named := false
		var msg string
		t.ForEach(func(k, v lua.LValue) {
			if msg != "" {
				return
			}
			ks, ok := luaString(k)
			if !ok {
				msg = "named argument key given to redis.register_function is not a string"
				return
			}
			switch strings.ToLower(ks) {
			case "function_name":
				vs, ok := luaString(v)
				if !ok {
					msg = "function_name argument given to redis.register_function must be a string"
					return
				}
				f.name, named = vs, true
			case "description":
				vs, ok := luaString(v)
				if !ok {
					msg = "description argument given to redis.register_function must be a string"
					return
				}
				f.desc = &vs
			case "callback":
				fn, ok := v.(*lua.LFunction)
				if !ok {
					msg = "callback argument given to redis.register_function must be a function"
					return
				}
				cb = fn
			case "flags":
				ft, ok := v.(*lua.LTable)
				if !ok {
					msg = "flags argument to redis.register_function must be a table representing function flags"
					return
				}
				for i := 1; ; i++ {
					fv := ft.RawGetInt(i)
					if fv == lua.LNil {
						break
					}
					fl, ok := luaString(fv)
					found := -1
					if ok {
						for j, name := range scriptFlagNames {
							if strings.EqualFold(name, fl) {
								found = j
							}
						}
					}
					if found < 0 {
						msg = "unknown flag given"
						return
					}
					f.flags |= 1 << found
				}
			default:
				msg = "unknown argument given to redis.register_function"
			}
		})
		switch {
		case msg != "":
			return raise(msg)
		case !named:
			return raise("redis.register_function must get a function name argument")
		case cb == nil:
			return raise("redis.register_function must get a callback argument")
		}
	} else {
		name, ok := luaString(L.Get(1))
		if !ok {
			return raise("first argument to redis.register_function must be a string")
		}
		fn, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			return raise("second argument to redis.register_function must be a function")
		}
		f.name, cb = name, fn
	}
	// Redis's functionLibCreateFunction.
	if !validName(f.name) {
		return raise(msgBadName)
	}
	if fs.loading.funcs[f.name] != nil {
		return raise("Function already exists in the library")
	}
	f.sc = &luaScript{sha: f.name, fn: cb, fcall: true, chunk: funcChunkName, reuse: reusableArgs(cb),
		flags: scriptFlags{shebang: true, noWrites: f.flags&1 != 0, allowOOM: f.flags&2 != 0, allowStale: f.flags&4 != 0}}
	fs.loading.funcs[f.name] = f
	return 0
}

// luaString is lua_isstring + lua_tostring: strings and numbers.
func luaString(v lua.LValue) (string, bool) {
	switch x := v.(type) {
	case lua.LString:
		return string(x), true
	case lua.LNumber:
		return luaNumberString(float64(x)), true
	}
	return "", false
}

func sortedFuncs(l *library) []*function {
	out := make([]*function, 0, len(l.funcs))
	for _, f := range l.funcs {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b *function) int { return strings.Compare(a.name, b.name) })
	return out
}

func registerFunctions(t *engine.Table, st *state) {
	get := st.get
	fcall := func(c *engine.Ctx) {
		s := get(c.E)
		f := s.functions().set.byName(c.Args[1])
		if f == nil {
			c.Error(ErrFuncNotFound)
			return
		}
		nk, ok := engine.ParseInt(c.Args[2])
		switch {
		case !ok:
			c.Error(ErrBadNumKeys)
			return
		case nk > int64(len(c.Args)-3):
			c.Error(ErrNumKeysTooMany)
			return
		case nk < 0:
			c.Error(ErrNumKeysNegative)
			return
		}
		ro := c.Cmd.Name == "fcall_ro"
		if ro && !f.sc.flags.noWrites {
			c.Error(ErrROWithWriteFlag)
			return
		}
		s.run(c, f.sc, c.Args[3:3+nk], c.Args[3+nk:], ro)
	}
	for _, name := range []string{"fcall", "fcall_ro"} {
		cmd := t.Register(name, fcall)
		cmd.Keys = engine.GenericKeys(0, 2, 3)
		// Redis's fcallGetCommandFlags: the function's flags decide.
		cmd.CallFlags = func(e *engine.Engine, args [][]byte) engine.Flag {
			if len(args) < 2 {
				return cmd.Flags
			}
			f := get(e).functions().set.byName(args[1])
			if f == nil {
				return cmd.Flags
			}
			return scriptCallFlags(cmd.Flags, f.sc.flags)
		}
	}
	t.SetFunctionStore(func(e *engine.Engine) engine.FunctionStore { return get(e) })
	t.RegisterContainer("function")
	t.Register("function|load", func(c *engine.Ctx) {
		replace := false
		i := 2
		for ; i < len(c.Args)-1; i++ {
			if !c.ArgIs(i, "replace") {
				c.Error("ERR Unknown option given: " + string(c.Args[i]))
				return
			}
			replace = true
		}
		if i >= len(c.Args) {
			c.Error("ERR Function code is missing")
			return
		}
		s := get(c.E)
		// Redis's 500 ms limit, not for the AOF (mustObeyClient).
		timeout := loadTimeout
		if c.Client.Kind == "aof" {
			timeout = 0
		}
		name, msg := s.createLibrary(s.functions().set, string(c.Args[i]), replace, timeout)
		if msg != "" {
			c.Error("ERR " + msg)
			return
		}
		c.Dirty(1)
		c.W.BulkString(name)
	})
	t.Register("function|delete", func(c *engine.Ctx) {
		fs := get(c.E).functions()
		l := fs.set.libs[string(c.Args[2])]
		if l == nil {
			c.Error(ErrLibNotFound)
			return
		}
		fs.set.remove(l)
		c.Dirty(1)
		c.W.OK()
	})
	t.Register("function|flush", func(c *engine.Ctx) {
		if len(c.Args) > 3 {
			subcommandSyntax(c)
			return
		}
		if len(c.Args) == 3 && !c.ArgIs(2, "sync") && !c.ArgIs(2, "async") {
			c.Error(msgFuncFlushOption)
			return
		}
		get(c.E).functions().set = newLibSet()
		c.Dirty(1)
		c.W.OK()
	})
	t.Register("function|kill", func(c *engine.Ctx) {
		c.Error(ErrNotBusy)
	})
	t.Register("function|stats", func(c *engine.Ctx) {
		set := get(c.E).functions().set
		c.W.Map(2)
		c.W.BulkString("running_script")
		c.W.Null()
		c.W.BulkString("engines")
		c.W.Map(1)
		c.W.BulkString("LUA")
		c.W.Map(2)
		c.W.BulkString("libraries_count")
		c.W.Int(int64(len(set.libs)))
		c.W.BulkString("functions_count")
		c.W.Int(int64(len(set.funcs)))
	})
	t.Register("function|list", func(c *engine.Ctx) {
		withCode := false
		var pattern []byte
		hasPattern := false
		for i := 2; i < len(c.Args); i++ {
			switch {
			case !withCode && c.ArgIs(i, "withcode"):
				withCode = true
			case !hasPattern && c.ArgIs(i, "libraryname"):
				if i >= len(c.Args)-1 {
					c.Error("ERR library name argument was not given")
					return
				}
				i++
				pattern, hasPattern = c.Args[i], true
			default:
				c.Error("ERR Unknown argument " + string(c.Args[i]))
				return
			}
		}
		var libs []*library
		for _, l := range get(c.E).functions().set.sorted() {
			if !hasPattern || glob.Match(pattern, []byte(l.name), true) {
				libs = append(libs, l)
			}
		}
		w := c.W
		w.Array(len(libs))
		for _, l := range libs {
			if withCode {
				w.Map(4)
			} else {
				w.Map(3)
			}
			w.BulkString("library_name")
			w.BulkString(l.name)
			w.BulkString("engine")
			w.BulkString("LUA")
			w.BulkString("functions")
			fns := sortedFuncs(l)
			w.Array(len(fns))
			for _, f := range fns {
				w.Map(3)
				w.BulkString("name")
				w.BulkString(f.name)
				w.BulkString("description")
				if f.desc != nil {
					w.BulkString(*f.desc)
				} else {
					w.Null()
				}
				w.BulkString("flags")
				n := 0
				for i := range scriptFlagNames {
					if f.flags&(1<<i) != 0 {
						n++
					}
				}
				w.Set(n)
				for i, name := range scriptFlagNames {
					if f.flags&(1<<i) != 0 {
						w.Simple(name)
					}
				}
			}
			if withCode {
				w.BulkString("library_code")
				w.BulkString(l.code)
			}
		}
	})
	t.Register("function|dump", func(c *engine.Ctx) {
		var codes [][]byte
		for _, l := range get(c.E).functions().set.sorted() {
			codes = append(codes, []byte(l.code))
		}
		c.W.Bulk(rdb.DumpFunctions(codes, c.E.Config.Bool("rdbcompression")))
	})
	t.Register("function|restore", func(c *engine.Ctx) {
		if len(c.Args) > 4 {
			subcommandSyntax(c)
			return
		}
		policy := "append"
		if len(c.Args) == 4 {
			switch {
			case c.ArgIs(3, "flush"):
				policy = "flush"
			case c.ArgIs(3, "append"):
			case c.ArgIs(3, "replace"):
				policy = "replace"
			default:
				c.Error(msgRestorePolicy)
				return
			}
		}
		p := c.Args[2]
		if !rdb.VerifyPayload(p) {
			c.Error(msgBadPayload)
			return
		}
		codes, err := rdb.ParseFunctions(p)
		if err != nil {
			if err == rdb.ErrFunctionPayload {
				c.Error("ERR given type is not a function")
			} else {
				c.Error("ERR failed loading the given functions payload")
			}
			return
		}
		s := get(c.E)
		fs := s.functions()
		tmp := newLibSet()
		for _, code := range codes {
			if _, msg := s.createLibrary(tmp, string(code), false, 0); msg != "" {
				c.Error("ERR " + msg)
				return
			}
		}
		if policy == "flush" {
			fs.set = tmp
		} else {
			dst := fs.set.clone()
			for _, l := range tmp.sorted() {
				if old := dst.libs[l.name]; old != nil {
					if policy != "replace" {
						c.Error("ERR Library " + l.name + " already exists")
						return
					}
					dst.remove(old)
				}
			}
			for _, l := range tmp.sorted() {
				for _, f := range sortedFuncs(l) {
					if dst.funcs[strings.ToLower(f.name)] != nil {
						c.Error("ERR Function " + f.name + " already exists")
						return
					}
				}
			}
			for _, l := range tmp.libs {
				dst.add(l)
			}
			fs.set = dst
		}
		c.Dirty(1)
		c.W.OK()
	})
	t.Register("function|help", func(c *engine.Ctx) {
		c.W.Array(len(functionHelp))
		for _, l := range functionHelp {
			c.W.Simple(l)
		}
	})
}

func subcommandSyntax(c *engine.Ctx) {
	c.Error("ERR unknown subcommand or wrong number of arguments for '" + string(c.Args[1]) + "'. Try FUNCTION HELP.")
}
