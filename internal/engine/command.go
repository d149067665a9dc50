package engine

import (
	_ "embed"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/ordo-db/ordo/internal/resp"
)

// Flag is a command flag, named as in COMMAND INFO.
type Flag uint32

// Command flags (see COMMAND INFO in the Redis documentation).
const (
	FlagWrite Flag = 1 << iota
	FlagReadonly
	FlagDenyOOM
	FlagAdmin
	FlagPubSub
	FlagNoScript
	FlagBlocking
	FlagLoading
	FlagStale
	FlagFast
	FlagNoAuth
	FlagNoMulti
	FlagMovableKeys
	FlagAllowBusy
	FlagNoMandatoryKeys
	// FlagMayReplicate marks the read-only or pub/sub commands that may
	// propagate (PFCOUNT stores its cache, PUBLISH): Redis's hidden
	// CMD_MAY_REPLICATE, which COMMAND INFO does not show. Read-only
	// scripts refuse them as they refuse writes.
	FlagMayReplicate
)

// mayReplicate lists Redis 7.0's CMD_MAY_REPLICATE commands.
var mayReplicate = map[string]bool{
	"pfcount": true, "publish": true, "spublish": true, "eval": true, "evalsha": true, "fcall": true,
}

var flagNames = map[string]Flag{
	"write": FlagWrite, "readonly": FlagReadonly, "denyoom": FlagDenyOOM,
	"admin": FlagAdmin, "pubsub": FlagPubSub, "noscript": FlagNoScript,
	"blocking": FlagBlocking, "loading": FlagLoading, "stale": FlagStale,
	"fast": FlagFast, "no_auth": FlagNoAuth, "no_multi": FlagNoMulti,
	"movablekeys": FlagMovableKeys, "allow_busy": FlagAllowBusy,
	"no_mandatory_keys": FlagNoMandatoryKeys,
}

// Handler executes one command. It runs with the engine lock held and
// writes exactly one reply to c.W (or calls c.Block).
type Handler func(c *Ctx)

// KeysFunc extracts the key argument indexes of a command whose keys are
// not at fixed positions (EVAL's numkeys, ZUNIONSTORE's numkeys, ...).
type KeysFunc func(args [][]byte) []int

// Command is one entry of the command table. The same table serves the
// server, the embedded DB, scripts, COMMAND replies and the AOF.
type Command struct {
	Name     string // lower case; "config|get" for a subcommand
	Arity    int    // as Redis: n exact, -n at least n (the name counts)
	Flags    Flag
	FirstKey int
	LastKey  int
	Step     int
	Keys     KeysFunc // for commands without Redis key specs; nil otherwise
	// KeyFlags gives the flags of the key at args[i] (COMMAND
	// GETKEYSANDFLAGS) for commands whose flags depend on the arguments
	// (Redis's getkeys procs: SORT's STORE, SET's GET); nil: the flags of
	// the key spec that found the key.
	KeyFlags func(args [][]byte, i int) []string
	// CallFlags, when set, gives the command's flags for these arguments
	// (Redis's getCommandFlags: the flags a script declares replace
	// EVAL's and FCALL's write and may-replicate flags); nil: Flags. The
	// engine lock is held.
	CallFlags func(e *Engine, args [][]byte) Flag
	Handler   Handler
	Sub       map[string]*Command

	info  resp.Value // Redis's COMMAND INFO entry, or one built for Ordo
	specs []keySpec  // Redis's key specs, parsed from info
	// noKeys: every key spec is not_key (the shard channel of SPUBLISH,
	// SSUBSCRIBE, SUNSUBSCRIBE), so the command has no keys.
	noKeys bool
	stats  cmdStats // INFO commandstats (cmdstats.go)
	// event is the keyspace-notification name of the command's changes
	// (Ctx.event), looked up once here rather than per change.
	event string
}

// keySpec is one of Redis 7's key specifications: where to start looking
// (an index, or after a keyword) and how to find the keys from there (a
// range, or a count given by an argument).
type keySpec struct {
	bsIndex     int    // begin_search index (0 when by keyword)
	bsKeyword   string // begin_search keyword
	bsStartFrom int
	keynum      bool // find_keys by keynum (else range)
	lastKey     int  // range
	keyStep     int
	limit       int
	keynumIdx   int // keynum
	firstKey    int
	flags       []string // "RO", "access" ... as COMMAND INFO lists them
}

// mapGet returns the value under key in a RESP map or flat key/value array.
func mapGet(m resp.Value, key string) (resp.Value, bool) {
	for i := 0; i+1 < len(m.Elems); i += 2 {
		if m.Elems[i].Str == key {
			return m.Elems[i+1], true
		}
	}
	return resp.Value{}, false
}

// notKeySpec reports whether a key spec is flagged not_key.
func notKeySpec(sp resp.Value) bool {
	fl, _ := mapGet(sp, "flags")
	return slices.ContainsFunc(fl.Elems, func(f resp.Value) bool { return f.Str == "not_key" })
}

func parseKeySpecs(info resp.Value) []keySpec {
	if len(info.Elems) <= 8 {
		return nil
	}
	var out []keySpec
	for _, sp := range info.Elems[8].Elems {
		// A not_key spec (SPUBLISH's shard channel) names no key: Redis
		// uses it only for cluster slots, COMMAND GETKEYS leaves it out.
		if notKeySpec(sp) {
			continue
		}
		var ks keySpec
		fl, _ := mapGet(sp, "flags")
		for _, f := range fl.Elems {
			ks.flags = append(ks.flags, f.Str)
		}
		bs, _ := mapGet(sp, "begin_search")
		bt, _ := mapGet(bs, "type")
		bspec, _ := mapGet(bs, "spec")
		switch bt.Str {
		case "index":
			v, _ := mapGet(bspec, "index")
			ks.bsIndex = int(v.Int)
		case "keyword":
			kw, _ := mapGet(bspec, "keyword")
			sf, _ := mapGet(bspec, "startfrom")
			ks.bsKeyword, ks.bsStartFrom = kw.Str, int(sf.Int)
		default:
			continue
		}
		fk, _ := mapGet(sp, "find_keys")
		ft, _ := mapGet(fk, "type")
		fspec, _ := mapGet(fk, "spec")
		get := func(k string) int { v, _ := mapGet(fspec, k); return int(v.Int) }
		switch ft.Str {
		case "range":
			ks.lastKey, ks.keyStep, ks.limit = get("lastkey"), get("keystep"), get("limit")
		case "keynum":
			ks.keynum = true
			ks.keynumIdx, ks.firstKey, ks.keyStep = get("keynumidx"), get("firstkey"), get("keystep")
		default:
			continue
		}
		out = append(out, ks)
	}
	return out
}

// Has reports whether the command has flag f.
func (cmd *Command) Has(f Flag) bool { return cmd.Flags&f != 0 }

// HasKeys reports whether the command takes key arguments at all (it has
// key specs in Redis's metadata, or a key-extraction function).
func (cmd *Command) HasKeys() bool {
	if cmd.noKeys {
		return false
	}
	return cmd.Keys != nil || len(cmd.info.Elems) > 8 && len(cmd.info.Elems[8].Elems) > 0
}

// KeyIndexes returns the indexes of the key arguments in args.
//
// It follows Redis's getKeysFromCommandWithSpecs: the key specs first
// (getKeysUsingKeySpecs: a spec whose keyword is absent is skipped, and a
// spec that points outside the arguments, such as a malformed numkeys,
// invalidates them all), then, when they are invalid, the command's
// getkeys_proc (Keys) if it has one.
func (cmd *Command) KeyIndexes(args [][]byte) []int {
	if cmd.noKeys {
		return nil
	}
	if len(cmd.specs) > 0 {
		if idx, ok := keysFromSpecs(cmd, args); ok || cmd.Keys == nil {
			return idx
		}
		return cmd.Keys(args)
	}
	if cmd.Keys != nil { // commands Redis has no key specs for (JSON.*, Ordo's own)
		return cmd.Keys(args)
	}
	if cmd.FirstKey <= 0 {
		return nil
	}
	last := cmd.LastKey
	if last < 0 {
		last = len(args) + last
	}
	var idx []int
	for i := cmd.FirstKey; i <= last && i < len(args); i += max(cmd.Step, 1) {
		idx = append(idx, i)
	}
	return idx
}

// KeyFlagsAt returns the flags of the key at args[i], one of the indexes
// KeyIndexes returned.
func (cmd *Command) KeyFlagsAt(args [][]byte, i int) []string {
	if cmd.KeyFlags != nil {
		return cmd.KeyFlags(args, i)
	}
	if len(cmd.specs) > 0 {
		idx, from, ok := keysAndSpecs(cmd, args)
		for j, k := range idx {
			if ok && k == i {
				return cmd.specs[from[j]].flags
			}
		}
		return nil // Redis's genericGetKeys gives no flags
	}
	// Ordo's own commands: by the command's flags.
	if cmd.Has(FlagWrite) {
		return []string{"RW", "access", "update"}
	}
	return []string{"RO", "access"}
}

// keysFromSpecs is getKeysUsingKeySpecs; ok is false for invalid specs.
func keysFromSpecs(cmd *Command, args [][]byte) (idx []int, ok bool) {
	idx, _, ok = keysAndSpecs(cmd, args)
	return idx, ok
}

// keysAndSpecs is keysFromSpecs also returning, for each key, the index
// of the spec that found it.
func keysAndSpecs(cmd *Command, args [][]byte) (idx, from []int, ok bool) {
	argc := len(args)
	for si, sp := range cmd.specs {
		first := 0
		if sp.bsKeyword == "" {
			first = sp.bsIndex
		} else {
			start, end := sp.bsStartFrom, argc-1
			if sp.bsStartFrom <= 0 {
				start, end = argc+sp.bsStartFrom, 1
			}
			for i := start; i != end; {
				if i >= argc || i < 1 {
					break
				}
				if EqualFold(args[i], sp.bsKeyword) {
					first = i + 1
					break
				}
				if start <= end {
					i++
				} else {
					i--
				}
			}
			if first == 0 {
				continue
			}
		}
		var last, step int
		if !sp.keynum {
			step = sp.keyStep
			switch {
			case sp.lastKey >= 0:
				last = first + sp.lastKey
			case sp.limit == 0:
				last = argc + sp.lastKey
			default:
				last = first + ((argc-first)/sp.limit + sp.lastKey)
			}
		} else {
			step = sp.keyStep
			if first+sp.keynumIdx >= argc {
				return nil, nil, false
			}
			n, ok := ParseInt(args[first+sp.keynumIdx])
			if !ok || n < 0 {
				return nil, nil, false
			}
			first += sp.firstKey
			last = first + int(int32(n)) - 1 // Redis's (int)numkeys
		}
		if last >= argc || last < first || first >= argc {
			return nil, nil, false
		}
		for i := first; i <= last; i += max(step, 1) {
			idx = append(idx, i)
			from = append(from, si)
		}
	}
	return idx, from, true
}

// GenericKeys is Redis's genericGetKeys, the getkeys_proc of the commands
// whose keys follow a numkeys argument at countIdx (ZUNION, LMPOP, EVAL
// ...), used when their key specs are invalid: numkeys is read with C's
// atoi (so 2^32+1 reads as 1), keys start at first, and a destination key
// at store (0 for none) comes last. No keys when numkeys is below 1 or
// more than the arguments left.
func GenericKeys(store, countIdx, first int) KeysFunc {
	return func(args [][]byte) []int {
		if countIdx >= len(args) {
			return nil
		}
		num := int(cAtoi(args[countIdx]))
		if num < 1 || num > len(args)-first {
			return nil
		}
		idx := make([]int, 0, num+1)
		for i := 0; i < num; i++ {
			idx = append(idx, first+i)
		}
		if store > 0 {
			idx = append(idx, store)
		}
		return idx
	}
}

// cAtoi is glibc's atoi, (int)strtol(s, NULL, 10): leading white space,
// a sign, digits up to the first other byte, saturated to the range of
// a long, then truncated to an int.
func cAtoi(s []byte) int32 {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var u uint64 // magnitude, saturated past 2^63
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if u > (1<<63)/10 {
			u = 1 << 63
			continue
		}
		u = u*10 + uint64(s[i]-'0')
		u = min(u, 1<<63)
	}
	var n int64
	switch {
	case neg && u >= 1<<63:
		n = math.MinInt64
	case neg:
		n = -int64(u)
	case u >= 1<<63:
		n = math.MaxInt64
	default:
		n = int64(u)
	}
	return int32(n)
}

//go:embed redis_command_info.resp
var redisCommandInfo []byte

//go:embed redis_command_docs.resp
var redisCommandDocs []byte

// Table is one engine's command table, by lower-case name. Every engine
// builds its own from an explicit list of families (families, below, plus
// whatever its maker adds, such as internal/script's EVAL), so two engines
// in one process never share or change each other's commands. A table is
// filled before the engine serves and never changed afterwards.
type Table struct {
	cmds      map[string]*Command
	functions func(*Engine) FunctionStore // see SetFunctionStore
}

// SetFunctionStore makes RDB files (WriteRDB, LoadRDB) carry the function
// libraries of the engine's FunctionStore (internal/script).
func (t *Table) SetFunctionStore(f func(*Engine) FunctionStore) { t.functions = f }

// families are the command families every engine has, registered in this
// order (a container before its subcommands). One function per family,
// one file per family, as Redis's t_*.c.
var families = []func(*Table){
	registerConn, registerKeys, registerStrings, registerBitmaps, registerHLL, registerHashes, registerSets,
	registerLists, registerSortedSets, registerSort, registerGeo, registerJSON,
	registerTransactions, registerPersistence, registerConfig, registerCommand,
	registerClient, registerInfo, registerDebug, registerServer, registerDump, registerMigrate,
	registerACL, registerPubSub, registerReplication,
	registerStreams,
}

func newTable() *Table {
	t := &Table{cmds: make(map[string]*Command, 256)}
	for _, f := range families {
		f(t)
	}
	return t
}

// redisMeta holds Redis's own metadata, by name ("get", "config|get"),
// parsed once on first use: it is immutable, so engines share it.
// redisDocs (COMMAND DOCS) is parsed apart, on the first COMMAND DOCS: it
// is about 0.9 MB of heap objects that most servers never read, and the
// heap goal doubles whatever is live.
var (
	redisMeta = sync.OnceValue(loadRedisSpec)
	redisDocs = sync.OnceValue(loadRedisDocs)
)

func loadRedisSpec() map[string]resp.Value {
	spec := map[string]resp.Value{}
	v, _, err := resp.ParseReply(redisCommandInfo)
	if err != nil {
		panic("engine: redis_command_info.resp: " + err.Error())
	}
	var add func(e resp.Value)
	add = func(e resp.Value) {
		spec[e.Elems[0].Str] = e
		if len(e.Elems) > 9 {
			for _, s := range e.Elems[9].Elems {
				add(s)
			}
		}
	}
	for _, e := range v.Elems {
		add(e)
	}
	return spec
}

func loadRedisDocs() map[string]resp.Value {
	docs := map[string]resp.Value{}
	d, _, err := resp.ParseReply(redisCommandDocs)
	if err != nil {
		panic("engine: redis_command_docs.resp: " + err.Error())
	}
	var addDocs func(prefix string, m resp.Value)
	addDocs = func(prefix string, m resp.Value) {
		for i := 0; i+1 < len(m.Elems); i += 2 {
			name := m.Elems[i].Str
			docs[prefix+name] = m.Elems[i+1]
			for j := 0; j+1 < len(m.Elems[i+1].Elems); j += 2 {
				if m.Elems[i+1].Elems[j].Str == "subcommands" {
					addDocs("", m.Elems[i+1].Elems[j+1])
				}
			}
		}
	}
	addDocs("", d)
	return docs
}

// Spec describes a command Redis does not have (JSON.*, Ordo's own).
type Spec struct {
	Arity                   int
	Flags                   []string
	FirstKey, LastKey, Step int
	Categories              []string
}

// Register adds a command taking its arity, flags and key positions from
// Redis's metadata. A subcommand is registered as "parent|sub".
func (t *Table) Register(name string, h Handler) *Command { return t.register(name, h) }

// RegisterSpec adds a command Redis does not have, with explicit metadata.
func (t *Table) RegisterSpec(name string, h Handler, s Spec) *Command {
	return t.registerSpec(name, h, s)
}

// RegisterContainer adds a command that only dispatches to subcommands.
func (t *Table) RegisterContainer(name string) *Command { return t.registerContainer(name) }

func (t *Table) register(name string, h Handler) *Command {
	spec, ok := redisMeta()[name]
	if !ok {
		panic("engine: no Redis metadata for command " + name)
	}
	return t.install(name, h, spec)
}

func (t *Table) registerSpec(name string, h Handler, s Spec) *Command {
	flags := resp.Value{Kind: resp.KindSet}
	for _, f := range s.Flags {
		flags.Elems = append(flags.Elems, resp.Value{Kind: resp.KindSimple, Str: f})
	}
	cats := resp.Value{Kind: resp.KindSet}
	for _, c := range s.Categories {
		cats.Elems = append(cats.Elems, resp.Value{Kind: resp.KindSimple, Str: c})
	}
	info := resp.Value{Kind: resp.KindArray, Elems: []resp.Value{
		{Kind: resp.KindBulk, Str: name}, {Kind: resp.KindInt, Int: int64(s.Arity)},
		flags, {Kind: resp.KindInt, Int: int64(s.FirstKey)}, {Kind: resp.KindInt, Int: int64(s.LastKey)},
		{Kind: resp.KindInt, Int: int64(s.Step)}, cats,
		{Kind: resp.KindSet}, {Kind: resp.KindSet}, {Kind: resp.KindSet},
	}}
	return t.install(name, h, info)
}

func (t *Table) install(name string, h Handler, info resp.Value) *Command {
	cmd := &Command{Name: name, Handler: h, info: info, specs: parseKeySpecs(info)}
	cmd.event = name
	if ev, ok := eventNames[name]; ok {
		cmd.event = ev
	}
	cmd.noKeys = len(info.Elems) > 8 && len(info.Elems[8].Elems) > 0 &&
		!slices.ContainsFunc(info.Elems[8].Elems, func(sp resp.Value) bool { return !notKeySpec(sp) })
	e := info.Elems
	cmd.Arity = int(e[1].Int)
	for _, f := range e[2].Elems {
		cmd.Flags |= flagNames[f.Str]
	}
	if mayReplicate[name] {
		cmd.Flags |= FlagMayReplicate
	}
	cmd.FirstKey, cmd.LastKey, cmd.Step = int(e[3].Int), int(e[4].Int), int(e[5].Int)
	if parent, sub, ok := strings.Cut(name, "|"); ok {
		p := t.cmds[parent]
		if p == nil {
			panic(fmt.Sprintf("engine: subcommand %s registered before %s", name, parent))
		}
		if p.Sub == nil {
			p.Sub = map[string]*Command{}
		}
		p.Sub[sub] = cmd
		return cmd
	}
	if t.cmds[name] != nil {
		panic("engine: command registered twice: " + name)
	}
	t.cmds[name] = cmd
	return cmd
}

// registerContainer adds a command that only dispatches to subcommands
// (CONFIG, CLIENT, OBJECT ...); its handler runs only when the
// subcommand is unknown.
func (t *Table) registerContainer(name string) *Command {
	return t.register(name, func(c *Ctx) {
		c.W.Error(fmt.Sprintf("ERR unknown subcommand '%s'. Try %s HELP.",
			truncate(string(c.Args[1]), 128), strings.ToUpper(name)))
	})
}

// Lookup returns the command named by args[0] (and args[1] for
// containers), or nil.
func (t *Table) Lookup(args [][]byte) *Command {
	var buf [32]byte
	cmd := t.cmds[string(lower(buf[:0], args[0]))]
	if cmd == nil || cmd.Sub == nil || len(args) < 2 {
		return cmd
	}
	if sub := cmd.Sub[string(lower(buf[:0], args[1]))]; sub != nil {
		return sub
	}
	return cmd
}

// Commands returns the table's commands by name (read-only).
func (t *Table) Commands() map[string]*Command { return t.cmds }

func lower(dst, b []byte) []byte {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
