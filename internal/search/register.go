package search

import "github.com/ordo-db/ordo/internal/engine"

// registerExt adds the FT commands beyond FT.CREATE/SEARCH/INFO/_LIST/
// DROPINDEX: aggregation and cursors, aliases, FT.ALTER, FT.TAGVALS,
// suggestions, dictionaries, synonyms, FT.EXPLAIN(CLI), FT.PROFILE and
// FT.CONFIG.
func registerExt(t *engine.Table, h *holder, spec func(int, ...string) engine.Spec) {
	reg := func(name string, fn func(*engine.Ctx, *state), arity int, flags ...string) {
		t.RegisterSpec(name, func(c *engine.Ctx) { fn(c, h.get(c.E)) }, spec(arity, flags...))
	}
	reg("ft.aggregate", ftAggregate, -3, "readonly")
	reg("ft.cursor", ftCursor, -3, "readonly")
	reg("ft.aliasadd", ftAliasAdd, 3, "write")
	reg("ft.aliasupdate", ftAliasUpdate, 3, "write")
	reg("ft.aliasdel", ftAliasDel, 2, "write")
	reg("ft.alter", ftAlter, -3, "write")
	reg("ft.tagvals", ftTagVals, 3, "readonly")
	reg("ft.sugadd", ftSugAdd, -4, "write", "denyoom")
	reg("ft.sugget", ftSugGet, -3, "readonly")
	reg("ft.sugdel", ftSugDel, 3, "write")
	reg("ft.suglen", ftSugLen, 2, "readonly")
	reg("ft.dictadd", ftDictAdd, -3, "write", "denyoom")
	reg("ft.dictdel", ftDictDel, -3, "write")
	reg("ft.dictdump", ftDictDump, 2, "readonly")
	reg("ft.synupdate", ftSynUpdate, -4, "write")
	reg("ft.syndump", ftSynDump, 2, "readonly")
	reg("ft.explain", ftExplain, -3, "readonly")
	reg("ft.explaincli", ftExplainCLI, -3, "readonly")
	reg("ft.config", ftConfigCmd, -3, "admin")
	reg("ft.profile", ftProfile, -5, "readonly")
}
