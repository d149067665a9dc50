// Package jsonpath is JSON paths as RedisJSON 2.x reads them (its json_path crate): a path
// starting with "$" followed by nothing, "." or "[" is JSONPath; anything
// else is a legacy path, turned into JSONPath by prefixing "$" (".a") or
// "$." ("a"), with "." meaning the root. Legacy commands use the first
// match and report missing paths as errors; JSONPath commands answer one
// result per match.
//
// Grammar (json_path's grammar.pest, whitespace allowed between tokens):
//
//	query   = "$" (element | literal | "*")? element*
//	element = "." literal | ".." (literal | "*" | "[" bracket "]") | ".*" | "."? "[" bracket "]"
//	bracket = range | number ("," number)* | string ("," string)* | "*" | "?" filter
//	filter  = inner (("&&" | "||") inner)*;  inner = term op term | term | "(" filter ")"
//	term    = "@" path? | "$" path? | decimal | 'string' | "string" | true | false | null
//
// # Guarantees
//
//   - New never panics: a path that does not compile keeps RedisJSON's
//     error reply in Err ("Error occurred on position N, ...").
//   - Eval returns matches in json_path's order and does not modify the
//     document; Replace and Remove change exactly the location named,
//     and PrepareUpdatePaths orders several locations so that changing
//     them one after the other leaves the others valid.
//   - No package state: a compiled Path is immutable and may be shared
//     by goroutines.
//
// # Not safe
//
// Documents are jsonval trees without locking: Eval must not run while
// another goroutine modifies the document, and Replace or Remove only
// while nobody else reads it. A Match's V is the document's own node, not
// a copy. Filter regular expressions (=~) are compiled at evaluation, so
// Eval's cost on them depends on the pattern.
package jsonpath

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/ds/jsonval"
)

// SegKind is what a segment selects.
type SegKind uint8

const (
	SegKey    SegKind = iota // .name (literal)
	SegKeys                  // ["a","b"]
	SegIdx                   // [0,-1]
	SegRange                 // [start:end:step]
	SegAll                   // .* or [*]
	SegScan                  // .. (applies the rest at every depth)
	SegFilter                // [?(...)]
)

// Seg is one compiled segment of a path; Keys are the names of SegKey
// and SegKeys segments.
type Seg struct {
	Kind   SegKind
	Keys   []string
	idx    []int64
	rng    [3]int64 // start, end, step
	rngHas [2]bool  // start given, end given
	filter *jFilter
}

// Path is a parsed path argument.
type Path struct {
	Orig   string // as the user typed it
	Fixed  string // the JSONPath it stands for
	Legacy bool   // not "$...": commands answer the first match only
	Segs   []Seg
	Err    string // compilation error reply, if any
}

// IsRoot reports whether the path is the whole document.
func (p *Path) IsRoot() bool { return p.Fixed == "$" }

// New classifies and compiles a path argument (RedisJSON's Path::new
// followed by compile); a compilation error is kept in Err.
func New(s string) *Path {
	p := &Path{Orig: s, Fixed: s}
	if !(strings.HasPrefix(s, "$") && (len(s) < 2 || s[1] == '.' || s[1] == '[')) {
		p.Legacy = true
		switch {
		case s == ".":
			p.Fixed = "$"
		case strings.HasPrefix(s, "."):
			p.Fixed = "$" + s
		default:
			p.Fixed = "$." + s
		}
	}
	segs, err := compile(p.Fixed)
	p.Segs, p.Err = segs, err
	return p
}

// IsStatic reports whether the path names at most one location (keys and
// single indexes only), as JSON.SET requires to create a member.
func (p *Path) IsStatic() bool {
	for _, s := range p.Segs {
		switch s.Kind {
		case SegKey:
		case SegKeys:
			if len(s.Keys) > 1 {
				return false
			}
		case SegIdx:
			if len(s.idx) > 1 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// ---- compilation ----

type jpParser struct {
	s   string
	pos int
}

type jpErr struct {
	pos  int
	want string
}

// compile parses a "$..." path. The error text follows json_path's
// format ("Error occurred on position N, ..."); the list of expected
// tokens is Ordo's own wording.
func compile(s string) (segs []Seg, errText string) {
	p := &jpParser{s: s}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(jpErr)
			if !ok {
				panic(r)
			}
			var msg string
			if e.pos >= len(s) {
				msg = "\"" + s + " <<<<----\", expected one of the following: " + e.want + "."
			} else {
				msg = "\"" + s[:e.pos] + " ---->>>> " + s[e.pos:] + "\", expected one of the following: " + e.want + "."
			}
			segs, errText = nil, "Error occurred on position "+strconv.Itoa(e.pos)+", "+msg
		}
	}()
	if !p.eat("$") {
		p.fail("'$'")
	}
	segs = p.segments(true)
	p.skipWS()
	if p.pos < len(p.s) {
		p.fail("'.', '..', '['")
	}
	return segs, ""
}

func (p *jpParser) fail(want string) { panic(jpErr{p.pos, want}) }

func (p *jpParser) skipWS() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
}

func (p *jpParser) peek(t string) bool {
	p.skipWS()
	return strings.HasPrefix(p.s[p.pos:], t)
}

func (p *jpParser) eat(t string) bool {
	if p.peek(t) {
		p.pos += len(t)
		return true
	}
	return false
}

func isLiteralByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '_' || c == '`' || c == '~' || c == '+' || c == '#' || c == '%'
}

func (p *jpParser) literal() (string, bool) {
	p.skipWS()
	i := p.pos
	for i < len(p.s) && isLiteralByte(p.s[i]) {
		i++
	}
	if i == p.pos {
		return "", false
	}
	lit := p.s[p.pos:i]
	p.pos = i
	return lit, true
}

// segments parses elements up to the end or to a token that cannot start
// one (inside filters). first allows a leading bare literal or "*".
func (p *jpParser) segments(first bool) []Seg {
	var segs []Seg
	if first {
		if lit, ok := p.literal(); ok {
			segs = append(segs, Seg{Kind: SegKey, Keys: []string{lit}})
		} else if p.eat("*") {
			segs = append(segs, Seg{Kind: SegAll})
		}
	}
	for {
		switch {
		case p.eat(".."):
			segs = append(segs, Seg{Kind: SegScan})
			if lit, ok := p.literal(); ok {
				segs = append(segs, Seg{Kind: SegKey, Keys: []string{lit}})
			} else if p.eat("*") {
				segs = append(segs, Seg{Kind: SegAll})
			} else if p.eat("[") {
				segs = append(segs, p.bracket())
			} else {
				p.fail("<string>, '*', '['")
			}
		case p.eat("."):
			if lit, ok := p.literal(); ok {
				segs = append(segs, Seg{Kind: SegKey, Keys: []string{lit}})
			} else if p.eat("*") {
				segs = append(segs, Seg{Kind: SegAll})
			} else if p.eat("[") {
				segs = append(segs, p.bracket())
			} else {
				p.fail("<string>, '*', '['")
			}
		case p.eat("["):
			segs = append(segs, p.bracket())
		default:
			return segs
		}
	}
}

// number parses json_path's number: -?[1-9][0-9]* | -?[0-9].
func (p *jpParser) number() (int64, bool) {
	p.skipWS()
	i := p.pos
	if i < len(p.s) && p.s[i] == '-' {
		i++
	}
	j := i
	if j < len(p.s) && p.s[j] == '0' {
		j++
	} else {
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
	}
	if j == i {
		return 0, false
	}
	n, err := strconv.ParseInt(p.s[p.pos:j], 10, 64)
	if err != nil {
		p.fail("'<number>'")
	}
	p.pos = j
	return n, true
}

func (p *jpParser) posNumber() int64 {
	p.skipWS()
	if p.pos >= len(p.s) || p.s[p.pos] < '1' || p.s[p.pos] > '9' {
		p.fail("'<number>'")
	}
	n, _ := p.number()
	return n
}

// quoted parses a '...' or "..." string; \\ and the quote may be escaped.
func (p *jpParser) quoted() (string, bool) {
	p.skipWS()
	if p.pos >= len(p.s) || (p.s[p.pos] != '"' && p.s[p.pos] != '\'') {
		return "", false
	}
	q := p.s[p.pos]
	var b strings.Builder
	i := p.pos + 1
	for {
		if i >= len(p.s) {
			p.pos = i
			p.fail("'<string>'")
		}
		c := p.s[i]
		if c == q {
			p.pos = i + 1
			return b.String(), true
		}
		if c == '\\' && i+1 < len(p.s) && (p.s[i+1] == q || p.s[i+1] == '\\') {
			b.WriteByte(p.s[i+1])
			i += 2
			continue
		}
		b.WriteByte(c)
		i++
	}
}

func (p *jpParser) bracket() Seg {
	var seg Seg
	switch {
	case p.eat("*"):
		seg = Seg{Kind: SegAll}
	case p.eat("?"):
		seg = Seg{Kind: SegFilter, filter: p.filter()}
	case p.peek("'") || p.peek("\""):
		seg.Kind = SegKeys
		for {
			s, ok := p.quoted()
			if !ok {
				p.fail("'<string>'")
			}
			seg.Keys = append(seg.Keys, s)
			if !p.eat(",") {
				break
			}
		}
	default:
		start, hasStart := p.number()
		if p.eat(":") {
			seg = Seg{Kind: SegRange, rng: [3]int64{start, 0, 1}, rngHas: [2]bool{hasStart, false}}
			if end, ok := p.number(); ok {
				seg.rng[1], seg.rngHas[1] = end, true
			}
			if p.eat(":") {
				if !p.peek("]") {
					seg.rng[2] = p.posNumber()
				}
			}
		} else {
			if !hasStart {
				p.fail("'[?(filter_expression)]', '*', '<string>[,<string>,...]', '<number>[,<number>,...]', ['start:end:steps']")
			}
			seg = Seg{Kind: SegIdx, idx: []int64{start}}
			for p.eat(",") {
				n, ok := p.number()
				if !ok {
					p.fail("'<number>'")
				}
				seg.idx = append(seg.idx, n)
			}
		}
	}
	if !p.eat("]") {
		p.fail("']'")
	}
	return seg
}

// ---- filters ----

type jFilter struct {
	items []jFilterItem // operands, joined by ops
	ops   []string      // "&&" or "||", len(items)-1
}

type jFilterItem struct {
	sub  *jFilter // parenthesized
	l, r *jTerm
	op   string // "" for an existence test
}

type jTerm struct {
	kind  byte // '@', '$', 'n' number, 's' string, 'b' bool, 'z' null
	segs  []Seg
	num   any // int64 or float64
	str   string
	bool_ bool
}

func (p *jpParser) filter() *jFilter {
	f := &jFilter{}
	for {
		f.items = append(f.items, p.filterItem())
		switch {
		case p.eat("&&"):
			f.ops = append(f.ops, "&&")
		case p.eat("||"):
			f.ops = append(f.ops, "||")
		default:
			return f
		}
	}
}

func (p *jpParser) filterItem() jFilterItem {
	if p.eat("(") {
		sub := p.filter()
		if !p.eat(")") {
			p.fail("')'")
		}
		return jFilterItem{sub: sub}
	}
	it := jFilterItem{l: p.term()}
	for _, op := range []string{">=", ">", "<=", "<", "==", "!=", "=~"} {
		if p.eat(op) {
			it.op = op
			it.r = p.term()
			break
		}
	}
	return it
}

func (p *jpParser) term() *jTerm {
	p.skipWS()
	switch {
	case p.eat("@"):
		return &jTerm{kind: '@', segs: p.segments(true)}
	case p.eat("$"):
		return &jTerm{kind: '$', segs: p.segments(true)}
	case p.eat("true"):
		return &jTerm{kind: 'b', bool_: true}
	case p.eat("false"):
		return &jTerm{kind: 'b'}
	case p.eat("null"):
		return &jTerm{kind: 'z'}
	}
	if s, ok := p.quoted(); ok {
		return &jTerm{kind: 's', str: s}
	}
	start := p.pos
	if n, ok := p.number(); ok {
		if p.pos < len(p.s) && p.s[p.pos] == '.' && p.pos+1 < len(p.s) && p.s[p.pos+1] >= '0' && p.s[p.pos+1] <= '9' {
			p.pos++
			for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
				p.pos++
			}
			f, _ := strconv.ParseFloat(p.s[start:p.pos], 64)
			return &jTerm{kind: 'n', num: f}
		}
		return &jTerm{kind: 'n', num: n}
	}
	p.fail("'@', '$', <number>, <string>, 'true', 'false', 'null'")
	return nil
}

// ---- evaluation ----

// Step is one step of a concrete location: an object key or array index.
type Step struct {
	key   string
	index int
	isIdx bool
}

// Match is a value Eval found and, if asked for, where.
type Match struct {
	V    any
	Path []Step
}

type jEval struct {
	root  any
	out   []Match
	paths bool
}

// Eval returns the matches of segs in root, in json_path's order
// (document order, a node before its descendants for "..").
func Eval(segs []Seg, root any, withPaths bool) []Match {
	e := &jEval{root: root, paths: withPaths}
	e.walk(segs, root, nil)
	return e.out
}

func (e *jEval) child(path []Step, s Step) []Step {
	if !e.paths {
		return nil
	}
	np := make([]Step, len(path)+1)
	copy(np, path)
	np[len(path)] = s
	return np
}

func (e *jEval) walk(segs []Seg, v any, path []Step) {
	if len(segs) == 0 {
		e.out = append(e.out, Match{V: v, Path: path})
		return
	}
	s, rest := &segs[0], segs[1:]
	switch s.Kind {
	case SegKey, SegKeys:
		if o, ok := v.(*jsonval.Object); ok {
			for _, k := range s.Keys {
				if x, ok := o.Get(k); ok {
					e.walk(rest, x, e.child(path, Step{key: k}))
				}
			}
		}
	case SegAll:
		switch x := v.(type) {
		case *jsonval.Object:
			for i, k := range x.Keys() {
				e.walk(rest, x.Values()[i], e.child(path, Step{key: k}))
			}
		case *jsonval.Array:
			for i, el := range x.Elems {
				e.walk(rest, el, e.child(path, Step{index: i, isIdx: true}))
			}
		}
	case SegIdx:
		if a, ok := v.(*jsonval.Array); ok {
			n := int64(len(a.Elems))
			for _, i := range s.idx {
				j := absIndex(i, n)
				if j < n {
					e.walk(rest, a.Elems[j], e.child(path, Step{index: int(j), isIdx: true}))
				}
			}
		}
	case SegRange:
		if a, ok := v.(*jsonval.Array); ok {
			n := int64(len(a.Elems))
			start, end := int64(0), n
			if s.rngHas[0] {
				start = absIndex(s.rng[0], n)
			}
			if s.rngHas[1] {
				end = absIndex(s.rng[1], n)
			}
			for i := start; i < end; i += s.rng[2] {
				e.walk(rest, a.Elems[i], e.child(path, Step{index: int(i), isIdx: true}))
			}
		}
	case SegScan:
		e.walk(rest, v, path)
		e.scan(rest, v, path)
	case SegFilter:
		switch x := v.(type) {
		case *jsonval.Array:
			for i, el := range x.Elems {
				if e.test(s.filter, el) {
					e.walk(rest, el, e.child(path, Step{index: i, isIdx: true}))
				}
			}
		case *jsonval.Object:
			for i, el := range x.Values() {
				if e.test(s.filter, el) {
					e.walk(rest, el, e.child(path, Step{key: x.Keys()[i]}))
				}
			}
		default:
			if e.test(s.filter, v) {
				e.walk(rest, v, path)
			}
		}
	}
}

// scan applies segs below v at every depth (json_path's calc_full_scan).
func (e *jEval) scan(segs []Seg, v any, path []Step) {
	switch x := v.(type) {
	case *jsonval.Object:
		for i, k := range x.Keys() {
			p := e.child(path, Step{key: k})
			e.walk(segs, x.Values()[i], p)
			e.scan(segs, x.Values()[i], p)
		}
	case *jsonval.Array:
		for i, el := range x.Elems {
			p := e.child(path, Step{index: i, isIdx: true})
			e.walk(segs, el, p)
			e.scan(segs, el, p)
		}
	}
}

// absIndex is json_path's calc_abs_index: negative counts from the end
// and is clamped at 0; positive is clamped at n (then out of range).
func absIndex(i, n int64) int64 {
	if i >= 0 {
		return min(i, n)
	}
	return max(i+n, 0)
}

func (e *jEval) test(f *jFilter, v any) bool {
	// && binds tighter than ||.
	res := e.testItem(&f.items[0], v)
	for i, op := range f.ops {
		if op == "||" {
			if res {
				return true
			}
			res = e.testItem(&f.items[i+1], v)
		} else if res {
			res = e.testItem(&f.items[i+1], v)
		}
	}
	return res
}

// jTermVal is a filter operand's value; ok is false when a path did not
// match exactly one value (json_path's Invalid).
type jTermVal struct {
	v  any
	ok bool
}

func (e *jEval) termVal(t *jTerm, cur any) jTermVal {
	switch t.kind {
	case '@', '$':
		base := cur
		if t.kind == '$' {
			base = e.root
		}
		m := Eval(t.segs, base, false)
		if len(m) != 1 {
			return jTermVal{}
		}
		return jTermVal{v: m[0].V, ok: true}
	case 'n':
		return jTermVal{v: t.num, ok: true}
	case 's':
		return jTermVal{v: t.str, ok: true}
	case 'b':
		return jTermVal{v: t.bool_, ok: true}
	}
	return jTermVal{v: nil, ok: true}
}

func (e *jEval) testItem(it *jFilterItem, v any) bool {
	if it.sub != nil {
		return e.test(it.sub, v)
	}
	l := e.termVal(it.l, v)
	if it.op == "" {
		return l.ok
	}
	r := e.termVal(it.r, v)
	if it.op == "=~" {
		ls, ok1 := l.v.(string)
		rs, ok2 := r.v.(string)
		if !l.ok || !r.ok || !ok1 || !ok2 {
			return false
		}
		re, err := regexp.Compile(rs)
		return err == nil && re.MatchString(ls)
	}
	c, ok := jCompare(l, r)
	switch it.op {
	case "==":
		return ok && c == 0
	case "!=":
		return !(ok && c == 0)
	case ">":
		return ok && c > 0
	case ">=":
		return ok && c >= 0
	case "<":
		return ok && c < 0
	case "<=":
		return ok && c <= 0
	}
	return false
}

// jCompare orders two scalars of the same kind (numbers across int and
// float); other pairs are unordered.
func jCompare(a, b jTermVal) (int, bool) {
	if !a.ok || !b.ok {
		return 0, false
	}
	if fa, ok := jsonval.Num(a.v); ok {
		fb, ok := jsonval.Num(b.v)
		if !ok {
			return 0, false
		}
		ia, aInt := a.v.(int64)
		ib, bInt := b.v.(int64)
		if aInt && bInt {
			return cmp3(ia, ib), true
		}
		switch {
		case fa < fb:
			return -1, true
		case fa > fb:
			return 1, true
		case fa == fb:
			return 0, true
		}
		return 0, false
	}
	switch x := a.v.(type) {
	case string:
		if y, ok := b.v.(string); ok {
			return strings.Compare(x, y), true
		}
	case bool:
		if y, ok := b.v.(bool); ok {
			xi, yi := 0, 0
			if x {
				xi = 1
			}
			if y {
				yi = 1
			}
			return cmp3(xi, yi), true
		}
	case nil:
		if b.v == nil {
			return 0, true
		}
	}
	return 0, false
}

func cmp3[T int | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ---- locations ----

// resolve follows a concrete path from root; ok is false if it no
// longer leads anywhere.
func resolve(root any, path []Step) (any, bool) {
	v := root
	for _, s := range path {
		switch x := v.(type) {
		case *jsonval.Object:
			if s.isIdx {
				return nil, false
			}
			n, ok := x.Get(s.key)
			if !ok {
				return nil, false
			}
			v = n
		case *jsonval.Array:
			if !s.isIdx || s.index >= len(x.Elems) {
				return nil, false
			}
			v = x.Elems[s.index]
		default:
			return nil, false
		}
	}
	return v, true
}

// Replace sets the value at path (which must exist); the root is
// replaced through *root.
func Replace(root *any, path []Step, nv any) bool {
	if len(path) == 0 {
		*root = nv
		return true
	}
	parent, ok := resolve(*root, path[:len(path)-1])
	if !ok {
		return false
	}
	last := path[len(path)-1]
	switch x := parent.(type) {
	case *jsonval.Object:
		if last.isIdx || x.Find(last.key) < 0 {
			return false
		}
		x.Set(last.key, nv)
		return true
	case *jsonval.Array:
		if !last.isIdx || last.index >= len(x.Elems) {
			return false
		}
		x.Elems[last.index] = nv
		return true
	}
	return false
}

// Remove deletes the member or element at path.
func Remove(root any, path []Step) bool {
	if len(path) == 0 {
		return false
	}
	parent, ok := resolve(root, path[:len(path)-1])
	if !ok {
		return false
	}
	last := path[len(path)-1]
	switch x := parent.(type) {
	case *jsonval.Object:
		return !last.isIdx && x.Remove(last.key)
	case *jsonval.Array:
		if !last.isIdx || last.index >= len(x.Elems) {
			return false
		}
		x.Elems = append(x.Elems[:last.index], x.Elems[last.index+1:]...)
		return true
	}
	return false
}

// PrepareUpdatePaths orders paths as RedisJSON's
// prepare_paths_for_updating does (higher array indexes first, longer
// paths first) and drops paths under another path of the set, so that
// deleting or replacing several matches does not disturb the others.
func PrepareUpdatePaths(paths [][]Step) [][]Step {
	if len(paths) < 2 {
		return paths
	}
	sort.SliceStable(paths, func(i, j int) bool {
		a, b := paths[i], paths[j]
		for k := 0; ; k++ {
			if k >= len(a) || k >= len(b) {
				return len(a) > len(b)
			}
			x, y := a[k], b[k]
			switch {
			case !x.isIdx && !y.isIdx:
				if x.key != y.key {
					return x.key < y.key
				}
			case x.isIdx && !y.isIdx:
				return false
			case !x.isIdx && y.isIdx:
				return true
			default:
				if x.index != y.index {
					return x.index > y.index
				}
			}
		}
	})
	out := paths[:0:0]
	for i, p := range paths {
		nested := false
		for j, q := range paths {
			if i != j && len(q) < len(p) && hasPrefix(p, q) {
				nested = true
				break
			}
		}
		if !nested {
			out = append(out, p)
		}
	}
	return out
}

func hasPrefix(p, q []Step) bool {
	for i := range q {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// PathString renders a concrete location as a JSONPath that selects
// exactly it ($["a"][0]), for propagation.
func PathString(path []Step) string {
	b := []byte{'$'}
	for _, s := range path {
		b = append(b, '[')
		if s.isIdx {
			b = strconv.AppendInt(b, int64(s.index), 10)
		} else {
			b = append(b, '"')
			for i := 0; i < len(s.key); i++ {
				if s.key[i] == '"' || s.key[i] == '\\' {
					b = append(b, '\\')
				}
				b = append(b, s.key[i])
			}
			b = append(b, '"')
		}
		b = append(b, ']')
	}
	return string(b)
}
