// Package script is Ordo's Lua scripting: EVAL, EVALSHA, EVAL_RO,
// EVALSHA_RO and SCRIPT, and Redis 7.0 Functions (FUNCTION, FCALL,
// FCALL_RO: functions.go), with Redis 7.0's semantics, replies and errors.
//
// Scripts run in gopher-lua (Lua 5.1) holding the engine lock, so a
// script is atomic. One Lua state per engine is reused for every script,
// as in Redis, and each script body is compiled once and cached by its
// SHA1. The environment is Redis's: the redis API, string, table, math,
// coroutine, cjson, bit, struct and cmsgpack (cmsgpack.go), and no os,
// io, require, loadfile or dofile; globals are read-only ("Attempt to
// modify a readonly table"), through rawset and in code made by
// loadstring or load too.
//
// Per call, a script pays no reads of the fixed globals (a compiled
// script's reads of every global but KEYS and ARGV, and of read-only
// library fields such as redis.call, are folded into constants:
// fold.go), and FCALL reuses one pair of keys/args tables for the
// functions whose bytecode cannot keep them (argreuse.go); neither
// changes what a script can observe.
//
// Commands run by a script go through engine.Exec with the caller's
// client (SELECT inside a script does not outlive it, as in Redis). What
// they change is propagated as effects: each write the script performs is
// logged, wrapped in MULTI/EXEC when there is more than one, never the
// EVAL itself.
//
// A script that runs past busy-reply-threshold makes other clients get
// BUSY (engine.LockOrBusy) until it ends or SCRIPT KILL (FUNCTION KILL
// for a function) interrupts it
// through the Lua state's context; a script that already wrote cannot
// be killed (UNKILLABLE).
//
// Known differences from Redis 7.0: gopher-lua's syntax and runtime
// error messages are rewritten in Lua 5.1's words only for the common
// cases (runtime errors lack Lua 5.1's variable names: "attempt to index
// a nil value" where Lua says "attempt to index local 't' (a nil
// value)"); numbers concatenated with .. print with Go's formatting
// (tostring and redis.call arguments are exact); cjson.encode writes
// object keys in insertion order, not Lua's hash order (and cmsgpack
// packs maps in gopher-lua's iteration order); the Lua debugger (SCRIPT
// DEBUG YES) and redis.log output are not there; the deny-oom check of
// scripts is not done. allow_busy commands other than SCRIPT KILL and
// FUNCTION KILL (MULTI, SHUTDOWN NOSAVE, FUNCTION STATS ...) wait for
// the script.
package script

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"

	"github.com/ordo-db/ordo/internal/engine"
)

// Error replies, exactly as Redis 7.0 writes them.
const (
	ErrNoScript        = "NOSCRIPT No matching script. Please use EVAL."
	ErrNumKeysTooMany  = "ERR Number of keys can't be greater than number of args"
	ErrNumKeysNegative = "ERR Number of keys can't be negative"
	ErrNotBusy         = "NOTBUSY No scripts in execution right now."
	ErrUnkillable      = "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
	ErrFlushOption     = "ERR SCRIPT FLUSH only support SYNC|ASYNC option"
	ErrCompilePrefix   = "ERR Error compiling script (new function): "
	ErrNoDebugger      = "ERR Ordo does not implement the Lua debugger: SCRIPT DEBUG YES/SYNC is not supported"
	ErrROWithWriteFlag = "ERR Can not execute a script with write flag using *_ro command."
)

var scriptHelp = []string{
	"SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DEBUG (YES|SYNC|NO)",
	"    Set the debug mode for subsequent scripts executed.",
	"EXISTS <sha1> [<sha1> ...]",
	"    Return information about the existence of the scripts in the script cache.",
	"FLUSH [ASYNC|SYNC]",
	"    Flush the Lua scripts cache. Very dangerous on replicas.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the scripts cache.",
	"    * SYNC: Synchronously flush the scripts cache.",
	"KILL",
	"    Kill the currently executing Lua script.",
	"LOAD <script>",
	"    Load a script into the scripts cache without executing it.",
	"HELP",
	"    Prints this help.",
}

// scriptCallFlags is Redis's scriptFlagsToCmdFlags for the flags that
// depend on what a script declares: a script with a shebang is a write
// command unless it declares no-writes, and never a may-replicate one; it
// is refused over maxmemory unless it declares allow-oom or no-writes, and
// on a stale replica unless it declares allow-stale.
func scriptCallFlags(base engine.Flag, f scriptFlags) engine.Flag {
	base &^= engine.FlagWrite | engine.FlagMayReplicate | engine.FlagDenyOOM | engine.FlagStale
	if !f.allowOOM && !f.noWrites {
		base |= engine.FlagDenyOOM
	}
	if !f.noWrites {
		base |= engine.FlagWrite
	}
	if f.allowStale {
		base |= engine.FlagStale
	}
	return base
}

// evalCallFlags is Redis's evalGetCommandFlags: the flags of the script's
// shebang (cached, or read from the body), the command's own without one.
func evalCallFlags(st *state, e *engine.Engine, base engine.Flag, args [][]byte, bySHA bool) engine.Flag {
	if len(args) < 2 {
		return base
	}
	s := st.get(e)
	var f scriptFlags
	if bySHA {
		sc := s.bySHA(args[1])
		if sc == nil {
			return base
		}
		f = sc.flags
	} else if sc := s.scripts[sha1hex(string(args[1]))]; sc != nil {
		f = sc.flags
	} else {
		var err string
		if f, _, err = parseShebang(string(args[1])); err != "" {
			return base
		}
	}
	if !f.shebang {
		return base // eval compatibility mode
	}
	return scriptCallFlags(base, f)
}

// Register adds the scripting commands (EVAL, EVALSHA, EVAL_RO,
// EVALSHA_RO, SCRIPT, FUNCTION, FCALL, FCALL_RO) to an engine's command
// table. It is one of the
// families an engine is made with (engine.New(cfg, script.Register)); the
// scripting state (script cache, Lua state) belongs to that one engine and
// is made on first use.
func Register(t *engine.Table) {
	st := &state{}
	get := st.get
	evalCommand := func(c *engine.Ctx) { eval(c, st) }
	for _, name := range []string{"eval", "evalsha", "eval_ro", "evalsha_ro"} {
		cmd := t.Register(name, evalCommand)
		cmd.Keys = engine.GenericKeys(0, 2, 3) // Redis's evalGetKeys
		bySHA := strings.HasPrefix(name, "evalsha")
		cmd.CallFlags = func(e *engine.Engine, args [][]byte) engine.Flag {
			return evalCallFlags(st, e, cmd.Flags, args, bySHA)
		}
	}
	registerFunctions(t, st)
	t.RegisterContainer("script")
	t.Register("script|load", func(c *engine.Ctx) {
		s := get(c.E)
		sha, err := s.load(string(c.Args[2]))
		if err != "" {
			c.Error(err)
			return
		}
		c.W.BulkString(sha)
	})
	t.Register("script|exists", func(c *engine.Ctx) {
		s := get(c.E)
		c.W.Array(len(c.Args) - 2)
		var buf [40]byte
		for _, a := range c.Args[2:] {
			_, ok := s.scripts[lowerSHA(buf[:0], a)]
			if ok {
				c.W.Int(1)
			} else {
				c.W.Int(0)
			}
		}
	})
	t.Register("script|flush", func(c *engine.Ctx) {
		if len(c.Args) > 3 || (len(c.Args) == 3 && !c.ArgIs(2, "sync") && !c.ArgIs(2, "async")) {
			c.Error(ErrFlushOption)
			return
		}
		get(c.E).flush()
		c.W.OK()
	})
	t.Register("script|kill", func(c *engine.Ctx) {
		// Under the lock no script runs: SCRIPT KILL during a script is
		// served by engine.LockOrBusy without the lock.
		c.Error(ErrNotBusy)
	})
	t.Register("script|debug", func(c *engine.Ctx) {
		switch {
		case c.NoBlock:
			c.Error("ERR SCRIPT DEBUG must be called outside a pipeline")
		case c.ArgIs(2, "no"):
			c.W.OK()
		case c.ArgIs(2, "yes"), c.ArgIs(2, "sync"):
			c.Error(ErrNoDebugger)
		default:
			c.Error("ERR Use SCRIPT DEBUG YES/SYNC/NO")
		}
	})
	t.Register("script|help", func(c *engine.Ctx) {
		c.W.Array(len(scriptHelp))
		for _, l := range scriptHelp {
			c.W.Simple(l)
		}
	})
}

// state is one engine's scripting, made on first use (under the lock).
type state struct{ s *scripting }

func (st *state) get(e *engine.Engine) *scripting {
	if st.s == nil {
		st.s = newScripting(e)
	}
	return st.s
}

func sha1hex(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

// bySHA is the cached script of a SHA1 given in any case, or nil. The
// last one found is compared first: a client calling one script again
// and again (the usual case) skips lowering the SHA and the map lookup,
// which both EVALSHA and its command flags would pay.
func (s *scripting) bySHA(b []byte) *luaScript {
	if len(b) != 40 {
		return nil
	}
	if sc := s.lastSC; sc != nil && sc.sha == string(b) {
		return sc
	}
	var buf [40]byte
	sc := s.scripts[lowerSHA(buf[:0], b)]
	if sc != nil {
		s.lastSC = sc
	}
	return sc
}

func lowerSHA(dst, b []byte) string {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return string(dst)
}

func eval(c *engine.Ctx, st *state) {
	name := c.Cmd.Name
	bySHA := strings.HasPrefix(name, "evalsha")
	ro := strings.HasSuffix(name, "_ro")
	nk, ok := engine.ParseInt(c.Args[2])
	if !ok {
		c.Error(engine.ErrNotInteger)
		return
	}
	if nk > int64(len(c.Args)-3) {
		c.Error(ErrNumKeysTooMany)
		return
	}
	if nk < 0 {
		c.Error(ErrNumKeysNegative)
		return
	}
	s := st.get(c.E)
	var sc *luaScript
	if bySHA {
		if sc = s.bySHA(c.Args[1]); sc == nil {
			c.Error(ErrNoScript)
			return
		}
	} else {
		body := string(c.Args[1])
		sha := sha1hex(body)
		sc = s.scripts[sha]
		if sc == nil {
			if _, err := s.load(body); err != "" {
				c.Error(err)
				return
			}
			sc = s.scripts[sha]
		}
	}
	if ro && sc.flags.shebang && !sc.flags.noWrites {
		c.Error(ErrROWithWriteFlag)
		return
	}
	s.run(c, sc, c.Args[3:3+nk], c.Args[3+nk:], ro)
}
