package engine

// The ACL command family (Redis 7.0's aclCommand): SETUSER, GETUSER,
// DELUSER, LIST, USERS, WHOAMI, CAT, GENPASS, LOG, DRYRUN, LOAD, SAVE,
// HELP. The users themselves are in acl.go.

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

func registerACL(t *Table) {
	t.registerContainer("acl")
	t.register("acl|setuser", aclSetUserCommand)
	t.register("acl|getuser", aclGetUserCommand)
	t.register("acl|deluser", aclDelUserCommand)
	t.register("acl|list", func(c *Ctx) {
		lines := c.E.acl.listLines()
		c.W.Array(len(lines))
		for _, l := range lines {
			c.W.BulkString(l)
		}
	})
	t.register("acl|users", func(c *Ctx) {
		names := c.E.acl.sortedNames()
		c.W.Array(len(names))
		for _, n := range names {
			c.W.BulkString(n)
		}
	})
	t.register("acl|whoami", func(c *Ctx) { c.W.BulkString(c.E.userOf(c.Client).name) })
	t.register("acl|cat", aclCatCommand)
	t.register("acl|genpass", func(c *Ctx) {
		bits := int64(256)
		if len(c.Args) == 3 {
			n, ok := c.IntArg(2)
			if !ok {
				return
			}
			bits = n
		}
		if bits <= 0 || bits > 4096 {
			c.W.Error("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")
			return
		}
		c.W.BulkString(genPass(int(bits)))
	})
	t.register("acl|log", aclLogCommand)
	t.register("acl|dryrun", aclDryRunCommand)
	t.register("acl|load", func(c *Ctx) {
		if !aclFileConfigured(c) {
			return
		}
		if errs := c.E.aclLoadFile(c.Client, c.E.Config.Get("aclfile")); errs != "" {
			c.W.Error("ERR " + errs)
			return
		}
		c.W.OK()
	})
	t.register("acl|save", func(c *Ctx) {
		if !aclFileConfigured(c) {
			return
		}
		if err := c.E.aclSaveFile(c.E.Config.Get("aclfile")); err != nil {
			c.E.Logf("ACL SAVE: %v", err)
			c.W.Error("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
			return
		}
		c.W.OK()
	})
	t.register("acl|help", func(c *Ctx) {
		helpReply(c, "ACL",
			"CAT [<category>]",
			"    List all commands that belong to <category>, or all command categories",
			"    when no category is specified.",
			"DELUSER <username> [<username> ...]",
			"    Delete a list of users.",
			"DRYRUN <username> <command> [<arg> ...]",
			"    Returns whether the user can execute the given command without executing the command.",
			"GETUSER <username>",
			"    Get the user's details.",
			"GENPASS [<bits>]",
			"    Generate a secure 256-bit user password. The optional `bits` argument can",
			"    be used to specify a different size.",
			"LIST",
			"    Show users details in config file format.",
			"LOAD",
			"    Reload users from the ACL file.",
			"LOG [<count> | RESET]",
			"    Show the ACL log entries.",
			"SAVE",
			"    Save the current config to the ACL file.",
			"SETUSER <username> <attribute> [<attribute> ...]",
			"    Create or modify a user with the specified attributes.",
			"USERS",
			"    List all the registered usernames.",
			"WHOAMI",
			"    Return the current connection username.")
	})
}

func aclFileConfigured(c *Ctx) bool {
	if c.E.Config.Get("aclfile") == "" {
		c.W.Error("ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.")
		return false
	}
	return true
}

func aclSetUserCommand(c *Ctx) {
	name := string(c.Args[2])
	if hasSpaces(name) {
		c.W.Error("ERR Usernames can't contain spaces or null characters")
		return
	}
	rules := make([]string, len(c.Args)-3)
	for i, a := range c.Args[3:] {
		rules[i] = string(a)
	}
	if msg := c.E.acl.setUser(name, rules); msg != "" {
		c.W.Error("ERR " + strings.NewReplacer("\r", " ", "\n", " ").Replace(msg))
		return
	}
	c.W.OK()
}

func aclGetUserCommand(c *Ctx) {
	u := c.E.acl.users[string(c.Args[2])]
	if u == nil {
		c.W.Null()
		return
	}
	w := c.W
	w.Map(6)
	w.BulkString("flags")
	n := 0
	for i := range userFlagNames {
		if u.flags&(1<<i) != 0 {
			n++
		}
	}
	w.Set(n)
	for i, name := range userFlagNames {
		if u.flags&(1<<i) != 0 {
			w.BulkString(name)
		}
	}
	w.BulkString("passwords")
	w.Array(len(u.passwords))
	for _, p := range u.passwords {
		w.BulkString(p)
	}
	aclDescribeSelectorReply(c, u.root())
	w.BulkString("selectors")
	w.Array(len(u.selectors) - 1)
	for _, s := range u.selectors[1:] {
		w.Map(3)
		aclDescribeSelectorReply(c, s)
	}
}

func aclDescribeSelectorReply(c *Ctx, s *aclSelector) {
	w := c.W
	w.BulkString("commands")
	w.BulkString(s.describeCommands(c.E.acl.un))
	w.BulkString("keys")
	if s.allKeys {
		w.BulkString("~*")
	} else {
		parts := make([]string, len(s.keys))
		for i, k := range s.keys {
			parts[i] = k.String()
		}
		w.BulkString(strings.Join(parts, " "))
	}
	w.BulkString("channels")
	if s.allChannels {
		w.BulkString("&*")
	} else {
		parts := make([]string, len(s.channels))
		for i, ch := range s.channels {
			parts[i] = "&" + ch
		}
		w.BulkString(strings.Join(parts, " "))
	}
}

func aclDelUserCommand(c *Ctx) {
	for _, a := range c.Args[2:] {
		if string(a) == "default" {
			c.W.Error("ERR The 'default' user cannot be removed")
			return
		}
	}
	deleted := 0
	for _, a := range c.Args[2:] {
		u := c.E.acl.users[string(a)]
		if u == nil {
			continue
		}
		delete(c.E.acl.users, string(a))
		c.E.killUserClients(c.Client, u)
		deleted++
	}
	c.W.Int(int64(deleted))
}

func aclCatCommand(c *Ctx) {
	if len(c.Args) == 2 {
		c.W.Array(len(aclCategories))
		for _, name := range aclCategories {
			c.W.BulkString(name)
		}
		return
	}
	if len(c.Args) != 3 {
		c.W.Error(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%s'. Try ACL HELP.", string(c.Args[1])))
		return
	}
	cflag := aclCategoryFlag(string(c.Args[2]))
	if cflag == 0 {
		c.W.Error("ERR Unknown category '" + truncate(string(c.Args[2]), 128) + "'")
		return
	}
	var names []string
	for _, ac := range c.E.acl.un.all {
		if ac.cats&cflag != 0 {
			names = append(names, ac.name)
		}
	}
	c.W.Array(len(names))
	for _, n := range names {
		c.W.BulkString(n)
	}
}

func aclLogCommand(c *Ctx) {
	if len(c.Args) > 3 {
		c.W.Error(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%s'. Try ACL HELP.", string(c.Args[1])))
		return
	}
	a := c.E.acl
	count := int64(10)
	if len(c.Args) == 3 {
		if c.ArgIs(2, "reset") {
			a.log = nil
			c.W.OK()
			return
		}
		n, ok := c.IntArg(2)
		if !ok {
			return
		}
		count = max(n, 0)
	}
	count = min(count, int64(len(a.log)))
	now := NowMs()
	w := c.W
	w.Array(int(count))
	for _, le := range a.log[:count] {
		w.Map(7)
		w.BulkString("count")
		w.Int(le.count)
		w.BulkString("reason")
		w.BulkString(aclReasonName(le.reason))
		w.BulkString("context")
		w.BulkString(le.context)
		w.BulkString("object")
		w.BulkString(le.object)
		w.BulkString("username")
		w.BulkString(le.username)
		w.BulkString("age-seconds")
		w.Double(float64(now-le.ctime) / 1000)
		w.BulkString("client-info")
		w.BulkString(le.cinfo)
	}
}

func aclDryRunCommand(c *Ctx) {
	u := c.E.acl.users[string(c.Args[2])]
	if u == nil {
		c.W.Error("ERR User '" + string(cString(c.Args[2])) + "' not found")
		return
	}
	args := c.Args[3:]
	cmd := c.E.cmds.Lookup(args)
	if cmd != nil && cmd.Sub != nil && len(args) >= 2 {
		cmd = nil // an unknown subcommand: Redis's lookupCommand finds nothing
	}
	if cmd == nil {
		c.W.Error("ERR Command '" + string(cString(args[0])) + "' not found")
		return
	}
	ac := c.E.acl.un.byCmd[cmd]
	if !checkArity(cmd, len(args)) {
		c.W.Error("ERR wrong number of arguments for '" + ac.name + "' command")
		return
	}
	r, pos := u.checkCommand(cmd, ac, args)
	switch r {
	case aclOK:
		c.W.OK()
	case aclDeniedCmd:
		c.W.BulkString("This user has no permissions to run the '" + ac.name + "' command")
	case aclDeniedKey:
		c.W.BulkString("This user has no permissions to access the '" + string(cString(args[pos])) + "' key")
	default:
		c.W.BulkString("This user has no permissions to access the '" + string(cString(args[pos])) + "' channel")
	}
}

// aclLoadFile is ACLLoadFromFile: every line must be "user name rules";
// on any error nothing changes and the errors are returned in one line.
// Clients of the replaced users are disconnected, as in Redis.
func (e *Engine) aclLoadFile(cur *Client, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "Error loading ACLs, opening file '" + path + "': " + osErrText(err)
	}
	a := e.acl
	users := map[string]*User{}
	var errs strings.Builder
	for i, line := range strings.Split(string(data), "\n") {
		ln := i + 1
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		argv := strings.Split(line, " ")
		if argv[0] != "user" || len(argv) < 2 {
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", path, ln)
			continue
		}
		if hasSpaces(argv[1]) {
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", path, ln, argv[1])
			continue
		}
		if users[argv[1]] != nil {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", argv[1], ln)
			continue
		}
		u := newUser(a.un, argv[1])
		users[argv[1]] = u
		merged, bad := mergeSelectorArgs(argv[2:])
		if merged == nil && bad >= 0 {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", path, ln)
		}
		syntax := false
		for _, op := range merged {
			op = strings.Trim(op, "\t\r\n")
			if err := u.set(op); err != nil {
				if err == aclErrNoEnt {
					fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %s. ", path, ln, op, err.Error())
				} else if !syntax {
					fmt.Fprintf(&errs, "%s:%d: %s. ", path, ln, err.Error())
					syntax = true
				}
			}
		}
	}
	if errs.Len() > 0 {
		return errs.String() + "WARNING: ACL errors detected, no change to the previously active ACL rules was performed"
	}
	def := users["default"]
	if def == nil {
		def = a.defaultUser()
	}
	old := a.users
	*a.def = *def
	users["default"] = a.def
	a.users = users
	for name, u := range old {
		if name != "default" {
			e.killUserClients(cur, u)
		}
	}
	a.sync()
	return ""
}

func osErrText(err error) string {
	if os.IsNotExist(err) {
		return "No such file or directory"
	}
	if os.IsPermission(err) {
		return "Permission denied"
	}
	return err.Error()
}

// aclSaveFile is ACLSaveToFile: ACL LIST's lines, written to a temporary
// file renamed over path.
func (e *Engine) aclSaveFile(path string) error {
	var b strings.Builder
	for _, l := range e.acl.listLines() {
		b.WriteString(l + "\n")
	}
	tmp := path + ".tmp-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixMilli(), 10)
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
