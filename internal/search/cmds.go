package search

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/engine"
)

// searchOpts are FT.SEARCH's options.
type searchOpts struct {
	noContent  bool
	withScores bool
	ret        []retField // nil: every field
	retSet     bool
	sortBy     string
	desc       bool
	off, num   int
	params     map[string]string
	filters    []*node
}

type retField struct{ name, as string }

func parseSearchOpts(c *engine.Ctx, ix *index) (*searchOpts, string) {
	o := &searchOpts{num: 10}
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
		case c.ArgIs(i, "verbatim"), c.ArgIs(i, "nostopwords"), c.ArgIs(i, "withpayloads"),
			c.ArgIs(i, "withsortkeys"), c.ArgIs(i, "inorder"), c.ArgIs(i, "explainscore"):
			i++
		case c.ArgIs(i, "slop"), c.ArgIs(i, "language"), c.ArgIs(i, "timeout"), c.ArgIs(i, "dialect"),
			c.ArgIs(i, "scorer"), c.ArgIs(i, "expander"), c.ArgIs(i, "payload"):
			if i+1 >= len(args) {
				return nil, "Bad arguments for " + strings.ToUpper(string(args[i])) + ": Expected an argument"
			}
			if c.ArgIs(i, "dialect") {
				d, err := strconv.Atoi(string(args[i+1]))
				if err != nil || d < 1 || d > 4 {
					return nil, "DIALECT requires a non negative integer >=1 and <= 4"
				}
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
			if i+1 >= len(args) {
				return nil, "Bad arguments for SORTBY: Expected an argument"
			}
			o.sortBy = strings.TrimPrefix(string(args[i+1]), "@")
			i += 2
			if i < len(args) && (c.ArgIs(i, "asc") || c.ArgIs(i, "desc")) {
				o.desc = c.ArgIs(i, "desc")
				i++
			}
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
		case c.ArgIs(i, "filter"):
			// The old numeric filter: FILTER field min max.
			if i+3 >= len(args) {
				return nil, "Bad arguments for FILTER: Expected an argument"
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
				if !ok {
					return nil, "Bad upper range: " + string(args[i+2+k])
				}
				*p = key
			}
			o.filters = append(o.filters, n)
			i += 4
		case c.ArgIs(i, "inkeys"), c.ArgIs(i, "infields"), c.ArgIs(i, "geofilter"), c.ArgIs(i, "highlight"), c.ArgIs(i, "summarize"):
			return nil, "ERR Ordo's search does not support " + strings.ToUpper(string(args[i])) + " yet"
		default:
			return nil, "Unknown argument `" + string(args[i]) + "` at position " + strconv.Itoa(i-2) + " for <main>"
		}
	}
	return o, ""
}

type hit struct {
	id    uint32
	key   string
	score float64
	sort  string // the sort key (numeric encoding or folded text)
	has   bool   // has a sort value
}

// ftSearch is FT.SEARCH.
func ftSearch(c *engine.Ctx, s *state) {
	ix := s.lookupIndex(string(c.Args[1]))
	if ix == nil {
		c.Error(string(c.Args[1]) + ": no such index")
		return
	}
	o, errMsg := parseSearchOpts(c, ix)
	if errMsg != "" {
		c.Error(errMsg)
		return
	}
	q, err := parseQuery(string(c.Args[2]), o.params, ix)
	if err != nil {
		c.Error(err.Error())
		return
	}
	q = s.expandSynonyms(ix, q)
	if len(o.filters) > 0 {
		q = &node{op: opAnd, kids: append([]*node{q}, o.filters...)}
	}
	var sortF *field
	sortFi := -1
	if o.sortBy != "" {
		sortF = ix.attr(o.sortBy)
		if sortF == nil {
			c.Error("Property `" + o.sortBy + "` not loaded nor in schema")
			return
		}
		sortFi = slices.Index(ix.fields, sortF)
	}
	ids := ix.eval(q)
	var terms []scoreTerm
	if o.withScores || sortF == nil {
		terms = ix.scoreTerms(q)
	}
	hits := make([]hit, 0, len(ids))
	for _, id := range ids {
		d := ix.docs[id]
		// Never return a key past its TTL, even before it is reaped (the
		// index holds exactly the hashes present: it is never stale).
		if at := c.E.PeekExpire(ix.db, d.key); at >= 0 && at <= c.Now {
			continue
		}
		h := hit{id: id, key: d.key}
		if terms != nil {
			h.score = ix.score(id, terms)
		}
		if sortF != nil {
			h.sort, h.has = ix.sortValue(c.E, d, sortF, sortFi)
		}
		hits = append(hits, h)
	}
	if sortF != nil {
		slices.SortStableFunc(hits, func(a, b hit) int {
			if a.has != b.has { // documents without the value come last
				if a.has {
					return -1
				}
				return 1
			}
			r := strings.Compare(a.sort, b.sort)
			if o.desc {
				r = -r
			}
			if r != 0 {
				return r
			}
			return cmp.Compare(a.id, b.id)
		})
	} else if len(terms) > 0 {
		slices.SortStableFunc(hits, func(a, b hit) int {
			if r := cmp.Compare(b.score, a.score); r != 0 {
				return r
			}
			return cmp.Compare(a.id, b.id)
		})
	}
	page := hits[min(o.off, len(hits)):]
	page = page[:min(o.num, len(page))]
	per := 1
	if o.withScores {
		per++
	}
	content := !o.noContent && !(o.retSet && len(o.ret) == 0)
	if content {
		per++
	}
	c.W.Array(1 + per*len(page))
	c.W.Int(int64(len(hits)))
	for _, h := range page {
		c.W.BulkString(h.key)
		if o.withScores {
			c.W.BulkString(strconv.FormatFloat(h.score, 'g', -1, 64))
		}
		if content {
			writeFields(c, ix, h.key, o)
		}
	}
}

// sortValue is d's value of field f for SORTBY: the number's order key,
// or the case-folded text.
func (ix *index) sortValue(e *engine.Engine, d *doc, f *field, fi int) (string, bool) {
	if f.typ == typeNumeric && d.nums[fi] != "" {
		return d.nums[fi], true
	}
	v, _, ok := e.Peek(ix.db, d.key)
	if !ok {
		return "", false
	}
	h, ok := v.Obj().(*engine.Hash)
	if !ok {
		return "", false
	}
	s, ok := h.Get(f.name)
	if !ok || f.typ == typeNumeric {
		return "", false
	}
	return strings.ToLower(s), true
}

// writeFields writes the hash's fields at key (all, or RETURN's).
func writeFields(c *engine.Ctx, ix *index, key string, o *searchOpts) {
	v, _, _ := c.E.Peek(ix.db, key)
	h, _ := v.Obj().(*engine.Hash)
	if h == nil {
		c.W.Array(0)
		return
	}
	if !o.retSet {
		c.W.Array(2 * h.Len())
		h.Each(func(f, v string) bool {
			c.W.BulkString(f)
			c.W.BulkString(v)
			return true
		})
		return
	}
	var out []string
	for _, r := range o.ret {
		name := r.name
		if f := ix.attr(strings.TrimPrefix(name, "@")); f != nil {
			name = f.name
		}
		if val, ok := h.Get(name); ok {
			out = append(out, r.as, val)
		}
	}
	c.W.Array(len(out))
	for _, s := range out {
		c.W.BulkString(s)
	}
}

// ftInfo is FT.INFO, in RediSearch's RESP2 shape (a subset of its keys).
func ftInfo(c *engine.Ctx, s *state) {
	ix := s.lookupIndex(string(c.Args[1]))
	if ix == nil {
		c.Error(ErrUnknownIndex)
		return
	}
	w := c.W
	w.Array(28)
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
	w.BulkString("HASH")
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
		case typeTag:
			a = append(a, "SEPARATOR", string(f.sep))
			if f.caseSensitive {
				a = append(a, "CASESENSITIVE")
			}
		}
		if f.sortable {
			a = append(a, "SORTABLE")
		}
		if f.noindex {
			a = append(a, "NOINDEX")
		}
		w.Array(len(a))
		for _, x := range a {
			w.BulkString(x)
		}
	}
	records := 0
	for _, d := range ix.docs {
		if d == nil {
			continue
		}
		for i := range ix.fields {
			if d.nums[i] != "" {
				records++
			}
			records += len(d.tags[i]) + len(d.terms[i])
		}
	}
	kv := []string{
		"num_docs", strconv.Itoa(ix.live),
		"max_doc_id", strconv.Itoa(len(ix.docs)),
		"num_terms", strconv.Itoa(ix.numTerms()),
		"num_records", strconv.Itoa(records),
		"indexing", "0",
		"percent_indexed", "1",
		"hash_indexing_failures", strconv.FormatInt(ix.failures, 10),
		"number_of_uses", "1",
		"cleaning", "0",
	}
	for i := 0; i < len(kv); i += 2 {
		w.BulkString(kv[i])
		switch kv[i] {
		case "indexing", "hash_indexing_failures", "number_of_uses", "cleaning":
			n, _ := strconv.Atoi(kv[i+1])
			w.Int(int64(n))
		default:
			w.BulkString(kv[i+1])
		}
	}
	w.BulkString("Index Errors")
	w.Array(6)
	w.BulkString("indexing failures")
	w.Int(ix.failures)
	w.BulkString("last indexing error")
	w.BulkString("N/A")
	w.BulkString("last indexing error key")
	w.BulkString("N/A")
}
