package search

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The APPLY/FILTER expression language of FT.AGGREGATE (RediSearch's
// src/aggregate/expr): numbers, 'strings' or "strings", @properties,
// NULL, function calls, unary - and !, and binary operators with
// RediSearch 2.x's precedence (lowest first):
//
//	&& || !        (left; ! applies to the comparison after it)
//	== != < <= > >= (left)
//	+ -            (left)
//	* / % ^        (left)
//
// A missing property is null; arithmetic or a function (but exists) over
// null is null; FILTER keeps a row whose expression is true (a non-zero
// number, a non-empty string).

type exprKind uint8

const (
	eLit exprKind = iota
	eProp
	eFunc
	eBin
	eNot
	eNeg
)

type expr struct {
	k    exprKind
	lit  val
	name string // property or function
	op   string
	args []*expr
	fn   exprFunc
}

type exprFunc func(args []val, row *aggRow) val

type exprParser struct {
	s   string
	pos int
	// tokens
	tk   string // kind: num str prop sym op eof
	tv   string
	tn   float64
	tpos int
	err  error
	nest int
}

func parseExpr(s string) (*expr, error) {
	p := &exprParser{s: s}
	p.next()
	e := p.parseBin(0)
	if p.err == nil && p.tk != "eof" {
		p.fail()
	}
	if p.err != nil {
		return nil, p.err
	}
	return e, nil
}

func (p *exprParser) fail() {
	if p.err == nil {
		tok := p.tv
		if p.tk == "eof" {
			tok = ""
		}
		p.err = fmt.Errorf("Syntax error at offset %d near '%s'", p.tpos, tok)
	}
}

func (p *exprParser) next() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == '\n' || p.s[p.pos] == '\r') {
		p.pos++
	}
	p.tpos = p.pos
	if p.pos >= len(p.s) {
		p.tk, p.tv = "eof", ""
		return
	}
	c := p.s[p.pos]
	rest := p.s[p.pos:]
	switch {
	case c >= '0' && c <= '9' || c == '.' && len(rest) > 1 && rest[1] >= '0' && rest[1] <= '9':
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		if i < len(rest) && (rest[i] == 'e' || rest[i] == 'E') {
			j := i + 1
			if j < len(rest) && (rest[j] == '-' || rest[j] == '+') {
				j++
			}
			if j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
				for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
					j++
				}
				i = j
			}
		}
		f, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil && !isRangeErr(err) {
			p.tk, p.tv = "bad", rest[:i]
			p.fail()
			return
		}
		p.tk, p.tv, p.tn = "num", rest[:i], f
		p.pos += i
	case c == '"' || c == '\'':
		var sb strings.Builder
		i := 1
		for ; i < len(rest) && rest[i] != c; i++ {
			if rest[i] == '\\' && i+1 < len(rest) {
				i++
			}
			sb.WriteByte(rest[i])
		}
		if i >= len(rest) {
			p.tk, p.tv = "bad", rest
			p.fail()
			return
		}
		p.tk, p.tv = "str", sb.String()
		p.pos += i + 1
	case c == '@':
		var sb strings.Builder
		i := 1
		for i < len(rest) {
			ch := rest[i]
			if ch == '\\' && i+1 < len(rest) {
				sb.WriteByte(rest[i+1])
				i += 2
				continue
			}
			if ch != '_' && (ch <= ' ' || ch < utf8.RuneSelf && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~", ch) >= 0) {
				break
			}
			sb.WriteByte(ch)
			i++
		}
		if i == 1 {
			p.tk, p.tv = "bad", "@"
			p.fail()
			return
		}
		p.tk, p.tv = "prop", sb.String()
		p.pos += i
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		i := 1
		for i < len(rest) && (rest[i] >= 'a' && rest[i] <= 'z' || rest[i] >= 'A' && rest[i] <= 'Z' || rest[i] >= '0' && rest[i] <= '9' || rest[i] == '_') {
			i++
		}
		p.tk, p.tv = "sym", rest[:i]
		p.pos += i
		if strings.EqualFold(p.tv, "inf") {
			p.tk, p.tn = "num", math.Inf(1)
		}
	default:
		for _, op := range []string{"==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "+", "-", "*", "/", "%", "^", "(", ")", ","} {
			if strings.HasPrefix(rest, op) {
				p.tk, p.tv = "op", op
				p.pos += len(op)
				return
			}
		}
		p.tk, p.tv = "bad", rest[:1]
		p.fail()
	}
}

var binLevels = [][]string{{"&&", "||"}, {"==", "!=", "<", "<=", ">", ">="}, {"+", "-"}, {"*", "/", "%", "^"}}

func (p *exprParser) parseBin(level int) *expr {
	if level == len(binLevels) {
		return p.parseUnary()
	}
	l := p.parseBin(level + 1)
	for p.err == nil && p.tk == "op" {
		op := p.tv
		found := false
		for _, o := range binLevels[level] {
			found = found || o == op
		}
		if !found {
			break
		}
		p.next()
		r := p.parseBin(level + 1)
		l = &expr{k: eBin, op: op, args: []*expr{l, r}}
	}
	return l
}

func (p *exprParser) parseUnary() *expr {
	if p.err != nil {
		return nil
	}
	p.nest++
	defer func() { p.nest-- }()
	if p.nest > 200 {
		p.err = fmt.Errorf("Expression too deeply nested")
		return nil
	}
	switch p.tk {
	case "num":
		e := &expr{k: eLit, lit: numVal(p.tn)}
		p.next()
		return e
	case "str":
		e := &expr{k: eLit, lit: strVal(p.tv)}
		p.next()
		return e
	case "prop":
		e := &expr{k: eProp, name: p.tv}
		p.next()
		return e
	case "sym":
		name := p.tv
		pos := p.tpos
		p.next()
		if p.tk == "op" && p.tv == "(" {
			fn, ok := exprFuncs[strings.ToLower(name)]
			if !ok {
				p.err = fmt.Errorf("Unknown function name '%s'", name)
				return nil
			}
			p.next()
			e := &expr{k: eFunc, name: strings.ToLower(name), fn: fn}
			if !(p.tk == "op" && p.tv == ")") {
				for {
					a := p.parseBin(0)
					if p.err != nil {
						return nil
					}
					e.args = append(e.args, a)
					if p.tk == "op" && p.tv == "," {
						p.next()
						continue
					}
					break
				}
			}
			if !(p.tk == "op" && p.tv == ")") {
				p.fail()
				return nil
			}
			p.next()
			if err := checkArity(e); err != nil {
				p.err = err
				return nil
			}
			return e
		}
		if name == "NULL" {
			return &expr{k: eLit, lit: nullVal}
		}
		_ = pos
		p.err = fmt.Errorf("Unknown symbol '%s'", name)
		return nil
	case "op":
		switch p.tv {
		case "(":
			p.next()
			e := p.parseBin(0)
			if p.err != nil {
				return nil
			}
			if !(p.tk == "op" && p.tv == ")") {
				p.fail()
				return nil
			}
			p.next()
			return e
		case "-":
			p.next()
			if p.tk == "num" {
				e := &expr{k: eLit, lit: numVal(-p.tn)}
				p.next()
				return e
			}
			return &expr{k: eNeg, args: []*expr{p.parseUnary()}}
		case "+":
			p.next()
			return p.parseUnary()
		case "!":
			// NOT binds loosest but for && and || (RediSearch's grammar
			// gives it their precedence): !@a == 1 is !(@a == 1).
			p.next()
			return &expr{k: eNot, args: []*expr{p.parseBin(1)}}
		}
	}
	p.fail()
	return nil
}

// props calls fn for every property e reads.
func (e *expr) props(fn func(string)) {
	if e == nil {
		return
	}
	if e.k == eProp {
		fn(e.name)
	}
	for _, a := range e.args {
		a.props(fn)
	}
}

func (e *expr) eval(row *aggRow) val {
	switch e.k {
	case eLit:
		return e.lit
	case eProp:
		return row.get(e.name)
	case eNeg:
		v := e.args[0].eval(row)
		f, ok := v.num()
		if !ok {
			return nullVal
		}
		return numVal(-f)
	case eNot:
		return boolVal(!e.args[0].eval(row).truthy())
	case eFunc:
		args := make([]val, len(e.args))
		for i, a := range e.args {
			args[i] = a.eval(row)
			if args[i].k == vNull && e.name != "exists" {
				return nullVal
			}
		}
		return e.fn(args, row)
	case eBin:
		l := e.args[0].eval(row)
		switch e.op {
		case "&&":
			if !l.truthy() {
				return numVal(0)
			}
			return boolVal(e.args[1].eval(row).truthy())
		case "||":
			if l.truthy() {
				return numVal(1)
			}
			return boolVal(e.args[1].eval(row).truthy())
		}
		r := e.args[1].eval(row)
		switch e.op {
		case "==":
			return boolVal(eqVal(l, r))
		case "!=":
			return boolVal(!eqVal(l, r))
		case "<":
			return boolVal(cmpVal(l, r) < 0)
		case "<=":
			return boolVal(cmpVal(l, r) <= 0)
		case ">":
			return boolVal(cmpVal(l, r) > 0)
		case ">=":
			return boolVal(cmpVal(l, r) >= 0)
		}
		a, ok1 := l.num()
		b, ok2 := r.num()
		if !ok1 || !ok2 {
			return nullVal
		}
		switch e.op {
		case "+":
			return numVal(a + b)
		case "-":
			return numVal(a - b)
		case "*":
			return numVal(a * b)
		case "/":
			if b == 0 {
				return numVal(math.NaN())
			}
			return numVal(a / b)
		case "%":
			switch {
			case b == -1:
				return numVal(0)
			case int64(b) == 0:
				return numVal(math.NaN())
			}
			return numVal(float64(int64(a) % int64(b)))
		case "^":
			return numVal(math.Pow(a, b))
		}
	}
	return nullVal
}

// Functions. Each gets its evaluated arguments (none null, but for
// exists).

var exprFuncs map[string]exprFunc

// arities: min, max (-1: any).
var funcArity = map[string][2]int{
	"upper": {1, 1}, "lower": {1, 1}, "substr": {3, 3}, "format": {1, -1}, "split": {1, 3},
	"strlen": {1, 1}, "contains": {2, 2}, "startswith": {2, 2}, "matched_terms": {0, 1},
	"floor": {1, 1}, "ceil": {1, 1}, "abs": {1, 1}, "sqrt": {1, 1}, "log": {1, 1}, "log2": {1, 1},
	"exp": {1, 1}, "exists": {1, 1}, "timefmt": {1, 2}, "parsetime": {2, 2},
	"day": {1, 1}, "hour": {1, 1}, "minute": {1, 1}, "month": {1, 1}, "dayofweek": {1, 1},
	"dayofmonth": {1, 1}, "dayofyear": {1, 1}, "year": {1, 1}, "monthofyear": {1, 1},
	"to_number": {1, 1}, "to_str": {1, 1},
}

func checkArity(e *expr) error {
	a := funcArity[e.name]
	n := len(e.args)
	if n < a[0] || (a[1] >= 0 && n > a[1]) {
		return fmt.Errorf("Invalid arguments for function '%s'", e.name)
	}
	return nil
}

func mathFn(f func(float64) float64) exprFunc {
	return func(args []val, _ *aggRow) val {
		x, ok := args[0].num()
		if !ok {
			return nullVal
		}
		return numVal(f(x))
	}
}

// timeFn applies f to the UTC time of a unix timestamp (seconds).
func timeFn(f func(t time.Time) float64) exprFunc {
	return func(args []val, _ *aggRow) val {
		x, ok := args[0].num()
		if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
			return nullVal
		}
		return numVal(f(time.Unix(int64(x), 0).UTC()))
	}
}

func init() {
	exprFuncs = map[string]exprFunc{
		"upper": func(a []val, _ *aggRow) val { return strVal(strings.ToUpper(a[0].text())) },
		"lower": func(a []val, _ *aggRow) val { return strVal(strings.ToLower(a[0].text())) },
		"strlen": func(a []val, _ *aggRow) val {
			return numVal(float64(len(a[0].text())))
		},
		"substr": func(a []val, _ *aggRow) val {
			s := a[0].text()
			off, ok1 := a[1].num()
			n, ok2 := a[2].num()
			if !ok1 || !ok2 {
				return nullVal
			}
			o, l := int(off), int(n)
			if o < 0 {
				o = len(s) + o
			}
			o = max(0, min(o, len(s)))
			if l < 0 {
				l = len(s) - o + l
			}
			l = max(0, min(l, len(s)-o))
			return strVal(s[o : o+l])
		},
		"contains": func(a []val, _ *aggRow) val {
			s, sub := a[0].text(), a[1].text()
			if sub == "" {
				return numVal(float64(len(s) + 1))
			}
			n := 0 // occurrences, overlapping ones included (RediSearch's strstr loop)
			for i := strings.Index(s, sub); i >= 0; i = strings.Index(s, sub) {
				n++
				s = s[i+1:]
			}
			return numVal(float64(n))
		},
		"startswith": func(a []val, _ *aggRow) val {
			return boolVal(strings.HasPrefix(a[0].text(), a[1].text()))
		},
		"split": func(a []val, _ *aggRow) val {
			sep, strip := ",", " "
			if len(a) > 1 {
				sep = a[1].text()
			}
			if len(a) > 2 {
				strip = a[2].text()
			}
			var out []val
			for _, p := range strings.FieldsFunc(a[0].text(), func(r rune) bool { return strings.ContainsRune(sep, r) }) {
				if p = strings.Trim(p, strip); p != "" {
					out = append(out, strVal(p))
				}
			}
			return arrVal(out)
		},
		"format":        fnFormat,
		"matched_terms": func(a []val, row *aggRow) val { return row.matched() },
		"floor":         mathFn(math.Floor),
		"ceil":          mathFn(math.Ceil),
		"abs":           mathFn(math.Abs),
		"sqrt":          mathFn(math.Sqrt),
		"log":           mathFn(math.Log),
		"log2":          mathFn(math.Log2),
		"exp":           mathFn(math.Exp),
		"exists": func(a []val, _ *aggRow) val {
			return boolVal(a[0].k != vNull)
		},
		"to_number": func(a []val, _ *aggRow) val {
			f, ok := a[0].num()
			if !ok {
				return nullVal
			}
			return numVal(f)
		},
		"to_str":    func(a []val, _ *aggRow) val { return strVal(a[0].text()) },
		"timefmt":   fnTimefmt,
		"parsetime": fnParsetime,
		"minute": timeFn(func(t time.Time) float64 {
			return float64(t.Truncate(time.Minute).Unix())
		}),
		"hour": timeFn(func(t time.Time) float64 { return float64(t.Truncate(time.Hour).Unix()) }),
		"day": timeFn(func(t time.Time) float64 {
			return float64(time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC).Unix())
		}),
		"month": timeFn(func(t time.Time) float64 {
			return float64(time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC).Unix())
		}),
		"dayofweek":   timeFn(func(t time.Time) float64 { return float64(t.Weekday()) }),
		"dayofmonth":  timeFn(func(t time.Time) float64 { return float64(t.Day()) }),
		"dayofyear":   timeFn(func(t time.Time) float64 { return float64(t.YearDay() - 1) }),
		"year":        timeFn(func(t time.Time) float64 { return float64(t.Year()) }),
		"monthofyear": timeFn(func(t time.Time) float64 { return float64(t.Month() - 1) }),
	}
}

// fnFormat is format(fmt, args...): %s substitutes an argument's text,
// %% a percent sign.
func fnFormat(a []val, _ *aggRow) val {
	f := a[0].text()
	var sb strings.Builder
	next := 1
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			sb.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case '%':
			sb.WriteByte('%')
		case 's':
			if next >= len(a) {
				return nullVal
			}
			v := a[next]
			next++
			if v.k == vNull {
				sb.WriteString("(null)")
			} else {
				sb.WriteString(v.text())
			}
		default:
			return nullVal
		}
	}
	return strVal(sb.String())
}

// strftime directives understood by timefmt and parsetime.
var strftimeGo = map[byte]string{
	'Y': "2006", 'm': "01", 'd': "02", 'H': "15", 'M': "04", 'S': "05", 'y': "06",
	'b': "Jan", 'B': "January", 'a': "Mon", 'A': "Monday", 'p': "PM", 'Z': "MST", 'z': "-0700",
	'e': "_2", 'j': "002", 'I': "03",
}

func goLayout(f string) (string, bool) {
	var sb strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			sb.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case '%':
			sb.WriteByte('%')
		case 'T':
			sb.WriteString("15:04:05")
		case 'F':
			sb.WriteString("2006-01-02")
		case 'D':
			sb.WriteString("01/02/06")
		default:
			g, ok := strftimeGo[f[i]]
			if !ok {
				return "", false
			}
			sb.WriteString(g)
		}
	}
	return sb.String(), true
}

// fnTimefmt is timefmt(ts [, fmt]), default format "%FT%TZ".
func fnTimefmt(a []val, _ *aggRow) val {
	x, ok := a[0].num()
	if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
		return nullVal
	}
	f := "%FT%TZ"
	if len(a) > 1 {
		f = a[1].text()
	}
	layout, ok := goLayout(f)
	if !ok {
		return nullVal
	}
	return strVal(time.Unix(int64(x), 0).UTC().Format(layout))
}

// fnParsetime is parsetime(str, fmt).
func fnParsetime(a []val, _ *aggRow) val {
	layout, ok := goLayout(a[1].text())
	if !ok {
		return nullVal
	}
	t, err := time.ParseInLocation(layout, a[0].text(), time.UTC)
	if err != nil {
		return nullVal
	}
	return numVal(float64(t.Unix()))
}
