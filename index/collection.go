package index

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/backend"
)

// Object is a stored object: field → value, kept as one Redis hash.
type Object map[string]string

// Doc is an object with its id, as queries return it.
type Doc struct {
	ID     string
	Fields Object
}

// IndexSpec declares one index of a Collection; build it with
// NumericIndex, CompositeIndex or OrderedIndex.
type IndexSpec struct {
	name   string
	field  string  // numeric: the object field holding the number
	fields []Field // composite: object fields, in index order, with types
}

// NumericIndex indexes objects by the number in field (parsed as a
// float64; NaN rejected), in a sorted set scored by it. An object without
// the field is not in the index.
func NumericIndex(name, field string) IndexSpec { return IndexSpec{name: name, field: field} }

// CompositeIndex indexes objects by several fields, in order, each with
// its type (see Composite). An object lacking any of them is not in the
// index.
func CompositeIndex(name string, fields ...Field) IndexSpec {
	return IndexSpec{name: name, fields: fields}
}

// OrderedIndex indexes objects by the string in field, ordered bytewise
// (the lexicographic index: prefix and range queries on the field). It is
// a CompositeIndex of one String field.
func OrderedIndex(name, field string) IndexSpec {
	return CompositeIndex(name, Field{Name: field, Type: String})
}

// ErrEmptyObject is returned by Put for an object without fields (Redis
// keeps no empty hashes).
var ErrEmptyObject = errors.New("index: an object needs at least one field")

// Collection stores objects as hashes and keeps declared indexes in step
// with them (the data-modeling article's users, categories and posts,
// each a hash with its category and time indexes, without hand-written
// ZADDs).
//
// Layout, for a collection called name (every key carries the hash tag
// {name}, so on Redis Cluster they share one slot and each write is one
// atomic script; key names come from Key alone):
//
//	{name}:obj:<id>         hash: the object's fields
//	{name}:idx:<index>      numeric index: sorted set id → number;
//	                        composite index: sorted set of
//	                        tuple.Pack(values..., id), every score 0
//	{name}:idx:<index>:ids  composite index: hash id → its current member
//
// Put and Delete are one Lua script each: it replaces (or deletes) the
// object's hash and swaps every index entry (ZADD/ZREM for numeric
// indexes; HGET old member, ZREM, ZADD, HSET for composite ones), so
// readers never see an object and its index entries disagree. On a
// backend.Atomic (the embedded database) the same checks and commands
// run from Go instead, as one MULTI/EXEC with nothing between the reads
// and the writes: no Lua, same keys, same results, same errors. Index
// values are computed and validated in Go first: a field that does not
// parse as its index's type returns an error and writes nothing.
// Queries use the indexes (Numeric, Composite) and fetch whole objects
// with HGETALL in one pipelined round trip (on a backend.HashReader, one
// in-process read).
type Collection struct {
	b         backend.Backend
	Name      string
	specs     []IndexSpec
	numeric   map[string]*Numeric
	composite map[string]*Composite
}

// NewCollection returns the collection called name with the given
// indexes. It panics on an index without a name, a repeated name, or a
// composite index without fields (mistakes in the program, not in data).
func NewCollection(b backend.Backend, name string, indexes ...IndexSpec) *Collection {
	c := &Collection{b: b, Name: name, numeric: map[string]*Numeric{}, composite: map[string]*Composite{}}
	for _, s := range indexes {
		if s.name == "" {
			panic("index: collection " + name + ": an index needs a name")
		}
		if c.numeric[s.name] != nil || c.composite[s.name] != nil {
			panic("index: collection " + name + ": two indexes called " + s.name)
		}
		if s.fields == nil {
			c.numeric[s.name] = NewNumeric(b, c.Key("idx", s.name))
		} else {
			c.composite[s.name] = newComposite(b, s.name, c.Key("idx", s.name), c.Key("idx", s.name, "ids"), s.fields)
		}
		c.specs = append(c.specs, s)
	}
	return c
}

// Key is the one place where the collection's key names are made:
// "{name}:" followed by parts joined with ':'. The hash tag {name} puts
// every key of the collection in one Redis Cluster slot.
func (c *Collection) Key(parts ...string) string {
	return "{" + c.Name + "}:" + strings.Join(parts, ":")
}

// ObjectKey is the hash that stores object id.
func (c *Collection) ObjectKey(id string) string { return "{" + c.Name + "}:obj:" + id } // Key("obj", id) in one allocation

// Numeric returns the numeric index called name, for queries. It panics
// if the collection has no such numeric index.
func (c *Collection) Numeric(name string) *Numeric {
	n := c.numeric[name]
	if n == nil {
		panic("index: collection " + c.Name + " has no numeric index " + name)
	}
	return n
}

// Composite returns the composite (or ordered) index called name, for
// queries. It panics if the collection has no such index.
func (c *Collection) Composite(name string) *Composite {
	x := c.composite[name]
	if x == nil {
		panic("index: collection " + c.Name + " has no composite index " + name)
	}
	return x
}

// indexArgs computes the script keys and arguments that put obj's entries
// (obj nil: remove them) in every index.
func (c *Collection) indexArgs(id string, obj Object) (keys []string, args []any, err error) {
	for _, s := range c.specs {
		if s.fields == nil {
			n := c.numeric[s.name]
			keys = append(keys, n.Key)
			raw, ok := obj[s.field]
			if !ok {
				args = append(args, "n-", "")
				continue
			}
			f, err := strconv.ParseFloat(raw, 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return nil, nil, fmt.Errorf("%w: index %q: field %q: malformed number %q", ErrFieldType, s.name, s.field, raw)
			}
			if math.IsNaN(f) {
				return nil, nil, fmt.Errorf("%w: index %q: field %q: NaN cannot be indexed", ErrFieldType, s.name, s.field)
			}
			args = append(args, "n", formatScore(f))
			continue
		}
		x := c.composite[s.name]
		keys = append(keys, x.zkey, x.hkey)
		vals := make([]any, len(s.fields))
		complete := obj != nil
		for i, f := range s.fields {
			v, ok := obj[f.Name]
			if !ok {
				complete = false
				break
			}
			vals[i] = v
		}
		if !complete {
			args = append(args, "c-", "")
			continue
		}
		m, err := x.Member(id, vals...)
		if err != nil {
			return nil, nil, fmt.Errorf("index %q: %w", s.name, err)
		}
		args = append(args, "c", m)
	}
	return keys, args, nil
}

// Put stores obj as object id, replacing any previous version, and
// updates every index, atomically. It reports whether id existed before.
// If a field does not parse as its index's type, Put returns an error
// wrapping ErrFieldType and writes nothing.
func (c *Collection) Put(ctx context.Context, id string, obj Object) (replaced bool, err error) {
	if len(obj) == 0 {
		return false, ErrEmptyObject
	}
	ikeys, iargs, err := c.indexArgs(id, obj)
	if err != nil {
		return false, err
	}
	args := make([]any, 0, 3+2*len(obj)+len(iargs))
	args = append(args, id, "put", len(obj))
	for f, v := range obj {
		args = append(args, f, v)
	}
	if a, ok := c.b.(backend.Atomic); ok {
		return c.swapAtomic(ctx, a, id, obj, ikeys, iargs)
	}
	args = append(args, iargs...)
	v, err := c.b.Eval(ctx, swapScript, append([]string{c.ObjectKey(id)}, ikeys...), args...)
	if err != nil {
		return false, err
	}
	n, err := asInt(v)
	return n == 1, err
}

// Delete removes object id and its index entries, atomically, and
// reports whether it existed.
func (c *Collection) Delete(ctx context.Context, id string) (bool, error) {
	ikeys, iargs, err := c.indexArgs(id, nil)
	if err != nil {
		return false, err
	}
	if a, ok := c.b.(backend.Atomic); ok {
		return c.swapAtomic(ctx, a, id, nil, ikeys, iargs)
	}
	v, err := c.b.Eval(ctx, swapScript, append([]string{c.ObjectKey(id)}, ikeys...), append([]any{id, "del", 0}, iargs...)...)
	if err != nil {
		return false, err
	}
	n, err := asInt(v)
	return n == 1, err
}

// swapAtomic does the swap script's work (Put: obj set; Delete: obj nil)
// on a backend.Atomic, in Go: the same type checks before any write (same
// errors), the same commands, in one transaction with nothing between the
// reads and the writes. It reports whether the object existed.
func (c *Collection) swapAtomic(ctx context.Context, a backend.Atomic, id string, obj Object, ikeys []string, iargs []any) (bool, error) {
	okey := c.ObjectKey(id)
	existed := false
	res, err := a.Atomically(ctx, func(v backend.View) ([]backend.Cmd, error) {
		check := func(key, t string) error {
			if have := v.Type(key); have != "none" && have != t {
				return &backend.Error{Msg: "WRONGTYPE " + key + " holds a " + have + ", not a " + t}
			}
			return nil
		}
		if err := check(okey, "hash"); err != nil {
			return nil, err
		}
		for i, k := 0, 0; i < len(iargs); i += 2 {
			if err := check(ikeys[k], "zset"); err != nil {
				return nil, err
			}
			if kind := iargs[i].(string); kind == "n" || kind == "n-" {
				k++
				continue
			}
			if err := check(ikeys[k+1], "hash"); err != nil {
				return nil, err
			}
			k += 2
		}
		existed = v.Type(okey) != "none"
		cmds := make([]backend.Cmd, 0, 2+2*len(iargs))
		if existed {
			cmds = append(cmds, backend.Cmd{"DEL", okey})
		}
		if obj != nil {
			hset := make(backend.Cmd, 0, 2+2*len(obj))
			hset = append(hset, "HSET", okey)
			for f, val := range obj {
				hset = append(hset, f, val)
			}
			cmds = append(cmds, hset)
		}
		for i, k := 0, 0; i < len(iargs); i += 2 {
			kind, val := iargs[i].(string), iargs[i+1].(string)
			switch kind {
			case "n":
				cmds = append(cmds, backend.Cmd{"ZADD", ikeys[k], val, id})
				k++
			case "n-":
				cmds = append(cmds, backend.Cmd{"ZREM", ikeys[k], id})
				k++
			default:
				z, h := ikeys[k], ikeys[k+1]
				k += 2
				old, had := v.HGet(h, id)
				switch {
				case kind == "c":
					if had {
						cmds = append(cmds, backend.Cmd{"ZREM", z, old})
					}
					cmds = append(cmds, backend.Cmd{"ZADD", z, 0, val}, backend.Cmd{"HSET", h, id, val})
				case had:
					cmds = append(cmds, backend.Cmd{"ZREM", z, old}, backend.Cmd{"HDEL", h, id})
				}
			}
		}
		return cmds, nil
	})
	if err == nil {
		err = firstErr(res)
	}
	return existed && err == nil, err
}

// Get returns object id.
func (c *Collection) Get(ctx context.Context, id string) (Object, bool, error) {
	if hr, ok := c.b.(backend.HashReader); ok {
		var o Object
		err := hr.ReadHashes(ctx, []string{c.ObjectKey(id)}, func(_ int, pairs []string) { o = pairsObject(pairs) })
		return o, o != nil, err
	}
	v, err := c.b.Do(ctx, "HGETALL", c.ObjectKey(id))
	if err != nil {
		return nil, false, err
	}
	o, err := asObject(v)
	if err != nil || len(o) == 0 {
		return nil, false, err
	}
	return o, true, nil
}

// Objects returns the objects ids, in the order given, with one pipelined
// HGETALL per id (one round trip; on a backend.HashReader, one read of
// them all at one instant). An id whose object no longer exists (deleted
// since a query returned it) is left out.
func (c *Collection) Objects(ctx context.Context, ids []string) ([]Doc, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	keys := c.objectKeys(ids)
	if hr, ok := c.b.(backend.HashReader); ok {
		docs := make([]Doc, 0, len(ids))
		err := hr.ReadHashes(ctx, keys, func(i int, pairs []string) {
			if o := pairsObject(pairs); o != nil {
				docs = append(docs, Doc{ID: ids[i], Fields: o})
			}
		})
		if err != nil {
			return nil, err
		}
		return docs, nil
	}
	cmds := make([]backend.Cmd, len(ids))
	for i, k := range keys {
		cmds[i] = backend.Cmd{"HGETALL", k}
	}
	res, err := c.b.Pipeline(ctx, cmds)
	if err != nil {
		return nil, err
	}
	docs := make([]Doc, 0, len(ids))
	for i, r := range res {
		if r.Err != nil {
			return nil, r.Err
		}
		o, err := asObject(r.Val)
		if err != nil {
			return nil, err
		}
		if len(o) > 0 {
			docs = append(docs, Doc{ID: ids[i], Fields: o})
		}
	}
	return docs, nil
}

// objectKeys is ObjectKey of each id, substrings of one string (one
// allocation for the keys of a whole query's objects).
func (c *Collection) objectKeys(ids []string) []string {
	prefix := "{" + c.Name + "}:obj:"
	n := 0
	for _, id := range ids {
		n += len(prefix) + len(id)
	}
	var sb strings.Builder
	sb.Grow(n)
	for _, id := range ids {
		sb.WriteString(prefix)
		sb.WriteString(id)
	}
	all, at := sb.String(), 0
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = all[at : at+len(prefix)+len(id)]
		at += len(prefix) + len(id)
	}
	return keys
}

// pairsObject makes an Object of field/value pairs (nil for none).
func pairsObject(pairs []string) Object {
	if len(pairs) == 0 {
		return nil
	}
	o := make(Object, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		o[pairs[i]] = pairs[i+1]
	}
	return o
}

// Find returns the objects that q selects in the composite (or ordered)
// index called name, in index order: one ZRANGE BYLEX, then one pipelined
// round trip for the objects.
func (c *Collection) Find(ctx context.Context, name string, q *CompositeQuery) ([]Doc, error) {
	ids, err := c.Composite(name).IDs(ctx, q)
	if err != nil {
		return nil, err
	}
	return c.Objects(ctx, ids)
}

// FindRange returns the objects in the numeric index called name that the
// options select, in order (Rev: highest first).
func (c *Collection) FindRange(ctx context.Context, name string, opts ...QueryOption) ([]Doc, error) {
	ids, err := c.Numeric(name).IDs(ctx, opts...)
	if err != nil {
		return nil, err
	}
	return c.Objects(ctx, ids)
}

// asObject parses an HGETALL reply: a flat field/value array (RESP2, and
// RESP3 maps as the backends normalize them) or a map.
func asObject(v any) (Object, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []any:
		if len(x)%2 != 0 {
			return nil, fmt.Errorf("index: odd field/value reply")
		}
		o := make(Object, len(x)/2)
		for i := 0; i < len(x); i += 2 {
			f, ok1 := asString(x[i])
			val, ok2 := asString(x[i+1])
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("index: expected field/value strings, got %T %T", x[i], x[i+1])
			}
			o[f] = val
		}
		return o, nil
	case map[string]any:
		o := make(Object, len(x))
		for f, val := range x {
			s, ok := asString(val)
			if !ok {
				return nil, fmt.Errorf("index: expected a string value, got %T", val)
			}
			o[f] = s
		}
		return o, nil
	}
	return nil, fmt.Errorf("index: expected a hash reply, got %T", v)
}
