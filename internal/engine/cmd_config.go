package engine

import (
	"strings"

	"github.com/ordo-db/ordo/internal/ds/glob"
)

// CONFIG GET, SET, RESETSTAT, REWRITE.

func registerConfig(t *Table) {
	t.registerContainer("config")
	t.register("config|get", configGetCommand)
	t.register("config|set", configSetCommand)
	t.register("config|resetstat", func(c *Ctx) {
		c.E.ResetStats()
		c.W.OK()
	})
	t.register("config|rewrite", func(c *Ctx) {
		if c.E.Config.File == "" {
			c.W.Error(ErrNoConfigFile)
			return
		}
		if err := c.E.Config.Rewrite(); err != nil {
			c.W.Error("ERR Rewriting config file: " + err.Error())
			return
		}
		c.W.OK()
	})
	t.register("config|help", func(c *Ctx) {
		helpReply(c, "CONFIG",
			"GET <pattern>",
			"    Return parameters matching the glob-like <pattern> and their values.",
			"SET <directive> <value>",
			"    Set the configuration <directive> to <value>.",
			"RESETSTAT",
			"    Reset statistics reported by the INFO command.",
			"REWRITE",
			"    Rewrite the configuration file.")
	})
}

func configGetCommand(c *Ctx) {
	type match struct{ name, value string }
	var out []match
	seen := map[string]bool{}
	vals := c.E.Config.Snapshot()
	for _, pat := range c.Args[2:] {
		if !strings.ContainsAny(string(pat), "[*?") {
			name := string(pat)
			if seen[name] {
				continue
			}
			if p := LookupParam(name); p != nil {
				seen[name] = true
				out = append(out, match{name, displayValue(p.Name, vals[p.Name])})
			}
			continue
		}
		for _, p := range params {
			for _, n := range append([]string{p.Name}, p.Aliases...) {
				if seen[n] || !glob.Match(pat, []byte(n), true) {
					continue
				}
				seen[n] = true
				out = append(out, match{n, displayValue(p.Name, vals[p.Name])})
			}
		}
	}
	c.W.Map(len(out))
	for _, m := range out {
		c.W.BulkString(m.name)
		c.W.BulkString(m.value)
	}
}

func configSetCommand(c *Ctx) {
	if len(c.Args)%2 != 0 {
		c.W.Error(ErrSyntax)
		return
	}
	pairs := make([]string, 0, len(c.Args)-2)
	for _, a := range c.Args[2:] {
		pairs = append(pairs, string(a))
	}
	if err := c.E.Config.SetMany(pairs, isLocalClient(c.Client)); err != nil {
		c.W.Error(err.Reply())
		return
	}
	for i := 0; i < len(pairs); i += 2 {
		if p := LookupParam(pairs[i]); p != nil && p.Name == "maxmemory" {
			c.E.maxMemoryExceeded(c) // evicts now, as Redis's updateMaxmemory
			break
		}
	}
	c.W.OK()
}
