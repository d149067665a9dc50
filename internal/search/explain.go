package search

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/engine"
)

// FT.EXPLAIN and FT.EXPLAINCLI print the parsed query as RediSearch's
// QueryNode_DumpSds does: one node per line, children indented by two
// spaces, "INTERSECT {", "UNION {", "NOT{", "TAG:@f {", "PREFIX{p*}",
// "NUMERIC {lo <= @f <= hi}" with %f bounds, "<WILDCARD>}". Terms are
// printed as parsed, synonyms as a UNION of the group's terms; stems are
// expanded when the query runs, so there are no "(expanded)" nodes, and
// phrases print as INTERSECT, not EXACT.

// decodeNumber turns a parseNumber key back into a float64.
func decodeNumber(k string) float64 {
	switch {
	case k == "" || k[0] == 0x02:
		return 0
	case k[0] == 0x00:
		return math.Inf(-1)
	case k[0] == 0x04:
		return math.Inf(1)
	}
	b := []byte(k)
	neg := b[0] == 0x01
	if neg {
		b = b[:len(b)-1]
		for i := 1; i < len(b); i++ {
			b[i] = ^b[i]
		}
	}
	exp := int(uint16(b[1])<<8|uint16(b[2])) - 0x8000
	f, _ := strconv.ParseFloat("0."+string(b[3:])+"e"+strconv.Itoa(exp), 64)
	if neg {
		f = -f
	}
	return f
}

func explainNode(sb *strings.Builder, n *node, depth int) {
	pad := func(d int) { sb.WriteString(strings.Repeat("  ", d)) }
	pad(depth)
	kids := func() {
		for _, k := range n.kids {
			if k.stop {
				continue
			}
			explainNode(sb, k, depth+1)
		}
		pad(depth)
	}
	if n.field != "" && (n.op == opTerm || n.op == opPrefix) {
		sb.WriteString("@" + n.field + ":")
	}
	switch n.op {
	case opTerm:
		sb.WriteString(n.term)
		if n.hasW && n.weight != 1 {
			sb.WriteString(" => {$weight: " + fmtG(n.weight, 6) + ";}")
		}
		sb.WriteString("\n")
		return
	case opPrefix:
		sb.WriteString("PREFIX{" + n.term + "*")
	case opAnd:
		sb.WriteString("INTERSECT {\n")
		kids()
	case opOr:
		sb.WriteString("UNION {\n")
		kids()
	case opNot:
		sb.WriteString("NOT{\n")
		kids()
	case opTag:
		sb.WriteString("TAG:@" + n.field + " {\n")
		for _, t := range n.tags {
			pad(depth + 1)
			if t.prefix {
				sb.WriteString("PREFIX{" + t.val + "*}\n")
			} else {
				sb.WriteString(t.val + "\n")
			}
		}
		pad(depth)
	case opNum:
		op := func(ex bool) string {
			if ex {
				return "<"
			}
			return "<="
		}
		fmt.Fprintf(sb, "NUMERIC {%s %s @%s %s %s", cF(decodeNumber(n.lo)), op(n.loEx), n.field, op(n.hiEx), cF(decodeNumber(n.hi)))
	case opAll:
		sb.WriteString("<WILDCARD>")
	case opNone:
		sb.WriteString("<empty>")
	}
	sb.WriteString("}")
	// Attributes other than the defaults, as QueryNode_DumpSds.
	w := 1.0
	if n.hasW {
		w = n.weight
	}
	slop := -1
	if n.hasSlop {
		slop = n.nslop
	}
	if in := n.ninorder == 2; w != 1 || slop != -1 || in {
		sb.WriteString(" => {")
		if w != 1 {
			sb.WriteString(" $weight: " + fmtG(w, 6) + ";")
		}
		if slop != -1 {
			sb.WriteString(" $slop: " + strconv.Itoa(slop) + ";")
		}
		if in || slop != -1 {
			sb.WriteString(" $inorder: " + strconv.FormatBool(in) + ";")
		}
		sb.WriteString(" }")
	}
	sb.WriteString("\n")
}

// cF is C's "%f".
func cF(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// explain parses FT.EXPLAIN's arguments and returns the tree's text.
func explain(c *engine.Ctx, s *state) (string, bool) {
	ix := s.lookupIndex(string(c.Args[1]))
	if ix == nil {
		c.Error(string(c.Args[1]) + ": no such index")
		return "", false
	}
	// FT.EXPLAIN takes FT.SEARCH's options (clients send them).
	o, e := parseSearchOpts(c, ix)
	if e != "" {
		c.Error(e)
		return "", false
	}
	q, err := parseQuery(string(c.Args[2]), o.params, ix)
	if err != nil {
		c.Error(err.Error())
		return "", false
	}
	q = s.expandSynonyms(ix, q)
	var sb strings.Builder
	explainNode(&sb, q, 0)
	return sb.String(), true
}

// FT.EXPLAIN idx query [PARAMS n …] [DIALECT d]
func ftExplain(c *engine.Ctx, s *state) {
	if out, ok := explain(c, s); ok {
		c.W.BulkString(out)
	}
}

// FT.EXPLAINCLI: the same, one line per array element.
func ftExplainCLI(c *engine.Ctx, s *state) {
	out, ok := explain(c, s)
	if !ok {
		return
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	c.W.Array(len(lines))
	for _, l := range lines {
		c.W.BulkString(l)
	}
}
