package search

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// searchOpts are FT.SEARCH's options.
type searchOpts struct {
	noContent   bool
	general     bool // tests: no early-stop path (fastpath.go)
	withScores  bool
	withPayload bool
	withSortKey bool
	explain     bool
	verbatim    bool
	noStop      bool
	inorder     bool
	slop        int
	lang        string
	scorer      string
	ret         []retField // nil: every field
	retSet      bool
	sortBy      []sortKey
	off, num    int
	params      map[string]string
	filters     []*node
	inkeys      []string
	inkeysSet   bool
	infields    []string
	infieldsSet bool
	hl          *hlSpec // HIGHLIGHT/SUMMARIZE (highlight.go); nil: neither
	// hitBuf, when set, is a buffer the fast paths may build the page in
	// (state.hitBuf): set by callers that are done with the page before
	// the next search.
	hitBuf *[]hit
}

// pageBuf returns an empty slice of hits with room for n, from o.hitBuf
// when it has that room (a page of 100 hits is 7 KB to allocate and
// zero, a fifth of the index's part of a typed Search).
func (o *searchOpts) pageBuf(n int) []hit {
	if o.hitBuf == nil {
		return make([]hit, 0, n)
	}
	if cap(*o.hitBuf) < n {
		*o.hitBuf = make([]hit, 0, n)
	}
	return (*o.hitBuf)[:0]
}

type retField struct{ name, as string }

type sortKey struct {
	name string
	desc bool
}

func parseSearchOpts(c *engine.Ctx, ix *index) (*searchOpts, string) {
	o := &searchOpts{num: 10, slop: -1, lang: ix.lang, scorer: scorerTFIDF}
	args := c.Args
	i := 3
	count := func() (int, bool) {
		if i+1 >= len(args) {
			return 0, false
		}
		n, err := strconv.Atoi(string(args[i+1]))
		return n, err == nil && n >= 0 && n <= len(args) // no overflow in i+2+n
	}
	for i < len(args) {
		switch {
		case c.ArgIs(i, "nocontent"):
			o.noContent = true
			i++
		case c.ArgIs(i, "withscores"):
			o.withScores = true
			i++
		case c.ArgIs(i, "withpayloads"):
			o.withPayload = true
			i++
		case c.ArgIs(i, "withsortkeys"):
			o.withSortKey = true
			i++
		case c.ArgIs(i, "verbatim"):
			o.verbatim = true
			i++
		case c.ArgIs(i, "nostopwords"):
			o.noStop = true
			i++
		case c.ArgIs(i, "inorder"):
			o.inorder = true
			i++
		case c.ArgIs(i, "explainscore"):
			o.explain = true
			i++
		case c.ArgIs(i, "slop"), c.ArgIs(i, "language"), c.ArgIs(i, "timeout"), c.ArgIs(i, "dialect"),
			c.ArgIs(i, "scorer"), c.ArgIs(i, "expander"), c.ArgIs(i, "payload"):
			if i+1 >= len(args) {
				return nil, "Bad arguments for " + strings.ToUpper(string(args[i])) + ": Expected an argument"
			}
			v := string(args[i+1])
			switch {
			case c.ArgIs(i, "dialect"):
				d, err := strconv.Atoi(v)
				if err != nil || d < 1 || d > 4 {
					return nil, "DIALECT requires a non negative integer >=1 and <= 4"
				}
			case c.ArgIs(i, "slop"):
				n, err := strconv.Atoi(v)
				if err != nil || n < -1 {
					return nil, "Bad arguments for SLOP: Value is outside acceptable bounds"
				}
				o.slop = n
			case c.ArgIs(i, "timeout"):
				if n, err := strconv.ParseInt(v, 10, 64); err != nil || n < 0 {
					return nil, "Bad arguments for TIMEOUT: Value is outside acceptable bounds"
				}
			case c.ArgIs(i, "language"):
				if !validLanguage(v) {
					return nil, "No such language " + v
				}
				o.lang = strings.ToLower(v)
			case c.ArgIs(i, "expander"):
				// The stemmer is the default expander; any other name
				// (none is registered here) expands nothing.
				if !strings.EqualFold(v, "SBSTEM") && !strings.EqualFold(v, "DEFAULT") {
					o.verbatim = true
				}
			case c.ArgIs(i, "scorer"):
				if !validScorer(v) {
					return nil, "Scoring function `" + v + "` not found"
				}
				o.scorer = v
			}
			i += 2
		case c.ArgIs(i, "return"):
			n, ok := count()
			if !ok || i+2+n > len(args) {
				return nil, "Bad arguments for RETURN: Expected an argument, but none provided"
			}
			o.retSet = true
			o.ret = []retField{}
			for j := i + 2; j < i+2+n; j++ {
				r := retField{name: string(args[j])}
				r.as = r.name
				if j+2 < i+2+n && strings.EqualFold(string(args[j+1]), "as") {
					r.as = string(args[j+2])
					j += 2
				}
				o.ret = append(o.ret, r)
			}
			i += 2 + n
		case c.ArgIs(i, "sortby"):
			// Ordo's extension: SORTBY may be given several times; the
			// first is the primary key.
			if i+1 >= len(args) {
				return nil, "Bad arguments for SORTBY: Expected an argument"
			}
			k := sortKey{name: strings.TrimPrefix(string(args[i+1]), "@")}
			i += 2
			if i < len(args) && (c.ArgIs(i, "asc") || c.ArgIs(i, "desc")) {
				k.desc = c.ArgIs(i, "desc")
				i++
			}
			o.sortBy = append(o.sortBy, k)
		case c.ArgIs(i, "limit"):
			if i+2 >= len(args) {
				return nil, "Bad arguments for LIMIT: Expected an argument"
			}
			off, err1 := strconv.Atoi(string(args[i+1]))
			num, err2 := strconv.Atoi(string(args[i+2]))
			if err1 != nil || err2 != nil || off < 0 || num < 0 {
				return nil, "Bad arguments for LIMIT: Value is outside acceptable bounds"
			}
			o.off, o.num = off, num
			i += 3
		case c.ArgIs(i, "params"):
			n, ok := count()
			if !ok || n%2 != 0 || i+2+n > len(args) {
				return nil, "Bad arguments for PARAMS: Expected an even number of arguments"
			}
			o.params = map[string]string{}
			for j := i + 2; j < i+2+n; j += 2 {
				o.params[string(args[j])] = string(args[j+1])
			}
			i += 2 + n
		case c.ArgIs(i, "inkeys"), c.ArgIs(i, "infields"):
			n, ok := count()
			name := strings.ToUpper(string(args[i]))
			if !ok || i+2+n > len(args) {
				return nil, "Bad arguments for " + name + ": Expected an argument, but none provided"
			}
			var list []string
			for _, a := range args[i+2 : i+2+n] {
				list = append(list, string(a))
			}
			if name == "INKEYS" {
				o.inkeys, o.inkeysSet = append(o.inkeys, list...), true
			} else {
				o.infields, o.infieldsSet = append(o.infields, list...), true
			}
			i += 2 + n
		case c.ArgIs(i, "filter"):
			// The old numeric filter: FILTER field min max.
			if i+3 >= len(args) {
				return nil, "FILTER requires 3 arguments"
			}
			f := ix.attr(string(args[i+1]))
			if f == nil || f.typ != typeNumeric {
				return nil, "Unknown field `" + string(args[i+1]) + "`"
			}
			n := &node{op: opNum, field: f.alias}
			for k, p := range []*string{&n.lo, &n.hi} {
				v := string(args[i+2+k])
				if strings.HasPrefix(v, "(") {
					v = v[1:]
					if k == 0 {
						n.loEx = true
					} else {
						n.hiEx = true
					}
				}
				key, ok := parseNumber(v)
				// The filter takes -inf and +inf, not a bare inf.
				if !ok || strings.EqualFold(v, "inf") || strings.EqualFold(v, "infinity") {
					return nil, "Bad " + [2]string{"lower", "upper"}[k] + " range: " + string(args[i+2+k])
				}
				*p = key
			}
			o.filters = append(o.filters, n)
			i += 4
		case c.ArgIs(i, "geofilter"):
			if i+5 >= len(args) {
				return nil, "GEOFILTER requires 5 arguments"
			}
			f := ix.attr(string(args[i+1]))
			if f == nil || f.typ != typeGeo {
				return nil, "Unknown field `" + string(args[i+1]) + "`"
			}
			n := &node{op: opGeo, field: f.alias}
			for k, what := range []string{"<lon>", "<lat>", "<radius>"} {
				x, err := strconv.ParseFloat(string(args[i+2+k]), 64)
				if err != nil || x != x {
					return nil, "Bad arguments for " + what + ": Could not convert argument to expected type"
				}
				n.geo[k] = x
			}
			u, ok := geoUnit(string(args[i+5]))
			if !ok {
				return nil, "Unknown distance unit " + string(args[i+5])
			}
			n.geo[2] *= u
			o.filters = append(o.filters, n)
			i += 6
		case c.ArgIs(i, "highlight"), c.ArgIs(i, "summarize"):
			if o.hl == nil {
				o.hl = &hlSpec{}
			}
			j, msg := parseHighlight(args, i+1, o.hl, c.ArgIs(i, "highlight"))
			if msg != "" {
				return nil, msg
			}
			i = j
		default:
			return nil, "Unknown argument `" + string(args[i]) + "` at position " + strconv.Itoa(i-2) + " for <main>"
		}
	}
	return o, ""
}

type hit struct {
	id    uint32
	seq   uint64
	key   string
	score float64
	sort  []sortVal
	expl  *expl
}

// sortVal is one SORTBY value: a number's order key or a string.
type sortVal struct {
	p   uint64  // numbers: orderedBits(f), compared first
	f   float64 // a number's double
	v   string  // a string; a number's exact key when its double does not say it (numCmp)
	raw string  // a number's text
	num bool
	has bool
}

// ftSearch is FT.SEARCH.
func ftSearch(c *engine.Ctx, s *state) {
	ix := s.lookupIndex(string(c.Args[1]))
	if ix == nil {
		c.Error(string(c.Args[1]) + ": no such index")
		return
	}
	o, errMsg := parseSearchOpts(c, ix)
	if errMsg == "" && o.hl != nil {
		errMsg = checkHighlight(ix, o)
	}
	if errMsg != "" {
		c.Error(errMsg)
		return
	}
	q, err := parseQueryOpts(string(c.Args[2]), o.params, ix, o.noStop)
	if err != nil {
		c.Error(err.Error())
		return
	}
	o.hitBuf = &s.hitBuf // the page is written out before the next search
	total, page, errMsg := s.runSearch(c.E, ix, q, o, c.Now)
	if errMsg != "" {
		c.Error(errMsg)
		return
	}
	per := 1
	for _, b := range []bool{o.withScores, o.withPayload, o.withSortKey} {
		if b {
			per++
		}
	}
	content := !o.noContent && !(o.retSet && len(o.ret) == 0)
	if content {
		per++
	}
	var hl *highlighter
	if content && o.hl != nil && len(page) > 0 {
		hl = s.newHighlighter(ix, q, o)
	}
	c.W.Array(1 + per*len(page))
	c.W.Int(int64(total))
	for _, h := range page {
		c.W.BulkString(h.key)
		if o.withScores {
			if h.expl != nil {
				c.W.Array(2)
			}
			c.W.Bulk(resp.AppendDouble(nil, h.score))
			if h.expl != nil {
				h.expl.write(c.W)
			}
		}
		if o.withPayload {
			c.W.Null()
		}
		if o.withSortKey {
			if len(h.sort) == 0 || !h.sort[0].has {
				c.W.Null()
			} else if h.sort[0].num {
				c.W.BulkString("#" + h.sort[0].raw)
			} else {
				c.W.BulkString("$" + h.sort[0].v)
			}
		}
		if content {
			writeFields(c, ix, h, o, hl)
		}
	}
}

// runSearch evaluates the query q of FT.SEARCH (or of the typed Search)
// with its options: the number of matches and the page of hits, in order;
// errMsg is a reply error. now (ms) hides keys past their TTL. The lock
// is held and the indexes are in sync.
func (s *state) runSearch(e *engine.Engine, ix *index, q *node, o *searchOpts, now int64) (total int, page []hit, errMsg string) {
	q = s.expandSynonyms(ix, q)
	qc := ix.newQctx()
	qc.slop, qc.inorder, qc.verbatim, qc.lang = o.slop, o.inorder, o.verbatim, o.lang
	if o.infieldsSet {
		qc.mask = 0
		for _, name := range o.infields {
			if f := ix.attr(name); f != nil && f.typ == typeText && !f.noindex {
				qc.mask |= 1 << f.ord
			}
		}
	}
	if o.inkeysSet {
		var ids []uint32
		for _, k := range o.inkeys {
			if id, ok := ix.idOf(k); ok {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		o.filters = append(o.filters, &node{op: opIDs, ids: slices.Compact(ids)})
	}
	if len(o.filters) > 0 {
		q = &node{op: opAnd, kids: append([]*node{q}, o.filters...), nocheck: true}
	}
	var sortF []*field
	var sortFi []int
	for _, k := range o.sortBy {
		f := ix.attr(k.name)
		if f == nil {
			return 0, nil, "Property `" + k.name + "` not loaded nor in schema"
		}
		sortF = append(sortF, f)
		sortFi = append(sortFi, slices.Index(ix.fields, f))
	}
	// The fast paths score every hit alike: a $weight needs the scorer.
	general := o.general || q.weighted()
	if q.op == opNum && !general {
		if total, hits, ok := s.searchNumRange(e, ix, q, o, now, sortF, sortFi); ok {
			page = hits[min(o.off, len(hits)):]
			page = page[:min(o.num, len(page))]
			ix.setKeys(page)
			return total, page, ""
		}
	}
	if (q.op == opAnd || q.op == opTag) && !general {
		if total, hits, ok := s.searchSorted(e, ix, q, o, now, sortF, sortFi); ok {
			page = hits[min(o.off, len(hits)):]
			page = page[:min(o.num, len(page))]
			ix.setKeys(page)
			return total, page, ""
		}
	}
	ids := qc.eval(q)
	switch q.op {
	case opTag, opNum, opGeo, opMissing, opIDs:
		// A leaf alone: match (scoring) reads its set, evaluated here.
		qc.sets = map[*node][]uint32{q: ids}
	}
	scored := o.withScores || len(sortF) == 0
	hits := make([]hit, 0, len(ids))
	var sortBuf []sortVal // every hit's sort values, in one allocation
	if len(sortF) > 0 {
		sortBuf = make([]sortVal, 0, len(ids)*len(sortF))
	}
	expiring := ix.expiring(e)
	for _, id := range ids {
		d := ix.doc(id)
		// Never return a key past its TTL, even before it is reaped (the
		// index holds exactly the hashes present: it is never stale).
		if expiring && ix.expired(e, id, now) {
			continue
		}
		h := hit{id: id, seq: uint64(id)}
		if scored {
			if r := qc.matchDoc(q, id); r != nil {
				sd := sdoc{d, ix.docScore(id)}
				h.score = ix.scoreDoc(o.scorer, r, sd)
				if o.explain && o.withScores {
					h.expl = ix.explain(o.scorer, r, sd)
				}
			}
		}
		start := len(sortBuf)
		for i, f := range sortF {
			if f.typ == typeNumeric && !o.withSortKey {
				// The order key is in the index; the text is only for
				// WITHSORTKEYS.
				sortBuf = append(sortBuf, ix.nums[sortFi[i]].sortVal(id))
				continue
			}
			sortBuf = append(sortBuf, ix.sortValue(e, id, f, sortFi[i]))
		}
		if len(sortF) > 0 {
			h.sort = sortBuf[start:len(sortBuf):len(sortBuf)]
		}
		hits = append(hits, h)
	}
	order := hitOrder(o, len(sortF) > 0)
	total = len(hits)
	hits = topK(hits, o.off+o.num, order)
	page = hits[min(o.off, len(hits)):]
	page = page[:min(o.num, len(page))]
	ix.setKeys(page)
	return total, page, ""
}

// setKeys fills in the hits' keys (copies: a hit may outlive the index's
// arrays).
func (ix *index) setKeys(hits []hit) {
	// One string for the page's keys, each a substring of it.
	n := 0
	for i := range hits {
		hits[i].key = ix.key(hits[i].id)
		n += len(hits[i].key)
	}
	var sb strings.Builder
	sb.Grow(n)
	for i := range hits {
		sb.WriteString(hits[i].key)
	}
	all := sb.String()
	for i := range hits {
		n := len(hits[i].key)
		hits[i].key, all = all[:n], all[n:]
	}
}

// expiring reports whether keys of the index's database have a TTL.
func (ix *index) expiring(e *engine.Engine) bool { return e.DBs()[ix.db].ExpiresLen() > 0 }

// expired reports whether document id's key is past its TTL at now.
func (ix *index) expired(e *engine.Engine, id uint32, now int64) bool {
	at := e.PeekExpire(ix.db, ix.key(id))
	return at >= 0 && at <= now
}

// topK returns the first k hits in order (a total order), sorted: with a
// bounded heap when k is small against the hits, as RediSearch's sorter.
func topK(hits []hit, k int, order func(a, b hit) int) []hit {
	if k <= 0 {
		return nil
	}
	if k*4 >= len(hits) {
		slices.SortFunc(hits, order)
		return hits[:min(k, len(hits))]
	}
	// A max-heap (by order) of the best k so far: its root is the worst.
	h := make([]hit, 0, k)
	down := func(i int) {
		for {
			l, w := 2*i+1, i
			if l < len(h) && order(h[l], h[w]) > 0 {
				w = l
			}
			if r := l + 1; r < len(h) && order(h[r], h[w]) > 0 {
				w = r
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	for _, x := range hits {
		if len(h) < k {
			h = append(h, x)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if order(h[i], h[p]) <= 0 {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if order(x, h[0]) < 0 {
			h[0] = x
			down(0)
		}
	}
	slices.SortFunc(h, order)
	return h
}

// sortValue is document id's value of field f for SORTBY: the number's
// order key, or the text (lower-cased for a SORTABLE field without UNF, as
// RediSearch normalizes sortable values).
func (ix *index) sortValue(e *engine.Engine, id uint32, f *field, fi int) sortVal {
	var num sortVal
	if f.typ == typeNumeric {
		if num = ix.nums[fi].sortVal(id); !num.has {
			return sortVal{}
		}
	}
	v, _, ok := e.Peek(ix.db, ix.key(id))
	if !ok {
		return sortVal{}
	}
	src, ok := ix.sourceOf(v)
	if !ok {
		return sortVal{}
	}
	s, ok := src.get(f.name)
	if !ok {
		return sortVal{}
	}
	if f.typ == typeNumeric {
		num.raw = s
		return num
	}
	if f.sortable && !f.unf && f.typ != typeGeo {
		s = foldTerm(s)
	}
	return sortVal{v: s, has: true}
}

// writeFields writes the document's fields at key (all, or RETURN's),
// highlighted or summarized by hl when not nil.
func writeFields(c *engine.Ctx, ix *index, h hit, o *searchOpts, hl *highlighter) {
	if hl == nil && !o.retSet && !ix.json {
		// A hash's every field, written straight from it.
		if hh := ix.hashOf(c.E, h.id, h.key); hh != nil {
			c.W.Array(2 * hh.Len())
			hh.Each(func(f, v string) bool {
				c.W.BulkString(f)
				c.W.BulkString(v)
				return true
			})
		} else {
			c.W.Array(0)
		}
		return
	}
	key := h.key
	pairs, skip := docFields(c.E, ix, key, h.id, o)
	if hl != nil {
		hl.highlightRow(c.E, key, pairs, skip)
	}
	c.W.Array(len(pairs))
	for _, s := range pairs {
		c.W.BulkString(s)
	}
}

// docFields are the (name, value) pairs FT.SEARCH returns for the
// document at key; skip[i/2] marks a value that is not a string (a JSON
// number, array or object), which HIGHLIGHT/SUMMARIZE leave alone.
func docFields(e *engine.Engine, ix *index, key string, id uint32, o *searchOpts) (pairs []string, skip []bool) {
	if ix.json {
		v, _, _ := e.Peek(ix.db, key)
		j, _ := v.Obj().(*engine.JSON)
		if j == nil {
			return nil, nil
		}
		if !o.retSet {
			return []string{"$", j.String()}, []bool{true}
		}
		src := jsonSource{j.Root(), ix}
		for _, r := range o.ret {
			name := strings.TrimPrefix(r.name, "@")
			if name == "$" {
				pairs = append(pairs, r.as, j.String())
				skip = append(skip, true)
			} else if val, str, ok := src.getStr(name); ok {
				pairs = append(pairs, r.as, val)
				skip = append(skip, !str)
			}
		}
		return pairs, skip
	}
	h := ix.hashOf(e, id, key)
	if h == nil {
		return nil, nil
	}
	if !o.retSet {
		pairs = make([]string, 0, 2*h.Len())
		h.Each(func(f, v string) bool {
			pairs = append(pairs, f, v)
			return true
		})
		return pairs, nil
	}
	for _, r := range o.ret {
		name := r.name
		if f := ix.attr(strings.TrimPrefix(name, "@")); f != nil {
			name = f.name
		}
		if val, ok := h.Get(name); ok {
			pairs = append(pairs, r.as, val)
		}
	}
	return pairs, nil
}

// ftInfo is FT.INFO, in RediSearch's RESP2 shape. Its keys come in
// RediSearch 2.4's order up to cursor_stats, because node-redis 4 reads
// the reply by position (numDocs at 9, gc_stats at 45, cursor_stats at
// 47); later RediSearch keys follow. Ordo does not account memory per index
// structure, so the *_sz_mb and *_size_mb figures, and the averages made
// from them, are 0 (the process's RSS after MEMORY PURGE shows what the
// indexes take; bench/ measures it per field and document); the gc_stats are 0 as there is no garbage collector: an entry leaves its
// index in the same step as the write that removes it.
func ftInfo(c *engine.Ctx, s *state) {
	ix := s.lookupIndex(string(c.Args[1]))
	if ix == nil {
		c.Error(ErrUnknownIndex)
		return
	}
	w := c.W
	w.Array(54)
	w.BulkString("index_name")
	w.BulkString(ix.name)
	w.BulkString("index_options")
	w.Array(len(ix.options))
	for _, o := range ix.options {
		w.BulkString(o)
	}
	w.BulkString("index_definition")
	w.Array(6)
	w.BulkString("key_type")
	if ix.json {
		w.BulkString("JSON")
	} else {
		w.BulkString("HASH")
	}
	w.BulkString("prefixes")
	prefixes := ix.prefixes
	if len(prefixes) == 0 {
		prefixes = []string{""}
	}
	w.Array(len(prefixes))
	for _, p := range prefixes {
		w.BulkString(p)
	}
	w.BulkString("default_score")
	w.BulkString("1")
	w.BulkString("attributes")
	w.Array(len(ix.fields))
	for _, f := range ix.fields {
		var a []string
		a = append(a, "identifier", f.name, "attribute", f.alias, "type", f.typ.String())
		switch f.typ {
		case typeText:
			a = append(a, "WEIGHT", strconv.FormatFloat(f.weight, 'g', -1, 64))
			if f.nostem {
				a = append(a, "NOSTEM")
			}
			if f.phonetic != "" {
				a = append(a, "PHONETIC", f.phonetic)
			}
		case typeTag:
			a = append(a, "SEPARATOR", string(f.sep))
			if f.caseSensitive {
				a = append(a, "CASESENSITIVE")
			}
		}
		if f.sortable {
			a = append(a, "SORTABLE")
			if f.unf {
				a = append(a, "UNF")
			}
		}
		if f.missing {
			a = append(a, "INDEXMISSING")
		}
		if f.empty {
			a = append(a, "INDEXEMPTY")
		}
		if f.noindex {
			a = append(a, "NOINDEX")
		}
		w.Array(len(a))
		for _, x := range a {
			w.BulkString(x)
		}
	}
	records := ix.records
	indexing := "0"
	if ix.scan.active {
		indexing = "1"
	}
	perDoc := "nan" // RediSearch's 0/0
	if ix.live > 0 {
		perDoc = strconv.FormatFloat(float64(records)/float64(ix.live), 'g', -1, 64)
	}
	mem := ix.memory()
	mb := func(n int) string { return strconv.FormatFloat(float64(n)/(1<<20), 'g', -1, 64) }
	perRecord, offsetsPerTerm, offsetBits := "nan", "nan", "nan"
	if records > 0 {
		perRecord = strconv.FormatFloat(float64(mem.inverted)/float64(records), 'g', -1, 64)
		offsetBits = strconv.FormatFloat(float64(mem.offsets*8)/float64(records), 'g', -1, 64)
	}
	if ix.textRecs > 0 {
		offsetsPerTerm = strconv.FormatFloat(float64(ix.offsets)/float64(ix.textRecs), 'g', -1, 64)
	}
	kv := []string{
		"num_docs", strconv.Itoa(ix.live),
		"max_doc_id", strconv.FormatUint(ix.seq, 10),
		"num_terms", strconv.Itoa(ix.numTerms()),
		"num_records", strconv.Itoa(records),
		"inverted_sz_mb", mb(mem.inverted),
		"vector_index_sz_mb", "0",
		"total_inverted_index_blocks", strconv.Itoa(mem.blocks),
		"offset_vectors_sz_mb", mb(mem.offsets),
		"doc_table_size_mb", mb(mem.docTable),
		"sortable_values_size_mb", mb(mem.sortables),
		"key_table_size_mb", mb(mem.keyTable),
		"records_per_doc_avg", perDoc,
		"bytes_per_record_avg", perRecord,
		"offsets_per_term_avg", offsetsPerTerm,
		"offset_bits_per_record_avg", offsetBits,
		"hash_indexing_failures", strconv.FormatInt(ix.failures, 10),
		"indexing", indexing,
		"percent_indexed", strconv.FormatFloat(ix.scan.percent(), 'g', -1, 64),
	}
	writeKV := func(kv []string) {
		for i := 0; i < len(kv); i += 2 {
			w.BulkString(kv[i])
			switch kv[i] {
			case "indexing", "hash_indexing_failures", "number_of_uses", "cleaning",
				"global_idle", "global_total", "index_capacity", "index_total":
				n, _ := strconv.Atoi(kv[i+1])
				w.Int(int64(n))
			default:
				w.BulkString(kv[i+1])
			}
		}
	}
	writeKV(kv)
	w.BulkString("gc_stats")
	gc := []string{"bytes_collected", "0", "total_ms_run", "0", "total_cycles", "0",
		"average_cycle_time_ms", "nan", "last_run_time_ms", "0",
		"gc_numeric_trees_missed", "0", "gc_blocks_denied", "0"}
	w.Array(len(gc))
	writeKV(gc)
	s.expireCursors(c.Now)
	mine := 0
	for _, cur := range s.x.cursors {
		if cur.ix == ix {
			mine++
		}
	}
	w.BulkString("cursor_stats")
	w.Array(8)
	writeKV([]string{"global_idle", strconv.Itoa(len(s.x.cursors)), "global_total", strconv.Itoa(len(s.x.cursors)),
		"index_capacity", strconv.Itoa(maxCursors), "index_total", strconv.Itoa(mine)})
	writeKV([]string{"number_of_uses", "1", "cleaning", "0"})
	w.BulkString("Index Errors")
	w.Array(6)
	w.BulkString("indexing failures")
	w.Int(ix.failures)
	w.BulkString("last indexing error")
	w.BulkString("N/A")
	w.BulkString("last indexing error key")
	w.BulkString("N/A")
}
