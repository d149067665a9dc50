package search

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/engine"
)

// ext is the per-engine state of the FT commands beyond indexes:
// aliases, cursors, suggestion and custom dictionaries, and FT.CONFIG.
// It lives on the engine's state (no process-global state: two engines
// in one process share nothing).
type ext struct {
	aliases map[string]string // alias -> index name
	cursors map[int64]*cursor
	sugs    map[pendKey]*sugDict
	dicts   map[string]map[string]bool
	syn     map[string]*synonyms // index name -> synonym groups
	config  *ftConfig
}

// lookupIndex returns the index named name, directly or through an alias.
func (s *state) lookupIndex(name string) *index {
	if ix := s.indexes[name]; ix != nil {
		return ix
	}
	if n, ok := s.x.aliases[name]; ok {
		return s.indexes[n]
	}
	return nil
}

// dropExt forgets what belongs to a dropped index: its aliases and
// cursors.
func (s *state) dropExt(name string) {
	for a, n := range s.x.aliases {
		if n == name {
			delete(s.x.aliases, a)
		}
	}
	delete(s.x.syn, name)
	for id, cur := range s.x.cursors {
		if cur.ix.name == name {
			delete(s.x.cursors, id)
		}
	}
}

// rewriteExt emits the commands that recreate the durable state beyond
// index definitions (engine.StateRewriter): FT.ALTER schemas are part of
// the index's logged definition; aliases, synonyms, dictionaries and
// suggestions follow here, in a deterministic order.
func (s *state) rewriteExt(emit func(db int, args [][]byte)) {
	bs := func(ss ...string) [][]byte {
		out := make([][]byte, len(ss))
		for i, x := range ss {
			out[i] = []byte(x)
		}
		return out
	}
	aliases := make([]string, 0, len(s.x.aliases))
	for a := range s.x.aliases {
		aliases = append(aliases, a)
	}
	slices.Sort(aliases)
	for _, a := range aliases {
		ix := s.indexes[s.x.aliases[a]]
		if ix != nil {
			emit(ix.db, bs("FT.ALIASADD", a, ix.name))
		}
	}
	names := make([]string, 0, len(s.indexes))
	for n := range s.indexes {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		ix := s.indexes[n]
		for _, g := range synGroups(s, ix) {
			emit(ix.db, bs(append([]string{"FT.SYNUPDATE", ix.name, g.id, "SKIPINITIALSCAN"}, g.terms...)...))
		}
	}
	dicts := make([]string, 0, len(s.x.dicts))
	for d := range s.x.dicts {
		dicts = append(dicts, d)
	}
	slices.Sort(dicts)
	for _, d := range dicts {
		terms := sortedKeys(s.x.dicts[d])
		for i := 0; i < len(terms); i += 256 {
			emit(0, bs(append([]string{"FT.DICTADD", d}, terms[i:min(i+256, len(terms))]...)...))
		}
	}
	s.rewriteSugs(emit)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// FT.ALIASADD alias idx
func ftAliasAdd(c *engine.Ctx, s *state) {
	alias := string(c.Args[1])
	ix := s.indexes[string(c.Args[2])]
	if ix == nil {
		c.Error("Unknown index name (or name is an alias itself)")
		return
	}
	if _, ok := s.x.aliases[alias]; ok {
		c.Error("Alias already exists")
		return
	}
	if s.x.aliases == nil {
		s.x.aliases = map[string]string{}
	}
	s.x.aliases[alias] = ix.name
	c.Dirty(1)
	c.W.OK()
}

// FT.ALIASUPDATE alias idx
func ftAliasUpdate(c *engine.Ctx, s *state) {
	alias := string(c.Args[1])
	ix := s.indexes[string(c.Args[2])]
	if ix == nil {
		c.Error("Unknown index name (or name is an alias itself)")
		return
	}
	if s.x.aliases == nil {
		s.x.aliases = map[string]string{}
	}
	s.x.aliases[alias] = ix.name
	c.Dirty(1)
	c.W.OK()
}

// FT.ALIASDEL alias
func ftAliasDel(c *engine.Ctx, s *state) {
	alias := string(c.Args[1])
	if _, ok := s.x.aliases[alias]; !ok {
		if s.indexes[alias] != nil {
			c.Error("Alias does not belong to provided spec")
			return
		}
		c.Error("Alias does not exist")
		return
	}
	delete(s.x.aliases, alias)
	c.Dirty(1)
	c.W.OK()
}

// ftConfig is FT.CONFIG's options (RediSearch's RSGlobalConfig), per
// engine and not persisted (RediSearch's are module arguments). Ordo
// honours MAXAGGREGATERESULTS, CURSOR_MAX_IDLE and CURSOR_READ_SIZE (and
// MAXSEARCHRESULTS for FT.AGGREGATE's OFFSET); MINPREFIX, MAXEXPANSIONS,
// TIMEOUT, ON_TIMEOUT and DEFAULT_DIALECT are kept and reported only
// (queries are not timed out: they run under the engine lock).
type ftConfig struct {
	minPrefix           int64
	maxExpansions       int64
	timeout             int64
	onTimeout           string
	maxSearchResults    int64
	maxAggregateResults int64 // -1: unlimited
	cursorMaxIdle       int64
	cursorReadSize      int64
	defaultDialect      int64
}

func (s *state) cfg() *ftConfig {
	if s.x.config == nil {
		s.x.config = &ftConfig{minPrefix: 2, maxExpansions: 200, timeout: 500, onTimeout: "return",
			maxSearchResults: 1000000, maxAggregateResults: -1, cursorMaxIdle: 300000,
			cursorReadSize: 1000, defaultDialect: 1}
	}
	return s.x.config
}

// maxAgg is MAXAGGREGATERESULTS as a bound.
func (cf *ftConfig) maxAgg() int64 {
	if cf.maxAggregateResults < 0 {
		return 1<<62 - 1
	}
	return cf.maxAggregateResults
}

type cfgOpt struct {
	name, help string
	get        func(*ftConfig) string
	set        func(*ftConfig, string) string // error text
}

func intOpt(p func(*ftConfig) *int64, lo int64) (func(*ftConfig) string, func(*ftConfig, string) string) {
	return func(cf *ftConfig) string { return strconv.FormatInt(*p(cf), 10) },
		func(cf *ftConfig, v string) string {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < lo {
				return "Could not convert argument to expected type"
			}
			*p(cf) = n
			return ""
		}
}

var cfgOpts = func() []cfgOpt {
	mk := func(name, help string, p func(*ftConfig) *int64, lo int64) cfgOpt {
		g, st := intOpt(p, lo)
		return cfgOpt{name, help, g, st}
	}
	unl := func(p func(*ftConfig) *int64) (func(*ftConfig) string, func(*ftConfig, string) string) {
		return func(cf *ftConfig) string {
				if *p(cf) < 0 {
					return "unlimited"
				}
				return strconv.FormatInt(*p(cf), 10)
			}, func(cf *ftConfig, v string) string {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return "Could not convert argument to expected type"
				}
				if n < 0 {
					n = -1
				}
				*p(cf) = n
				return ""
			}
	}
	aggGet, aggSet := unl(func(cf *ftConfig) *int64 { return &cf.maxAggregateResults })
	srGet, srSet := unl(func(cf *ftConfig) *int64 { return &cf.maxSearchResults })
	return []cfgOpt{
		mk("MINPREFIX", "Set the minimum prefix for expansions (`*`)", func(cf *ftConfig) *int64 { return &cf.minPrefix }, 1),
		{"MAXSEARCHRESULTS", "Maximum number of results from ft.search command", srGet, srSet},
		{"MAXAGGREGATERESULTS", "Maximum number of results from ft.aggregate command", aggGet, aggSet},
		mk("MAXEXPANSIONS", "Maximum prefix expansions to be used in a query", func(cf *ftConfig) *int64 { return &cf.maxExpansions }, 1),
		mk("MAXPREFIXEXPANSIONS", "Maximum prefix expansions to be used in a query", func(cf *ftConfig) *int64 { return &cf.maxExpansions }, 1),
		mk("TIMEOUT", "Query (search) timeout", func(cf *ftConfig) *int64 { return &cf.timeout }, 0),
		{"ON_TIMEOUT", "Action to perform when search timeout is exceeded (choose RETURN or FAIL)",
			func(cf *ftConfig) string { return cf.onTimeout },
			func(cf *ftConfig, v string) string {
				v = strings.ToLower(v)
				if v != "return" && v != "fail" {
					return "Invalid ON_TIMEOUT value"
				}
				cf.onTimeout = v
				return ""
			}},
		mk("CURSOR_MAX_IDLE", "max idle time allowed to be set for cursor, setting it hight might cause high memory consumption.", func(cf *ftConfig) *int64 { return &cf.cursorMaxIdle }, 1),
		mk("CURSOR_READ_SIZE", "Default cursor read size", func(cf *ftConfig) *int64 { return &cf.cursorReadSize }, 1),
		{"DEFAULT_DIALECT", "Set RediSearch default dialect version throught the lifetime of the server.",
			func(cf *ftConfig) string { return strconv.FormatInt(cf.defaultDialect, 10) },
			func(cf *ftConfig, v string) string {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil || n < 1 {
					return "Could not convert argument to expected type"
				}
				if n > 4 {
					return "Default dialect version cannot be higher than 4"
				}
				cf.defaultDialect = n
				return ""
			}},
	}
}()

// FT.CONFIG GET|SET|HELP option [value]
func ftConfigCmd(c *engine.Ctx, s *state) {
	cf := s.cfg()
	action, name := string(c.Args[1]), string(c.Args[2])
	switch {
	case strings.EqualFold(action, "get"), strings.EqualFold(action, "help"):
		help := strings.EqualFold(action, "help")
		var opts []cfgOpt
		for _, o := range cfgOpts {
			if name == "*" || strings.EqualFold(name, o.name) {
				opts = append(opts, o)
			}
		}
		c.W.Array(len(opts))
		for _, o := range opts {
			if help {
				c.W.Array(5)
				c.W.Simple(o.name)
				c.W.Simple("Description")
				c.W.Simple(o.help)
				c.W.Simple("Value")
				c.W.BulkString(o.get(cf))
				continue
			}
			c.W.Array(2)
			c.W.Simple(o.name)
			c.W.Simple(o.get(cf))
		}
	case strings.EqualFold(action, "set"):
		for _, o := range cfgOpts {
			if strings.EqualFold(name, o.name) {
				if len(c.Args) < 4 {
					c.Error("Bad arguments for " + o.name + ": Expected an argument")
					return
				}
				if e := o.set(cf, string(c.Args[3])); e != "" {
					c.Error(e)
					return
				}
				if len(c.Args) > 4 {
					c.W.Simple("EXCESSARGS")
					return
				}
				c.W.OK()
				return
			}
		}
		c.Error("Invalid option")
	default:
		c.W.Simple("No such configuration action")
	}
}
