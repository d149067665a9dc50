package search

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/engine"
)

// FT.AGGREGATE: a query, then a pipeline of steps applied in order, as in
// RediSearch 2.x (src/aggregate): LOAD, GROUPBY … REDUCE …, SORTBY [MAX],
// APPLY, FILTER, LIMIT. SORTBY and LIMIT of one segment (between two
// GROUPBYs) form one "arrange" step, as RediSearch's plan does. The
// pipeline is evaluated under the engine lock: at once, or read by read
// for a cursor over a pipeline without GROUPBY or SORTBY (cursor.go).

type aggRow struct {
	id   uint32     // document id (for ties), or the group's position
	src  uint32     // position among the documents read (stream totals)
	vals []namedVal // few: a linear scan beats a map, with one allocation
	d    *doc       // the document (first segment only), for matched_terms
	mt   *matchCtx  // the query's terms, for matched_terms
}

// matchCtx is what matched_terms() needs: the query's positive text
// terms and the TEXT fields each searches (a mask of field ords).
type matchCtx struct {
	ix    *index
	terms []matchTerm
}

type matchTerm struct {
	term string
	mask uint64
}

// newMatchCtx collects the text terms of q outside negations.
func newMatchCtx(ix *index, q *node) *matchCtx {
	mt := &matchCtx{ix: ix}
	qc := ix.newQctx()
	var walk func(n *node)
	walk = func(n *node) {
		switch n.op {
		case opTerm:
			mt.terms = append(mt.terms, matchTerm{n.term, qc.textMask(n.field)})
		case opAnd, opOr:
			for _, k := range n.kids {
				walk(k)
			}
		}
	}
	walk(q)
	return mt
}

// matched is the query terms present in the row's document.
func (r *aggRow) matched() val {
	if r.d == nil || r.mt == nil {
		return nullVal
	}
	var out []val
	for _, t := range r.mt.terms {
		if m, ok := r.mt.ix.termMask(t.term, r.id); ok && m&t.mask != 0 {
			out = append(out, strVal(t.term))
		}
		if len(out) == 100 {
			break
		}
	}
	return arrVal(out)
}

type namedVal struct {
	name string
	v    val
}

func (r *aggRow) get(name string) val {
	v, _ := r.lookup(name)
	return v
}

// lookup returns the row's value of name, and whether it has one.
func (r *aggRow) lookup(name string) (val, bool) {
	for i := range r.vals {
		if r.vals[i].name == name {
			return r.vals[i].v, true
		}
	}
	return nullVal, false
}

func (r *aggRow) set(name string, v val) {
	for i := range r.vals {
		if r.vals[i].name == name {
			r.vals[i].v = v
			return
		}
	}
	r.vals = append(r.vals, namedVal{name, v})
}

// lookup is the ordered set of property names of a pipeline segment
// (RediSearch's RLookup): replies list a row's properties in this order.
type lookup struct {
	names []string
	has   map[string]bool
}

func (l *lookup) add(n string) {
	if l.has == nil {
		l.has = map[string]bool{}
	}
	if !l.has[n] {
		l.has[n] = true
		l.names = append(l.names, n)
	}
}

type stepKind uint8

const (
	stLoad stepKind = iota
	stGroup
	stArrange
	stApply
	stFilter
)

type reducerSpec struct {
	fn    string // lower-case name
	args  []string
	alias string
	src   string // the source property (""; COUNT)
	by    string // FIRST_VALUE BY
	desc  bool   // FIRST_VALUE BY … DESC
	q     float64
	k     int
}

type aggStep struct {
	kind stepKind
	// LOAD
	loadAll  bool
	loadKeys []loadKey
	// GROUPBY
	groupBy  []string
	reducers []reducerSpec
	// SORTBY / LIMIT
	sortKeys []string
	sortAsc  []bool
	limited  bool
	off, num int
	max      int
	// APPLY / FILTER
	e     *expr
	raw   string
	alias string
}

type loadKey struct{ field, as string }

type aggReq struct {
	ix       *index
	query    string
	params   map[string]string
	verbatim bool
	steps    []*aggStep
	cursor   bool
	count    int   // WITHCURSOR COUNT
	maxIdle  int64 // WITHCURSOR MAXIDLE (ms)
	noRows   bool  // LIMIT 0 0 at the end
}

// parseAggregate parses FT.AGGREGATE's arguments after the query.
func parseAggregate(args []string, ix *index, cfg *ftConfig) (*aggReq, string) {
	r := &aggReq{ix: ix}
	i := 0
	need := func(n int) bool { return i+n < len(args) }
	isArg := func(s string) bool { return strings.EqualFold(args[i], s) }
	nargs := func(what string) (int, string) {
		if !need(1) {
			return 0, "Bad arguments for " + what + ": Expected an argument, but none provided"
		}
		n, err := strconv.Atoi(args[i+1])
		if err != nil || n < 0 {
			return 0, "Bad arguments for " + what + ": Could not convert argument to expected type"
		}
		if n > len(args)-i-2 {
			return 0, "Bad arguments for " + what + ": Expected an argument, but none provided"
		}
		return n, ""
	}
	arrange := func() *aggStep {
		for j := len(r.steps) - 1; j >= 0; j-- {
			if r.steps[j].kind == stGroup {
				break
			}
			if r.steps[j].kind == stArrange {
				return r.steps[j]
			}
		}
		s := &aggStep{kind: stArrange}
		r.steps = append(r.steps, s)
		return s
	}
	for i < len(args) {
		switch {
		case isArg("verbatim"):
			r.verbatim = true
			i++
		case isArg("nostopwords"), isArg("inorder"), isArg("withscores"), isArg("explainscore"):
			i++
		case isArg("slop"), isArg("language"), isArg("scorer"), isArg("expander"), isArg("payload"):
			if !need(1) {
				return nil, "Bad arguments for " + strings.ToUpper(args[i]) + ": Expected an argument, but none provided"
			}
			i += 2
		case isArg("timeout"):
			if !need(1) {
				return nil, "Need argument for TIMEOUT"
			}
			if n, err := strconv.Atoi(args[i+1]); err != nil || n < 0 {
				return nil, "TIMEOUT requires a non negative integer"
			}
			i += 2
		case isArg("dialect"):
			if !need(1) {
				return nil, "Need an argument for DIALECT"
			}
			d, err := strconv.Atoi(args[i+1])
			if err != nil || d < 1 || d > 4 {
				return nil, "DIALECT requires a non negative integer >=1 and <= 4"
			}
			i += 2
		case isArg("params"):
			n, e := nargs("PARAMS")
			if e != "" {
				return nil, e
			}
			if n == 0 || n%2 != 0 {
				return nil, "Bad arguments for PARAMS: Expected an even number of arguments"
			}
			r.params = map[string]string{}
			for j := i + 2; j < i+2+n; j += 2 {
				if _, dup := r.params[args[j]]; dup {
					return nil, "Duplicate parameter `" + args[j] + "`"
				}
				r.params[args[j]] = args[j+1]
			}
			i += 2 + n
		case isArg("withcursor"):
			r.cursor = true
			i++
			for i < len(args) && (isArg("count") || isArg("maxidle")) {
				what := strings.ToUpper(args[i])
				if !need(1) {
					return nil, "Bad arguments for " + what + ": Expected an argument, but none provided"
				}
				n, err := strconv.ParseInt(args[i+1], 10, 64)
				if f, ferr := strconv.ParseFloat(args[i+1], 64); err != nil && ferr == nil && f == math.Trunc(f) && f < 1<<62 {
					n, err = int64(f), nil // redis-py sends MAXIDLE as "5000.0"
				}
				if err != nil || n < 1 {
					return nil, "Bad arguments for " + what + ": Value is outside acceptable bounds"
				}
				if what == "COUNT" {
					r.count = int(min(n, math.MaxInt32))
				} else {
					r.maxIdle = n
				}
				i += 2
			}
		case isArg("load"):
			if !need(1) {
				return nil, "Bad arguments for LOAD: Expected an argument, but none provided"
			}
			st := &aggStep{kind: stLoad}
			if args[i+1] == "*" {
				st.loadAll = true
				i += 2
			} else {
				n, e := nargs("LOAD")
				if e != "" {
					return nil, e
				}
				ks := args[i+2 : i+2+n]
				for j := 0; j < len(ks); j++ {
					k := loadKey{field: strings.TrimPrefix(ks[j], "@")}
					k.as = k.field
					if j+2 < len(ks) && strings.EqualFold(ks[j+1], "as") {
						k.as = ks[j+2]
						j += 2
					}
					st.loadKeys = append(st.loadKeys, k)
				}
				i += 2 + n
			}
			r.steps = append(r.steps, st)
		case isArg("groupby"):
			n, e := nargs("GROUPBY")
			if e != "" {
				return nil, e
			}
			st := &aggStep{kind: stGroup}
			for _, p := range args[i+2 : i+2+n] {
				if !strings.HasPrefix(p, "@") {
					return nil, "Bad arguments for GROUPBY: Unknown property `" + p + "`. Did you mean `@" + p + "`?"
				}
				st.groupBy = append(st.groupBy, p[1:])
			}
			i += 2 + n
			for i < len(args) && isArg("reduce") {
				if !need(1) {
					return nil, "Bad arguments for REDUCE: Expected an argument, but none provided"
				}
				name := args[i+1]
				i++
				n, e := nargs(name)
				if e != "" {
					return nil, e
				}
				rs := reducerSpec{fn: strings.ToLower(name), args: args[i+2 : i+2+n]}
				i += 2 + n
				if i < len(args) && isArg("as") {
					if !need(1) {
						return nil, "Bad arguments for AS: Expected an argument, but none provided"
					}
					rs.alias = args[i+1]
					i += 2
				} else {
					a := "__generated_alias" + name
					for j, x := range rs.args {
						a += strings.TrimLeft(x, "@")
						if j < len(rs.args)-1 {
							a += ","
						}
					}
					rs.alias = strings.ToLower(a)
				}
				if e := rs.check(); e != "" {
					return nil, e
				}
				st.reducers = append(st.reducers, rs)
			}
			r.steps = append(r.steps, st)
		case isArg("sortby"):
			n, e := nargs("SORTBY")
			if e != "" {
				return nil, e
			}
			st := arrange()
			if st.sortKeys != nil {
				return nil, "Multiple SORTBY steps are not allowed. Sort multiple fields in a single step"
			}
			st.sortKeys = []string{}
			for _, p := range args[i+2 : i+2+n] {
				switch {
				case strings.HasPrefix(p, "@"):
					if len(st.sortKeys) >= 8 {
						return nil, "Cannot sort by more than 8 fields"
					}
					st.sortKeys = append(st.sortKeys, p[1:])
					st.sortAsc = append(st.sortAsc, true)
				case len(st.sortKeys) > 0 && strings.EqualFold(p, "asc"):
					st.sortAsc[len(st.sortAsc)-1] = true
				case len(st.sortKeys) > 0 && strings.EqualFold(p, "desc"):
					st.sortAsc[len(st.sortAsc)-1] = false
				default:
					return nil, "MISSING ASC or DESC after sort field (" + p + ")"
				}
			}
			i += 2 + n
			if i < len(args) && isArg("max") {
				if !need(1) {
					return nil, "Bad arguments for MAX: Expected an argument, but none provided"
				}
				m, err := strconv.Atoi(args[i+1])
				if err != nil || m < 0 {
					return nil, "Bad arguments for MAX: Could not convert argument to expected type"
				}
				st.max = m
				i += 2
			}
		case isArg("limit"):
			if i+2 >= len(args) {
				return nil, "LIMIT requires two arguments"
			}
			off, err1 := strconv.ParseUint(args[i+1], 10, 63)
			num, err2 := strconv.ParseUint(args[i+2], 10, 63)
			if err1 != nil || err2 != nil {
				return nil, "LIMIT needs two numeric arguments"
			}
			if num > uint64(cfg.maxAggregateResults) {
				return nil, "LIMIT exceeds maximum of " + strconv.FormatInt(cfg.maxAggregateResults, 10)
			}
			if off > uint64(cfg.maxSearchResults) {
				return nil, "OFFSET exceeds maximum of " + strconv.FormatInt(cfg.maxSearchResults, 10)
			}
			st := arrange()
			st.limited, st.off, st.num = true, int(min(off, 1<<30)), int(min(num, 1<<30)) // no overflow in off+num
			r.noRows = num == 0
			i += 3
		case isArg("apply"), isArg("filter"):
			if !need(1) {
				return nil, "Bad arguments for APPLY/FILTER: Expected an argument, but none provided"
			}
			st := &aggStep{kind: stFilter, raw: args[i+1]}
			e, err := parseExpr(st.raw)
			if err != nil {
				return nil, err.Error()
			}
			st.e = e
			if isArg("apply") {
				st.kind = stApply
				st.alias = st.raw
				i += 2
				if i < len(args) && isArg("as") {
					if !need(1) {
						return nil, "AS needs argument"
					}
					st.alias = args[i+1]
					i += 2
				}
			} else {
				i += 2
			}
			r.steps = append(r.steps, st)
		case isArg("highlight"), isArg("summarize"):
			return nil, strings.ToUpper(args[i]) + " is not supported on FT.AGGREGATE"
		default:
			return nil, "Unknown argument `" + args[i] + "` at position " + strconv.Itoa(i) + " for <main>"
		}
	}
	return r, ""
}

// check validates a reducer's arguments (RediSearch's reducer factories).
func (rs *reducerSpec) check() string {
	a := rs.args
	key := func() string {
		if len(a) == 0 {
			return "Missing arguments for " + strings.ToUpper(rs.fn)
		}
		rs.src = strings.TrimPrefix(a[0], "@")
		return ""
	}
	extra := func(from int) string {
		if len(a) > from {
			return "Unknown argument `" + a[from] + "` for " + strings.ToUpper(rs.fn)
		}
		return ""
	}
	switch rs.fn {
	case "count":
		if len(a) != 0 {
			return "Count accepts 0 values only"
		}
	case "count_distinct", "count_distinctish", "sum", "min", "max", "avg", "tolist", "stddev", "hll", "hll_sum":
		if e := key(); e != "" {
			return e
		}
		return extra(1)
	case "quantile":
		if e := key(); e != "" {
			return e
		}
		if len(a) < 2 {
			return "Bad arguments for QUANTILE: Expected an argument, but none provided"
		}
		q, err := strconv.ParseFloat(a[1], 64)
		if err != nil {
			return "Bad arguments for QUANTILE: Could not convert argument to expected type"
		}
		if q < 0 || q > 1 {
			return "Percentage must be between 0.0 and 1.0"
		}
		rs.q = q
		if len(a) > 2 {
			res, err := strconv.Atoi(a[2])
			if err != nil || res < 1 || res > 1000 {
				return "Invalid resolution"
			}
		}
		return extra(3)
	case "random_sample":
		if e := key(); e != "" {
			return e
		}
		if len(a) < 2 {
			return "Bad arguments for <sample size>: Expected an argument, but none provided"
		}
		k, err := strconv.Atoi(a[1])
		if err != nil || k < 0 {
			return "Bad arguments for <sample size>: Could not convert argument to expected type"
		}
		if k > 1000 {
			return "Sample size too large"
		}
		rs.k = k
		return extra(2)
	case "first_value":
		if e := key(); e != "" {
			return e
		}
		j := 1
		if j < len(a) && strings.EqualFold(a[j], "by") {
			if j+1 >= len(a) {
				return "Bad arguments for BY: Expected an argument, but none provided"
			}
			rs.by = strings.TrimPrefix(a[j+1], "@")
			j += 2
			if j < len(a) && (strings.EqualFold(a[j], "asc") || strings.EqualFold(a[j], "desc")) {
				rs.desc = strings.EqualFold(a[j], "desc")
				j++
			}
		}
		return extra(j)
	default:
		return "No such reducer: " + rs.fn
	}
	return ""
}

// aggResult is an evaluated pipeline: its rows, in order, and the lookup
// naming their properties.
type aggResult struct {
	total int
	rows  []*aggRow
	lk    *lookup
	// stream: no GROUPBY or SORTBY. RediSearch's pipeline is lazy, and
	// its total counts the documents read from the index: a LIMIT stops
	// the reading early, and each cursor read reports its own.
	stream bool
	read   int // documents read (stream)
	noRows bool
}

// aggPipe is a planned FT.AGGREGATE: its query, how a document becomes a
// row, and the steps.
type aggPipe struct {
	ix        *index
	q         *node
	lk        *lookup // the last segment's
	firstLk   *lookup
	implicitL []implicitField
	docKeys   map[string]loadKey // lookup name -> hash field (LOAD)
	loadAll   bool
	plans     []*aggStep
	mt        *matchCtx
	nvals     int
	// Rows and their values come from two slabs: two allocations per
	// 4096 rows instead of two per row.
	rowSlab []aggRow
	valSlab []namedVal
}

type implicitField struct {
	name string
	f    *field
}

// planAggregate parses the query and resolves the steps' properties.
func planAggregate(s *state, r *aggReq) (*aggPipe, string) {
	ix := r.ix
	q, err := parseQuery(r.query, r.params, ix)
	if err != nil {
		return nil, err.Error()
	}
	if !r.verbatim {
		q = s.expandSynonyms(ix, q)
	}
	// The first segment's lookup: schema fields are loaded implicitly
	// where a step refers to them.
	lk := &lookup{}
	p := &aggPipe{ix: ix, q: q, firstLk: lk, docKeys: map[string]loadKey{}}
	implicit := map[string]*field{}
	// resolve returns whether name is known in the current segment,
	// adding a schema field on first reference.
	first := true
	resolve := func(name string) bool {
		if lk.has[name] {
			return true
		}
		if !first {
			return false
		}
		if f := ix.attr(name); f != nil {
			lk.add(name)
			implicit[name] = f
			return true
		}
		return false
	}
	for _, st := range r.steps {
		switch st.kind {
		case stLoad:
			if !first {
				// A LOAD after GROUPBY has no document to read: RediSearch
				// loads nothing new there either.
				p.plans = append(p.plans, st)
				continue
			}
			for _, k := range st.loadKeys {
				lk.add(k.as)
				p.docKeys[k.as] = k
				delete(implicit, k.as)
			}
			p.plans = append(p.plans, st)
		case stApply, stFilter:
			var bad string
			st.e.props(func(p string) {
				if bad == "" && !resolve(p) {
					bad = p
				}
			})
			if bad != "" {
				return nil, "Property `" + bad + "` not loaded in pipeline"
			}
			if st.kind == stApply {
				lk.add(st.alias)
			}
			p.plans = append(p.plans, st)
		case stArrange:
			for _, k := range st.sortKeys {
				if !resolve(k) {
					return nil, "Property `" + k + "` not loaded nor in schema"
				}
			}
			p.plans = append(p.plans, st)
		case stGroup:
			for _, k := range st.groupBy {
				if !resolve(k) {
					return nil, "No such property `" + k + "`"
				}
			}
			for _, rd := range st.reducers {
				for _, k := range []string{rd.src, rd.by} {
					if k != "" && !resolve(k) {
						return nil, "Property `" + k + "` not present in document or pipeline"
					}
				}
			}
			p.plans = append(p.plans, st)
			first = false
			lk = &lookup{}
			for _, k := range st.groupBy {
				lk.add(k)
			}
			for _, rd := range st.reducers {
				lk.add(rd.alias)
			}
		}
	}
	p.lk = lk
	for _, st := range r.steps {
		if st.kind == stGroup {
			break
		}
		p.loadAll = p.loadAll || st.loadAll
	}
	p.mt = newMatchCtx(ix, q)
	for _, name := range sortedKeys(implicit) {
		p.implicitL = append(p.implicitL, implicitField{name, implicit[name]})
	}
	p.nvals = len(p.firstLk.names) + 2
	for _, st := range r.steps {
		if st.kind == stApply {
			p.nvals++
		}
	}
	return p, ""
}

// streams reports whether every step takes rows one at a time (no
// GROUPBY, no SORTBY), so that a cursor can compute its rows read by read.
func (p *aggPipe) streams() bool {
	for _, st := range p.plans {
		if st.kind == stGroup || st.kind == stArrange && st.sortKeys != nil {
			return false
		}
	}
	return true
}

// loadRow reads document id at key into a row (src: its position among
// the documents read), or nil when the key is gone or past its TTL.
// hint sizes the slabs.
func (p *aggPipe) loadRow(c *engine.Ctx, id uint32, key string, src, hint int) *aggRow {
	ix := p.ix
	v, at, ok := c.E.Peek(ix.db, key)
	if !ok || at >= 0 && at <= c.Now {
		return nil
	}
	h, _ := v.Obj().(*engine.Hash)
	if h == nil {
		return nil
	}
	if len(p.rowSlab) == 0 {
		n := max(min(hint, 4096), 1)
		p.rowSlab, p.valSlab = make([]aggRow, n), make([]namedVal, n*p.nvals)
	}
	row := &p.rowSlab[0]
	p.rowSlab = p.rowSlab[1:]
	*row = aggRow{id: id, src: uint32(src), d: ix.doc(id), mt: p.mt, vals: p.valSlab[:0:p.nvals]}
	p.valSlab = p.valSlab[p.nvals:]
	for _, im := range p.implicitL {
		s, ok := h.Get(im.f.name)
		if !ok {
			continue
		}
		row.vals = append(row.vals, namedVal{im.name, fieldVal(im.f, s, true)})
	}
	for name, k := range p.docKeys {
		if k.field == "__key" {
			row.set(name, strVal(strings.Clone(key)))
			continue
		}
		src := k.field
		f := ix.attr(k.field)
		if f != nil {
			src = f.name
		}
		s, ok := h.Get(src)
		if !ok {
			continue
		}
		if f != nil {
			row.set(name, fieldVal(f, s, false))
		} else {
			row.set(name, strVal(s))
		}
	}
	if p.loadAll {
		h.Each(func(fn, s string) bool {
			if _, done := row.lookup(fn); !done {
				if f := ix.attr(fn); f != nil && f.typ == typeNumeric {
					row.set(fn, docNum(s))
				} else {
					row.set(fn, strVal(s))
				}
				p.firstLk.add(fn)
			}
			return true
		})
	}
	return row
}

// run computes every row of the pipeline (lock held).
func (p *aggPipe) run(c *engine.Ctx, r *aggReq) *aggResult {
	ix := p.ix
	ids := ix.eval(p.q)
	res := &aggResult{stream: true, noRows: r.noRows}
	rows := make([]*aggRow, 0, len(ids))
	for _, id := range ids {
		if row := p.loadRow(c, id, ix.key(id), len(rows), len(ids)); row != nil {
			rows = append(rows, row)
		}
	}
	res.total = len(rows)
	res.read = len(rows)
	// The steps.
	for _, st := range p.plans {
		switch st.kind {
		case stApply:
			for _, row := range rows {
				row.set(st.alias, st.e.eval(row))
			}
		case stFilter:
			out := rows[:0]
			for _, row := range rows {
				if st.e.eval(row).truthy() {
					out = append(out, row)
				}
			}
			rows = out
		case stGroup:
			rows = groupRows(rows, st)
			res.total = len(rows)
			res.stream = false
		case stArrange:
			rows = arrangeRows(rows, st, res)
		}
	}
	res.rows = rows
	res.lk = p.lk
	return res
}

// fieldVal is a schema field's value: NUMERIC as a number; a SORTABLE
// TEXT or TAG read implicitly (from RediSearch's sorting vector) is
// normalized (lower-cased) unless UNF.
func fieldVal(f *field, s string, implicit bool) val {
	switch f.typ {
	case typeNumeric:
		return docNum(s)
	case typeText, typeTag:
		if implicit && f.sortable && !f.unf {
			return strVal(strings.ToLower(s))
		}
	}
	return strVal(s)
}

func arrangeRows(rows []*aggRow, st *aggStep, res *aggResult) []*aggRow {
	if st.sortKeys != nil {
		limit := st.off + st.num
		if st.max > 0 && !st.limited {
			limit = st.max
		}
		if limit == 0 {
			limit = 10
		}
		slices.SortStableFunc(rows, func(a, b *aggRow) int {
			for i, k := range st.sortKeys {
				va, oka := a.lookup(k)
				vb, okb := b.lookup(k)
				if !oka || !okb || va.k == vNull || vb.k == vNull {
					ha, hb := oka && va.k != vNull, okb && vb.k != vNull
					if ha == hb {
						continue
					}
					if ha {
						return -1
					}
					return 1
				}
				r := cmpVal(va, vb)
				if !st.sortAsc[i] {
					r = -r
				}
				if r != 0 {
					return r
				}
			}
			return cmp.Compare(a.id, b.id)
		})
		rows = rows[:min(limit, len(rows))]
		res.stream = false
		if st.off > 0 {
			rows = rows[min(st.off, len(rows)):]
		}
		return rows
	}
	if st.limited && (st.off > 0 || st.num > 0) {
		if res.stream && st.num > 0 && st.off+st.num <= len(rows) {
			// The pager stopped the reading at its last row.
			res.read = int(rows[st.off+st.num-1].src) + 1
			res.total = res.read
		}
		rows = rows[min(st.off, len(rows)):]
		rows = rows[:min(st.num, len(rows))]
	}
	return rows
}

// groupRows is GROUPBY: rows with equal values of the group properties
// form a group; its row holds those values and the reducers' results.
// Groups come in order of first appearance.
func groupRows(rows []*aggRow, st *aggStep) []*aggRow {
	type group struct {
		row  *aggRow
		accs []reducerAcc
	}
	var groups []*group
	index := map[string]*group{}
	// join adds row to the group of key (whose property values are vals),
	// made on first use.
	join := func(key string, vals []val, row *aggRow) {
		g := index[key]
		if g == nil {
			g = &group{row: &aggRow{id: uint32(len(groups)), vals: make([]namedVal, 0, len(st.groupBy)+len(st.reducers))}}
			for i, k := range st.groupBy {
				g.row.set(k, vals[i])
			}
			g.accs = make([]reducerAcc, len(st.reducers))
			for i := range st.reducers {
				g.accs[i] = newAcc(&st.reducers[i])
			}
			index[key] = g
			groups = append(groups, g)
		}
		for _, a := range g.accs {
			a.add(row)
		}
	}
	var kb strings.Builder
	one := make([]val, len(st.groupBy))
	for _, row := range rows {
		// The common case: no array value, one group.
		simple := true
		kb.Reset()
		for i, k := range st.groupBy {
			v := row.get(k)
			if v.k == vArr {
				simple = false
				break
			}
			one[i] = v
			v.writeGroupKey(&kb)
		}
		if simple {
			join(kb.String(), one, row)
			continue
		}
		// A property holding an array (TOLIST, split) groups each element
		// separately, as RediSearch does: the row joins one group per
		// combination.
		combos := [][]val{nil}
		for _, k := range st.groupBy {
			v := row.get(k)
			elems := []val{v}
			if v.k == vArr {
				elems = v.a
			}
			var next [][]val
			for _, c := range combos {
				for _, e := range elems {
					next = append(next, append(slices.Clone(c), e))
				}
			}
			combos = next
		}
		for _, combo := range combos {
			kb.Reset()
			for _, v := range combo {
				v.writeGroupKey(&kb)
			}
			join(kb.String(), combo, row)
		}
	}
	out := make([]*aggRow, len(groups))
	for i, g := range groups {
		for j, a := range g.accs {
			g.row.set(st.reducers[j].alias, a.result())
		}
		out[i] = g.row
	}
	return out
}

type reducerAcc interface {
	add(row *aggRow)
	result() val
}

func newAcc(rs *reducerSpec) reducerAcc {
	switch rs.fn {
	case "count":
		return &countAcc{}
	case "count_distinct", "count_distinctish", "hll":
		return &distinctAcc{src: rs.src, seen: map[string]bool{}}
	case "sum", "avg", "hll_sum":
		return &sumAcc{src: rs.src, avg: rs.fn == "avg"}
	case "min", "max":
		return &minmaxAcc{src: rs.src, max: rs.fn == "max"}
	case "tolist":
		return &tolistAcc{src: rs.src, seen: map[string]bool{}}
	case "quantile":
		return &quantAcc{src: rs.src, q: rs.q}
	case "stddev":
		return &stddevAcc{src: rs.src}
	case "random_sample":
		return &sampleAcc{src: rs.src, k: rs.k}
	case "first_value":
		return &firstAcc{rs: rs}
	}
	return &countAcc{}
}

type countAcc struct{ n int }

func (a *countAcc) add(*aggRow) { a.n++ }
func (a *countAcc) result() val { return numVal(float64(a.n)) }

type distinctAcc struct {
	src  string
	seen map[string]bool
}

func (a *distinctAcc) add(r *aggRow) {
	if v := r.get(a.src); v.k != vNull {
		a.seen[v.groupKey()] = true
	}
}
func (a *distinctAcc) result() val { return numVal(float64(len(a.seen))) }

type sumAcc struct {
	src   string
	avg   bool
	total float64
	n     int
}

// add is RediSearch's sumAdd: every row counts (AVG divides by the
// rows, with or without a number), a value that converts to a number
// adds to the total.
func (a *sumAcc) add(r *aggRow) {
	a.n++
	if f, ok := r.get(a.src).num(); ok {
		a.total += f
	}
}

func (a *sumAcc) result() val {
	if a.avg {
		if a.n == 0 {
			return numVal(0)
		}
		return numVal(a.total / float64(a.n))
	}
	return numVal(a.total)
}

type minmaxAcc struct {
	src string
	max bool
	v   float64
	n   int
}

func (a *minmaxAcc) add(r *aggRow) {
	f, ok := r.get(a.src).num()
	if !ok {
		return
	}
	if a.n == 0 || (a.max && f > a.v) || (!a.max && f < a.v) {
		a.v = f
	}
	a.n++
}

func (a *minmaxAcc) result() val {
	if a.n == 0 {
		return numVal(0)
	}
	return numVal(a.v)
}

type tolistAcc struct {
	src  string
	seen map[string]bool
	out  []val
}

func (a *tolistAcc) add(r *aggRow) {
	v := r.get(a.src)
	if v.k == vNull {
		return
	}
	elems := []val{v}
	if v.k == vArr {
		elems = v.a
	}
	for _, e := range elems {
		if k := e.groupKey(); !a.seen[k] {
			a.seen[k] = true
			a.out = append(a.out, e)
		}
	}
}
func (a *tolistAcc) result() val { return arrVal(a.out) }

type quantAcc struct {
	src string
	q   float64
	vs  []float64
}

// numbers calls fn for v's number, or each of its elements' (arrays), as
// RediSearch's STDDEV and QUANTILE take them.
func numbers(v val, fn func(float64)) {
	if v.k == vArr {
		for _, e := range v.a {
			if f, ok := e.num(); ok {
				fn(f)
			}
		}
		return
	}
	if f, ok := v.num(); ok {
		fn(f)
	}
}

func (a *quantAcc) add(r *aggRow) {
	numbers(r.get(a.src), func(f float64) { a.vs = append(a.vs, f) })
}

// result is the exact q-quantile (nearest rank); RediSearch estimates it
// with a streaming sketch.
func (a *quantAcc) result() val {
	if len(a.vs) == 0 {
		return numVal(0)
	}
	slices.Sort(a.vs)
	i := int(a.q * float64(len(a.vs)))
	return numVal(a.vs[min(i, len(a.vs)-1)])
}

// stddevAcc is RediSearch's deviation.c: Welford's running variance,
// the sample standard deviation.
type stddevAcc struct {
	src  string
	n    int
	m, s float64
}

func (a *stddevAcc) add(r *aggRow) {
	numbers(r.get(a.src), func(d float64) {
		a.n++
		if a.n == 1 {
			a.m, a.s = d, 0
			return
		}
		m := a.m + (d-a.m)/float64(a.n)
		a.s += (d - a.m) * (d - m)
		a.m = m
	})
}

func (a *stddevAcc) result() val {
	if a.n < 2 {
		return numVal(0)
	}
	return numVal(math.Sqrt(a.s / float64(a.n-1)))
}

type sampleAcc struct {
	src  string
	k    int
	seen int
	out  []val
}

func (a *sampleAcc) add(r *aggRow) {
	v := r.get(a.src)
	if v.k == vNull {
		return
	}
	a.seen++
	if len(a.out) < a.k {
		a.out = append(a.out, v)
	} else if j := rand.IntN(a.seen); j < a.k {
		a.out[j] = v
	}
}
func (a *sampleAcc) result() val { return arrVal(a.out) }

type firstAcc struct {
	rs  *reducerSpec
	v   val
	by  val
	set bool
}

// add is RediSearch's fvAdd_sort/fvAdd_noSort: without BY, the first
// row's value; with BY, rows lacking the value are skipped and the value
// of the row whose BY value sorts first (ASC) or last (DESC) is kept.
func (a *firstAcc) add(r *aggRow) {
	if a.rs.by == "" {
		if !a.set {
			a.v, a.set = r.get(a.rs.src), true
		}
		return
	}
	v, ok := r.lookup(a.rs.src)
	if !ok {
		return
	}
	b := r.get(a.rs.by)
	if !a.set {
		a.v, a.by, a.set = v, b, true
		return
	}
	rc := cmpVal(b, a.by)
	if !a.rs.desc {
		rc = -rc
	}
	isNull := a.by.k == vNull
	if (!isNull && rc > 0) || (isNull && rc < 0) {
		a.v, a.by = v, b
	}
}

func (a *firstAcc) result() val { return a.v }

// writeRows sends rows as RediSearch does: each an array of property,
// value pairs in lookup order, skipping properties a row lacks.
func writeRows(c *engine.Ctx, rows []*aggRow, lk *lookup) {
	for _, row := range rows {
		n := 0
		for _, k := range lk.names {
			if _, ok := row.lookup(k); ok {
				n++
			}
		}
		c.W.Array(2 * n)
		for _, k := range lk.names {
			if v, ok := row.lookup(k); ok {
				c.W.BulkString(k)
				v.write(c.W)
			}
		}
	}
}

// ftAggregate is FT.AGGREGATE.
func ftAggregate(c *engine.Ctx, s *state) {
	ix := s.lookupIndex(string(c.Args[1]))
	if ix == nil {
		c.Error(string(c.Args[1]) + ": no such index")
		return
	}
	args := make([]string, len(c.Args)-3)
	for i, a := range c.Args[3:] {
		args[i] = string(a)
	}
	r, e := parseAggregate(args, ix, s.cfg())
	if e != "" {
		c.Error(e)
		return
	}
	r.query = string(c.Args[2])
	p, e := planAggregate(s, r)
	if e != "" {
		c.Error(e)
		return
	}
	if r.cursor && !r.noRows && p.streams() {
		s.startCursor(c, ix, r, nil, p.stream())
		return
	}
	res := p.run(c, r)
	if !r.cursor {
		rows := res.rows
		if max := s.cfg().maxAgg(); int64(len(rows)) > max {
			rows = rows[:max]
		}
		if res.noRows {
			rows = nil
		}
		c.W.Array(1 + len(rows))
		c.W.Int(int64(res.total))
		writeRows(c, rows, res.lk)
		return
	}
	s.startCursor(c, ix, r, res, nil)
}
