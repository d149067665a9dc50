package search

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The query language: RediSearch's dialect 2, for the subset this package
// implements (see the package doc).
//
//	union     := intersect ('|' intersect)*
//	intersect := unary+
//	unary     := '-' unary | atom
//	atom      := '(' union ')' | '*' | '@' field ':' fieldexpr | term | '"' terms '"'
//	fieldexpr := '[' bound bound ']' | '{' tag ('|' tag)* '}' | '(' union ')' | term
//
// A term is a run of characters other than spaces and punctuation (a
// backslash escapes the next character); a trailing '*' makes it a
// prefix; $name is replaced by the PARAMS value of name (for a word or a
// prefix, one term: paramTerm).

type opKind int

const (
	opAll    opKind = iota // *
	opNone                 // matches nothing (a lone stop word)
	opTerm                 // text term in field (or every TEXT field)
	opPrefix               // text prefix
	opTag                  // tags
	opNum                  // numeric range
	opAnd
	opOr
	opNot
	opSuffix  // text suffix (*fix)
	opInfix   // text infix (*fix*)
	opFuzzy   // text within Levenshtein distance dist (%term%)
	opGeo     // geo radius
	opMissing // ismissing(@field)
	opIDs     // the documents of INKEYS
	opOpt     // ~x: optional, matches every document, scores x where present
)

type tagTerm struct {
	val    string
	prefix bool
}

type node struct {
	op    opKind
	field string // attribute; "" for every TEXT field
	term  string
	tags  []tagTerm
	lo    string
	hi    string
	loEx  bool
	hiEx  bool
	kids  []*node
	stop  bool // a stop word: ignored in an intersection

	exact    bool       // opAnd: a quoted phrase (slop 0, in order)
	verbatim bool       // text leaf: no stemming or phonetic expansion
	dist     int        // opFuzzy
	geo      [3]float64 // opGeo: lon, lat, radius in meters
	nocheck  bool       // opAnd: the filters' intersection (no SLOP/INORDER)
	ids      []uint32   // opIDs

	// Query attributes, =>{$weight: w; $slop: n; $inorder: b; $phonetic: b}.
	weight   float64 // multiplies the node's score, when hasW
	hasW     bool
	nslop    int // the intersection's slop (-1: none), when hasSlop
	hasSlop  bool
	ninorder int8 // 0: the query's INORDER; 1: false; 2: true
	phon     int8 // 0: phonetic if the field is; 1: $phonetic: false; 2: true
}

// slopOf is the slop and order an intersection's positions are checked
// with: its $slop and $inorder, else the query's SLOP and INORDER.
func (q *qctx) slopOf(n *node) (slop int, inorder bool) {
	slop, inorder = q.slop, q.inorder
	if n.hasSlop {
		slop = n.nslop
	}
	if n.ninorder != 0 {
		inorder = n.ninorder == 2
	}
	return slop, inorder
}

// weighted reports whether a node of the tree has a $weight.
func (n *node) weighted() bool {
	if n.hasW {
		return true
	}
	for _, k := range n.kids {
		if k.weighted() {
			return true
		}
	}
	return false
}

// SyntaxError is a query the parser refuses, with RediSearch's message.
type SyntaxError struct {
	Msg string
}

func (e *SyntaxError) Error() string { return e.Msg }

type parser struct {
	s      string
	pos    int
	params map[string]string
	idx    *index // nil: only syntax is checked (fuzzing)
	depth  int
	noStop bool // NOSTOPWORDS: stop words are searched as words
}

func (p *parser) errNear(off int) error {
	// "near" names the token at the offset, as RediSearch's parser does.
	near := p.s[min(off, len(p.s)):]
	if near != "" {
		n := 1
		if !isPunct(near[0]) {
			n = strings.IndexFunc(near, func(r rune) bool { return r < utf8.RuneSelf && (isPunct(byte(r)) || unicode.IsSpace(r)) })
			if n < 0 {
				n = len(near)
			}
		}
		near = near[:max(n, 1)]
	}
	return &SyntaxError{fmt.Sprintf("Syntax error at offset %d near %s", off, near)}
}

// parseQuery parses q; idx resolves fields (nil accepts any field, as
// TEXT, TAG or NUMERIC by the syntax used).
func parseQuery(q string, params map[string]string, idx *index) (*node, error) {
	return parseQueryOpts(q, params, idx, false)
}

func parseQueryOpts(q string, params map[string]string, idx *index, noStop bool) (*node, error) {
	p := &parser{s: q, params: params, idx: idx, noStop: noStop}
	p.skipSpace()
	if p.pos == len(p.s) {
		return &node{op: opNone}, nil
	}
	n, err := p.union("")
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.s) {
		return nil, p.errNear(p.pos)
	}
	return n, nil
}

func (p *parser) skipSpace() {
	for p.pos < len(p.s) && isSpace(p.s[p.pos]) {
		p.pos++
	}
}

func (p *parser) peek() byte {
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

func (p *parser) union(field string) (*node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 100 {
		return nil, &SyntaxError{"Syntax error: query too deeply nested"}
	}
	first, err := p.intersect(field)
	if err != nil {
		return nil, err
	}
	kids := []*node{first}
	for {
		p.skipSpace()
		if p.peek() != '|' {
			break
		}
		p.pos++
		n, err := p.intersect(field)
		if err != nil {
			return nil, err
		}
		kids = append(kids, n)
	}
	if len(kids) == 1 {
		return first, nil
	}
	return &node{op: opOr, kids: kids}, nil
}

func (p *parser) intersect(field string) (*node, error) {
	var kids []*node
	for {
		p.skipSpace()
		c := p.peek()
		if c == 0 || c == '|' || c == ')' {
			break
		}
		n, err := p.unary(field)
		if err != nil {
			return nil, err
		}
		kids = append(kids, n)
	}
	if len(kids) == 0 {
		return nil, p.errNear(p.pos)
	}
	if len(kids) == 1 {
		return kids[0], nil
	}
	return &node{op: opAnd, kids: kids}, nil
}

func (p *parser) unary(field string) (*node, error) {
	if p.peek() == '~' {
		p.pos++
		p.skipSpace()
		if p.pos == len(p.s) {
			return nil, p.errNear(p.pos)
		}
		n, err := p.unary(field)
		if err != nil {
			return nil, err
		}
		return &node{op: opOpt, kids: []*node{n}}, nil
	}
	if p.peek() == '-' {
		p.pos++
		p.skipSpace()
		if p.pos == len(p.s) {
			return nil, p.errNear(p.pos)
		}
		n, err := p.unary(field)
		if err != nil {
			return nil, err
		}
		return &node{op: opNot, kids: []*node{n}}, nil
	}
	n, err := p.atom(field)
	if err != nil {
		return nil, err
	}
	return p.attributes(n)
}

// attributes parses the attribute list that may follow an atom,
// "=>{$name: value; …}", and applies it to n (RediSearch's
// QueryNode_ApplyAttribute, with its errors).
func (p *parser) attributes(n *node) (*node, error) {
	save := p.pos
	p.skipSpace()
	if !strings.HasPrefix(p.s[p.pos:], "=>") {
		p.pos = save
		return n, nil
	}
	p.pos += 2
	p.skipSpace()
	if p.peek() != '{' {
		return nil, p.errNear(p.pos)
	}
	p.pos++
	for {
		p.skipSpace()
		switch p.peek() {
		case '}':
			p.pos++
			return n, nil
		case ';':
			p.pos++
			continue
		case '$':
		default:
			return nil, p.errNear(p.pos)
		}
		p.pos++
		at := p.pos
		name := p.word()
		if name == "" {
			return nil, p.errNear(at)
		}
		p.skipSpace()
		if p.peek() != ':' {
			return nil, p.errNear(p.pos)
		}
		p.pos++
		p.skipSpace()
		vs := p.pos
		var v string
		if p.peek() == '"' { // a quoted value
			end := strings.IndexByte(p.s[p.pos+1:], '"')
			if end < 0 {
				return nil, p.errNear(vs)
			}
			v = p.s[p.pos+1 : p.pos+1+end]
			p.pos += end + 2
		} else if v = p.rawUntil(" \t\r\n;}"); v == "" {
			return nil, p.errNear(vs)
		} else if v[0] == '$' {
			pv, ok := p.params[v[1:]]
			if !ok {
				return nil, &SyntaxError{fmt.Sprintf("No such parameter `%s`", v[1:])}
			}
			v = pv
		}
		if n.stop {
			continue // a stop word has no node to apply them to
		}
		if err := p.applyAttr(n, name, v); err != nil {
			return nil, err
		}
	}
}

func (p *parser) applyAttr(n *node, name, v string) error {
	bad := &SyntaxError{fmt.Sprintf("Invalid value (%s) for `%s`", v, name)}
	boolean := func() (bool, bool) {
		switch {
		case strings.EqualFold(v, "true") || v == "1":
			return true, true
		case strings.EqualFold(v, "false") || v == "0":
			return false, true
		}
		return false, false
	}
	switch {
	case v == "":
		return bad
	case strings.EqualFold(name, "slop"):
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil || x < -1 {
			return bad
		}
		n.nslop, n.hasSlop = int(min(x, 1<<31-1)), true
	case strings.EqualFold(name, "inorder"):
		b, ok := boolean()
		if !ok {
			return bad
		}
		n.ninorder = 1
		if b {
			n.ninorder = 2
		}
	case strings.EqualFold(name, "weight"):
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x < 0 || x != x {
			return bad
		}
		n.weight, n.hasW = x, true
	case strings.EqualFold(name, "phonetic"):
		b, ok := boolean()
		if !ok {
			return bad
		}
		n.phon = 1
		if b {
			n.phon = 2
		}
		// RediSearch's expander refuses the attribute on a term whose
		// fields are not PHONETIC.
		if n.op == opTerm && p.idx != nil && !p.idx.phoneticIn(p.idx.textMaskOf(n.field)) {
			return &SyntaxError{"field does not support phonetics"}
		}
	default:
		return &SyntaxError{"Invalid attribute " + name}
	}
	return nil
}

// textMaskOf is the mask of the TEXT fields a node of field searches
// ("" every one).
func (ix *index) textMaskOf(field string) uint64 {
	if field == "" {
		return ix.allText()
	}
	var m uint64
	for _, a := range strings.Split(field, "|") {
		if f := ix.attr(a); f != nil && f.typ == typeText && !f.noindex {
			m |= 1 << f.ord
		}
	}
	return m
}

// group parses "( union )" at the current '(', the union searching field.
func (p *parser) group(field string) (*node, error) {
	p.pos++
	n, err := p.union(field)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.peek() != ')' {
		return nil, p.errNear(p.pos)
	}
	p.pos++
	return n, nil
}

func (p *parser) atom(field string) (*node, error) {
	start := p.pos
	switch c := p.peek(); c {
	case '(':
		return p.group(field)
	case '*':
		p.pos++
		if t, ok, err := p.paramWord(); err != nil {
			return nil, err
		} else if ok { // *$p or *$p*
			op := opSuffix
			if p.peek() == '*' {
				p.pos++
				op = opInfix
			}
			return &node{op: op, field: field, term: t}, nil
		}
		if c := p.peek(); c != 0 && !isPunct(c) && !isSpace(c) || c == '\\' {
			// *suffix or *infix*
			w := p.word()
			op := opSuffix
			if p.peek() == '*' {
				p.pos++
				op = opInfix
			}
			return &node{op: op, field: field, term: foldTerm(w)}, nil
		}
		return &node{op: opAll}, nil
	case '%':
		n := 0
		for p.peek() == '%' {
			n++
			p.pos++
		}
		if n > 3 {
			return nil, p.errNear(start)
		}
		t, param, err := p.paramWord() // %$p%
		if err != nil {
			return nil, err
		}
		if !param {
			w := p.word()
			if w == "" {
				return nil, p.errNear(start)
			}
			t = foldTerm(w)
		}
		for range n {
			if p.peek() != '%' {
				return nil, p.errNear(p.pos)
			}
			p.pos++
		}
		return &node{op: opFuzzy, field: field, term: t, dist: n}, nil
	case '@':
		if field != "" {
			return nil, p.errNear(start)
		}
		p.pos++
		name := p.word()
		for name != "" && p.peek() == '|' { // @title|body:term
			p.pos++
			more := p.word()
			if more == "" {
				return nil, p.errNear(start)
			}
			name += "|" + more
		}
		if name == "" || p.peek() != ':' {
			return nil, p.errNear(start)
		}
		p.pos++
		p.skipSpace()
		return p.fieldExpr(name, start)
	case '"':
		p.pos++
		var kids []*node
		for {
			p.skipSpace()
			if p.pos == len(p.s) {
				return nil, p.errNear(start)
			}
			if p.peek() == '"' {
				p.pos++
				break
			}
			if isPunct(p.peek()) && p.peek() != '\\' && p.peek() != '$' {
				p.pos++ // punctuation inside a phrase separates words
				continue
			}
			n, err := p.termAtom(field)
			if err != nil {
				return nil, err
			}
			n.verbatim = true
			if !n.stop {
				kids = append(kids, n)
			}
		}
		if len(kids) == 0 {
			return &node{op: opNone, stop: true}, nil
		}
		if len(kids) == 1 {
			return kids[0], nil
		}
		return &node{op: opAnd, kids: kids, exact: true}, nil
	default:
		if rest := p.s[p.pos:]; len(rest) > 10 && strings.EqualFold(rest[:10], "ismissing(") {
			p.pos += 10
			p.skipSpace()
			fs := p.pos
			if p.peek() != '@' {
				return nil, p.errNear(fs)
			}
			p.pos++
			name := p.word()
			p.skipSpace()
			if name == "" || p.peek() != ')' {
				return nil, p.errNear(fs)
			}
			p.pos++
			if p.idx != nil {
				f := p.idx.attr(name)
				if f == nil {
					return nil, &SyntaxError{fmt.Sprintf("Unknown field at offset %d near %s", fs, name)}
				}
				if !f.missing {
					return nil, &SyntaxError{fmt.Sprintf("'ismissing' requires field '%s' to be defined with 'INDEXMISSING'", name)}
				}
				name = f.alias
			}
			return &node{op: opMissing, field: name}, nil
		}
		return p.termAtom(field)
	}
}

func (p *parser) fieldExpr(name string, start int) (*node, error) {
	switch p.peek() {
	case '[':
		if p.isGeo(name) {
			return p.geoExpr(name, start)
		}
		f, err := p.field(name, start, typeNumeric)
		if err != nil {
			return nil, err
		}
		p.pos++
		var b [2]string
		var ex [2]bool
		for i := range b {
			p.skipSpace()
			if p.peek() == '(' {
				ex[i] = true
				p.pos++
			}
			bs := p.pos
			v := p.rawUntil(" \t]")
			if v == "" {
				return nil, p.errNear(bs)
			}
			if v[0] == '$' {
				pv, ok := p.params[v[1:]]
				if !ok {
					return nil, &SyntaxError{fmt.Sprintf("No such parameter `%s`", v[1:])}
				}
				v = pv
				if strings.HasPrefix(v, "(") {
					ex[i], v = true, v[1:]
				}
			}
			k, ok := parseNumber(v)
			if !ok {
				return nil, p.errNear(bs)
			}
			b[i] = k
		}
		p.skipSpace()
		if p.peek() != ']' {
			return nil, p.errNear(p.pos)
		}
		p.pos++
		return &node{op: opNum, field: f, lo: b[0], hi: b[1], loEx: ex[0], hiEx: ex[1]}, nil
	case '{':
		f, err := p.field(name, start, typeTag)
		if err != nil {
			return nil, err
		}
		p.pos++
		var tags []tagTerm
		for {
			p.skipSpace()
			ts := p.pos
			var sb strings.Builder
			prefix := false
			for p.pos < len(p.s) {
				c := p.s[p.pos]
				if c == '\\' && p.pos+1 < len(p.s) {
					sb.WriteByte(p.s[p.pos+1])
					p.pos += 2
					continue
				}
				if c == '|' || c == '}' {
					break
				}
				sb.WriteByte(c)
				p.pos++
			}
			if p.pos == len(p.s) {
				return nil, p.errNear(ts)
			}
			v := strings.TrimRight(sb.String(), " \t")
			raw := strings.TrimRight(p.s[ts:p.pos], " \t")
			if strings.HasSuffix(raw, "*") && !strings.HasSuffix(raw, "\\*") {
				prefix, v = true, strings.TrimRight(strings.TrimSuffix(v, "*"), " \t")
			}
			if strings.HasPrefix(raw, "$") {
				pv, ok := p.params[v[1:]]
				if !ok {
					return nil, &SyntaxError{fmt.Sprintf("No such parameter `%s`", v[1:])}
				}
				v = pv
			}
			if raw == `""` { // the empty tag (INDEXEMPTY)
				if p.idx != nil {
					if tf := p.idx.attr(f); tf == nil || !tf.empty {
						return nil, &SyntaxError{"Use `INDEXEMPTY` in field creation in order to index and query for empty strings"}
					}
				}
				v = ""
			} else if v == "" && !prefix {
				return nil, p.errNear(ts)
			}
			tags = append(tags, tagTerm{val: v, prefix: prefix})
			if p.s[p.pos] == '}' {
				p.pos++
				break
			}
			p.pos++ // '|'
		}
		return &node{op: opTag, field: f, tags: tags}, nil
	case '(':
		f, err := p.field(name, start, typeText)
		if err != nil {
			return nil, err
		}
		return p.group(f)
	case '-':
		f, err := p.field(name, start, typeText)
		if err != nil {
			return nil, err
		}
		return p.unary(f)
	default:
		f, err := p.field(name, start, typeText)
		if err != nil {
			return nil, err
		}
		switch p.peek() {
		case '"', '%', '~':
			return p.unary(f)
		case '*':
			if c := p.s[min(p.pos+1, len(p.s)-1)]; p.pos+1 < len(p.s) && (!isPunct(c) && !isSpace(c) || c == '$') {
				return p.atom(f) // @f:*suffix, @f:*infix*, @f:*$p
			}
		}
		return p.termAtom(f)
	}
}

// field resolves attribute name for an expression of type want (TEXT
// accepts several names joined by '|').
func (p *parser) field(name string, start int, want fieldType) (string, error) {
	if p.idx == nil {
		return name, nil
	}
	if want == typeText && strings.Contains(name, "|") {
		var out []string
		for _, n := range strings.Split(name, "|") {
			a, err := p.field(n, start, want)
			if err != nil {
				return "", err
			}
			out = append(out, a)
		}
		return strings.Join(out, "|"), nil
	}
	f := p.idx.attr(name)
	if f == nil || f.noindex {
		return "", &SyntaxError{fmt.Sprintf("Unknown field at offset %d near %s", start, name)}
	}
	if f.typ != want {
		return "", &SyntaxError{fmt.Sprintf("Syntax error at offset %d near %s", start, name)}
	}
	return f.alias, nil
}

// isGeo reports whether @name:[...] is a geo radius: the field is GEO, or,
// without an index, the brackets hold four values.
func (p *parser) isGeo(name string) bool {
	if p.idx != nil {
		f := p.idx.attr(name)
		return f != nil && f.typ == typeGeo
	}
	end := strings.IndexByte(p.s[p.pos:], ']')
	return end > 0 && len(strings.Fields(p.s[p.pos+1:p.pos+end])) == 4
}

// geoExpr parses [lon lat radius unit] (each may be a $param).
func (p *parser) geoExpr(name string, start int) (*node, error) {
	f, err := p.field(name, start, typeGeo)
	if err != nil {
		return nil, err
	}
	p.pos++
	var vals [4]string
	for i := range vals {
		p.skipSpace()
		bs := p.pos
		v := p.rawUntil(" \t]")
		if v == "" {
			return nil, p.errNear(bs)
		}
		if v[0] == '$' {
			pv, ok := p.params[v[1:]]
			if !ok {
				return nil, &SyntaxError{fmt.Sprintf("No such parameter `%s`", v[1:])}
			}
			v = pv
		}
		vals[i] = v
	}
	p.skipSpace()
	if p.peek() != ']' {
		return nil, p.errNear(p.pos)
	}
	p.pos++
	n := &node{op: opGeo, field: f}
	for i := range 3 {
		x, err := strconv.ParseFloat(vals[i], 64)
		if err != nil || x != x {
			return nil, &SyntaxError{fmt.Sprintf("Syntax error at offset %d near %s", start, vals[i])}
		}
		n.geo[i] = x
	}
	u, ok := geoUnit(vals[3])
	if !ok {
		return nil, &SyntaxError{"Invalid GeoFilter unit"}
	}
	if n.geo[0] < -180 || n.geo[0] > 180 || n.geo[1] < -geoLatMax || n.geo[1] > geoLatMax || n.geo[2] < 0 {
		return nil, &SyntaxError{"Invalid GeoFilter lat/lon"}
	}
	n.geo[2] *= u
	return n, nil
}

// word reads a word or field name (letters, digits, '_', escaped
// characters). As in RediSearch's query lexer, white space and control
// characters end it; an escaped control character or a lone backslash at
// the end is dropped, as documents' words drop them (normWord), so a
// query word and the same word in a document agree.
func (p *parser) word() string {
	var sb strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c == '\\' {
			if p.pos+1 == len(p.s) {
				p.pos++
				continue
			}
			if !isCtl(p.s[p.pos+1]) {
				sb.WriteByte(p.s[p.pos+1])
			}
			p.pos += 2
			continue
		}
		if isPunct(c) || isSpace(c) {
			break
		}
		sb.WriteByte(c)
		p.pos++
	}
	return sb.String()
}

func (p *parser) rawUntil(stop string) string {
	s := p.pos
	for p.pos < len(p.s) && !strings.ContainsRune(stop, rune(p.s[p.pos])) {
		p.pos++
	}
	return p.s[s:p.pos]
}

func (p *parser) termAtom(field string) (*node, error) {
	start := p.pos
	if p.peek() == '$' {
		p.pos++
		name := p.word()
		v, ok := p.params[name]
		if name == "" {
			return nil, p.errNear(start)
		}
		if !ok {
			return nil, &SyntaxError{fmt.Sprintf("No such parameter `%s`", name)}
		}
		prefix := p.peek() == '*'
		if prefix {
			p.pos++
		}
		// Not checked against the stop words: RediSearch's parser drops
		// a stop word written in the query, not a param's value (parser.y:
		// only a literal term is), which is then searched as a term, and
		// stop words are not indexed.
		t := paramTerm(v)
		if prefix {
			return &node{op: opPrefix, field: field, term: t}, nil
		}
		return &node{op: opTerm, field: field, term: t}, nil
	}
	w := p.word()
	if w == "" {
		return nil, p.errNear(start)
	}
	prefix := false
	if p.peek() == '*' {
		p.pos++
		prefix = true
	}
	return p.textNode(field, w, prefix), nil
}

// paramWord reads "$name" at the parser's position, where a suffix,
// infix or fuzzy term may be a param (RediSearch's lexer: *$p, *$p*,
// %$p%), and returns the term its value stands for; ok is false (nothing
// read) when no "$name" is there.
func (p *parser) paramWord() (t string, ok bool, err error) {
	if p.peek() != '$' || p.pos+1 == len(p.s) {
		return "", false, nil
	}
	if c := p.s[p.pos+1]; isPunct(c) && c != '\\' || isSpace(c) {
		return "", false, nil
	}
	p.pos++
	name := p.word()
	v, found := p.params[name]
	if !found {
		return "", false, &SyntaxError{fmt.Sprintf("No such parameter `%s`", name)}
	}
	return paramTerm(v), true, nil
}

// paramTerm is the term a $param's value stands for where the query has
// a word or a prefix (and the typed Prefix's): as in RediSearch
// (query_param.c, rm_normalize) the whole value is one term, even with
// spaces or punctuation in it, its backslash escapes removed and its case
// folded, so that PARAMS 2 v "John\ Doe" finds what the query
// "John\ Doe" finds: the document words written "John\ Doe". Escapes
// and control characters follow the query parser's words (word): a
// backslash escapes the next character, whatever it is (RediSearch keeps
// one before a letter or digit, which no word here contains), and control
// characters are dropped, as documents' words drop them.
func paramTerm(v string) string {
	plain := true
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '\\' || isCtl(c) {
			plain = false
			break
		}
	}
	if plain {
		return foldTerm(v)
	}
	b := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' {
			if i++; i == len(v) {
				break
			}
			c = v[i]
		}
		if !isCtl(c) {
			b = append(b, c)
		}
	}
	return foldTerm(string(b))
}

// textNode makes the node of one query word: folded as documents are.
func (p *parser) textNode(field, w string, prefix bool) *node {
	t := foldTerm(w)
	if prefix {
		return &node{op: opPrefix, field: field, term: t}
	}
	if p.idx != nil && !p.noStop && p.idx.isStop(t) {
		return &node{op: opNone, stop: true}
	}
	return &node{op: opTerm, field: field, term: t}
}

// isPunct: separators end a word in queries as in documents.
func isPunct(c byte) bool { return isSep(c) && c != ' ' && c != '\t' }

// isSpace: white space and control characters separate query tokens
// (the lexer's space and cntrl).
func isSpace(c byte) bool { return c == ' ' || isCtl(c) }
