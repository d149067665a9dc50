package search

import (
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/ds/jsonpath"
	"github.com/ordo-db/ordo/internal/engine"
)

// defaultStopWords are RediSearch's default stop words.
var defaultStopWords = []string{
	"a", "is", "the", "an", "and", "are", "as", "at", "be", "but", "by", "for",
	"if", "in", "into", "it", "no", "not", "of", "on", "or", "such", "that", "their",
	"then", "there", "these", "they", "this", "to", "was", "will", "with",
}

// ftCreate is FT.CREATE.
func ftCreate(c *engine.Ctx, s *state) {
	ix, err := parseCreate(c.Args, c.DB.ID)
	if err != "" {
		c.Error(err)
		return
	}
	if s.indexes[ix.name] != nil {
		c.Error(ErrIndexExists)
		return
	}
	s.addIndex(ix)
	skip := false
	for _, o := range ix.options {
		skip = skip || o == "SKIPINITIALSCAN"
	}
	if !skip {
		s.startScan(ix)
	}
	c.Dirty(1)
	c.W.OK()
}

func parseCreate(args [][]byte, db int) (*index, string) {
	ix := newIndex(string(args[1]), db)
	ix.create = make([][]byte, len(args))
	for i, a := range args {
		ix.create[i] = append([]byte(nil), a...)
	}
	i := 2
	arg := func() string { return string(args[i]) }
	is := func(s string) bool { return i < len(args) && strings.EqualFold(string(args[i]), s) }
	need := func(n int) bool { return i+n < len(args) }
	stop := defaultStopWords
	for i < len(args) && !is("schema") {
		switch {
		case is("on"):
			if !need(1) {
				return nil, "Bad arguments for ON: Expected an argument"
			}
			i++
			switch {
			case is("hash"):
			case is("json"):
				ix.json = true
			default:
				return nil, "Invalid rule type"
			}
			i++
		case is("prefix"):
			if !need(1) {
				return nil, "Bad arguments for PREFIX: Expected an argument"
			}
			n, err := strconv.Atoi(string(args[i+1]))
			if err != nil || n < 0 || n > len(args)-i-2 {
				return nil, "Bad arguments for PREFIX: Expected an argument, but none provided"
			}
			for _, p := range args[i+2 : i+2+n] {
				ix.prefixes = append(ix.prefixes, string(p))
			}
			i += 2 + n
		case is("stopwords"):
			if !need(1) {
				return nil, "Bad arguments for STOPWORDS: Expected an argument"
			}
			n, err := strconv.Atoi(string(args[i+1]))
			if err != nil || n < 0 || n > len(args)-i-2 {
				return nil, "Bad arguments for STOPWORDS: Expected an argument, but none provided"
			}
			stop = nil
			for _, w := range args[i+2 : i+2+n] {
				stop = append(stop, foldTerm(string(w)))
			}
			i += 2 + n
		case is("filter"):
			return nil, "ERR Ordo's search does not support FILTER expressions yet"
		case is("language"), is("language_field"), is("score"), is("score_field"), is("payload_field"), is("temporary"):
			if !need(1) {
				return nil, "Bad arguments for " + strings.ToUpper(arg()) + ": Expected an argument"
			}
			v := string(args[i+1])
			switch {
			case is("language"):
				if !validLanguage(v) {
					return nil, "Invalid language"
				}
				ix.lang = strings.ToLower(v)
			case is("language_field"):
				ix.langF = v
			case is("score_field"):
				ix.scoreF = v
			case is("score"):
				f, err := strconv.ParseFloat(v, 64)
				if err != nil || f < 0 || f > 1 {
					return nil, "Invalid score"
				}
				ix.score = f
			}
			i += 2
		case is("skipinitialscan"), is("nooffsets"), is("nohl"), is("nofields"), is("nofreqs"), is("maxtextfields"), is("async"):
			ix.options = append(ix.options, strings.ToUpper(arg()))
			i++
		default:
			return nil, "Unknown argument `" + arg() + "`"
		}
	}
	ix.stop = map[string]bool{}
	for _, w := range stop {
		ix.stop[w] = true
	}
	if !is("schema") {
		return nil, "No schema found"
	}
	i++
	if i == len(args) {
		return nil, "Fields arguments are missing"
	}
	ntext := 0
	for i < len(args) {
		f := &field{name: arg(), weight: 1, sep: ','}
		f.alias = f.name
		i++
		if is("as") {
			if !need(1) {
				return nil, "Missing argument for AS"
			}
			f.alias = string(args[i+1])
			i += 2
		}
		if i == len(args) {
			return nil, "Field `" + f.name + "` does not have a type"
		}
		switch {
		case is("text"):
			f.typ = typeText
		case is("tag"):
			f.typ = typeTag
		case is("numeric"):
			f.typ = typeNumeric
		case is("geo"):
			f.typ = typeGeo
		case is("vector"), is("geoshape"):
			return nil, "ERR Ordo's search does not support " + strings.ToUpper(arg()) + " fields yet"
		default:
			return nil, "Invalid field type for field `" + f.name + "`"
		}
		i++
	opts:
		for i < len(args) {
			switch {
			case is("sortable"):
				f.sortable = true
				i++
				if is("unf") {
					f.unf = true
					i++
				}
			case is("noindex"):
				f.noindex = true
				i++
			case is("indexmissing"):
				f.missing = true
				i++
			case is("indexempty"):
				f.empty = true
				i++
			case is("withsuffixtrie"):
				i++
			case f.typ == typeText && is("nostem"):
				f.nostem = true
				i++
			case f.typ == typeText && is("weight"):
				if !need(1) {
					return nil, "Bad arguments for weight: Expected an argument"
				}
				w, err := strconv.ParseFloat(string(args[i+1]), 64)
				if err != nil || w < 0 {
					return nil, "Bad arguments for weight: Could not convert argument to expected type"
				}
				f.weight = w
				i += 2
			case f.typ == typeText && is("phonetic"):
				if !need(1) {
					return nil, "Bad arguments for PHONETIC: Expected an argument"
				}
				if !validPhonetic(string(args[i+1])) {
					return nil, "Matcher Format: <2 chars algorithm>:<2 chars language>. Support algorithms: double metaphone (dm). Supported languages: English (en), French (fr), Portuguese (pt) and Spanish (es)"
				}
				f.phonetic = strings.ToLower(string(args[i+1]))
				i += 2
			case f.typ == typeTag && is("separator"):
				if !need(1) || len(args[i+1]) != 1 {
					return nil, "Tag separator must be a single character"
				}
				f.sep = args[i+1][0]
				i += 2
			case f.typ == typeTag && is("casesensitive"):
				f.caseSensitive = true
				i++
			default:
				break opts
			}
		}
		if ix.json {
			f.path = jsonpath.New(f.name)
			if f.path.Err != "" {
				return nil, "Invalid JSONPath '" + f.name + "'"
			}
		}
		for _, g := range ix.fields {
			if strings.EqualFold(g.alias, f.alias) {
				return nil, "Duplicate field in schema - " + f.alias
			}
		}
		if f.typ == typeText {
			if ntext == 64 {
				return nil, "Too many TEXT fields in schema"
			}
			f.ord = ntext
			ntext++
		}
		ix.fields = append(ix.fields, f)
	}
	ix.initFields()
	return ix, ""
}
