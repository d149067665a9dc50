package engine

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/ds/glob"
	"github.com/ordo-db/ordo/internal/resp"
)

// COMMAND and its subcommands: the command table's metadata, taken from
// Redis's own COMMAND output (gencommands).

func registerCommand(t *Table) {
	t.register("command", commandCommand)
	t.register("command|count", func(c *Ctx) { c.W.Int(int64(len(c.E.cmds.cmds))) })
	t.register("command|info", commandInfoCommand)
	t.register("command|docs", commandDocsCommand)
	t.register("command|list", commandListCommand)
	t.register("command|getkeys", func(c *Ctx) { commandGetKeys(c, false) })
	t.register("command|getkeysandflags", func(c *Ctx) { commandGetKeys(c, true) })
	t.register("command|help", func(c *Ctx) {
		helpReply(c, "COMMAND",
			"(no subcommand)",
			"    Return details about all Redis commands.",
			"COUNT",
			"    Return the total number of commands in this Redis server.",
			"LIST",
			"    Return a list of all commands in this Redis server.",
			"INFO [<command-name> ...]",
			"    Return details about multiple Redis commands.",
			"    If no command names are given, documentation details for all",
			"    commands are returned.",
			"DOCS [<command-name> ...]",
			"    Return documentation details about multiple Redis commands.",
			"    If no command names are given, documentation details for all",
			"    commands are returned.",
			"GETKEYS <full-command>",
			"    Return the keys from a full Redis command.",
			"GETKEYSANDFLAGS <full-command>",
			"    Return the keys and the access flags from a full Redis command.")
	})
}

// writeValue re-emits a parsed reply with the writer, so that RESP3 types
// degrade to RESP2 exactly as Redis does.
func writeValue(w *resp.Writer, v resp.Value) {
	switch v.Kind {
	case resp.KindSimple:
		w.Simple(v.Str)
	case resp.KindError:
		w.Error(v.Str)
	case resp.KindInt:
		w.Int(v.Int)
	case resp.KindBulk:
		w.BulkString(v.Str)
	case resp.KindVerbatim:
		format, s := "txt", v.Str
		if len(s) >= 4 && s[3] == ':' {
			format, s = s[:3], s[4:]
		}
		w.Verbatim(format, s)
	case resp.KindNull:
		w.Null()
	case resp.KindBool:
		w.Bool(v.Int != 0)
	case resp.KindDouble:
		f, _ := strconv.ParseFloat(v.Str, 64)
		w.Double(f)
	case resp.KindArray:
		w.Array(len(v.Elems))
	case resp.KindSet:
		w.Set(len(v.Elems))
	case resp.KindPush:
		w.Push(len(v.Elems))
	case resp.KindMap:
		w.Map(len(v.Elems) / 2)
	default:
		w.Null()
		return
	}
	for _, e := range v.Elems {
		writeValue(w, e)
	}
}

// sortedSubs returns cmd's subcommands in the order Redis lists them in
// its metadata, then Ordo's own, by name.
func sortedSubs(cmd *Command) []*Command {
	var out []*Command
	done := map[string]bool{}
	if len(cmd.info.Elems) > 9 {
		for _, s := range cmd.info.Elems[9].Elems {
			if len(s.Elems) == 0 {
				continue
			}
			full := s.Elems[0].Str
			_, sub, _ := strings.Cut(full, "|")
			if sc := cmd.Sub[sub]; sc != nil {
				out = append(out, sc)
				done[sub] = true
			}
		}
	}
	var rest []string
	for name := range cmd.Sub {
		if !done[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	for _, name := range rest {
		out = append(out, cmd.Sub[name])
	}
	return out
}

// commandInfo is cmd's COMMAND INFO entry, listing only the subcommands
// Ordo implements.
func commandInfo(cmd *Command) resp.Value {
	v := cmd.info
	if cmd.Sub == nil || len(v.Elems) < 10 {
		return v
	}
	subs := sortedSubs(cmd)
	list := resp.Value{Kind: v.Elems[9].Kind, Elems: make([]resp.Value, 0, len(subs))}
	if list.Kind == 0 {
		list.Kind = resp.KindArray
	}
	for _, s := range subs {
		list.Elems = append(list.Elems, commandInfo(s))
	}
	elems := append([]resp.Value(nil), v.Elems...)
	elems[9] = list
	v.Elems = elems
	return v
}

// commandDocs is cmd's COMMAND DOCS entry (a map), listing only the
// subcommands Ordo implements.
func commandDocs(cmd *Command) resp.Value {
	v := redisDocs()[cmd.Name]
	if v.Kind != resp.KindMap {
		return resp.Value{Kind: resp.KindMap, Elems: []resp.Value{
			{Kind: resp.KindBulk, Str: "group"}, {Kind: resp.KindBulk, Str: "module"}}}
	}
	if cmd.Sub == nil {
		return v
	}
	elems := append([]resp.Value(nil), v.Elems...)
	for i := 0; i+1 < len(elems); i += 2 {
		if elems[i].Str != "subcommands" {
			continue
		}
		m := resp.Value{Kind: resp.KindMap}
		for _, s := range sortedSubs(cmd) {
			m.Elems = append(m.Elems, resp.Value{Kind: resp.KindBulk, Str: s.Name}, commandDocs(s))
		}
		elems[i+1] = m
	}
	v.Elems = elems
	return v
}

// sorted lists the top-level commands by name.
func (t *Table) sorted() []*Command {
	out := make([]*Command, 0, len(t.cmds))
	for _, cmd := range t.cmds {
		out = append(out, cmd)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// lookupFullName finds "get" or "config|get" (case-insensitive).
func (t *Table) lookupFullName(name string) *Command {
	name = strings.ToLower(name)
	parent, sub, isSub := strings.Cut(name, "|")
	cmd := t.cmds[parent]
	if !isSub || cmd == nil {
		return cmd
	}
	if cmd.Sub == nil {
		return nil
	}
	return cmd.Sub[sub]
}

func commandCommand(c *Ctx) {
	if len(c.Args) > 1 {
		c.W.Error(fmt.Sprintf("ERR unknown subcommand '%s'. Try COMMAND HELP.", truncate(string(c.Args[1]), 128)))
		return
	}
	all := c.E.cmds.sorted()
	c.W.Array(len(all))
	for _, cmd := range all {
		writeValue(c.W, commandInfo(cmd))
	}
}

func commandInfoCommand(c *Ctx) {
	if len(c.Args) == 2 {
		commandCommand(&Ctx{W: c.W, Args: c.Args[:1]})
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, a := range c.Args[2:] {
		cmd := c.E.cmds.lookupFullName(string(a))
		if cmd == nil {
			c.W.Null()
			continue
		}
		writeValue(c.W, commandInfo(cmd))
	}
}

func commandDocsCommand(c *Ctx) {
	var list []*Command
	if len(c.Args) == 2 {
		list = c.E.cmds.sorted()
	} else {
		for _, a := range c.Args[2:] {
			if cmd := c.E.cmds.lookupFullName(string(a)); cmd != nil {
				list = append(list, cmd)
			}
		}
	}
	c.W.Map(len(list))
	for _, cmd := range list {
		c.W.BulkString(cmd.Name)
		writeValue(c.W, commandDocs(cmd))
	}
}

func commandListCommand(c *Ctx) {
	var filter func(cmd *Command) bool
	switch {
	case len(c.Args) == 2:
	case len(c.Args) == 5 && c.ArgIs(2, "filterby"):
		arg := string(c.Args[4])
		switch {
		case c.ArgIs(3, "module"):
			filter = func(*Command) bool { return false }
		case c.ArgIs(3, "aclcat"):
			filter = func(cmd *Command) bool {
				if len(cmd.info.Elems) < 7 {
					return false
				}
				for _, cat := range cmd.info.Elems[6].Elems {
					if strings.EqualFold(strings.TrimPrefix(cat.Str, "@"), arg) {
						return true
					}
				}
				return false
			}
		case c.ArgIs(3, "pattern"):
			filter = func(cmd *Command) bool { return glob.Match([]byte(arg), []byte(cmd.Name), true) }
		default:
			c.W.Error(ErrSyntax)
			return
		}
	default:
		c.W.Error(ErrSyntax)
		return
	}
	var names []string
	for _, cmd := range c.E.cmds.sorted() {
		if filter == nil || filter(cmd) {
			names = append(names, cmd.Name)
		}
		for _, s := range sortedSubs(cmd) {
			if filter == nil || filter(s) {
				names = append(names, s.Name)
			}
		}
	}
	c.W.Array(len(names))
	for _, n := range names {
		c.W.BulkString(n)
	}
}

// commandGetKeys is COMMAND GETKEYS, and GETKEYSANDFLAGS withFlags.
func commandGetKeys(c *Ctx, withFlags bool) {
	args := c.Args[2:]
	cmd := c.E.cmds.Lookup(args)
	// Redis's lookup finds nothing for a container with an unknown subcommand.
	if cmd == nil || cmd.Sub != nil && len(args) > 1 {
		c.W.Error(ErrInvalidCommand)
		return
	}
	if !cmd.HasKeys() {
		c.W.Error(ErrNoKeyArgs)
		return
	}
	if !checkArity(cmd, len(args)) {
		c.W.Error(ErrInvalidCmdArgs)
		return
	}
	idx := cmd.KeyIndexes(args)
	if len(idx) == 0 {
		if cmd.Has(FlagNoMandatoryKeys) {
			c.W.Array(0)
		} else {
			c.W.Error("ERR Invalid arguments specified for command")
		}
		return
	}
	c.W.Array(len(idx))
	for _, i := range idx {
		if !withFlags {
			c.W.Bulk(args[i])
			continue
		}
		c.W.Array(2)
		c.W.Bulk(args[i])
		flags := cmd.KeyFlagsAt(args, i)
		c.W.Set(len(flags))
		for _, f := range flags {
			c.W.Simple(f)
		}
	}
}
