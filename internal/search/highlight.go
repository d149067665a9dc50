package search

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/engine"
)

// FT.SEARCH … HIGHLIGHT [FIELDS n f…] [TAGS open close] and
// SUMMARIZE [FIELDS n f…] [FRAGS n] [LEN n] [SEPARATOR s], as RediSearch
// 2.x (src/summarize_spec.c, src/highlight_processor.c, src/fragmenter.c).
//
// RediSearch keeps each document's token byte offsets and highlights the
// positions of the query's term records for the document. Ordo keeps no
// byte offsets: it re-reads the returned field's text with RediSearch's
// tokenizer rules (separators, backslash escapes, control characters and
// stop words dropped, positions from 1) and marks the words whose term is
// one the query's positive text leaves matched in the index: the word,
// its "+stem" (for a stemmed field) or its phonetic code (for a PHONETIC
// field), prefix/suffix/infix/fuzzy expansions included. As in RediSearch
// (whose term offsets are per document, not per field), a term matched in
// one field is marked in every TEXT field. Fragments are then built,
// scored (the sum of the idf of their distinct terms), chosen and joined
// exactly as fragmenter.c does: a match more than 8 positions after the
// fragment's last match starts a new fragment; the best FRAGS fragments by
// score are written in text order, each with about LEN words of context
// (LEN minus the fragment's own non-matching words, half before and half
// after, at an estimated 6 bytes a word, cut at separators), runs of
// white space folded to one space, each followed by SEPARATOR.
//
// A field without a match is returned as is under HIGHLIGHT; under
// SUMMARIZE alone it is cut to about FRAGS x LEN words (its first
// 6 x LEN x FRAGS + 6 bytes, back to the last separator), as RediSearch
// does for any field it summarizes, TEXT or not.

// Summarize/highlight modes of a field (RediSearch's SummarizeMode).
const (
	hlMode  = 1 // HIGHLIGHT
	sumMode = 2 // SUMMARIZE
)

type hlField struct {
	name        string // the returned name (RETURN's AS, or FIELDS' name)
	mode        uint8
	open, close string // HIGHLIGHT's tags ("" under SUMMARIZE alone)
	frags, ctx  int
	sep         string
}

// hlSpec is the HIGHLIGHT/SUMMARIZE options of one FT.SEARCH: the default
// (no FIELDS) settings and the fields named by FIELDS, in order.
type hlSpec struct {
	def    hlField
	fields []hlField
}

func (h *hlSpec) field(name string) *hlField {
	for i := range h.fields {
		if h.fields[i].name == name {
			return &h.fields[i]
		}
	}
	h.fields = append(h.fields, hlField{name: name})
	return &h.fields[len(h.fields)-1]
}

// parseHighlight parses the arguments after HIGHLIGHT (hl) or SUMMARIZE
// at args[i:], returning the index of the first argument it does not
// take.
func parseHighlight(args [][]byte, i int, h *hlSpec, hl bool) (int, string) {
	bad := "Bad arguments for SUMMARIZE"
	if hl {
		bad = "Bad arguments for HIGHLIGHT"
	}
	is := func(j int, s string) bool { return j < len(args) && strings.EqualFold(string(args[j]), s) }
	set := hlField{open: "<b>", close: "</b>", frags: 3, ctx: 20, sep: "... "}
	var names []string
	if is(i, "fields") {
		if i+1 >= len(args) {
			return 0, bad
		}
		n, err := strconv.ParseUint(string(args[i+1]), 10, 31)
		if err != nil || i+2+int(n) > len(args) {
			return 0, bad
		}
		for _, a := range args[i+2 : i+2+int(n)] {
			names = append(names, string(a))
		}
		i += 2 + int(n)
	}
	for i < len(args) {
		switch {
		case hl && is(i, "tags"):
			if i+2 >= len(args) {
				return 0, bad
			}
			set.open, set.close = string(args[i+1]), string(args[i+2])
			i += 3
		case !hl && (is(i, "len") || is(i, "frags")):
			if i+1 >= len(args) {
				return 0, bad
			}
			n, err := strconv.ParseUint(string(args[i+1]), 10, 32)
			if err != nil {
				return 0, bad
			}
			if is(i, "len") {
				set.ctx = int(n)
			} else {
				set.frags = int(uint16(n)) // RediSearch keeps it in 16 bits
			}
			i += 2
		case !hl && is(i, "separator"):
			if i+1 >= len(args) {
				return 0, bad
			}
			set.sep = string(args[i+1])
			i += 2
		default:
			goto done
		}
	}
done:
	apply := func(f *hlField) {
		if hl {
			f.open, f.close = set.open, set.close
			f.mode |= hlMode
		} else {
			f.frags, f.ctx, f.sep = set.frags, set.ctx, set.sep
			f.mode |= sumMode
		}
	}
	if len(names) > 0 {
		for _, n := range names {
			apply(h.field(n))
		}
	} else {
		apply(&h.def)
	}
	return i, ""
}

// settings combines a named field's settings with the defaults, as
// normalizeSettings in highlight_processor.c (which takes the field's
// highlight settings whenever its mode is set at all).
func (h *hlSpec) settings(f *hlField) hlField {
	if f == nil {
		return h.def
	}
	out := hlField{name: f.name}
	if h.def.mode&hlMode != 0 && f.mode&hlMode == 0 {
		out.open, out.close = h.def.open, h.def.close
	} else if f.mode != 0 {
		out.open, out.close = f.open, f.close
	}
	if h.def.mode&sumMode != 0 && f.mode&sumMode == 0 {
		out.frags, out.ctx, out.sep = h.def.frags, h.def.ctx, h.def.sep
	} else {
		out.frags, out.ctx, out.sep = f.frags, f.ctx, f.sep
	}
	out.mode = h.def.mode | f.mode
	return out
}

// checkHighlight validates the options against the index (RediSearch's
// AREQ_ApplyContext and pipeline checks): every field to highlight must
// be an attribute of the schema, JSON needs RETURN and single-valued
// paths, and the index must keep offsets.
func checkHighlight(ix *index, o *searchOpts) string {
	h := o.hl
	for _, opt := range ix.options {
		if opt == "NOOFFSETS" || opt == "NOHL" {
			return "Cannot use HIGHLIGHT/SUMMARIZE because NOOFSETS was specified at index level"
		}
	}
	if ix.json && (!o.retSet || len(o.ret) == 0) {
		return "HIGHLIGHT/SUMMARIZE on JSON indexes requires RETURN with explicit field names"
	}
	check := func(name, path string, returned bool) string {
		f := ix.attrExact(path)
		if f == nil {
			f = ix.attrExact(name)
		}
		if ix.json {
			p := ix.pathOf(path)
			if f != nil {
				p = f.path
			}
			if p != nil && p.Err == "" && !p.IsStatic() {
				return "HIGHLIGHT/SUMMARIZE is not supported for JSON fields with multi-value JSONPath"
			}
		}
		if f != nil {
			return ""
		}
		if returned {
			return "Property `" + name + "` is not in schema"
		}
		return "No such property `" + name + "`"
	}
	for _, r := range o.ret {
		if h.def.mode == 0 && h.find(r.as) == nil {
			continue
		}
		if msg := check(r.as, strings.TrimPrefix(r.name, "@"), true); msg != "" {
			return msg
		}
	}
	for _, f := range h.fields {
		if slices.ContainsFunc(o.ret, func(r retField) bool { return r.as == f.name }) {
			continue
		}
		if msg := check(f.name, f.name, false); msg != "" {
			return msg
		}
	}
	return ""
}

func (h *hlSpec) find(name string) *hlField {
	for i := range h.fields {
		if h.fields[i].name == name {
			return &h.fields[i]
		}
	}
	return nil
}

// attrExact is the attribute named exactly name (RediSearch's lookup keys
// are case-sensitive), or on JSON the field of that path.
func (ix *index) attrExact(name string) *field {
	for _, f := range ix.fields {
		if f.alias == name {
			return f
		}
	}
	if ix.json {
		for _, f := range ix.fields {
			if f.path != nil && f.path.Orig == name {
				return f
			}
		}
	}
	return nil
}

// highlighter applies one FT.SEARCH's HIGHLIGHT/SUMMARIZE to its results.
type highlighter struct {
	ix   *index
	spec *hlSpec
	o    *searchOpts
	// terms maps each index term the query's positive text leaves match
	// to its idf (the fragment score of RediSearch's term records).
	terms map[string]float64
}

func (s *state) newHighlighter(ix *index, q *node, o *searchOpts) *highlighter {
	q = s.expandSynonyms(ix, q)
	qc := ix.newQctx()
	qc.verbatim, qc.lang = o.verbatim, o.lang
	h := &highlighter{ix: ix, spec: o.hl, o: o, terms: map[string]float64{}}
	var walk func(n *node)
	walk = func(n *node) {
		switch n.op {
		case opNot:
			return // a negated term has no record in the result
		case opTerm, opPrefix, opSuffix, opInfix, opFuzzy:
			for _, t := range qc.variants(n) {
				h.terms[t] = qc.termIDF(t)[0]
			}
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(q)
	return h
}

// apply rewrites the returned (name, value) pairs of one document in
// place; skip marks values that are not strings (nil: none).
func (h *highlighter) apply(pairs []string, skip []bool, lang string) {
	sp := h.spec
	for i := 0; i+1 < len(pairs); i += 2 {
		if skip != nil && skip[i/2] {
			continue
		}
		name := pairs[i]
		var set hlField
		nf := sp.find(name)
		switch {
		case len(sp.fields) > 0 || h.o.retSet:
			// highlight_processor.c walks its field list (RETURN's and
			// FIELDS'): a field there is processed if it or the default
			// has a mode.
			inList := nf != nil || h.o.retSet && slices.ContainsFunc(h.o.ret, func(r retField) bool { return r.as == name })
			if !inList || nf == nil && sp.def.mode == 0 || nf != nil && nf.mode == 0 && sp.def.mode == 0 {
				continue
			}
			set = sp.settings(nf)
			if nf == nil {
				set = sp.settings(&hlField{name: name})
			}
		case sp.def.mode != 0:
			set = sp.def
		default:
			continue
		}
		f := h.fieldOf(name)
		if v, ok := h.summarize(f, pairs[i+1], &set, lang); ok {
			pairs[i+1] = v
		}
	}
}

// fieldOf is the TEXT field a returned name reads, nil if none.
func (h *highlighter) fieldOf(name string) *field {
	path := name
	if h.o.retSet {
		for _, r := range h.o.ret {
			if r.as == name {
				path = strings.TrimPrefix(r.name, "@")
				break
			}
		}
	}
	f := h.ix.attrExact(path)
	if f == nil && !h.o.retSet && !h.ix.json {
		// The whole hash: a field's hash name reads its attribute.
		for _, g := range h.ix.fields {
			if g.name == name {
				f = g
				break
			}
		}
	}
	if f == nil || f.typ != typeText || f.noindex {
		return nil
	}
	return f
}

// summarize is summarizeField: the new value, or false to keep it.
func (h *highlighter) summarize(f *field, text string, set *hlField, lang string) (string, bool) {
	var frags []frag
	if f != nil {
		frags = h.fragmentize(f, text, lang)
	}
	if len(frags) == 0 {
		if set.mode == sumMode {
			return trimField(text, set), true
		}
		return "", false
	}
	if set.mode == hlMode {
		return highlightWhole(text, frags, set.open, set.close), true
	}
	return highlightFrags(text, frags, set), true
}

// A frag is a run of matches at most 8 positions apart.
type frag struct {
	start, end  int    // bytes of the text, from the first match to the end of the last
	lastPos     uint32 // position of the last match
	matches     int
	totalTokens int
	score       float32 // RediSearch's float
	locs        []tloc
	seen        []string // distinct terms
	fragPos     int
}

type tloc struct{ off, n int }

// Fragmenter constants (fragmenter.c, highlight_processor.c).
const (
	fragMaxDistance = 8
	estWordSize     = 6
)

// fragmentize splits text into fragments around the query's matches
// (FragmentList_FragmentizeIter over the field's tokens).
func (h *highlighter) fragmentize(f *field, text, lang string) []frag {
	var frags []frag
	sinceMatch := 0
	lastEnd := 0
	hlTokens(text, h.ix.stop, func(pos uint32, off, n int, word string) {
		term, idf, ok := h.match(f, word, lang)
		if !ok {
			sinceMatch++
			return
		}
		if off < lastEnd {
			return
		}
		var cur *frag
		if len(frags) > 0 && pos-frags[len(frags)-1].lastPos <= fragMaxDistance {
			cur = &frags[len(frags)-1]
		} else {
			frags = append(frags, frag{start: off, fragPos: len(frags)})
			cur = &frags[len(frags)-1]
			sinceMatch = 0
		}
		if !slices.Contains(cur.seen, term) {
			cur.seen = append(cur.seen, term)
			cur.score += float32(idf)
		}
		cur.end = off + n
		cur.lastPos = pos
		cur.matches++
		cur.totalTokens += sinceMatch + 1
		sinceMatch = 0
		cur.locs = append(cur.locs, tloc{off, n})
		lastEnd = off + n
	})
	return frags
}

// match reports whether a word (normalized) of field f is one of the
// query's matched terms, and which.
func (h *highlighter) match(f *field, word, lang string) (string, float64, bool) {
	if idf, ok := h.terms[word]; ok {
		return word, idf, true
	}
	if !f.nostem {
		if s := stem(word, lang); s != "" && s != word {
			if idf, ok := h.terms[stemPrefix+s]; ok {
				return stemPrefix + s, idf, true
			}
		}
	}
	if f.phonetic != "" {
		for _, c := range phoneticCodes(word) {
			if idf, ok := h.terms[phoneticPrefix+c]; ok {
				return phoneticPrefix + c, idf, true
			}
		}
	}
	return "", 0, false
}

// hlTokens calls fn for each word of s as RediSearch's simple tokenizer
// reads it (textWords: toksep, DefaultNormalize); stop words take no
// position. s[off:off+n] is the word as written (escaped separators
// included, as RediSearch's token offsets).
func hlTokens(s string, stop map[string]bool, fn func(pos uint32, off, n int, word string)) {
	var pos uint32
	textWords(s, func(off, end int, w string) {
		if stop[w] {
			return
		}
		pos++
		fn(pos, off, end-off, w)
	})
}

// highlightWhole is FragmentList_HighlightWholeDocS: the text with every
// match between the tags.
func highlightWhole(text string, frags []frag, open, close string) string {
	var sb strings.Builder
	pre := 0
	for i := range frags {
		for _, l := range frags[i].locs {
			sb.WriteString(text[pre:l.off])
			sb.WriteString(open)
			sb.WriteString(text[l.off : l.off+l.n])
			sb.WriteString(close)
			pre = l.off + l.n
		}
	}
	sb.WriteString(text[pre:])
	return sb.String()
}

// highlightFrags is FragmentList_HighlightFragments in score-then-position
// order, joined as summarizeField does.
func highlightFrags(text string, frags []frag, set *hlField) string {
	n := min(set.frags, len(frags))
	order := make([]*frag, len(frags))
	for i := range frags {
		order[i] = &frags[i]
	}
	slices.SortStableFunc(order, func(a, b *frag) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.fragPos - b.fragPos
	})
	order = order[:n]
	slices.SortFunc(order, func(a, b *frag) int { return a.fragPos - b.fragPos })
	var out strings.Builder
	var cur []byte
	for i, fr := range order {
		lo, hi := 0, len(text)-1
		if i > 0 {
			lo = order[i-1].end
		}
		if i+1 < len(order) {
			hi = order[i+1].start
		}
		cur = cur[:0]
		b0, b1, a0, a1 := fragContext(text, fr, lo, hi, set.ctx)
		cur = append(cur, text[b0:b1]...)
		pre := fr.start
		for _, l := range fr.locs {
			cur = append(cur, text[pre:l.off]...)
			cur = append(cur, set.open...)
			cur = append(cur, text[l.off:l.off+l.n]...)
			cur = append(cur, set.close...)
			pre = l.off + l.n
		}
		cur = append(cur, text[a0:a1]...)
		out.Write(foldSpaces(cur))
		out.WriteString(set.sep)
	}
	return out.String()
}

// fragContext is FragmentList_FindContext: the byte ranges of the context
// before and after a fragment, within [limitBefore, limitAfter].
func fragContext(text string, fr *frag, limitBefore, limitAfter, ctx int) (b0, b1, a0, a1 int) {
	inner := fr.totalTokens - fr.matches
	if ctx <= inner {
		return fr.start, fr.start, fr.end, fr.end
	}
	ctx = (ctx - inner) / 2 * estWordSize
	limitBefore = max(fr.start-ctx, limitBefore)
	limitAfter = min(fr.end+ctx, limitAfter)
	for limitBefore < fr.start && !isSep(text[limitBefore]) {
		limitBefore++
	}
	for limitBefore < fr.start && isSep(text[limitBefore]) {
		limitBefore++
	}
	for limitAfter > fr.end && !isSep(text[limitAfter]) {
		limitAfter--
	}
	for limitAfter > fr.end && isSep(text[limitAfter]) {
		limitAfter--
	}
	end := min(limitAfter+1, len(text))
	return limitBefore, fr.start, fr.end, max(end, fr.end)
}

// isCSpace is C's isspace.
func isCSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// foldSpaces is stripDuplicateSpaces: each run of white space becomes one
// space.
func foldSpaces(b []byte) []byte {
	out := b[:0]
	last := false
	for _, c := range b {
		if isCSpace(c) {
			if !last {
				out = append(out, ' ')
			}
			last = true
			continue
		}
		last = false
		out = append(out, c)
	}
	return out
}

// trimField is the summary of a field without matches: its first
// words, cut back to a separator.
func trimField(text string, set *hlField) string {
	n := estWordSize*set.ctx*set.frags + estWordSize
	n = min(n, len(text))
	b := foldSpaces([]byte(text[:n]))
	for len(b) > 1 && !isSep(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && isCSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return string(b)
}

// docLang is the language a document's text was indexed in.
func (ix *index) docLang(src source, def string) string {
	if ix.langF != "" && src != nil {
		if v, ok := src.get(ix.langF); ok && validLanguage(v) {
			return strings.ToLower(v)
		}
	}
	return def
}

// highlightRow applies the highlighter to the pairs of the document at key.
func (h *highlighter) highlightRow(e *engine.Engine, key string, pairs []string, skip []bool) {
	lang := h.ix.lang
	if v, _, ok := e.Peek(h.ix.db, key); ok {
		if src, ok := h.ix.sourceOf(v); ok {
			lang = h.ix.docLang(src, lang)
		}
	}
	h.apply(pairs, skip, lang)
}
