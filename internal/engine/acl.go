package engine

// ACL users as in Redis 7.0 (src/acl.c): users with passwords (stored as
// SHA-256 hex), on/off, command permissions (commands, subcommands,
// first arguments, categories), key patterns (~, %R~, %W~), channel
// patterns (&) and selectors "(...)". Every engine has its own users: the
// state hangs off the Engine and is only touched under the engine lock
// (except the default user's "needs AUTH" bit, read by NewClient).
//
// The command universe ACL rules speak about is Redis 7.0's whole command
// table (from Redis's metadata, so that +xadd is valid even for a command
// Ordo does not implement, and category counts match Redis's), plus Ordo's
// own commands (JSON.*, CLIENT SETINFO/NO-TOUCH), which are to ACLs what
// module commands are in Redis 7.0: in no category, allowed by name, by
// +@all, or through their container. Each command and
// subcommand has a bit in a selector's bitmap; one more bit, set only by
// +@all/allcommands, tells "all commands, including future ones", which
// is how ACL LIST chooses between "+@all ..." and "-@all ...".
//
// ACL LIST describes command rules with Redis's algorithm: the first
// +@all/-@all, then the best-fitting categories, then single commands.
// Redis emits those single commands in the order of its command hash
// table, which is randomized per process; Ordo emits them sorted by name.
//
// Where the checks run: Engine.call (before a command runs or is queued,
// after the arity and NOAUTH checks, as processCommand), EXEC (each queued
// command again), redis.call/pcall (ScriptACLDenied), ACL DRYRUN. As in
// Redis 7.0, disabling a user ("off") keeps its connections; deleting it
// (DELUSER, ACL LOAD) closes them. Not done yet: commands answered BUSY
// while a script runs (busy.go) are not checked, and since Ordo has no
// pub/sub yet, channel rules are only checked for PUBLISH/SUBSCRIBE/
// PSUBSCRIBE once those commands exist (channelArgs) and through
// User.ChannelAllowed; killing subscribers whose channels a SETUSER
// revokes (ACLKillPubsubClientsIfNeeded) is left to the pub/sub layer.

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/ordo-db/ordo/internal/ds/glob"
	"github.com/ordo-db/ordo/internal/resp"
)

// aclCategories are Redis 7.0's categories, in its order (ACL CAT).
var aclCategories = []string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting",
}

func aclCategoryFlag(name string) uint32 {
	for i, c := range aclCategories {
		if strings.EqualFold(c, name) {
			return 1 << i
		}
	}
	return 0
}

// Key permission flags of a key pattern.
const (
	aclRead  = 1
	aclWrite = 2
	aclAll   = aclRead | aclWrite
)

// Key spec flags that matter to ACLs (Redis's CMD_KEY_*).
const (
	keyAccess = 1 << iota
	keyInsert
	keyDelete
	keyUpdate
	keyNotKey
	keyIncomplete
	keyVariable
)

// ACL check results, ordered as Redis's ACL_DENIED_* (a higher one is the
// more relevant error when no selector allows a command).
const (
	aclOK = iota
	aclDeniedCmd
	aclDeniedKey
	aclDeniedAuth
	aclDeniedChannel
)

// aclCmd is one command or subcommand of the ACL universe.
type aclCmd struct {
	name      string // full name, "config|get"
	id        int
	cats      uint32
	parent    *aclCmd
	subs      []*aclCmd
	noAuth    bool
	specFlags []int // key spec flags, parallel to Command.specs
}

type aclUniverse struct {
	top    []*aclCmd
	all    []*aclCmd
	byName map[string]*aclCmd
	byCmd  map[*Command]*aclCmd
	future int // the id of the "all future commands" bit
}

func (un *aclUniverse) words() int { return un.future/64 + 1 }

// lookup finds a command as Redis's ACLLookupCommand: "name" or
// "container|sub", case-insensitively.
func (un *aclUniverse) lookup(name string) *aclCmd {
	name = strings.ToLower(name)
	if strings.Count(name, "|") > 1 {
		return nil
	}
	return un.byName[name]
}

func newACLUniverse(t *Table) *aclUniverse {
	specs := redisMeta()
	un := &aclUniverse{byName: map[string]*aclCmd{}, byCmd: map[*Command]*aclCmd{}}
	add := func(name string, info resp.Value, redis bool) *aclCmd {
		if c := un.byName[name]; c != nil {
			return c
		}
		c := &aclCmd{name: name}
		if len(info.Elems) > 6 {
			for _, f := range info.Elems[2].Elems {
				if f.Str == "no_auth" {
					c.noAuth = true
				}
			}
			for _, cat := range info.Elems[6].Elems {
				if redis {
					c.cats |= aclCategoryFlag(strings.TrimPrefix(cat.Str, "@"))
				}
			}
		}
		c.specFlags = parseKeySpecFlags(info)
		un.byName[name] = c
		if parent, _, ok := strings.Cut(name, "|"); ok {
			p := un.byName[parent]
			if p == nil {
				return c
			}
			c.parent = p
			p.subs = append(p.subs, c)
		} else {
			un.top = append(un.top, c)
		}
		return c
	}
	var names []string
	for name := range specs {
		names = append(names, name)
	}
	sort.Strings(names) // a container sorts before "container|sub"
	for _, name := range names {
		add(name, specs[name], true)
	}
	var cmdNames []string
	for name := range t.cmds {
		cmdNames = append(cmdNames, name)
	}
	sort.Strings(cmdNames)
	for _, name := range cmdNames {
		cmd := t.cmds[name]
		un.byCmd[cmd] = add(name, cmd.info, false)
		var subNames []string
		for s := range cmd.Sub {
			subNames = append(subNames, s)
		}
		sort.Strings(subNames)
		for _, s := range subNames {
			sub := cmd.Sub[s]
			un.byCmd[sub] = add(sub.Name, sub.info, false)
		}
	}
	sort.Slice(un.top, func(i, j int) bool { return un.top[i].name < un.top[j].name })
	for _, c := range un.top {
		sort.Slice(c.subs, func(i, j int) bool { return c.subs[i].name < c.subs[j].name })
		c.id = len(un.all)
		un.all = append(un.all, c)
		for _, s := range c.subs {
			s.id = len(un.all)
			un.all = append(un.all, s)
		}
	}
	un.future = len(un.all)
	return un
}

// parseKeySpecFlags returns the ACL-relevant flags of each key spec that
// parseKeySpecs keeps, in the same order.
func parseKeySpecFlags(info resp.Value) []int {
	if len(info.Elems) <= 8 {
		return nil
	}
	var out []int
	for _, sp := range info.Elems[8].Elems {
		bs, _ := mapGet(sp, "begin_search")
		bt, _ := mapGet(bs, "type")
		if bt.Str != "index" && bt.Str != "keyword" {
			continue
		}
		fk, _ := mapGet(sp, "find_keys")
		ft, _ := mapGet(fk, "type")
		if ft.Str != "range" && ft.Str != "keynum" {
			continue
		}
		fl, _ := mapGet(sp, "flags")
		f := 0
		for _, e := range fl.Elems {
			switch e.Str {
			case "access":
				f |= keyAccess
			case "insert":
				f |= keyInsert
			case "delete":
				f |= keyDelete
			case "update":
				f |= keyUpdate
			case "not_key":
				f |= keyNotKey
			case "incomplete":
				f |= keyIncomplete
			case "variable_flags":
				f |= keyVariable
			}
		}
		out = append(out, f)
	}
	return out
}

type keyPattern struct {
	flags   int
	pattern string
}

func (p keyPattern) String() string {
	switch p.flags {
	case aclRead:
		return "%R~" + p.pattern
	case aclWrite:
		return "%W~" + p.pattern
	}
	return "~" + p.pattern
}

// aclSelector is a set of permissions: the user's root selector, or one
// of its "(...)" selectors.
type aclSelector struct {
	root        bool
	allKeys     bool
	allChannels bool
	allCommands bool
	bits        []uint64
	firstArgs   map[int][]string
	keys        []keyPattern
	channels    []string
}

func newSelector(un *aclUniverse, root bool) *aclSelector {
	return &aclSelector{root: root, bits: make([]uint64, un.words())}
}

func (s *aclSelector) clone() *aclSelector {
	n := *s
	n.bits = append([]uint64(nil), s.bits...)
	n.keys = append([]keyPattern(nil), s.keys...)
	n.channels = append([]string(nil), s.channels...)
	if s.firstArgs != nil {
		n.firstArgs = map[int][]string{}
		for k, v := range s.firstArgs {
			n.firstArgs[k] = append([]string(nil), v...)
		}
	}
	return &n
}

func (s *aclSelector) bit(id int) bool { return s.bits[id/64]&(1<<(id%64)) != 0 }

func (s *aclSelector) setBit(id int, v bool) {
	if v {
		s.bits[id/64] |= 1 << (id % 64)
	} else {
		s.bits[id/64] &^= 1 << (id % 64)
		s.allCommands = false
	}
}

// changePerm allows or denies a command and, for a container, all its
// subcommands.
func (s *aclSelector) changePerm(c *aclCmd, allow bool) {
	s.setBit(c.id, allow)
	delete(s.firstArgs, c.id)
	for _, sub := range c.subs {
		s.setBit(sub.id, allow)
	}
}

func (s *aclSelector) setCategory(un *aclUniverse, cflag uint32, allow bool) {
	for _, c := range un.top {
		if c.cats&cflag != 0 {
			s.changePerm(c, allow)
		}
		for _, sub := range c.subs {
			if sub.cats&cflag != 0 {
				s.changePerm(sub, allow)
			}
		}
	}
}

func (s *aclSelector) countCategory(un *aclUniverse, cflag uint32) (on, off int) {
	for _, c := range un.all {
		if c.cats&cflag != 0 {
			if s.bit(c.id) {
				on++
			} else {
				off++
			}
		}
	}
	return
}

func (s *aclSelector) setAll(allow bool) {
	var w uint64
	if allow {
		w = ^uint64(0)
	}
	for i := range s.bits {
		s.bits[i] = w
	}
	s.allCommands = allow
	s.firstArgs = nil
}

// aclError is the reason an ACL rule was refused (Redis's errno values).
type aclError int

const (
	aclErrFormat  aclError = iota
	aclErrNoEnt            // unknown command or category
	aclErrInval            // syntax error
	aclErrExist            // key pattern after allkeys
	aclErrIsDir            // channel pattern after allchannels
	aclErrNoDev            // removing a password that is not there
	aclErrBadMsg           // bad hash
	aclErrAlready          // duplicate user in config
	aclErrChild            // first-arg of a subcommand
)

func (e aclError) Error() string {
	switch e {
	case aclErrNoEnt:
		return "Unknown command or category name in ACL"
	case aclErrInval:
		return "Syntax error"
	case aclErrExist:
		return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
	case aclErrIsDir:
		return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"
	case aclErrNoDev:
		return "The password you are trying to remove from the user does not exist"
	case aclErrBadMsg:
		return "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
	case aclErrAlready:
		return "Duplicate user found. A user can only be defined once in config files"
	case aclErrChild:
		return "Allowing first-arg of a subcommand is not supported"
	}
	return "Wrong format"
}

func hasSpaces(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return true
		}
	}
	return false
}

// set applies one selector rule (Redis's ACLSetSelector).
func (s *aclSelector) set(un *aclUniverse, op string) error {
	switch {
	case strings.EqualFold(op, "allkeys") || op == "~*":
		s.allKeys, s.keys = true, nil
	case strings.EqualFold(op, "resetkeys"):
		s.allKeys, s.keys = false, nil
	case strings.EqualFold(op, "allchannels") || op == "&*":
		s.allChannels, s.channels = true, nil
	case strings.EqualFold(op, "resetchannels"):
		s.allChannels, s.channels = false, nil
	case strings.EqualFold(op, "allcommands") || strings.EqualFold(op, "+@all"):
		s.setAll(true)
	case strings.EqualFold(op, "nocommands") || strings.EqualFold(op, "-@all"):
		s.setAll(false)
	case op[0] == '~' || op[0] == '%':
		if s.allKeys {
			return aclErrExist
		}
		flags, off := 0, 1
		if op[0] == '%' {
			for ; off < len(op); off++ {
				ch := op[off]
				if (ch == 'R' || ch == 'r') && flags&aclRead == 0 {
					flags |= aclRead
				} else if (ch == 'W' || ch == 'w') && flags&aclWrite == 0 {
					flags |= aclWrite
				} else if ch == '~' {
					off++
					break
				} else {
					return aclErrInval
				}
			}
		} else {
			flags = aclAll
		}
		pat := op[min(off, len(op)):]
		if hasSpaces(pat) {
			return aclErrInval
		}
		found := false
		for i := range s.keys {
			if s.keys[i].pattern == pat {
				s.keys[i].flags |= flags
				found = true
			}
		}
		if !found {
			s.keys = append(s.keys, keyPattern{flags, pat})
		}
		s.allKeys = false
	case op[0] == '&':
		if s.allChannels {
			return aclErrIsDir
		}
		pat := op[1:]
		if hasSpaces(pat) {
			return aclErrInval
		}
		found := false
		for _, c := range s.channels {
			if c == pat {
				found = true
			}
		}
		if !found {
			s.channels = append(s.channels, pat)
		}
		s.allChannels = false
	case op[0] == '+' && (len(op) < 2 || op[1] != '@'):
		name := op[1:]
		i := strings.LastIndexByte(name, '|')
		if i < 0 {
			c := un.lookup(name)
			if c == nil {
				return aclErrNoEnt
			}
			s.changePerm(c, true)
			return nil
		}
		c := un.lookup(name[:i])
		if c == nil {
			return aclErrNoEnt
		}
		if c.parent != nil {
			return aclErrChild
		}
		sub := name[i+1:]
		if sub == "" {
			return aclErrInval
		}
		if len(c.subs) > 0 {
			sc := un.lookup(name)
			if sc == nil {
				return aclErrNoEnt
			}
			s.changePerm(sc, true)
			return nil
		}
		if s.firstArgs == nil {
			s.firstArgs = map[int][]string{}
		}
		for _, a := range s.firstArgs[c.id] {
			if strings.EqualFold(a, sub) {
				return nil
			}
		}
		s.firstArgs[c.id] = append(s.firstArgs[c.id], sub)
	case op[0] == '-' && (len(op) < 2 || op[1] != '@'):
		c := un.lookup(op[1:])
		if c == nil {
			return aclErrNoEnt
		}
		s.changePerm(c, false)
	case (op[0] == '+' || op[0] == '-') && op[1] == '@':
		cflag := aclCategoryFlag(op[2:])
		if cflag == 0 {
			return aclErrNoEnt
		}
		s.setCategory(un, cflag, op[0] == '+')
	default:
		return aclErrInval
	}
	return nil
}

// describeCommands is ACLDescribeSelectorCommandRules: "+@all"/"-@all",
// then best-fitting categories, then single commands and first-args.
func (s *aclSelector) describeCommands(un *aclUniverse) string {
	var b strings.Builder
	fake := newSelector(un, false)
	additive := !s.bit(un.future)
	if additive {
		b.WriteString("-@all ")
	} else {
		b.WriteString("+@all ")
		fake.setAll(true)
	}
	temp := newSelector(un, false)
	copy(temp.bits, s.bits)
	applied := make([]bool, len(aclCategories))
	for {
		best, mindiff, maxsame := -1, int(^uint(0)>>1), 0
		for j, name := range aclCategories {
			if applied[j] {
				continue
			}
			on, off := temp.countCategory(un, aclCategoryFlag(name))
			diff, same := on, off
			if additive {
				diff, same = off, on
			}
			if same > diff && (diff < mindiff || (diff == mindiff && same > maxsame)) {
				best, mindiff, maxsame = j, diff, same
			}
		}
		if best < 0 {
			break
		}
		cflag := uint32(1) << best
		fake.setCategory(un, cflag, additive)
		temp.setCategory(un, cflag, !additive)
		if additive {
			b.WriteString("+@")
		} else {
			b.WriteString("-@")
		}
		b.WriteString(aclCategories[best])
		b.WriteByte(' ')
		applied[best] = true
	}
	var single func(cmds []*aclCmd)
	single = func(cmds []*aclCmd) {
		for _, c := range cmds {
			user, f := s.bit(c.id), fake.bit(c.id)
			if user != f {
				if user {
					b.WriteByte('+')
				} else {
					b.WriteByte('-')
				}
				b.WriteString(c.name)
				b.WriteByte(' ')
				fake.changePerm(c, user)
			}
			single(c.subs)
			if !user {
				for _, a := range s.firstArgs[c.id] {
					b.WriteString("+" + c.name + "|" + a + " ")
				}
			}
		}
	}
	single(un.top)
	out := b.String()
	return out[:len(out)-1]
}

// describe is ACLDescribeSelector: keys, channels, command rules.
func (s *aclSelector) describe(un *aclUniverse) string {
	var b strings.Builder
	if s.allKeys {
		b.WriteString("~* ")
	} else {
		for _, k := range s.keys {
			b.WriteString(k.String() + " ")
		}
	}
	if s.allChannels {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		for _, c := range s.channels {
			b.WriteString("&" + c + " ")
		}
	}
	b.WriteString(s.describeCommands(un))
	return b.String()
}

// User flags, in the order ACL LIST and GETUSER print them.
const (
	userOn = 1 << iota
	userOff
	userNopass
	userSkipSanitize
	userSanitize
)

var userFlagNames = []string{"on", "off", "nopass", "skip-sanitize-payload", "sanitize-payload"}

// User is an ACL user. Its methods are called under the engine lock.
type User struct {
	name      string
	flags     int
	passwords []string // SHA-256 hex
	selectors []*aclSelector
	un        *aclUniverse
	// unrestricted: all commands, keys and channels (the default user's
	// usual state): checks are skipped.
	unrestricted bool
}

// Name is the user's name.
func (u *User) Name() string { return u.name }

// Enabled reports whether the user can authenticate ("on").
func (u *User) Enabled() bool { return u.flags&userOn != 0 }

func newUser(un *aclUniverse, name string) *User {
	return &User{name: name, flags: userOff, un: un, selectors: []*aclSelector{newSelector(un, true)}}
}

func (u *User) clone() *User {
	n := *u
	n.passwords = append([]string(nil), u.passwords...)
	n.selectors = make([]*aclSelector, len(u.selectors))
	for i, s := range u.selectors {
		n.selectors[i] = s.clone()
	}
	return &n
}

func (u *User) root() *aclSelector { return u.selectors[0] }

func (u *User) update() {
	r := u.root()
	u.unrestricted = r.allCommands && r.allKeys && r.allChannels
}

func hashPassword(p string) string {
	h := sha256.Sum256([]byte(p))
	return hex.EncodeToString(h[:])
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if (c < 'a' || c > 'f') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// set applies one rule (Redis's ACLSetUser).
func (u *User) set(op string) error {
	defer u.update()
	if op == "" {
		return nil
	}
	switch {
	case strings.EqualFold(op, "on"):
		u.flags = u.flags&^userOff | userOn
	case strings.EqualFold(op, "off"):
		u.flags = u.flags&^userOn | userOff
	case strings.EqualFold(op, "skip-sanitize-payload"):
		u.flags = u.flags&^userSanitize | userSkipSanitize
	case strings.EqualFold(op, "sanitize-payload"):
		u.flags = u.flags&^userSkipSanitize | userSanitize
	case strings.EqualFold(op, "nopass"):
		u.flags |= userNopass
		u.passwords = nil
	case strings.EqualFold(op, "resetpass"):
		u.flags &^= userNopass
		u.passwords = nil
	case op[0] == '>' || op[0] == '#':
		var h string
		if op[0] == '>' {
			h = hashPassword(op[1:])
		} else {
			if !validHash(op[1:]) {
				return aclErrBadMsg
			}
			h = op[1:]
		}
		found := false
		for _, p := range u.passwords {
			if p == h {
				found = true
			}
		}
		if !found {
			u.passwords = append(u.passwords, h)
		}
		u.flags &^= userNopass
	case op[0] == '<' || op[0] == '!':
		var h string
		if op[0] == '<' {
			h = hashPassword(op[1:])
		} else {
			if !validHash(op[1:]) {
				return aclErrBadMsg
			}
			h = op[1:]
		}
		for i, p := range u.passwords {
			if p == h {
				u.passwords = append(u.passwords[:i:i], u.passwords[i+1:]...)
				return nil
			}
		}
		return aclErrNoDev
	case op[0] == '(' && op[len(op)-1] == ')':
		s := newSelector(u.un, false)
		args, ok := resp.SplitArgs([]byte(op[1:len(op)-1]), nil)
		if !ok {
			return aclErrInval
		}
		for _, a := range args {
			if len(a) == 0 {
				continue
			}
			if err := s.set(u.un, string(a)); err != nil {
				return err
			}
		}
		u.selectors = append(u.selectors, s)
	case strings.EqualFold(op, "clearselectors"):
		u.selectors = u.selectors[:1]
	case strings.EqualFold(op, "reset"):
		for _, o := range []string{"resetpass", "resetkeys", "resetchannels", "off", "sanitize-payload", "clearselectors", "-@all"} {
			u.set(o)
		}
	default:
		return u.root().set(u.un, op)
	}
	return nil
}

// mergeSelectorArgs joins "(" ... ")" rules spread over several
// arguments; on an unmatched parenthesis it returns the index of the
// argument that opened it.
func mergeSelectorArgs(args []string) ([]string, int) {
	var out []string
	open := -1
	var sel string
	for j, op := range args {
		if open < 0 && len(op) > 0 && op[0] == '(' && op[len(op)-1] != ')' {
			sel, open = op, j
			continue
		}
		if open >= 0 {
			sel += " " + op
			if len(op) > 0 && op[len(op)-1] == ')' {
				open = -1
				out = append(out, sel)
			}
			continue
		}
		out = append(out, op)
	}
	if open >= 0 {
		return nil, open
	}
	return out, -1
}

// Describe is the user's rules as ACL LIST prints them (without "user
// name").
func (u *User) Describe() string {
	var b strings.Builder
	for i, name := range userFlagNames {
		if u.flags&(1<<i) != 0 {
			b.WriteString(name + " ")
		}
	}
	for _, p := range u.passwords {
		b.WriteString("#" + p + " ")
	}
	for _, s := range u.selectors {
		if s.root {
			b.WriteString(s.describe(u.un))
		} else {
			b.WriteString(" (" + s.describe(u.un) + ")")
		}
	}
	return b.String()
}

// ChannelAllowed reports whether the user may publish to or subscribe to
// the channel ch (SUBSCRIBE, PUBLISH): ch is matched against the user's
// channel patterns.
func (u *User) ChannelAllowed(ch string) bool { return u.channelAllowed(ch, false) }

// ChannelPatternAllowed reports whether the user may PSUBSCRIBE to pat:
// as in Redis, the pattern must equal one of the user's channel patterns.
func (u *User) ChannelPatternAllowed(pat string) bool { return u.channelAllowed(pat, true) }

func (u *User) channelAllowed(ch string, isPattern bool) bool {
	for _, s := range u.selectors {
		if s.channelOK(ch, isPattern) {
			return true
		}
	}
	return false
}

func (s *aclSelector) channelOK(ch string, isPattern bool) bool {
	if s.allChannels {
		return true
	}
	for _, p := range s.channels {
		if (isPattern && p == ch) || (!isPattern && glob.Match([]byte(p), []byte(ch), false)) {
			return true
		}
	}
	return false
}

func (s *aclSelector) keyOK(key []byte, specFlags int) bool {
	if s.allKeys {
		return true
	}
	need := 0
	if specFlags&keyAccess != 0 {
		need |= aclRead
	}
	if specFlags&(keyInsert|keyDelete|keyUpdate) != 0 {
		need |= aclWrite
	}
	for _, p := range s.keys {
		if p.flags&need != need {
			continue
		}
		if glob.Match([]byte(p.pattern), key, false) {
			return true
		}
	}
	return false
}

type keyRef struct {
	pos, flags int
}

// aclKeys returns the key arguments of a command with their access
// flags, as Redis's getKeysFromCommandWithSpecs does for ACL checks.
func aclKeys(cmd *Command, ac *aclCmd, args [][]byte) []keyRef {
	idx := cmd.KeyIndexes(args)
	if len(idx) == 0 {
		return nil
	}
	if len(cmd.specs) == 0 || len(ac.specFlags) != len(cmd.specs) {
		f := keyAccess
		if cmd.Has(FlagWrite) {
			f |= keyUpdate
		}
		out := make([]keyRef, len(idx))
		for i, p := range idx {
			out[i] = keyRef{p, f}
		}
		return out
	}
	var out []keyRef
	for i, sp := range cmd.specs {
		f := ac.specFlags[i]
		if f&keyNotKey != 0 {
			continue
		}
		one := Command{specs: []keySpec{sp}}
		idx, _ := keysFromSpecs(&one, args) // invalid specs give no keys, as Redis
		for _, p := range idx {
			out = append(out, keyRef{p, variableKeyFlags(ac.name, args, p, f)})
		}
	}
	return out
}

// variableKeyFlags refines the flags of commands whose key access depends
// on their arguments (Redis's getkeys procs with flags).
func variableKeyFlags(name string, args [][]byte, pos, f int) int {
	if f&keyVariable == 0 {
		return f
	}
	switch name {
	case "set":
		for _, a := range args[3:] {
			if EqualFold(a, "get") {
				return keyAccess | keyUpdate
			}
		}
		return keyUpdate
	case "bitfield":
		for i := 2; i < len(args); i++ {
			if !EqualFold(args[i], "get") && (EqualFold(args[i], "set") || EqualFold(args[i], "incrby")) {
				return keyAccess | keyUpdate
			}
		}
		return keyAccess
	case "sort":
		if pos == 1 {
			return keyAccess
		}
		return keyUpdate
	}
	return f
}

// channelArgs returns the channel arguments of the pub/sub commands that
// ACLs check (publishing and subscribing), and whether they are patterns.
func channelArgs(name string, n int) (first, last int, pattern bool) {
	switch name {
	case "subscribe", "ssubscribe":
		return 1, n - 1, false
	case "psubscribe":
		return 1, n - 1, true
	case "publish", "spublish":
		return 1, 1, false
	}
	return 0, -1, false
}

// checkSelector is ACLSelectorCheckCmd: it returns aclOK or the denial,
// with the position of the offending argument.
func (s *aclSelector) check(cmd *Command, ac *aclCmd, args [][]byte, keys *[]keyRef, keysDone *bool) (int, int) {
	if !s.allCommands && !ac.noAuth && !s.bit(ac.id) {
		fa := s.firstArgs[ac.id]
		if len(args) < 2 || fa == nil {
			return aclDeniedCmd, 0
		}
		idx := 1
		if ac.parent != nil {
			idx = 2
		}
		ok := false
		for _, a := range fa {
			if idx < len(args) && EqualFold(args[idx], a) {
				ok = true
				break
			}
		}
		if !ok {
			return aclDeniedCmd, 0
		}
	}
	if !s.allKeys && cmd.HasKeys() {
		if !*keysDone {
			*keys = aclKeys(cmd, ac, args)
			*keysDone = true
		}
		for _, k := range *keys {
			if !s.keyOK(args[k.pos], k.flags) {
				return aclDeniedKey, k.pos
			}
		}
	}
	return s.checkChannels(ac.name, args)
}

// checkChannels checks the channel arguments of the publishing and
// subscribing commands.
func (s *aclSelector) checkChannels(name string, args [][]byte) (int, int) {
	if s.allChannels {
		return aclOK, 0
	}
	first, last, pat := channelArgs(name, len(args))
	for i := first; i <= last && i > 0; i++ {
		if !s.channelOK(string(args[i]), pat) {
			return aclDeniedChannel, i
		}
	}
	return aclOK, 0
}

// checkCommand is ACLCheckAllUserCommandPerm.
func (u *User) checkCommand(cmd *Command, ac *aclCmd, args [][]byte) (int, int) {
	if u.unrestricted {
		return aclOK, 0
	}
	relevant, lastIdx := aclDeniedCmd, 0
	var keys []keyRef
	done := false
	for _, s := range u.selectors {
		r, idx := s.check(cmd, ac, args, &keys, &done)
		if r == aclOK {
			return aclOK, 0
		}
		if r > relevant || (r == relevant && idx > lastIdx) {
			relevant, lastIdx = r, idx
		}
	}
	return relevant, lastIdx
}

// aclState is one engine's users and ACL log.
type aclState struct {
	un    *aclUniverse
	users map[string]*User
	def   *User // the default user: the same object for the engine's life
	super *User // unrestricted, in no list: the AOF loader's user
	log   []*aclLogEntry
	// defNeedsAuth mirrors "the default user is off or has passwords":
	// new clients start unauthenticated then (read without the lock).
	defNeedsAuth atomic.Bool
	startErr     error // loading the configured users or the aclfile failed
}

// ACLStartupError reports a failure to load the users of the config file
// (user directives) or of the aclfile when the engine started: Redis
// refuses to start then.
func (e *Engine) ACLStartupError() error { return e.acl.startErr }

// AddUser records a "user name rules..." directive (config file or
// flags) after checking its rules as Redis's ACLAppendUserForLoading does
// (unknown commands are only reported when the engine loads the users).
func (c *Config) AddUser(argv []string) error {
	if len(argv) < 1 {
		return errors.New("wrong number of arguments")
	}
	for _, u := range c.users {
		if u[0] == argv[0] {
			return fmt.Errorf("Error in user declaration '%s': %s", argv[0], aclErrAlready)
		}
	}
	merged, bad := mergeSelectorArgs(argv[1:])
	if merged == nil && bad >= 0 {
		return fmt.Errorf("Error in user declaration '%s': Unmatched parenthesis", argv[bad+1])
	}
	fake := newUser(newACLUniverse(&Table{cmds: map[string]*Command{}}), "fake")
	for _, op := range merged {
		if err := fake.set(op); err != nil && err != aclErrNoEnt {
			return fmt.Errorf("Error in user declaration '%s': %s", op, err)
		}
	}
	c.users = append(c.users, append([]string{argv[0]}, merged...))
	return nil
}

// loadAtStartup is ACLLoadUsersAtStartup: the config's user directives,
// then the aclfile (not both).
func (a *aclState) loadAtStartup(e *Engine) error {
	file := e.Config.Get("aclfile")
	if file != "" && len(e.Config.users) > 0 {
		return errors.New("Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both.")
	}
	for _, rules := range e.Config.users {
		name := rules[0]
		if hasSpaces(name) {
			return errors.New("Spaces not allowed in ACL usernames")
		}
		u := a.users[name]
		if u == nil {
			u = newUser(a.un, name)
			a.users[name] = u
		} else {
			u.set("reset")
		}
		for _, op := range rules[1:] {
			if err := u.set(op); err != nil {
				return fmt.Errorf("Error loading ACL rule '%s' for the user named '%s': %s", op, name, err)
			}
		}
	}
	if file != "" {
		if errs := e.aclLoadFile(nil, file); errs != "" {
			return errors.New("Aborting Redis startup because of ACL errors: " + errs)
		}
	}
	return nil
}

func newACLState(e *Engine) *aclState {
	a := &aclState{un: newACLUniverse(e.cmds), users: map[string]*User{}}
	a.def = a.defaultUser()
	a.super = a.defaultUser()
	a.users["default"] = a.def
	if pw := e.Config.Get("requirepass"); pw != "" {
		a.setDefaultPassword(pw)
	}
	e.acl = a // aclLoadFile reaches the state through the engine
	e.Config.userLines = a.listLines
	a.startErr = a.loadAtStartup(e)
	a.sync()
	e.Config.OnChange("requirepass", func(v string) error {
		a.setDefaultPassword(v)
		a.sync()
		return nil
	})
	return a
}

func (a *aclState) defaultUser() *User {
	u := newUser(a.un, "default")
	for _, op := range []string{"+@all", "~*", "&*", "on", "nopass"} {
		u.set(op)
	}
	return u
}

// setDefaultPassword is requirepass: "" makes the default user nopass.
func (a *aclState) setDefaultPassword(pw string) {
	a.def.set("resetpass")
	if pw != "" {
		a.def.set(">" + pw)
	} else {
		a.def.set("nopass")
	}
}

// sync republishes what is read without the lock.
func (a *aclState) sync() {
	a.defNeedsAuth.Store(a.def.flags&userNopass == 0 || a.def.flags&userOff != 0)
}

// DefaultUserNeedsAuth reports whether new connections must authenticate
// (the default user has passwords or is off).
func (e *Engine) DefaultUserNeedsAuth() bool { return e.acl.defNeedsAuth.Load() }

// setUser is ACLStringSetUser: all rules apply, or none.
func (a *aclState) setUser(name string, rules []string) string {
	merged, bad := mergeSelectorArgs(rules)
	if merged == nil && bad >= 0 {
		return "Unmatched parenthesis in acl selector starting at '" + rules[bad] + "'."
	}
	old := a.users[name]
	var tmp *User
	if old != nil {
		tmp = old.clone()
	} else {
		tmp = newUser(a.un, name)
	}
	for _, op := range merged {
		if err := tmp.set(op); err != nil {
			return "Error in ACL SETUSER modifier '" + cString0(op) + "': " + err.Error()
		}
	}
	if old != nil {
		*old = *tmp // keep the object: clients point at it
	} else {
		a.users[name] = tmp
	}
	a.sync()
	return ""
}

// cString0 cuts s at its first NUL, as Redis's %s does.
func cString0(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// authenticate checks a user name and password (ACLCheckUserCredentials).
func (a *aclState) authenticate(name string, pass []byte) *User {
	u := a.users[name]
	if u == nil || u.flags&userOff != 0 {
		return nil
	}
	if u.flags&userNopass != 0 {
		return u
	}
	h := hashPassword(string(pass))
	ok := false
	for _, p := range u.passwords {
		if subtle.ConstantTimeCompare([]byte(h), []byte(p)) == 1 {
			ok = true
		}
	}
	if ok {
		return u
	}
	return nil
}

func (a *aclState) sortedNames() []string {
	names := make([]string, 0, len(a.users))
	for n := range a.users {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// listText is ACL LIST / the ACL file: one "user name rules" line a user.
func (a *aclState) listLines() []string {
	var out []string
	for _, n := range a.sortedNames() {
		out = append(out, "user "+n+" "+a.users[n].Describe())
	}
	return out
}

// ACL log.

const aclLogGroupMs = 60000

type aclLogEntry struct {
	count    int64
	reason   int
	context  string
	object   string
	username string
	ctime    int64
	cinfo    string
}

// addLog is addACLLogEntry; the caller names the object.
func (e *Engine) aclLog(cl *Client, reason int, context, object, username string) {
	a := e.acl
	le := &aclLogEntry{count: 1, reason: reason, context: context, object: object,
		username: username, ctime: NowMs(), cinfo: e.clientInfoLine(cl)}
	for i := 0; i < len(a.log) && i < 10; i++ {
		cur := a.log[i]
		d := cur.ctime - le.ctime
		if d < 0 {
			d = -d
		}
		if cur.reason == le.reason && cur.context == le.context && d <= aclLogGroupMs &&
			cur.object == le.object && cur.username == le.username {
			cur.cinfo, cur.ctime = le.cinfo, le.ctime
			cur.count++
			copy(a.log[1:i+1], a.log[:i])
			a.log[0] = cur
			return
		}
	}
	a.log = append([]*aclLogEntry{le}, a.log...)
	if max := e.Config.Int("acllog-max-len"); int64(len(a.log)) > max {
		a.log = a.log[:max]
	}
}

func aclReasonName(r int) string {
	switch r {
	case aclDeniedCmd:
		return "command"
	case aclDeniedKey:
		return "key"
	case aclDeniedChannel:
		return "channel"
	case aclDeniedAuth:
		return "auth"
	}
	return "unknown"
}

// userOf is the client's user (the default user if none was set).
func (e *Engine) userOf(cl *Client) *User {
	if cl.user == nil {
		return e.acl.def
	}
	return cl.user
}

// ClientUser returns the user a client is authenticated as (for the
// pub/sub layer: ChannelAllowed). Under the lock.
func (e *Engine) ClientUser(cl *Client) *User { return e.userOf(cl) }

// aclDenied checks a command before it runs or is queued (the hook in
// Engine.call). It writes the NOPERM error and logs the denial when the
// client's user may not run it.
func (e *Engine) aclDenied(c *Ctx, cmd *Command) bool {
	u := e.userOf(c.Client)
	if u.unrestricted || cmd.Sub != nil { // a container answers "unknown subcommand"
		return false
	}
	if c.Client.multi && cmd.Has(FlagNoMulti) && !isMultiControl(cmd.Name) {
		return false // refused by the MULTI checks, as in Redis
	}
	ac := e.acl.un.byCmd[cmd]
	if ac == nil {
		return false
	}
	r, pos := u.checkCommand(cmd, ac, c.Args)
	if r == aclOK {
		return false
	}
	ctx := "toplevel"
	if c.Client.multi {
		ctx = "multi"
	}
	e.aclLog(c.Client, r, ctx, e.aclObject(r, ac, c.Args, pos), u.name)
	msg := "NOPERM this user has no permissions to access one of the channels used as arguments"
	switch r {
	case aclDeniedCmd:
		msg = "NOPERM this user has no permissions to run the '" + ac.name + "' command"
	case aclDeniedKey:
		msg = "NOPERM this user has no permissions to access one of the keys used as arguments"
	}
	if cmd.Name == "exec" { // rejectCommand: execCommandAbort, in MULTI or not
		e.discard(c.Client)
		msg = "EXECABORT Transaction discarded because of: " + msg
	}
	c.W.Error(msg)
	return true
}

func (e *Engine) aclObject(r int, ac *aclCmd, args [][]byte, pos int) string {
	if r == aclDeniedCmd {
		return ac.name
	}
	return string(args[pos])
}

// aclExecDenied re-checks a queued command when EXEC runs it (the rules
// may have changed since it was queued); it returns the error to reply
// or "".
func (e *Engine) aclExecDenied(c *Ctx) string {
	u := e.userOf(c.Client)
	if u.unrestricted || c.Cmd.Sub != nil {
		return ""
	}
	ac := e.acl.un.byCmd[c.Cmd]
	if ac == nil {
		return ""
	}
	r, pos := u.checkCommand(c.Cmd, ac, c.Args)
	if r == aclOK {
		return ""
	}
	e.aclLog(c.Client, r, "multi", e.aclObject(r, ac, c.Args, pos), u.name)
	reason := "no permission to execute the command or subcommand"
	switch r {
	case aclDeniedKey:
		reason = "no permission to touch the specified keys"
	case aclDeniedChannel:
		reason = "no permission to access one of the channels used as arguments"
	}
	return "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: " + reason
}

// ScriptACLDenied checks a command called from a script (redis.call) for
// the script's user. It returns "" or the message the script sees,
// without an error code ("The user executing the script can't run this
// command or subcommand"), and logs the denial with context "lua".
func (e *Engine) ScriptACLDenied(c *Ctx, cmd *Command, args [][]byte) string {
	u := e.userOf(c.Client)
	if u.unrestricted {
		return ""
	}
	ac := e.acl.un.byCmd[cmd]
	if ac == nil {
		return ""
	}
	r, pos := u.checkCommand(cmd, ac, args)
	if r == aclOK {
		return ""
	}
	e.aclLog(c.Client, r, "lua", e.aclObject(r, ac, args, pos), u.name)
	switch r {
	case aclDeniedCmd:
		return "The user executing the script can't run this command or subcommand"
	case aclDeniedKey:
		return "The user executing the script can't access at least one of the keys mentioned in the command arguments"
	}
	return "The user executing the script can't publish to the channel mentioned in the command"
}

// authClient authenticates cl as name/pass (AUTH, HELLO AUTH); on failure
// it logs the attempt and returns false.
func (e *Engine) authClient(c *Ctx, name string, pass []byte) bool {
	if u := e.acl.authenticate(name, pass); u != nil {
		c.Client.Authenticated = true
		c.Client.user = u
		return true
	}
	ctx := "toplevel"
	if c.Client.multi {
		ctx = "multi"
	}
	e.aclLog(c.Client, aclDeniedAuth, ctx, string(c.Args[0]), name)
	return false
}

// killUserClients disconnects the clients authenticated as u, a user
// that no longer exists (ACL DELUSER, ACL LOAD); the current client closes
// after its reply. The orphaned user is reset (off, no permissions), so
// that a command such a client sends before its connection closes is
// refused: Redis frees those clients before they run anything else.
func (e *Engine) killUserClients(cur *Client, u *User) {
	u.set("reset")
	for _, cl := range e.Clients() {
		if cl.user != u {
			continue
		}
		if cl == cur {
			cl.closeNext = true
			continue
		}
		cl.killed.Store(true)
		if cl.Kill != nil {
			cl.Kill()
		}
	}
}

// genPass returns bits of randomness as hex (ACL GENPASS).
func genPass(bits int) string {
	chars := (bits + 3) / 4
	b := make([]byte, (chars+1)/2)
	rand.Read(b)
	return hex.EncodeToString(b)[:chars]
}
