package engine

// JSON.* commands, as RedisJSON 2.x (2.4/2.6) answers them. Sources:
// RedisJSON's redis_json/src/commands.rs, key_value.rs, ivalue_manager.rs,
// manager.rs and redisjson.rs, and the redis.io JSON command pages. Error
// replies that RedisJSON builds without an error code (serde_json parse
// errors, "Couldn't parse as integer", path compilation errors) are sent
// the same way: Redis passes a module's error text through unchanged.

import (
	"strconv"

	"github.com/ordo-db/ordo/internal/ds/jsonpath"
	"github.com/ordo-db/ordo/internal/ds/jsonval"
)

// Error replies of the JSON commands (RedisJSON's exact texts).
const (
	ErrJSONNewAtRoot   = "ERR new objects must be created at the root"
	ErrJSONNoKey       = "ERR could not perform this operation on a key that doesn't exist"
	ErrJSONStaticPath  = "Err wrong static path"
	ErrJSONPathEnd     = "Err path must end with object key to set"
	ErrJSONArrIndex    = "ERR array index out of range"
	ErrJSONIndexBounds = "ERR index out of bounds"
	ErrJSONNotNumber   = "result is not a number"
	ErrJSONBadNumber   = "bad input number"
	ErrJSONParseInt    = "Couldn't parse as integer"
	ErrJSONWrongFormat = "ERR wrong format"
	ErrJSONFormatRESP2 = "ERR FORMAT argument is not supported on RESP2"
)

func errJSONPathMissing(path string) string { return "ERR Path '" + path + "' does not exist" }

func errJSONPathOr(path, or string) string {
	return "ERR Path '" + path + "' does not exist or " + or
}

func errJSONExpected(expected, found string) string {
	return "WRONGTYPE wrong type of path value - expected " + expected + " but found " + found
}

// JSON is the value of a key holding a JSON document (TYPE ReJSON-RL).
type JSON struct {
	sized
	root any
}

func (j *JSON) TypeName() string   { return "ReJSON-RL" }
func (j *JSON) Encoding() string   { return "raw" }
func (j *JSON) Len() int           { return 1 }
func (j *JSON) Copy() Typed        { return &JSON{root: jsonval.Clone(j.root)} }
func (j *JSON) MemoryUsage() int64 { return 16 + jsonval.Size(j.root) }

// Rewrite recreates the document with one JSON.SET at the root.
func (j *JSON) Rewrite(key string, emit func(args [][]byte)) {
	emit([][]byte{[]byte("JSON.SET"), []byte(key), []byte("$"), jsonval.Append(nil, j.root, nil)})
}

// String is the compact JSON text of the document.
func (j *JSON) String() string { return jsonval.Text(j.root) }

// Root is the document's value tree (internal/ds/jsonval), for readers
// holding the engine lock (search indexes); it must not be modified.
func (j *JSON) Root() any { return j.root }

func registerJSON(t *Table) {
	js := func(name string, h Handler, arity int, flags []string, cat string, last int) {
		cmd := t.registerSpec(name, h, Spec{Arity: arity, Flags: flags, FirstKey: 1, LastKey: last, Step: 1,
			Categories: []string{cat, "@json", "@slow"}})
		// Key positions for COMMAND GETKEYS and friends (these commands
		// have no Redis key specs): the key at 1, or 1..-2 for JSON.MGET.
		cmd.Keys = func(args [][]byte) []int {
			n := len(args) - 1
			if last < 0 {
				n = len(args) + last
			}
			var idx []int
			for i := 1; i <= n && i < len(args); i++ {
				idx = append(idx, i)
			}
			if last > 0 && len(idx) > 1 {
				idx = idx[:1]
			}
			return idx
		}
	}
	rd := []string{"readonly"}
	wr := []string{"write"}
	wo := []string{"write", "denyoom"}
	js("json.set", jsonSetCommand, -4, wo, "@write", 1)
	js("json.get", jsonGetCommand, -2, rd, "@read", 1)
	js("json.mget", jsonMGetCommand, -3, rd, "@read", -2)
	js("json.del", jsonDelCommand, -2, wr, "@write", 1)
	js("json.forget", jsonDelCommand, -2, wr, "@write", 1)
	js("json.type", jsonTypeCommand, -2, rd, "@read", 1)
	js("json.numincrby", func(c *Ctx) { jsonNumOp(c, '+') }, -4, wr, "@write", 1)
	js("json.nummultby", func(c *Ctx) { jsonNumOp(c, '*') }, -4, wr, "@write", 1)
	js("json.strappend", jsonStrAppendCommand, -3, wo, "@write", 1)
	js("json.strlen", jsonStrLenCommand, -2, rd, "@read", 1)
	js("json.arrappend", jsonArrAppendCommand, -4, wo, "@write", 1)
	js("json.arrinsert", jsonArrInsertCommand, -5, wo, "@write", 1)
	js("json.arrlen", jsonArrLenCommand, -2, rd, "@read", 1)
	js("json.arrpop", jsonArrPopCommand, -2, wr, "@write", 1)
	js("json.arrtrim", jsonArrTrimCommand, -5, wr, "@write", 1)
	js("json.arrindex", jsonArrIndexCommand, -4, rd, "@read", 1)
	js("json.objkeys", jsonObjKeysCommand, -2, rd, "@read", 1)
	js("json.objlen", jsonObjLenCommand, -2, rd, "@read", 1)
	js("json.clear", jsonClearCommand, -2, wr, "@write", 1)
	js("json.toggle", jsonToggleCommand, -3, wo, "@write", 1)
}

func (c *Ctx) wrongArity() {
	c.W.Error("ERR wrong number of arguments for '" + c.Cmd.Name + "' command")
}

// jsonKey returns the document at args[1] (nil if absent); ok is false
// after a WRONGTYPE reply.
func jsonKey(c *Ctx) (*JSON, bool) { return Get[*JSON](c, c.Args[1]) }

// jsonChanged records a change to the document at args[1].
func jsonChanged(c *Ctx) {
	c.Modified(c.Args[1])
	c.Dirty(1)
}

// optPath returns the path argument at i, or the legacy root ".".
func optPath(c *Ctx, i int) *jsonpath.Path {
	if i < len(c.Args) {
		return jsonpath.New(string(c.Args[i]))
	}
	return jsonpath.New(".")
}

// matches evaluates p on doc, replying with p's compilation error.
func matches(c *Ctx, p *jsonpath.Path, doc any, withPaths bool) ([]jsonpath.Match, bool) {
	if p.Err != "" {
		c.W.Error(p.Err)
		return nil, false
	}
	return jsonpath.Eval(p.Segs, doc, withPaths), true
}

// ---- JSON.SET key path value [NX|XX] ----

func jsonSetCommand(c *Ctx) {
	cond := byte(0)
	for i := 4; i < len(c.Args); i++ {
		switch {
		case c.ArgIs(i, "nx") && cond == 0:
			cond = 'n'
		case c.ArgIs(i, "xx") && cond == 0:
			cond = 'x'
		case c.ArgIs(i, "format"):
			if i+1 >= len(c.Args) {
				c.wrongArity()
				return
			}
			i++
			if f := string(c.Args[i]); f != "JSON" && f != "STRING" {
				c.W.Error(ErrJSONWrongFormat) // BSON is not supported by Ordo
				return
			}
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	doc, ok := jsonKey(c)
	if !ok {
		return
	}
	val, err := jsonval.Parse(c.Args[3])
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	p := jsonpath.New(string(c.Args[2]))
	if doc == nil {
		if cond == 'x' {
			c.W.Null()
			return
		}
		if !p.IsRoot() {
			c.W.Error(ErrJSONNewAtRoot)
			return
		}
		c.Add(c.Args[1], ObjectValue(&JSON{root: val}))
		c.Dirty(1)
		c.W.OK()
		return
	}
	if p.IsRoot() {
		if cond == 'n' {
			c.W.Null()
			return
		}
		doc.root = val
		jsonChanged(c)
		c.W.OK()
		return
	}
	if p.Err != "" {
		c.W.Error(p.Err)
		return
	}
	if cond != 'n' {
		ms := jsonpath.Eval(p.Segs, doc.root, true)
		if len(ms) > 0 {
			paths := make([][]jsonpath.Step, len(ms))
			for i, m := range ms {
				paths[i] = m.Path
			}
			updated := false
			for i, path := range jsonpath.PrepareUpdatePaths(paths) {
				v := val
				if i > 0 {
					v = jsonval.Clone(val)
				}
				if jsonpath.Replace(&doc.root, path, v) {
					updated = true
				}
			}
			jsonSetDone(c, updated)
			return
		}
		if cond == 'x' {
			c.W.Null()
			return
		}
	}
	// Create a member: the path must be static and end with a key whose
	// parent exists (RedisJSON's find_add_paths).
	if !p.IsStatic() {
		c.W.Error(ErrJSONStaticPath)
		return
	}
	if len(p.Segs) == 0 {
		c.W.Error(ErrJSONPathEnd)
		return
	}
	last := p.Segs[len(p.Segs)-1]
	if last.Kind == jsonpath.SegIdx {
		if len(jsonpath.Eval(p.Segs, doc.root, false)) == 0 {
			c.W.Error(ErrJSONArrIndex)
			return
		}
		c.W.Null()
		return
	}
	key := last.Keys[0]
	added := false
	for _, m := range jsonpath.Eval(p.Segs[:len(p.Segs)-1], doc.root, false) {
		if o, ok := m.V.(*jsonval.Object); ok && o.Find(key) < 0 {
			o.Set(key, val)
			added = true
		}
	}
	jsonSetDone(c, added)
}

func jsonSetDone(c *Ctx, changed bool) {
	if !changed {
		c.W.Null()
		return
	}
	jsonChanged(c)
	c.W.OK()
}

// ---- JSON.GET key [INDENT s] [NEWLINE s] [SPACE s] [path ...] ----

func jsonGetCommand(c *Ctx) {
	var f jsonval.Format
	var paths []*jsonpath.Path
	for i := 2; i < len(c.Args); i++ {
		a := c.Args[i]
		if len(a) <= 8 {
			var dst *string
			switch {
			case EqualFold(a, "indent"):
				dst = &f.Indent
			case EqualFold(a, "newline"):
				dst = &f.Newline
			case EqualFold(a, "space"):
				dst = &f.Space
			case EqualFold(a, "noescape"):
				continue
			case EqualFold(a, "format"):
				if c.W.Proto < 3 && len(paths) == 0 {
					c.W.Error(ErrJSONFormatRESP2)
					return
				}
				if i+1 >= len(c.Args) {
					c.wrongArity()
					return
				}
				i++
				continue // FORMAT STRING is the default; other formats are not supported
			}
			if dst != nil {
				if i+1 >= len(c.Args) {
					c.wrongArity()
					return
				}
				i++
				*dst = string(c.Args[i])
				continue
			}
		}
		paths = append(paths, jsonpath.New(string(a)))
	}
	if len(paths) == 0 {
		paths = append(paths, jsonpath.New("."))
	}
	doc, ok := jsonKey(c)
	if !ok {
		return
	}
	if doc == nil {
		c.W.Null()
		return
	}
	legacy := true
	for _, p := range paths {
		legacy = legacy && p.Legacy
	}
	if len(paths) == 1 {
		p := paths[0]
		ms, ok := matches(c, p, doc.root, false)
		if !ok {
			return
		}
		if legacy {
			if len(ms) == 0 {
				c.W.Error(errJSONPathMissing(p.Fixed))
				return
			}
			c.W.Bulk(jsonval.Append(nil, ms[0].V, &f))
			return
		}
		c.W.Bulk(jsonval.Append(nil, matchValues(ms), &f))
		return
	}
	// Several paths: an object from each path to its value (legacy) or
	// its list of matches; paths that do not compile are left out.
	out := &jsonval.Multi{}
	for _, p := range paths {
		if p.Err != "" {
			continue
		}
		ms := jsonpath.Eval(p.Segs, doc.root, false)
		var v any
		if legacy {
			if len(ms) == 0 {
				c.W.Error(errJSONPathMissing(p.Orig))
				return
			}
			v = ms[0].V
		} else {
			v = matchValues(ms)
		}
		dup := false
		for i, k := range out.Keys {
			if k == p.Orig {
				out.Vals[i], dup = v, true
			}
		}
		if !dup {
			out.Keys = append(out.Keys, p.Orig)
			out.Vals = append(out.Vals, v)
		}
	}
	c.W.Bulk(jsonval.Append(nil, out, &f))
}

func matchValues(ms []jsonpath.Match) []any {
	vs := make([]any, len(ms))
	for i, m := range ms {
		vs[i] = m.V
	}
	return vs
}

// ---- JSON.MGET key [key ...] path ----

func jsonMGetCommand(c *Ctx) {
	p := jsonpath.New(string(c.Args[len(c.Args)-1]))
	keys := c.Args[1 : len(c.Args)-1]
	c.W.Array(len(keys))
	for _, k := range keys {
		v, found := c.Lookup(k)
		doc, isJSON := v.Obj().(*JSON)
		if !found || !isJSON || p.Err != "" {
			c.W.Null()
			continue
		}
		ms := jsonpath.Eval(p.Segs, doc.root, false)
		if p.Legacy {
			if len(ms) == 0 {
				c.W.Null()
				continue
			}
			c.W.Bulk(jsonval.Append(nil, ms[0].V, nil))
			continue
		}
		c.W.Bulk(jsonval.Append(nil, matchValues(ms), nil))
	}
}

// ---- JSON.DEL / JSON.FORGET key [path] ----

func jsonDelCommand(c *Ctx) {
	if len(c.Args) > 3 {
		c.wrongArity()
		return
	}
	p := optPath(c, 2)
	doc, ok := jsonKey(c)
	if !ok {
		return
	}
	if doc == nil {
		c.W.Int(0)
		return
	}
	if p.IsRoot() {
		c.Delete(c.Args[1])
		c.Dirty(1)
		c.W.Int(1)
		return
	}
	ms, ok := matches(c, p, doc.root, true)
	if !ok {
		return
	}
	paths := make([][]jsonpath.Step, len(ms))
	for i, m := range ms {
		paths[i] = m.Path
	}
	n := 0
	for _, path := range jsonpath.PrepareUpdatePaths(paths) {
		if jsonpath.Remove(doc.root, path) {
			n++
		}
	}
	if n > 0 {
		jsonChanged(c)
	}
	c.W.Int(int64(n))
}

// ---- JSON.TYPE key [path] ----

func jsonTypeCommand(c *Ctx) {
	p := optPath(c, 2)
	doc, ok := jsonKey(c)
	if !ok {
		return
	}
	resp3 := c.W.Proto >= 3
	if resp3 {
		c.W.Array(1)
	}
	if doc == nil {
		c.W.Null()
		return
	}
	if p.Legacy {
		if p.Err != "" {
			c.W.Null()
			return
		}
		ms := jsonpath.Eval(p.Segs, doc.root, false)
		if len(ms) == 0 {
			c.W.Null()
			return
		}
		c.W.BulkString(jsonval.TypeName(ms[0].V))
		return
	}
	if p.Err != "" {
		if resp3 { // the array header is out: keep the reply well formed
			c.W.Null()
			return
		}
		c.W.Error(p.Err)
		return
	}
	ms := jsonpath.Eval(p.Segs, doc.root, false)
	c.W.Array(len(ms))
	for _, m := range ms {
		c.W.BulkString(jsonval.TypeName(m.V))
	}
}

// ---- write helpers shared by the per-match commands ----

// jsonWriteTargets opens the document for a command that changes values
// of one kind: it replies with the error and returns ok=false when the key
// is missing (RedisJSON's nonexistent_key), of another type, or the path
// does not compile. It returns every match (JSONPath) with its location.
func jsonWriteTargets(c *Ctx, p *jsonpath.Path) (*JSON, []jsonpath.Match, bool) {
	doc, ok := jsonKey(c)
	if !ok {
		return nil, nil, false
	}
	if doc == nil {
		c.W.Error(ErrJSONNoKey)
		return nil, nil, false
	}
	ms, ok := matches(c, p, doc.root, true)
	return doc, ms, ok
}

// ---- JSON.NUMINCRBY / JSON.NUMMULTBY key path number ----

func jsonNumOp(c *Ctx, op byte) {
	p := jsonpath.New(string(c.Args[2]))
	doc, ms, ok := jsonWriteTargets(c, p)
	if !ok {
		return
	}
	isNum := func(v any) bool {
		switch v.(type) {
		case int64, uint64, float64:
			return true
		}
		return false
	}
	if p.Legacy && c.W.Proto < 3 {
		var nums []jsonpath.Match
		for _, m := range ms {
			if isNum(m.V) {
				nums = append(nums, m)
			}
		}
		if len(nums) == 0 {
			c.W.Error(errJSONPathOr(p.Fixed, "does not contains a number"))
			return
		}
		ms = nums
	}
	var incr any
	results := make([]any, len(ms))
	changed := false
	for i, m := range ms {
		if !isNum(m.V) {
			results[i] = nil
			continue
		}
		if incr == nil {
			v, err := jsonval.Parse(c.Args[3])
			if err != nil {
				c.W.Error(err.Error())
				return
			}
			if !isNum(v) {
				c.W.Error(ErrJSONBadNumber)
				return
			}
			incr = v
		}
		r, ok := jsonArith(m.V, incr, op)
		if !ok {
			if changed { // earlier matches stay changed, as in RedisJSON
				jsonChanged(c)
			}
			c.W.Error(ErrJSONNotNumber)
			return
		}
		jsonpath.Replace(&doc.root, m.Path, r)
		results[i] = r
		changed = true
		// Log the effect: the new value at its concrete location.
		c.Propagate([]byte("JSON.SET"), c.Args[1], []byte(jsonpath.PathString(m.Path)), jsonval.Append(nil, r, nil))
	}
	if changed {
		jsonChanged(c)
	}
	if c.W.Proto >= 3 {
		c.W.Array(len(results))
		for _, r := range results {
			switch x := r.(type) {
			case int64:
				c.W.Int(x)
			case float64:
				c.W.Double(x)
			case uint64:
				c.W.Double(float64(x))
			default:
				c.W.Null()
			}
		}
		return
	}
	if p.Legacy {
		c.W.Bulk(jsonval.Append(nil, results[len(results)-1], nil))
		return
	}
	c.W.Bulk(jsonval.Append(nil, results, nil))
}

// jsonArith is ivalue_manager's do_num_op: two i64 operands give a
// wrapping i64 result; otherwise the f64 result must be finite and stays
// a float.
func jsonArith(cur, by any, op byte) (any, bool) {
	if a, ok := cur.(int64); ok {
		if b, ok := by.(int64); ok {
			if op == '+' {
				return a + b, true
			}
			return a * b, true
		}
	}
	fa, _ := jsonval.Num(cur)
	fb, _ := jsonval.Num(by)
	r := fa + fb
	if op == '*' {
		r = fa * fb
	}
	if r-r != 0 { // Inf or NaN
		return nil, false
	}
	return r, true
}

// ---- JSON.STRAPPEND key [path] value / JSON.STRLEN key [path] ----

func jsonStrAppendCommand(c *Ctx) {
	if len(c.Args) > 4 {
		c.wrongArity()
		return
	}
	p, arg := jsonpath.New("."), c.Args[2]
	if len(c.Args) == 4 {
		p, arg = jsonpath.New(string(c.Args[2])), c.Args[3]
	}
	doc, ms, ok := jsonWriteTargets(c, p)
	if !ok {
		return
	}
	if p.Legacy {
		var strs []jsonpath.Match
		for _, m := range ms {
			if _, ok := m.V.(string); ok {
				strs = append(strs, m)
			}
		}
		if len(strs) == 0 {
			c.W.Error(errJSONPathOr(p.Fixed, "not a string"))
			return
		}
		ms = strs
	}
	var suffix *string
	results := make([]any, len(ms))
	for i, m := range ms {
		s, isStr := m.V.(string)
		if !isStr {
			results[i] = nil
			continue
		}
		if suffix == nil {
			v, err := jsonval.Parse(arg)
			if err != nil {
				c.W.Error(err.Error())
				return
			}
			x, ok := v.(string)
			if !ok {
				c.W.Error(errJSONExpected("string", string(arg)))
				return
			}
			suffix = &x
		}
		ns := s + *suffix
		jsonpath.Replace(&doc.root, m.Path, ns)
		results[i] = int64(len(ns))
	}
	if suffix != nil {
		jsonChanged(c)
	}
	if p.Legacy {
		c.W.Int(results[len(results)-1].(int64))
		return
	}
	writeIntsOrNulls(c, results)
}

func writeIntsOrNulls(c *Ctx, rs []any) {
	c.W.Array(len(rs))
	for _, r := range rs {
		if n, ok := r.(int64); ok {
			c.W.Int(n)
		} else {
			c.W.Null()
		}
	}
}

func jsonStrLenCommand(c *Ctx) {
	p := optPath(c, 2)
	doc, ok := jsonKey(c)
	if !ok {
		return
	}
	if p.Legacy {
		if doc == nil {
			c.W.Null()
			return
		}
		ms, ok := matches(c, p, doc.root, false)
		if !ok {
			return
		}
		if len(ms) == 0 {
			c.W.Error(errJSONPathMissing(p.Fixed))
			return
		}
		s, isStr := ms[0].V.(string)
		if !isStr {
			c.W.Error(errJSONExpected("string", jsonval.TypeName(ms[0].V)))
			return
		}
		c.W.Int(int64(len(s)))
		return
	}
	if doc == nil {
		c.W.Error(ErrJSONNoKey)
		return
	}
	ms, ok := matches(c, p, doc.root, false)
	if !ok {
		return
	}
	rs := make([]any, len(ms))
	for i, m := range ms {
		if s, ok := m.V.(string); ok {
			rs[i] = int64(len(s))
		}
	}
	writeIntsOrNulls(c, rs)
}

// ---- arrays ----

// parseJSONArgs parses every value argument from i on (before the key is
// even looked at, as RedisJSON does).
func parseJSONArgs(c *Ctx, i int) ([]any, bool) {
	vals := make([]any, 0, len(c.Args)-i)
	for ; i < len(c.Args); i++ {
		v, err := jsonval.Parse(c.Args[i])
		if err != nil {
			c.W.Error(err.Error())
			return nil, false
		}
		vals = append(vals, v)
	}
	return vals, true
}

// arrayTargets narrows the matches to arrays: for a legacy path, at least
// one must be an array (else the "does not exist or not an array" error,
// naming the path as errPath); for JSONPath, non-arrays stay as nil slots.
func arrayTargets(c *Ctx, p *jsonpath.Path, ms []jsonpath.Match, errPath string) ([]jsonpath.Match, bool) {
	if !p.Legacy {
		return ms, true
	}
	var arrs []jsonpath.Match
	for _, m := range ms {
		if _, ok := m.V.(*jsonval.Array); ok {
			arrs = append(arrs, m)
		}
	}
	if len(arrs) == 0 {
		c.W.Error(errJSONPathOr(errPath, "not an array"))
		return nil, false
	}
	return arrs, true
}

func jsonArrAppendCommand(c *Ctx) {
	p := jsonpath.New(string(c.Args[2]))
	vals, ok := parseJSONArgs(c, 3)
	if !ok {
		return
	}
	_, ms, ok := jsonWriteTargets(c, p)
	if !ok {
		return
	}
	if ms, ok = arrayTargets(c, p, ms, p.Orig); !ok {
		return
	}
	rs := make([]any, len(ms))
	changed := false
	for i, m := range ms {
		a, isArr := m.V.(*jsonval.Array)
		if !isArr {
			continue
		}
		for _, v := range vals {
			a.Elems = append(a.Elems, jsonval.Clone(v))
		}
		rs[i] = int64(len(a.Elems))
		changed = true
	}
	if changed {
		jsonChanged(c)
	}
	if p.Legacy {
		c.W.Int(rs[len(rs)-1].(int64))
		return
	}
	writeIntsOrNulls(c, rs)
}

func jsonArrInsertCommand(c *Ctx) {
	p := jsonpath.New(string(c.Args[2]))
	index, ok := ParseInt(c.Args[3])
	if !ok {
		c.W.Error(ErrJSONParseInt)
		return
	}
	vals, ok := parseJSONArgs(c, 4)
	if !ok {
		return
	}
	_, ms, ok := jsonWriteTargets(c, p)
	if !ok {
		return
	}
	if ms, ok = arrayTargets(c, p, ms, p.Fixed); !ok {
		return
	}
	rs := make([]any, len(ms))
	changed := false
	for i, m := range ms {
		a, isArr := m.V.(*jsonval.Array)
		if !isArr {
			continue
		}
		n := int64(len(a.Elems))
		at := index
		if at < 0 {
			at += n
		}
		if at < 0 || at > n {
			if changed {
				jsonChanged(c)
			}
			c.W.Error(ErrJSONIndexBounds)
			return
		}
		ins := make([]any, len(vals))
		for j, v := range vals {
			ins[j] = jsonval.Clone(v)
		}
		a.Elems = append(a.Elems[:at], append(ins, a.Elems[at:]...)...)
		rs[i] = int64(len(a.Elems))
		changed = true
	}
	if changed {
		jsonChanged(c)
	}
	if p.Legacy {
		c.W.Int(rs[len(rs)-1].(int64))
		return
	}
	writeIntsOrNulls(c, rs)
}

func jsonArrLenCommand(c *Ctx) {
	p := optPath(c, 2)
	doc, ok := jsonKey(c)
	if !ok {
		return
	}
	if doc == nil {
		if p.Legacy {
			c.W.Null()
		} else {
			c.W.Error(ErrJSONNoKey)
		}
		return
	}
	ms, ok := matches(c, p, doc.root, false)
	if !ok {
		return
	}
	if p.Legacy {
		if len(ms) == 0 {
			c.W.Error(errJSONPathOr(p.Orig, "not an array"))
			return
		}
		a, isArr := ms[0].V.(*jsonval.Array)
		if !isArr {
			c.W.Error(errJSONPathOr(p.Orig, "not an array"))
			return
		}
		c.W.Int(int64(len(a.Elems)))
		return
	}
	rs := make([]any, len(ms))
	for i, m := range ms {
		if a, ok := m.V.(*jsonval.Array); ok {
			rs[i] = int64(len(a.Elems))
		}
	}
	writeIntsOrNulls(c, rs)
}

// JSON.ARRPOP key [path [index]]: index defaults to -1 (the last element)
// and, as in RedisJSON, an index that is not an integer counts as -1.
func jsonArrPopCommand(c *Ctx) {
	p := optPath(c, 2)
	index := int64(-1)
	if len(c.Args) > 3 {
		if n, ok := ParseInt(c.Args[3]); ok {
			index = n
		}
	}
	_, ms, ok := jsonWriteTargets(c, p)
	if !ok {
		return
	}
	if ms, ok = arrayTargets(c, p, ms, p.Fixed); !ok {
		return
	}
	rs := make([][]byte, len(ms))
	changed := false
	for i, m := range ms {
		a, isArr := m.V.(*jsonval.Array)
		if !isArr || len(a.Elems) == 0 {
			continue
		}
		n := int64(len(a.Elems))
		at := index
		if at < 0 {
			at = max(0, n+at)
		} else {
			at = min(at, n-1)
		}
		rs[i] = jsonval.Append(nil, a.Elems[at], nil)
		a.Elems = append(a.Elems[:at], a.Elems[at+1:]...)
		changed = true
	}
	if changed {
		jsonChanged(c)
	}
	if p.Legacy {
		if r := rs[len(rs)-1]; r != nil {
			c.W.Bulk(r)
		} else {
			c.W.Null()
		}
		return
	}
	c.W.Array(len(rs))
	for _, r := range rs {
		if r != nil {
			c.W.Bulk(r)
		} else {
			c.W.Null()
		}
	}
}

// JSON.ARRTRIM key path start stop (RedisJSON's arr_trim).
func jsonArrTrimCommand(c *Ctx) {
	p := jsonpath.New(string(c.Args[2]))
	start, ok1 := ParseInt(c.Args[3])
	stop, ok2 := ParseInt(c.Args[4])
	if !ok1 || !ok2 {
		c.W.Error(ErrJSONParseInt)
		return
	}
	_, ms, ok := jsonWriteTargets(c, p)
	if !ok {
		return
	}
	if ms, ok = arrayTargets(c, p, ms, p.Fixed); !ok {
		return
	}
	rs := make([]any, len(ms))
	changed := false
	norm := func(i, n int64) int64 { // array_index.rs normalize
		if i < 0 {
			return max(0, n+i)
		}
		return min(i, n-1)
	}
	for i, m := range ms {
		a, isArr := m.V.(*jsonval.Array)
		if !isArr {
			continue
		}
		n := int64(len(a.Elems))
		e := norm(stop, n)
		s := e + 1
		if start < 0 || start < n {
			s = norm(start, n)
		}
		if s > e || n == 0 {
			a.Elems = a.Elems[:0]
		} else {
			a.Elems = append(a.Elems[:0], a.Elems[s:e+1]...)
		}
		rs[i] = int64(len(a.Elems))
		changed = true
	}
	if changed {
		jsonChanged(c)
	}
	if p.Legacy {
		c.W.Int(rs[len(rs)-1].(int64))
		return
	}
	writeIntsOrNulls(c, rs)
}

// JSON.ARRINDEX key path value [start [stop]]
func jsonArrIndexCommand(c *Ctx) {
	if len(c.Args) > 6 {
		c.wrongArity()
		return
	}
	p := jsonpath.New(string(c.Args[2]))
	var start, stop int64
	var ok bool
	if len(c.Args) > 4 {
		if start, ok = ParseInt(c.Args[4]); !ok {
			c.W.Error(ErrJSONParseInt)
			return
		}
	}
	if len(c.Args) > 5 {
		if stop, ok = ParseInt(c.Args[5]); !ok {
			c.W.Error(ErrJSONParseInt)
			return
		}
	}
	doc, ok := jsonKey(c)
	if !ok {
		return
	}
	needle, err := jsonval.Parse(c.Args[3])
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	if doc == nil {
		c.W.Error(errJSONPathMissing(p.Orig))
		return
	}
	ms, ok := matches(c, p, doc.root, false)
	if !ok {
		return
	}
	find := func(v any) (int64, bool) {
		a, isArr := v.(*jsonval.Array)
		if !isArr {
			return 0, false
		}
		n := int64(len(a.Elems))
		if n == 0 {
			return -1, true
		}
		s := start
		if s < 0 {
			s = max(0, n+s)
		} else {
			s = min(s, n-1)
		}
		e := stop
		switch {
		case e == 0:
			e = n
		case e < 0:
			e = max(0, n+e)
		default:
			e = min(e, n)
		}
		for i := s; i < e; i++ {
			if jEqual(a.Elems[i], needle) {
				return i, true
			}
		}
		return -1, true
	}
	if p.Legacy {
		if len(ms) == 0 {
			c.W.Error(errJSONPathMissing(p.Fixed))
			return
		}
		i, isArr := find(ms[0].V)
		if !isArr {
			c.W.Error(errJSONExpected("array", jsonval.TypeName(ms[0].V)))
			return
		}
		c.W.Int(i)
		return
	}
	c.W.Array(len(ms))
	for _, m := range ms {
		if i, isArr := find(m.V); isArr {
			c.W.Int(i)
		} else {
			c.W.Null()
		}
	}
}

// jEqual compares two JSON values (numbers by value across int/float).
func jEqual(a, b any) bool {
	switch x := a.(type) {
	case *jsonval.Array:
		y, ok := b.(*jsonval.Array)
		if !ok || len(x.Elems) != len(y.Elems) {
			return false
		}
		for i := range x.Elems {
			if !jEqual(x.Elems[i], y.Elems[i]) {
				return false
			}
		}
		return true
	case *jsonval.Object:
		y, ok := b.(*jsonval.Object)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for i, k := range x.Keys() {
			v, ok := y.Get(k)
			if !ok || !jEqual(x.Values()[i], v) {
				return false
			}
		}
		return true
	}
	if fa, ok := jsonval.Num(a); ok {
		fb, ok := jsonval.Num(b)
		return ok && fa == fb
	}
	return a == b
}

// ---- objects ----

func jsonObjKeysCommand(c *Ctx) {
	p := optPath(c, 2)
	doc, ok := jsonKey(c)
	if !ok {
		return
	}
	writeKeys := func(o *jsonval.Object) {
		c.W.Array(o.Len())
		for _, k := range o.Keys() {
			c.W.BulkString(k)
		}
	}
	if p.Legacy {
		if doc == nil || p.Err != "" {
			c.W.Null()
			return
		}
		ms := jsonpath.Eval(p.Segs, doc.root, false)
		if len(ms) == 0 {
			c.W.Null()
			return
		}
		o, isObj := ms[0].V.(*jsonval.Object)
		if !isObj {
			c.W.Error(errJSONPathOr(p.Fixed, "not an object"))
			return
		}
		writeKeys(o)
		return
	}
	if doc == nil {
		c.W.Error(ErrJSONNoKey)
		return
	}
	ms, ok := matches(c, p, doc.root, false)
	if !ok {
		return
	}
	c.W.Array(len(ms))
	for _, m := range ms {
		if o, isObj := m.V.(*jsonval.Object); isObj {
			writeKeys(o)
		} else {
			c.W.NullArray()
		}
	}
}

func jsonObjLenCommand(c *Ctx) {
	p := optPath(c, 2)
	doc, ok := jsonKey(c)
	if !ok {
		return
	}
	if p.Legacy {
		if doc == nil {
			c.W.Null()
			return
		}
		ms, ok := matches(c, p, doc.root, false)
		if !ok {
			return
		}
		if len(ms) == 0 {
			c.W.Null()
			return
		}
		o, isObj := ms[0].V.(*jsonval.Object)
		if !isObj {
			c.W.Error(errJSONExpected("object", jsonval.TypeName(ms[0].V)))
			return
		}
		c.W.Int(int64(o.Len()))
		return
	}
	if doc == nil {
		c.W.Error(errJSONPathOr(p.Fixed, "not an object"))
		return
	}
	ms, ok := matches(c, p, doc.root, false)
	if !ok {
		return
	}
	rs := make([]any, len(ms))
	for i, m := range ms {
		if o, ok := m.V.(*jsonval.Object); ok {
			rs[i] = int64(o.Len())
		}
	}
	writeIntsOrNulls(c, rs)
}

// ---- JSON.CLEAR key [path] / JSON.TOGGLE key path ----

func jsonClearCommand(c *Ctx) {
	p := optPath(c, 2)
	doc, ms, ok := jsonWriteTargets(c, p)
	if !ok {
		return
	}
	n := 0
	for _, m := range ms {
		switch x := m.V.(type) {
		case *jsonval.Array:
			if len(x.Elems) > 0 {
				x.Elems = nil
				n++
			}
		case *jsonval.Object:
			if x.Len() > 0 {
				x.Clear()
				n++
			}
		case int64, uint64, float64:
			if f, _ := jsonval.Num(x); f != 0 {
				jsonpath.Replace(&doc.root, m.Path, int64(0))
				n++
			}
		}
	}
	if n > 0 {
		jsonChanged(c)
	}
	c.W.Int(int64(n))
}

func jsonToggleCommand(c *Ctx) {
	if len(c.Args) > 3 {
		c.wrongArity()
		return
	}
	p := jsonpath.New(string(c.Args[2]))
	doc, ms, ok := jsonWriteTargets(c, p)
	if !ok {
		return
	}
	if p.Legacy {
		var last, any_ bool
		for _, m := range ms {
			if b, ok := m.V.(bool); ok {
				jsonpath.Replace(&doc.root, m.Path, !b)
				last, any_ = !b, true
			}
		}
		if !any_ {
			c.W.Error(errJSONPathOr(p.Fixed, "not a bool"))
			return
		}
		jsonChanged(c)
		c.W.BulkString(strconv.FormatBool(last))
		return
	}
	changed := false
	c.W.Array(len(ms))
	for _, m := range ms {
		b, isBool := m.V.(bool)
		if !isBool {
			c.W.Null()
			continue
		}
		jsonpath.Replace(&doc.root, m.Path, !b)
		changed = true
		c.W.Bool(!b)
	}
	if changed {
		jsonChanged(c)
	}
}
