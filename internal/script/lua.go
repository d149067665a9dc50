package script

import (
	"context"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// Messages of the Lua API, as Redis 7.0 words them.
const (
	msgReadonlyTable  = "Attempt to modify a readonly table"
	msgNoGlobal       = "Script attempted to access nonexistent global variable '%s'"
	msgNoArgs         = "Please specify at least one argument for this redis lib call"
	msgArgType        = "Lua redis lib command arguments must be strings or integers"
	msgUnknownCommand = "Unknown Redis command called from script"
	msgWrongArgs      = "Wrong number of args calling Redis command from script"
	msgNoScriptCmd    = "This Redis command is not allowed from script"
	msgWriteInRO      = "Write commands are not allowed from read-only scripts."
	msgKilled         = "ERR Script killed by user with SCRIPT KILL..."
	msgOutsideScript  = "redis.call/pcall can only be called inside a script invocation"
)

// chunkName is what Redis names every script: errors read "user_script:1:".
const chunkName = "user_script"

// redisVersion is what redis.REDIS_VERSION reports (Ordo speaks 7.0.15).
const (
	redisVersion    = engine.RedisVersion
	redisVersionNum = 0x07000f
)

type luaScript struct {
	sha   string
	body  string
	fn    *lua.LFunction
	flags scriptFlags
	fcall bool    // a function (functions.go): called with keys and args
	reuse [2]bool // a function's keys, args tables may be reused (argreuse.go)
	chunk string  // user_function for functions, else user_script
}

// scriptFlags are the flags of a "#!lua flags=..." shebang.
type scriptFlags struct {
	shebang    bool // false: Redis's eval compatibility mode
	noWrites   bool
	allowOOM   bool
	allowStale bool
}

// parseShebang is Redis's evalExtractShebangFlags: it returns the flags
// and the length of the shebang line (the newline is kept so that line
// numbers do not change), or an error reply.
func parseShebang(body string) (scriptFlags, int, string) {
	var f scriptFlags
	if !strings.HasPrefix(body, "#!") {
		return f, 0, ""
	}
	end := strings.IndexByte(body, '\n')
	if end < 0 {
		return f, 0, "ERR Invalid script shebang"
	}
	parts, ok := resp.SplitArgs([]byte(body[:end]), nil)
	if !ok || len(parts) == 0 {
		return f, 0, "ERR Invalid engine in script shebang"
	}
	if string(parts[0]) != "#!lua" {
		return f, 0, "ERR Unexpected engine in script shebang: " + string(parts[0])
	}
	f.shebang = true
	for _, p := range parts[1:] {
		opt, ok := strings.CutPrefix(string(p), "flags=")
		if !ok {
			return f, 0, "ERR Unknown lua shebang option: " + string(p)
		}
		if opt == "" {
			continue
		}
		for _, fl := range strings.Split(opt, ",") {
			switch fl {
			case "no-writes":
				f.noWrites = true
			case "allow-oom":
				f.allowOOM = true
			case "allow-stale":
				f.allowStale = true
			case "no-cluster", "allow-cross-slot-keys":
			default:
				return f, 0, "ERR Unexpected flag in script shebang: " + fl
			}
		}
	}
	return f, end, ""
}

// scripting is the per-engine scripting state: one Lua state, the script
// cache, and the state of the running script.
type scripting struct {
	e       *engine.Engine
	L       *lua.LState
	globals *lua.LTable // the real globals (read through env)
	env     *lua.LTable // the read-only proxy every script runs in
	// readonly holds the globals, the library tables and their proxies:
	// the tables rawset refuses.
	readonly map[*lua.LTable]bool
	proxied  map[*lua.LTable]*lua.LTable // a read-only proxy's real table
	scripts  map[string]*luaScript
	lastSC   *luaScript // the script bySHA found last (nil after a flush)
	errh     *lua.LFunction
	kill     *killCtx
	busy     *engine.ScriptRun // the engine's
	rand     uint64            // redisLrand48 state
	fns      *functionState    // function libraries (functions.go)

	// State of the running script (valid while running).
	running bool
	sha     string
	chunk   string
	c       *engine.Ctx // the caller's context
	sub     engine.Ctx  // the context sub-commands run with (InScript)
	ro      bool
	oom     bool // the first denyoom command is refused (see run)
	resp    int
	wrote   atomic.Bool
	fcall   atomic.Bool // the running script is a function
	killed  atomic.Bool
	errLine int
	w       resp.Writer
	arena   []byte
	ends    []int
	argv    [][]byte
	effects []effect
	// keysT and argvT are the KEYS and ARGV tables of the last EVAL,
	// refilled by the next one when the script left them plain (see
	// argTable): two tables fewer to allocate and collect per call.
	keysT, argvT *lua.LTable
	// argsSet: the globals KEYS and ARGV hold keysT and argvT (a
	// function call clears them). Setting a global costs two map writes
	// in gopher-lua; a run that reuses both tables skips them.
	argsSet bool
	// fkeysT and fargvT are the keys and args tables of the functions
	// that cannot keep them (argreuse.go), refilled by every FCALL.
	fkeysT, fargvT *lua.LTable
	prop           func(db int, args [][]byte)
	collect        func(db int, args [][]byte)
}

type effect struct {
	db   int
	args [][]byte
}

// killCtx is the Lua state's context: SCRIPT KILL closes done, which
// makes the VM raise an error at its next instruction.
type killCtx struct {
	mu   sync.Mutex
	done chan struct{}
}

func (k *killCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (k *killCtx) Done() <-chan struct{}       { return k.done }
func (k *killCtx) Value(any) any               { return nil }
func (k *killCtx) Err() error {
	select {
	case <-k.done:
		return errKilled
	default:
		return nil
	}
}

type killedError struct{}

func (killedError) Error() string { return "Script killed by user with SCRIPT KILL..." }

var errKilled error = killedError{}

var _ context.Context = (*killCtx)(nil)

func (k *killCtx) cancel() {
	k.mu.Lock()
	select {
	case <-k.done:
	default:
		close(k.done)
	}
	k.mu.Unlock()
}

func (k *killCtx) reset() {
	k.mu.Lock()
	select {
	case <-k.done:
		k.done = make(chan struct{})
	default:
	}
	k.mu.Unlock()
}

func newScripting(e *engine.Engine) *scripting {
	s := &scripting{e: e, scripts: map[string]*luaScript{}, resp: 2}
	s.rand = 0x1234ABCD330E
	s.kill = &killCtx{done: make(chan struct{})}
	s.busy = e.ScriptRun()
	s.busy.SetKill(s.killScript)
	s.collect = func(db int, args [][]byte) {
		cp := make([][]byte, len(args))
		for i, a := range args {
			cp[i] = append([]byte{}, a...) // never nil: "" is a key too
		}
		s.effects = append(s.effects, effect{db, cp})
	}
	s.initLua()
	e.AddStateRewriter(s)
	return s
}

// killScript is SCRIPT KILL (function false) and FUNCTION KILL, called
// without the lock while a script is busy; as Redis's scriptKill, each
// kills only its own kind.
func (s *scripting) killScript(function bool) string {
	if s.wrote.Load() {
		return ErrUnkillable
	}
	if function != s.fcall.Load() {
		if function {
			return engine.ErrBusyScript
		}
		return engine.ErrBusyFunction
	}
	s.killed.Store(true)
	s.kill.cancel()
	return ""
}

func (s *scripting) flush() {
	s.scripts = map[string]*luaScript{}
	s.lastSC = nil
}

// load compiles body and caches it; it returns the SHA1 or an error reply.
func (s *scripting) load(body string) (string, string) {
	sha := sha1hex(body)
	if _, ok := s.scripts[sha]; ok {
		return sha, ""
	}
	flags, skip, msg := parseShebang(body)
	if msg != "" {
		return "", msg
	}
	fn, err := s.L.Load(strings.NewReader(body[skip:]), chunkName)
	if err != nil {
		return "", ErrCompilePrefix + compileErrorIn(err, body, chunkName)
	}
	fn.Env = s.env
	s.foldGlobals(fn.Proto)
	// Lua 5.1 main chunks have no implicit 'arg' table; gopher-lua would
	// build one at every call.
	fn.Proto.IsVarArg &^= lua.VarArgNeedsArg
	s.scripts[sha] = &luaScript{sha: sha, body: body, fn: fn, flags: flags}
	return sha, ""
}

// compileError turns gopher-lua's syntax error into Lua 5.1's wording
// where it can ("user_script:1: unexpected symbol near '<eof>'").
func compileErrorIn(err error, body, chunkName string) string {
	msg := err.Error()
	if ae, ok := err.(*lua.ApiError); ok {
		msg = ae.Object.String()
	}
	if rest, ok := strings.CutPrefix(msg, chunkName+" at EOF:"); ok {
		what := "unexpected symbol"
		if strings.Contains(rest, "unterminated string") {
			what = "unfinished string"
		}
		return chunkName + ":" + strconv.Itoa(strings.Count(body, "\n")+1) + ": " + what + " near '<eof>'"
	}
	// gopher-lua: "user_script line:1(column:9) near 'x':   syntax error"
	if rest, ok := strings.CutPrefix(msg, chunkName+" line:"); ok {
		line, rest, _ := strings.Cut(rest, "(")
		near := ""
		if i := strings.Index(rest, "near '"); i >= 0 {
			near = rest[i+6:]
			if j := strings.Index(near, "'"); j >= 0 {
				near = near[:j]
			}
		}
		if near == "EOF" || near == "" {
			near = "<eof>"
		}
		return chunkName + ":" + line + ": unexpected symbol near '" + near + "'"
	}
	if rest, ok := strings.CutPrefix(msg, "compile error near line("); ok {
		line, rest, _ := strings.Cut(rest, ")")
		if i := strings.Index(rest, ": "); i >= 0 {
			rest = rest[i+2:]
		}
		return chunkName + ":" + line + ": " + rest
	}
	return msg
}

// run executes a cached script for c.
func (s *scripting) run(c *engine.Ctx, sc *luaScript, keys, args [][]byte, ro bool) {
	if !sc.flags.shebang && c.E.StaleReplica() {
		// A script with a shebang met the stale check at dispatch (it is
		// a stale command only with allow-stale: scriptCallFlags); EVAL
		// itself is one, so a script without a shebang is refused here,
		// as in Redis's scriptPrepareForRun.
		c.W.Error(engine.ErrMasterDown)
		return
	}
	L := s.L
	cl := c.Client
	db := cl.DB
	s.running = true
	s.sha = sc.sha
	s.chunk = chunkName
	if sc.chunk != "" {
		s.chunk = sc.chunk
	}
	s.c = c
	s.sub = *c
	s.sub.InScript = true
	s.ro = ro || sc.flags.noWrites
	// Over maxmemory at the start, a script's first denyoom command is
	// refused (Redis's scriptVerifyOOM), unless the script declares
	// allow-oom, a replica or the log runs it, or it has written already.
	s.oom = c.OOM && !(sc.flags.shebang && sc.flags.allowOOM) && !c.E.IsReplica() &&
		cl.Kind != "aof" && cl.Kind != engine.KindMaster
	s.resp = 2
	s.wrote.Store(false)
	s.killed.Store(false)
	s.kill.reset()
	s.errLine = -1
	s.effects = s.effects[:0]
	s.prop = c.E.Propagate
	if s.prop != nil {
		c.E.Propagate = s.collect
	}

	nargs := 0
	if sc.fcall {
		if s.argsSet {
			s.globals.RawSetString("KEYS", lua.LNil)
			s.globals.RawSetString("ARGV", lua.LNil)
			s.argsSet = false
		}
	} else {
		kt, at := argTable(L, s.keysT, keys), argTable(L, s.argvT, args)
		if !s.argsSet || kt != s.keysT {
			s.globals.RawSetString("KEYS", kt)
		}
		if !s.argsSet || at != s.argvT {
			s.globals.RawSetString("ARGV", at)
		}
		s.keysT, s.argvT, s.argsSet = kt, at, true
	}

	// Whatever happens below (a panic included: the engine contains it
	// and answers an error), the script stops being busy and the caller's
	// state is restored.
	ended := false
	defer func() {
		if !ended {
			s.busy.End()
		}
		L.SetTop(0)
		cl.DB = db
		c.E.Propagate = s.prop
		s.running = false
		s.c = nil
		s.sub = engine.Ctx{}
		s.effects = s.effects[:0]
	}()
	s.fcall.Store(sc.fcall)
	s.busy.SetFunction(sc.fcall)
	s.busy.Begin(c.Now)
	L.Push(sc.fn)
	if sc.fcall {
		if sc.reuse[0] {
			s.fkeysT = argTable(L, s.fkeysT, keys)
			L.Push(s.fkeysT)
		} else {
			L.Push(stringArray(L, keys))
		}
		if sc.reuse[1] {
			s.fargvT = argTable(L, s.fargvT, args)
			L.Push(s.fargvT)
		} else {
			L.Push(stringArray(L, args))
		}
		nargs = 2
	}
	err := L.PCall(nargs, 1, s.errh)
	s.busy.End()
	ended = true

	if err != nil {
		L.SetTop(0)
		c.Error(s.errorReply(err))
	} else {
		s.reply(c.W, L.Get(-1), 0)
		L.SetTop(0)
	}

	// Restore the caller (the deferred function) and propagate the
	// script's effects.
	cl.DB = db
	c.E.Propagate = s.prop
	if s.prop != nil && len(s.effects) > 0 {
		s.propagate(c)
	}
}

// propagate logs the script's effects, wrapped in MULTI/EXEC when there
// is more than one (and the script does not run inside a transaction).
func (s *scripting) propagate(c *engine.Ctx) {
	wrap := len(s.effects) > 1 && !c.NoBlock
	if wrap {
		s.prop(s.effects[0].db, [][]byte{[]byte("MULTI")})
	}
	for _, ef := range s.effects {
		s.prop(ef.db, ef.args)
	}
	if wrap {
		s.prop(s.effects[len(s.effects)-1].db, [][]byte{[]byte("EXEC")})
	}
}

// errorReply is the reply to a script that raised an error, as Redis
// 7.0 words it: "<msg> script: <sha>, on @user_script:<line>."
func (s *scripting) errorReply(err error) string {
	msg := luaErrorMessage(err)
	if s.killed.Load() {
		msg = msgKilled
	}
	msg = quoteArgErrors(msg)
	if s.errLine >= 0 {
		msg += " script: " + s.sha + ", on @" + s.chunk + ":" + strconv.Itoa(s.errLine) + "."
	}
	return msg
}

// luaErrorMessage is the error reply for what a Lua call raised: the err
// field of an error table (redis.error_reply), else "ERR " and the value.
func luaErrorMessage(err error) string {
	var obj lua.LValue = lua.LString(err.Error())
	if ae, ok := err.(*lua.ApiError); ok && ae.Object != nil {
		obj = ae.Object
	}
	switch v := obj.(type) {
	case *lua.LTable:
		if e, ok := v.RawGetString("err").(lua.LString); ok {
			return string(e)
		}
		return "ERR unknown error"
	case lua.LString:
		return "ERR " + lua51Message(string(v))
	case lua.LNumber:
		return "ERR " + luaNumberString(float64(v))
	}
	return "ERR " + obj.String()
}

func stringArray(L *lua.LState, a [][]byte) *lua.LTable {
	t := L.CreateTable(len(a), 0)
	for i, b := range a {
		t.RawSetInt(i+1, lua.LString(b))
	}
	return t
}

// argTable returns t refilled with a, or a new table if t is nil or the
// last script changed it beyond its elements (a metatable, keys other
// than 1..n). Only EVAL's KEYS and ARGV are reused: an EVAL script cannot
// keep a reference past its run (globals and library tables are
// read-only, its chunk's locals are fresh each run), where a function
// library's locals live on and may hold its arguments.
func argTable(L *lua.LState, t *lua.LTable, a [][]byte) *lua.LTable {
	if t == nil || t.Metatable != lua.LNil {
		return stringArray(L, a)
	}
	n := t.MaxN()
	var from lua.LValue = lua.LNumber(n) // the first key after the elements
	if n == 0 {
		from = lua.LNil // Next(0) would skip the first hash key
	}
	if k, _ := t.Next(from); k != lua.LNil {
		return stringArray(L, a)
	}
	for i, b := range a {
		// An argument equal to the last call's keeps its string: no
		// allocation for arguments that repeat (tokens, TTLs, fields).
		if old, ok := t.RawGetInt(i + 1).(lua.LString); !ok || string(old) != string(b) {
			t.RawSetInt(i+1, lua.LString(b))
		}
	}
	for i := len(a) + 1; i <= n; i++ {
		t.RawSetInt(i, lua.LNil)
	}
	return t
}

// errHandler records where the error happened (the innermost Lua frame)
// and passes the error through.
func (s *scripting) errHandler(L *lua.LState) int {
	for lvl := 0; lvl < 64; lvl++ {
		dbg, ok := L.GetStack(lvl)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
			continue
		}
		if dbg.What != "G" && dbg.CurrentLine >= 0 {
			s.errLine = dbg.CurrentLine
			break
		}
	}
	if s.errLine < 0 {
		s.errLine = 1
	}
	L.Push(L.Get(1))
	return 1
}

// luaNumberString formats a number as Lua 5.1's tostring does (%.14g).
func luaNumberString(f float64) string {
	if f == 0 && math.Signbit(f) {
		return "-0"
	}
	if f == float64(int64(f)) && f < 1e15 && f > -1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	switch {
	case f != f:
		if math.Signbit(f) {
			return "-nan"
		}
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return string(resp.AppendG(nil, f, 14))
}

// quoteArgErrors writes gopher-lua's "bad argument #1 to f (...)" as Lua
// 5.1 does: "bad argument #1 to 'f' (...)".
func quoteArgErrors(msg string) string {
	i := strings.Index(msg, "bad argument #")
	if i < 0 {
		return msg
	}
	j := strings.Index(msg[i:], " to ")
	if j < 0 {
		return msg
	}
	start := i + j + 4
	end := strings.Index(msg[start:], " (")
	if end <= 0 || msg[start] == '\'' || msg[start] == '?' {
		return msg
	}
	return msg[:start] + "'" + msg[start:start+end] + "'" + msg[start+end:]
}

var (
	reArith   = regexp.MustCompile(`cannot perform (\w+) operation between (\w+) and (\w+)`)
	reIndex   = regexp.MustCompile(`attempt to index a non-table object\((\w+)\) with key '.*'`)
	reCompare = regexp.MustCompile(`attempt to compare (\w+) with (\w+)`)
)

// lua51Message rewrites gopher-lua's runtime error messages in Lua 5.1's
// words where they can be (without Lua 5.1's variable names).
func lua51Message(msg string) string {
	if !strings.Contains(msg, "attempt to") && !strings.Contains(msg, "cannot perform") {
		return msg
	}
	msg = reArith.ReplaceAllStringFunc(msg, func(m string) string {
		p := reArith.FindStringSubmatch(m)
		op, a, b := p[1], p[2], p[3]
		if op == "concat" {
			bad := a
			if a == "string" || a == "number" {
				bad = b
			}
			return "attempt to concatenate a " + bad + " value"
		}
		bad := a
		if a == "number" {
			bad = b
		}
		return "attempt to perform arithmetic on a " + bad + " value"
	})
	msg = reIndex.ReplaceAllString(msg, "attempt to index a $1 value")
	msg = reCompare.ReplaceAllStringFunc(msg, func(m string) string {
		p := reCompare.FindStringSubmatch(m)
		if p[1] == p[2] {
			return "attempt to compare two " + p[1] + " values"
		}
		return m
	})
	return msg
}
