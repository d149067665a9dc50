package search

import (
	"strconv"

	"github.com/ordo-db/ordo/internal/ds/jsonpath"
	"github.com/ordo-db/ordo/internal/ds/jsonval"
	"github.com/ordo-db/ordo/internal/engine"
)

// Indexes ON JSON: each schema field is a JSONPath ($.a.b, $.tags[*],
// redis-om's $["field"]) evaluated over the document of the engine's JSON
// type; the values it matches are indexed as RediSearch does: strings
// for TEXT (several strings are one text, 100 positions apart, so that a
// phrase does not span two), strings and booleans for TAG (each split at
// the separator), numbers for NUMERIC (the first; its JSON text is kept
// exact), "lon,lat" strings for GEO. A value of another type makes the
// document an indexing failure, as in RediSearch. Results carry the
// document as "$" and its JSON text; RETURN takes attributes or paths.

// multiTextGap separates the positions of a TEXT field's values.
const multiTextGap = 100

// source is a document to index: a hash or a JSON document.
type source interface {
	// values returns field f's values, whether it is present, and false
	// in the last result when a value has a type f cannot index.
	values(f *field) (vals []string, present, ok bool)
	// get is a hash field or, for JSON, a path's first value (SCORE_FIELD,
	// LANGUAGE_FIELD, SORTBY and RETURN).
	get(name string) (string, bool)
}

type hashSource struct{ h fieldSource }

func (s hashSource) values(f *field) ([]string, bool, bool) {
	v, ok := s.h.Get(f.name)
	if !ok {
		return nil, false, true
	}
	return []string{v}, true, true
}

func (s hashSource) get(name string) (string, bool) { return s.h.Get(name) }

type jsonSource struct {
	root any
	ix   *index
}

func (s jsonSource) values(f *field) ([]string, bool, bool) {
	ms := jsonpath.Eval(f.path.Segs, s.root, false)
	var out []string
	for _, m := range ms {
		if a, ok := m.V.(*jsonval.Array); ok {
			// An array ($.tags as well as $.tags[*]) indexes its elements.
			for _, e := range a.Elems {
				v, ok := jsonScalar(e, f.typ)
				if !ok {
					return nil, true, false
				}
				if v != nil {
					out = append(out, *v)
				}
			}
			continue
		}
		v, ok := jsonScalar(m.V, f.typ)
		if !ok {
			return nil, true, false
		}
		if v != nil {
			out = append(out, *v)
		}
	}
	return out, len(out) > 0, true
}

// jsonScalar is a JSON value as indexed text for a field of type t: nil
// for null, false if t cannot index it.
func jsonScalar(v any, t fieldType) (*string, bool) {
	var s string
	switch x := v.(type) {
	case nil:
		return nil, true
	case string:
		if t == typeNumeric {
			return nil, false
		}
		s = x
	case bool:
		if t != typeTag {
			return nil, false
		}
		s = strconv.FormatBool(x)
	case int64, uint64, float64:
		if t != typeNumeric {
			return nil, false
		}
		s = jsonval.Text(x)
	default:
		return nil, false
	}
	return &s, true
}

func (s jsonSource) get(name string) (string, bool) {
	v, _, ok := s.getStr(name)
	return v, ok
}

// getStr is get, telling whether the value is a JSON string.
func (s jsonSource) getStr(name string) (v string, str, ok bool) {
	p := s.ix.pathOf(name)
	if p == nil || p.Err != "" {
		return "", false, false
	}
	ms := jsonpath.Eval(p.Segs, s.root, false)
	if len(ms) == 0 {
		return "", false, false
	}
	if str, ok := ms[0].V.(string); ok {
		return str, true, true
	}
	return jsonval.Text(ms[0].V), false, true
}

// pathOf is the JSONPath an attribute or path names in a JSON index.
func (ix *index) pathOf(name string) *jsonpath.Path {
	if f := ix.attr(name); f != nil {
		return f.path
	}
	return jsonpath.New(name)
}

// sourceOf returns the document at v, if the index covers its type.
func (ix *index) sourceOf(v engine.Value) (source, bool) {
	if ix.json {
		j, ok := v.Obj().(*engine.JSON)
		if !ok {
			return nil, false
		}
		return jsonSource{j.Root(), ix}, true
	}
	h, ok := v.Obj().(*engine.Hash)
	if !ok {
		return nil, false
	}
	return &hashSource{h}, true
}
