package index

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/index/tuple"
)

// Graph is a hexastore (the page's "Representing and querying graphs using
// a hexastore"): subject–predicate–object triples kept in one sorted set,
// every member with score 0, each triple stored six times, once per order
// of its three parts:
//
//	tuple.Pack("spo", s, p, o)   tuple.Pack("sop", s, o, p)
//	tuple.Pack("ops", o, p, s)   tuple.Pack("osp", o, s, p)
//	tuple.Pack("pso", p, s, o)   tuple.Pack("pos", p, o, s)
//
// This is the page's "spo:antirez:is-friend-of:matteocollina", tuple-encoded
// (index/tuple), so a ':' or a '\x00' inside a value never collides. For
// any pattern, whatever positions are bound, one of the six orders puts the
// bound parts first, so the matches are exactly one lexicographic range
// [Pack(order, bound...), Pack(order, bound...)+"\xff"): Match is one
// ZRANGE BYLEX and Count one ZLEXCOUNT (exact, O(log n)). Add and Remove
// write the six members in one ZADD or ZREM, so a triple is always present
// in all six orders or in none.
//
// Query joins several patterns sharing variables, ordered by selectivity:
// the exact size of each pattern comes first from one pipelined round of
// ZLEXCOUNTs.
type Graph struct {
	b   backend.Backend
	Key string
}

// NewGraph returns the hexastore kept in the sorted set key.
func NewGraph(b backend.Backend, key string) *Graph { return &Graph{b: b, Key: key} }

// Triple is one subject–predicate–object relation.
type Triple struct{ S, P, O string }

// Var is a variable in a Pattern: Var("x") binds to whatever value the
// position holds, and to the same value wherever it appears in a query.
type Var string

// Pattern matches triples. Each of S, P and O is a string (that value),
// a Var, or nil (anything, not bound to a name).
type Pattern struct{ S, P, O any }

// Binding maps variable names to values.
type Binding map[string]string

var hexOrders = [6]string{"spo", "sop", "ops", "osp", "pso", "pos"}

func (t Triple) part(c byte) string {
	switch c {
	case 's':
		return t.S
	case 'p':
		return t.P
	}
	return t.O
}

func hexMember(order string, t Triple) string {
	return string(tuple.MustPack(order, t.part(order[0]), t.part(order[1]), t.part(order[2])))
}

func (g *Graph) members(cmd string, ts []Triple) backend.Cmd {
	c := backend.Cmd{cmd, g.Key}
	for _, t := range ts {
		for _, o := range hexOrders {
			if cmd == "ZADD" {
				c = append(c, 0)
			}
			c = append(c, hexMember(o, t))
		}
	}
	return c
}

// AddCmd is the command that adds triples (for use in a Tx).
func (g *Graph) AddCmd(ts ...Triple) backend.Cmd { return g.members("ZADD", ts) }

// RemoveCmd is the command that removes triples (for use in a Tx).
func (g *Graph) RemoveCmd(ts ...Triple) backend.Cmd { return g.members("ZREM", ts) }

// Add adds triples (all six orders of each, in one ZADD) and returns how
// many were new.
func (g *Graph) Add(ctx context.Context, ts ...Triple) (int64, error) {
	if len(ts) == 0 {
		return 0, nil
	}
	v, err := g.b.Do(ctx, g.AddCmd(ts...)...)
	if err != nil {
		return 0, err
	}
	n, err := asInt(v)
	return n / 6, err
}

// Remove removes triples and returns how many were there.
func (g *Graph) Remove(ctx context.Context, ts ...Triple) (int64, error) {
	if len(ts) == 0 {
		return 0, nil
	}
	v, err := g.b.Do(ctx, g.RemoveCmd(ts...)...)
	if err != nil {
		return 0, err
	}
	n, err := asInt(v)
	return n / 6, err
}

// Has reports whether the triple is in the graph.
func (g *Graph) Has(ctx context.Context, t Triple) (bool, error) {
	v, err := g.b.Do(ctx, "ZSCORE", g.Key, hexMember("spo", t))
	return v != nil, err
}

// Len is the number of triples.
func (g *Graph) Len(ctx context.Context) (int64, error) {
	v, err := g.b.Do(ctx, "ZCARD", g.Key)
	if err != nil {
		return 0, err
	}
	n, err := asInt(v)
	return n / 6, err
}

// bound returns the value of a bound position.
func boundPart(x any) (string, bool, error) {
	switch v := x.(type) {
	case string:
		return v, true, nil
	case nil, Var:
		return "", false, nil
	}
	return "", false, fmt.Errorf("index: pattern position must be a string, a Var or nil, not %T", x)
}

// plan returns the order and the ZRANGE BYLEX bounds of a pattern's
// constant positions.
func (p Pattern) lexRange() (order, lo, hi string, err error) {
	s, sb, err := boundPart(p.S)
	if err != nil {
		return
	}
	pp, pb, err := boundPart(p.P)
	if err != nil {
		return
	}
	o, ob, err := boundPart(p.O)
	if err != nil {
		return
	}
	var prefix []any
	switch {
	case sb && pb:
		order, prefix = "spo", []any{s, pp}
		if ob {
			prefix = append(prefix, o)
		}
	case sb && ob:
		order, prefix = "sop", []any{s, o}
	case pb && ob:
		order, prefix = "pos", []any{pp, o}
	case sb:
		order, prefix = "spo", []any{s}
	case pb:
		order, prefix = "pso", []any{pp}
	case ob:
		order, prefix = "osp", []any{o}
	default:
		order = "spo"
	}
	b, e, err := tuple.PrefixRange(append([]any{order}, prefix...)...)
	if err != nil {
		return
	}
	return order, "[" + string(b), "(" + string(e), nil
}

func decodeHex(member string) (Triple, error) {
	t, err := tuple.Unpack([]byte(member))
	if err != nil || len(t) != 4 {
		return Triple{}, fmt.Errorf("index: %q is not a hexastore member", member)
	}
	var parts [4]string
	for i, e := range t {
		s, ok := e.(string)
		if !ok {
			return Triple{}, fmt.Errorf("index: %q is not a hexastore member", member)
		}
		parts[i] = s
	}
	var tr Triple
	for i := 0; i < 3 && i < len(parts[0]); i++ {
		switch parts[0][i] {
		case 's':
			tr.S = parts[i+1]
		case 'p':
			tr.P = parts[i+1]
		case 'o':
			tr.O = parts[i+1]
		}
	}
	return tr, nil
}

// unify extends b with the variables of p bound by t; ok is false when t
// contradicts b or p (a repeated variable with two values).
func (p Pattern) unify(t Triple, b Binding) (Binding, bool) {
	out := b
	copied := false
	for _, pos := range [3]struct {
		x   any
		val string
	}{{p.S, t.S}, {p.P, t.P}, {p.O, t.O}} {
		switch v := pos.x.(type) {
		case string:
			if v != pos.val {
				return nil, false
			}
		case Var:
			if have, ok := out[string(v)]; ok {
				if have != pos.val {
					return nil, false
				}
				continue
			}
			if !copied {
				out = make(Binding, len(b)+3)
				for k, x := range b {
					out[k] = x
				}
				copied = true
			}
			out[string(v)] = pos.val
		}
	}
	return out, true
}

// substitute replaces the variables bound in b by their values.
func (p Pattern) substitute(b Binding) Pattern {
	sub := func(x any) any {
		if v, ok := x.(Var); ok {
			if val, ok := b[string(v)]; ok {
				return val
			}
		}
		return x
	}
	return Pattern{sub(p.S), sub(p.P), sub(p.O)}
}

func (p Pattern) vars() []string {
	var out []string
	for _, x := range []any{p.S, p.P, p.O} {
		if v, ok := x.(Var); ok {
			out = append(out, string(v))
		}
	}
	return out
}

func (g *Graph) rangeCmd(p Pattern, limit int64) (backend.Cmd, error) {
	_, lo, hi, err := p.lexRange()
	if err != nil {
		return nil, err
	}
	c := backend.Cmd{"ZRANGE", g.Key, lo, hi, "BYLEX"}
	if limit > 0 {
		c = append(c, "LIMIT", 0, limit)
	}
	return c, nil
}

func (g *Graph) decodeMatches(p Pattern, v any) ([]Triple, error) {
	ms, err := asStrings(v)
	if err != nil {
		return nil, err
	}
	out := make([]Triple, 0, len(ms))
	for _, m := range ms {
		t, err := decodeHex(m)
		if err != nil {
			return nil, err
		}
		if _, ok := p.unify(t, nil); ok { // a variable repeated in p
			out = append(out, t)
		}
	}
	return out, nil
}

// Match returns the triples matching p (at most limit of them, ≤ 0: all),
// with one ZRANGE BYLEX, in the order of the index the pattern uses. A
// variable repeated in p (Pattern{Var("x"), "knows", Var("x")}) is checked
// after the range, so fewer than limit may come back.
func (g *Graph) Match(ctx context.Context, p Pattern, limit int64) ([]Triple, error) {
	cmd, err := g.rangeCmd(p, limit)
	if err != nil {
		return nil, err
	}
	v, err := g.b.Do(ctx, cmd...)
	if err != nil {
		return nil, err
	}
	return g.decodeMatches(p, v)
}

// Count returns the number of triples matching p's constant positions,
// with one ZLEXCOUNT (variables count as wildcards).
func (g *Graph) Count(ctx context.Context, p Pattern) (int64, error) {
	_, lo, hi, err := p.lexRange()
	if err != nil {
		return 0, err
	}
	v, err := g.b.Do(ctx, "ZLEXCOUNT", g.Key, lo, hi)
	if err != nil {
		return 0, err
	}
	return asInt(v)
}

// PlanStep is one step of a query: which pattern was joined, its exact
// size on its own (ZLEXCOUNT), and how: one range scan of the whole
// pattern (Probes 0), or one range per binding found so far (Probes > 0,
// all in one pipelined round trip).
type PlanStep struct {
	Pattern int
	Count   int64
	Probes  int
}

// Query returns the bindings of the variables that satisfy every pattern
// at once. Patterns are joined most selective first: one pipelined round
// of ZLEXCOUNT gives each pattern's exact size; the smallest is scanned
// first; then, repeatedly, the smallest pattern sharing a variable with
// those already joined is joined next, either by scanning it whole (when
// it is no bigger than the bindings found so far) or by one probe per
// binding with its variables substituted. Every step is one round trip.
// Bindings come back without duplicates, sorted by variable values (in
// the order the variables first appear in the patterns).
func (g *Graph) Query(ctx context.Context, patterns ...Pattern) ([]Binding, error) {
	bs, _, err := g.QueryPlan(ctx, patterns...)
	return bs, err
}

// QueryPlan is Query that also returns the steps it took.
func (g *Graph) QueryPlan(ctx context.Context, patterns ...Pattern) ([]Binding, []PlanStep, error) {
	if len(patterns) == 0 {
		return nil, nil, nil
	}
	cmds := make([]backend.Cmd, len(patterns))
	var order []string
	seen := map[string]bool{}
	for i, p := range patterns {
		_, lo, hi, err := p.lexRange()
		if err != nil {
			return nil, nil, err
		}
		cmds[i] = backend.Cmd{"ZLEXCOUNT", g.Key, lo, hi}
		for _, v := range p.vars() {
			if !seen[v] {
				seen[v] = true
				order = append(order, v)
			}
		}
	}
	res, err := g.b.Pipeline(ctx, cmds)
	if err != nil {
		return nil, nil, err
	}
	counts := make([]int64, len(patterns))
	for i, r := range res {
		if r.Err != nil {
			return nil, nil, r.Err
		}
		if counts[i], err = asInt(r.Val); err != nil {
			return nil, nil, err
		}
		if counts[i] == 0 {
			return nil, []PlanStep{{Pattern: i}}, nil
		}
	}
	var plan []PlanStep
	bindings := []Binding{{}}
	bound := map[string]bool{}
	done := make([]bool, len(patterns))
	for range patterns {
		// The next pattern: the smallest connected to what is bound (or,
		// with nothing connected, the smallest of all).
		next, connected := -1, false
		for i, p := range patterns {
			if done[i] {
				continue
			}
			c := false
			for _, v := range p.vars() {
				c = c || bound[v]
			}
			if next < 0 || (c && !connected) || (c == connected && counts[i] < counts[next]) {
				next, connected = i, c
			}
		}
		done[next] = true
		p := patterns[next]
		step := PlanStep{Pattern: next, Count: counts[next]}
		var out []Binding
		if !connected || counts[next] <= int64(len(bindings)) {
			// Scan the pattern whole, hash-join on its bound variables.
			ts, err := g.Match(ctx, p, 0)
			if err != nil {
				return nil, nil, err
			}
			var shared []string
			for _, v := range p.vars() {
				if bound[v] {
					shared = append(shared, v)
				}
			}
			byKey := map[string][]Triple{}
			for _, t := range ts {
				b, _ := p.unify(t, nil)
				byKey[joinKey(b, shared)] = append(byKey[joinKey(b, shared)], t)
			}
			for _, b := range bindings {
				for _, t := range byKey[joinKey(b, shared)] {
					if nb, ok := p.unify(t, b); ok {
						out = append(out, nb)
					}
				}
			}
		} else {
			// Probe once per binding, all in one pipeline.
			step.Probes = len(bindings)
			probes := make([]backend.Cmd, len(bindings))
			subs := make([]Pattern, len(bindings))
			for i, b := range bindings {
				subs[i] = p.substitute(b)
				if probes[i], err = g.rangeCmd(subs[i], 0); err != nil {
					return nil, nil, err
				}
			}
			res, err := g.b.Pipeline(ctx, probes)
			if err != nil {
				return nil, nil, err
			}
			for i, r := range res {
				if r.Err != nil {
					return nil, nil, r.Err
				}
				ts, err := g.decodeMatches(subs[i], r.Val)
				if err != nil {
					return nil, nil, err
				}
				for _, t := range ts {
					if nb, ok := p.unify(t, bindings[i]); ok {
						out = append(out, nb)
					}
				}
			}
		}
		plan = append(plan, step)
		for _, v := range p.vars() {
			bound[v] = true
		}
		bindings = out
		if len(bindings) == 0 {
			return nil, plan, nil
		}
	}
	// Deduplicate (nil positions can repeat a binding) and sort.
	keyed := map[string]Binding{}
	for _, b := range bindings {
		keyed[joinKey(b, order)] = b
	}
	keys := make([]string, 0, len(keyed))
	for k := range keyed {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Binding, len(keys))
	for i, k := range keys {
		out[i] = keyed[k]
	}
	return out, plan, nil
}

// joinKey is an injective encoding of the values of vars in b.
func joinKey(b Binding, vars []string) string {
	var sb strings.Builder
	for _, v := range vars {
		sb.Write(tuple.MustPack(b[v]))
	}
	return sb.String()
}
