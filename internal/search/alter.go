package search

import (
	"slices"

	"github.com/ordo-db/ordo/internal/engine"
)

// FT.ALTER idx [SKIPINITIALSCAN] SCHEMA ADD field options…
//
// The new fields are appended to the index's FT.CREATE arguments (its
// durable definition: an AOF rewrite re-emits the altered schema), and
// every covered hash is indexed again so that existing documents get the
// new fields. SKIPINITIALSCAN is accepted but existing documents are
// indexed all the same (RediSearch leaves them out until they change):
// a restart would index them anyway, as it does for FT.CREATE's
// SKIPINITIALSCAN, and an index that answers the same before and after a
// restart is what Ordo guarantees.
func ftAlter(c *engine.Ctx, s *state) {
	ix := s.lookupIndex(string(c.Args[1]))
	if ix == nil {
		c.Error("Unknown index name")
		return
	}
	i := 2
	if i < len(c.Args) && c.ArgIs(i, "skipinitialscan") {
		i++
	}
	if i >= len(c.Args) || !c.ArgIs(i, "schema") {
		c.Error("ALTER must be followed by SCHEMA")
		return
	}
	i++
	if i >= len(c.Args) || !c.ArgIs(i, "add") {
		c.Error("Unknown action passed to ALTER SCHEMA")
		return
	}
	i++
	if i >= len(c.Args) {
		c.Error("No fields provided")
		return
	}
	args := slices.Clone(ix.create)
	for _, a := range c.Args[i:] {
		args = append(args, append([]byte(nil), a...))
	}
	nx, err := parseCreate(args, ix.db)
	if err != "" {
		c.Error(err)
		return
	}
	ix.create = nx.create
	ix.fields = nx.fields
	ix.rebuild(c.E)
	c.Dirty(1)
	c.W.OK()
}

// FT.TAGVALS idx field: the distinct (normalized) values of a TAG field,
// in lexicographic order.
func ftTagVals(c *engine.Ctx, s *state) {
	ix := s.lookupIndex(string(c.Args[1]))
	if ix == nil {
		c.Error("Unknown Index name")
		return
	}
	f := ix.attr(string(c.Args[2]))
	if f == nil {
		c.Error("No such field")
		return
	}
	if f.typ != typeTag {
		c.Error("Not a tag field")
		return
	}
	vals := sortedKeys(ix.tags[slices.Index(ix.fields, f)].ids)
	c.W.Array(len(vals))
	for _, v := range vals {
		c.W.BulkString(v)
	}
}
