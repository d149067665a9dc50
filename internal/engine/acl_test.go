package engine_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/config"
	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
	"github.com/ordo-db/ordo/internal/server"
)

// aclPair is a private redis-server and Ordo (ACL state is per server, so
// these tests do not use the shared servers).
type aclPair struct {
	t          *testing.T
	redis, ord string
	*redistest.Diff
}

func newACLPair(t *testing.T, redisArgs []string, ordoSettings ...string) *aclPair {
	t.Helper()
	redistest.RequireRedis(t)
	r := redistest.StartRedis(t, redisArgs...)
	o := redistest.StartOrdo(t, ordoSettings...)
	return &aclPair{t: t, redis: r.Addr, ord: o.Addr, Diff: redistest.NewDiffWith(t, r.Addr, o.Addr)}
}

// conn opens one more connection to each server.
func (p *aclPair) conn() *redistest.Diff {
	return redistest.NewDiffWith(p.t, p.redis, p.ord)
}

// normRules sorts the runs of single-command rules ("+get -set") in ACL
// descriptions: Redis emits them in its command hash table's order, which
// is randomized per process.
func normRules(s string) string {
	toks := strings.Split(s, " ")
	isCmd := func(tok string) bool {
		return len(tok) > 1 && (tok[0] == '+' || tok[0] == '-') && tok[1] != '@'
	}
	for i := 0; i < len(toks); {
		if !isCmd(toks[i]) {
			i++
			continue
		}
		j := i
		closing := false
		for j < len(toks) && isCmd(toks[j]) {
			if strings.HasSuffix(toks[j], ")") {
				toks[j] = strings.TrimSuffix(toks[j], ")")
				closing = true
				j++
				break
			}
			j++
		}
		sort.Strings(toks[i:j])
		if closing {
			toks[j-1] += ")"
		}
		i = j
	}
	return strings.Join(toks, " ")
}

func normValue(v resp.Value) resp.Value {
	switch v.Kind {
	case resp.KindBulk, resp.KindSimple, resp.KindVerbatim:
		v.Str = normRules(v.Str)
	}
	for i := range v.Elems {
		v.Elems[i] = normValue(v.Elems[i])
	}
	return v
}

// doACL compares replies whose rule descriptions may order single
// commands differently.
func doACL(t *testing.T, d *redistest.Diff, args ...string) resp.Value {
	t.Helper()
	want, _, err1 := resp.ParseReply(d.Redis.DoRaw(args...))
	got, _, err2 := resp.ParseReply(d.Ordo.DoRaw(args...))
	if err1 != nil || err2 != nil {
		t.Fatalf("%q: %v %v", args, err1, err2)
	}
	w, g := redistest.Canonical(normValue(want), false), redistest.Canonical(normValue(got), false)
	if w != g {
		t.Errorf("%q:\n redis: %s\n  ordo: %s", args, w, g)
	}
	return want
}

func TestACLSetUserGetUserList(t *testing.T) {
	p := newACLPair(t, nil)
	d := p.Diff
	cases := [][]string{
		{"ACL", "SETUSER", "alice", "on", ">p1", "~k*", "%R~r*", "&ch", "+get", "+set", "-@all", "+@hash", "-hdel"},
		{"ACL", "SETUSER", "bob"},
		{"ACL", "SETUSER", "carol", "+@all", "-get", "-set", "-@dangerous", "~*", "allchannels"},
		{"ACL", "SETUSER", "d1", "+get", "+set", "+incr", "+config|get", "+select|0", "+lpush", "+zadd"},
		{"ACL", "SETUSER", "d2", "-@all", "+@read", "-get", "-hget", "+set"},
		{"ACL", "SETUSER", "d3", "+@all", "-@write", "+set", "nopass", "on", "#" + strings.Repeat("a", 64)},
		{"ACL", "SETUSER", "d4", "allcommands", "-config", "+config|get", "allkeys", "resetkeys", "%RW~x", "%W~y", "%R~y"},
		{"ACL", "SETUSER", "d5", "+@read", "+@write", "-@keyspace", "+del", "+client", "-client|kill"},
		{"ACL", "SETUSER", "d6", "nocommands", "+@admin", "-@dangerous", "+xadd", "+debug|object", "+debug|digest"},
		{"ACL", "SETUSER", "d7", "+@all", "-@all", "+@sortedset", "+@list", "-@slow", "+@blocking", "&a", "&b", "&a"},
		{"ACL", "SETUSER", "d8", ">a", ">b", ">a", "<a", "skip-sanitize-payload"},
		{"ACL", "SETUSER", "d9", "reset", "+@all"},
		{"ACL", "SETUSER", "d10", "on", "(~sel* +get)", "(", "%R~x", "+@read", ")", "+set", "~k"},
		{"ACL", "SETUSER", "d10", "clearselectors", "(+@hash ~h*)"},
		{"ACL", "SETUSER", "d11", "+@all", "-@pubsub", "-@scripting", "-@transaction", "-@connection"},
	}
	for _, c := range cases {
		d.Do(c...)
	}
	doACL(t, d, "ACL", "LIST")
	d.Do("ACL", "USERS")
	for _, c := range cases {
		doACL(t, d, "ACL", "GETUSER", c[2])
	}
	d.Do("ACL", "GETUSER", "nosuch")
	d.Do("ACL", "GETUSER", "default")
	d.Do("ACL", "WHOAMI")
	d.Redis.Do("HELLO", "3")
	d.Ordo.Do("HELLO", "3")
	doACL(t, d, "ACL", "GETUSER", "d10")
	doACL(t, d, "ACL", "GETUSER", "alice")
	d.Do("ACL", "GETUSER", "nosuch")
}

func TestACLSetUserErrors(t *testing.T) {
	p := newACLPair(t, nil)
	d := p.Diff
	for _, c := range [][]string{
		{"x", "bad"},
		{"x", "+nosuch"},
		{"x", "+@nosuch"},
		{"x", "-@nosuch"},
		{"x", "-nosuch"},
		{"x", "+config|nosuch"},
		{"x", "+config|get|x"},
		{"x", "+get|"},
		{"x", "-select|0"},
		{"x", "+select|0"},
		{"x", "~*", "~a"},
		{"x", "allkeys", "%R~a"},
		{"x", "&*", "&a"},
		{"x", "#abc"},
		{"x", "#" + strings.Repeat("A", 64)},
		{"x", "!abc"},
		{"x", "<nosuch"},
		{"x", "%X~a"},
		{"x", "%RR~a"},
		{"x", "~a b"},
		{"x", "(", "+get"},
		{"x", "(+nosuch)"},
		{"x", "(bad)"},
		{"x", "", "on"},
		{"a b", "on"},
		{"y", "on", "bad"},
		{"x", "+"},
		{"x", "-"},
		{"x", "+@"},
	} {
		d.Do(append([]string{"ACL", "SETUSER"}, c...)...)
	}
	d.Do("ACL", "USERS")
	doACL(t, d, "ACL", "LIST")
	d.Do("ACL", "SETUSER")
	d.Do("ACL", "DELUSER")
	d.Do("ACL", "DELUSER", "default")
	d.Do("ACL", "DELUSER", "x", "default")
	d.Do("ACL", "DELUSER", "x", "nosuch")
	d.Do("ACL", "USERS")
	d.Do("ACL", "NOSUCH")
	d.Do("ACL", "GETUSER")
	d.Do("ACL", "GETUSER", "a", "b")
	d.Do("ACL", "LIST", "x")
	d.Do("ACL", "WHOAMI", "x")
	d.Do("ACL", "HELP")
	d.Do("ACL", "CAT")
	d.Do("ACL", "CAT", "nosuch")
	d.Do("ACL", "CAT", "a", "b")
	for _, cat := range []string{"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
		"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
		"blocking", "dangerous", "connection", "transaction", "scripting", "HASH"} {
		d.DoSorted("ACL", "CAT", cat)
	}
	d.Do("ACL", "GENPASS", "0")
	d.Do("ACL", "GENPASS", "4097")
	d.Do("ACL", "GENPASS", "x")
	d.DoShape("ACL", "GENPASS")
	d.DoShape("ACL", "GENPASS", "5")
	d.DoShape("ACL", "GENPASS", "4096")
	d.Do("ACL", "LOAD")
	d.Do("ACL", "SAVE")
	d.Do("ACL", "LOG", "x")
	d.Do("ACL", "LOG", "1", "2")
	d.Do("ACL", "DRYRUN", "nosuch", "get", "x")
	d.Do("ACL", "DRYRUN", "default", "nosuch", "x")
	d.Do("ACL", "DRYRUN", "default", "get")
	d.Do("ACL", "DRYRUN", "default", "get", "x")
	d.Do("ACL", "DRYRUN", "default", "config", "nosuch")
}

func TestACLAuth(t *testing.T) {
	p := newACLPair(t, []string{"--requirepass", "pw"}, "requirepass", "pw")
	d := p.Diff
	d.Do("PING")
	d.Do("ACL", "WHOAMI")
	d.Do("AUTH", "nopw")
	d.Do("AUTH", "default", "nopw")
	d.Do("AUTH", "pw")
	d.Do("ACL", "LIST")
	d.Do("ACL", "SETUSER", "alice", "on", ">a1", ">a2", "+@all", "~*")
	d.Do("ACL", "SETUSER", "bob", "off", ">b", "+@all", "~*")
	d.Do("ACL", "SETUSER", "nop", "on", "nopass", "+acl|whoami")
	d.Do("CONFIG", "SET", "requirepass", "new")
	d.Do("ACL", "GETUSER", "default")
	d.Do("CONFIG", "GET", "requirepass")

	a := p.conn()
	a.Do("PING")
	a.Do("AUTH", "pw")
	a.Do("AUTH", "new")
	a.Do("AUTH", "alice", "a2")
	a.Do("ACL", "WHOAMI")
	a.Do("AUTH", "bob", "b")
	a.Do("AUTH", "nosuch", "x")
	a.Do("AUTH", "nop", "anything")
	a.Do("ACL", "WHOAMI")
	a.Do("ACL", "USERS")
	a.Do("HELLO", "2", "AUTH", "alice", "wrong")
	a.DoShape("HELLO", "3", "AUTH", "alice", "a1", "SETNAME", "c1")
	a.Do("ACL", "WHOAMI")
	a.Do("CLIENT", "KILL", "USER", "nosuch")
	d.Do("CLIENT", "KILL", "USER", "nosuch")
	for _, c := range []*redistest.Conn{a.Redis, a.Ordo} {
		info := c.Do("CLIENT", "INFO").Str
		if !strings.Contains(info, " user=alice ") {
			t.Errorf("CLIENT INFO: %q", info)
		}
	}
	for _, c := range []*redistest.Conn{d.Redis, d.Ordo} {
		list := c.Do("CLIENT", "LIST").Str
		if !strings.Contains(list, " name=c1 ") || !strings.Contains(list, " user=alice ") || !strings.Contains(list, " user=default ") {
			t.Errorf("CLIENT LIST: %q", list)
		}
	}
	// Disabling a user does not disconnect its clients (Redis 7.0).
	d.Do("ACL", "SETUSER", "alice", "off")
	a.Do("ACL", "WHOAMI")
	d.Do("ACL", "SETUSER", "alice", "on")

	b := p.conn()
	b.Do("AUTH", "alice", "a1")
	d.Do("CLIENT", "KILL", "USER", "alice", "SKIPME", "yes")
	expectClosed(t, a.Redis, "redis")
	expectClosed(t, a.Ordo, "ordo")
	expectClosed(t, b.Redis, "redis")
	expectClosed(t, b.Ordo, "ordo")

	// Deleting a user disconnects its clients, the caller included.
	c := p.conn()
	c.Do("AUTH", "alice", "a1")
	e := p.conn()
	e.Do("AUTH", "alice", "a1")
	c.Do("ACL", "DELUSER", "alice")
	expectClosed(t, c.Redis, "redis")
	expectClosed(t, c.Ordo, "ordo")
	expectClosed(t, e.Redis, "redis")
	expectClosed(t, e.Ordo, "ordo")

	d.Do("CONFIG", "SET", "requirepass", "")
	d.Do("ACL", "GETUSER", "default")
	f := p.conn()
	f.Do("ACL", "WHOAMI")
	f.Do("AUTH", "x")
	d.Do("ACL", "SETUSER", "default", "off")
	g := p.conn()
	g.Do("PING")
	g.Do("AUTH", "default", "")
	d.Do("ACL", "SETUSER", "default", "on", "resetpass", ">zz")
	h := p.conn()
	h.Do("PING")
	h.Do("HELLO", "3")
	h.Do("AUTH", "zz")
	h.Do("RESET")
	h.Do("PING")
}

// expectClosed checks that the server closed c (after a PING at most).
func expectClosed(t *testing.T, c *redistest.Conn, who string) {
	t.Helper()
	nc := c.NetConn()
	nc.Write(resp.AppendCommand(nil, "PING"))
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 64)
	n, err := nc.Read(buf)
	if err == nil {
		t.Errorf("%s: connection still open, read %q", who, buf[:n])
	}
}

func TestACLEnforcement(t *testing.T) {
	p := newACLPair(t, nil)
	d := p.Diff
	d.Do("ACL", "SETUSER", "u", "on", ">p", "~k*", "%R~r*", "%W~w*", "&ch*",
		"+@read", "+@write", "+@transaction", "+eval", "+evalsha", "-hset", "+select|1", "+client|id", "+acl|whoami", "-flushall")
	d.Do("MSET", "k1", "a", "r1", "b", "w1", "c", "x", "d")
	a := p.conn()
	a.Do("AUTH", "u", "p")
	for _, c := range [][]string{
		{"GET", "k1"}, {"GET", "r1"}, {"GET", "w1"}, {"GET", "x"},
		{"SET", "k1", "v"}, {"SET", "w1", "v"}, {"SET", "r1", "v"}, {"SET", "w1", "v", "GET"},
		{"SET", "k2", "v", "GET"}, {"SET", "x", "v"},
		{"MGET", "k1", "r1"}, {"MGET", "k1", "x", "r2"}, {"MSET", "k1", "a", "w2", "b"}, {"MSET", "k1", "a", "r2", "b"},
		{"APPEND", "w1", "x"}, {"APPEND", "k1", "x"}, {"DEL", "w1"}, {"DEL", "r1"},
		{"COPY", "r1", "w3"}, {"COPY", "w1", "k3"}, {"RENAME", "k1", "k9"}, {"LMOVE", "r1", "w1", "LEFT", "RIGHT"},
		{"HSET", "k1", "a", "b"}, {"HGET", "k1", "a"}, {"PING"}, {"SELECT", "1"}, {"SELECT", "0"},
		{"CLIENT", "GETNAME"}, {"CLIENT", "NOSUCH"}, {"CONFIG", "GET", "x"}, {"FLUSHALL"},
		{"ACL", "WHOAMI"}, {"ACL", "LIST"}, {"NOSUCH"}, {"GET"},
		{"ZUNIONSTORE", "w9", "2", "k1", "r1"}, {"ZUNIONSTORE", "k9", "2", "k1", "x"},
		{"EXISTS", "w1"}, {"EXISTS", "r1"}, {"TOUCH", "r1"},
		{"EVAL", "return redis.call('get', KEYS[1])", "1", "k1"},
		{"EVAL", "return redis.call('get', KEYS[1])", "1", "x"},
		{"EVAL", "return redis.call('get', 'x')", "1", "k1"},
		{"EVAL", "return redis.call('set', 'r1', 'v')", "0"},
		{"EVAL", "return redis.call('flushall')", "0"},
		{"EVAL", "return redis.pcall('flushall')", "0"},
		{"EVAL", "return redis.pcall('get', 'x')", "0"},
		{"MULTI"}, {"GET", "k1"}, {"GET", "x"}, {"FLUSHALL"}, {"EXEC"},
		{"MULTI"}, {"GET", "k1"}, {"SET", "w1", "1"},
	} {
		a.Do(c...)
	}
	d.Do("ACL", "SETUSER", "u", "-get", "resetkeys", "~k*")
	a.Do("EXEC")
	d.Do("ACL", "SETUSER", "u", "-@all")
	a.Do("MULTI")
	a.Do("EXEC")
	d.Do("ACL", "SETUSER", "u", "+multi", "+exec", "+discard")
	a.Do("MULTI")
	a.Do("GET", "k1")
	a.Do("DISCARD")

	// selectors: a command runs if any selector allows it
	d.Do("ACL", "SETUSER", "s", "on", "nopass", "~a*", "+get", "(~b* +set)", "(%R~c* +@read)")
	b := p.conn()
	b.Do("AUTH", "s", "x")
	for _, c := range [][]string{
		{"GET", "a1"}, {"GET", "b1"}, {"GET", "c1"}, {"SET", "a1", "v"}, {"SET", "b1", "v"}, {"SET", "c1", "v"},
		{"MGET", "a1", "c1"}, {"STRLEN", "c1"}, {"STRLEN", "a1"}, {"DEL", "b1"},
	} {
		b.Do(c...)
	}
	for _, u := range []string{"u", "s", "default"} {
		for _, c := range [][]string{
			{"get", "k1"}, {"get", "x"}, {"set", "w1", "v"}, {"set", "r1", "v"},
			{"hset", "k", "a", "b"}, {"select", "1"}, {"select", "2"}, {"client", "id"}, {"client", "kill", "1.1.1.1:1"},
			{"GET", "a1"}, {"SET", "b1", "v"}, {"SET", "c1", "v"}, {"MGET", "a1", "c1"}, {"MGET", "a1", "b1", "c1"},
		} {
			d.Do(append([]string{"ACL", "DRYRUN", u}, c...)...)
		}
	}
}

// aclLogView is an ACL LOG reply without its fields that cannot match
// (age-seconds, client-info), checked for presence instead.
func aclLogView(t *testing.T, v resp.Value) string {
	t.Helper()
	var b strings.Builder
	for _, e := range v.Elems {
		for i := 0; i+1 < len(e.Elems); i += 2 {
			k := e.Elems[i].Str
			b.WriteString(k + "=")
			switch k {
			case "age-seconds":
			case "client-info":
				if !strings.Contains(e.Elems[i+1].Str, " user=") {
					t.Errorf("client-info %q", e.Elems[i+1].Str)
				}
			default:
				b.WriteString(redistest.Canonical(e.Elems[i+1], false))
			}
			b.WriteString(" ")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestACLLog(t *testing.T) {
	p := newACLPair(t, []string{"--acllog-max-len", "5"}, "acllog-max-len", "5")
	d := p.Diff
	d.Do("ACL", "SETUSER", "u", "on", ">p", "~k*", "+get", "+multi", "+exec", "+eval", "&c")
	a := p.conn()
	a.Do("AUTH", "u", "wrong")
	a.Do("AUTH", "nosuch", "wrong")
	a.Do("HELLO", "2", "AUTH", "u", "wrong")
	a.Do("AUTH", "u", "p")
	a.Do("SET", "k", "v")
	a.Do("SET", "k", "v")
	a.Do("GET", "x")
	a.Do("GET", "k")
	a.Do("EVAL", "return redis.pcall('get', 'y')", "0")
	a.Do("MULTI")
	a.Do("GET", "z")
	a.Do("EXEC")
	cmp := func(args ...string) {
		t.Helper()
		w := aclLogView(t, d.Redis.Do(args...))
		g := aclLogView(t, d.Ordo.Do(args...))
		if w != g {
			t.Errorf("%q:\n redis:\n%s ordo:\n%s", args, w, g)
		}
	}
	cmp("ACL", "LOG")
	cmp("ACL", "LOG", "2")
	cmp("ACL", "LOG", "-1")
	cmp("ACL", "LOG", "100")
	d.Do("CONFIG", "SET", "acllog-max-len", "2")
	a.Do("GET", "q")
	cmp("ACL", "LOG")
	d.Do("ACL", "LOG", "RESET")
	d.Do("ACL", "LOG")
	d.Redis.Do("HELLO", "3")
	d.Ordo.Do("HELLO", "3")
	a.Do("GET", "x2")
	cmp("ACL", "LOG")
}

func TestACLFileSaveLoad(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "users.acl")
	initial := "user alice on >pw ~a* &c +@all -flushall\nuser default on nopass ~* &* +@all\n\n"
	if err := os.WriteFile(file, []byte(initial), 0o644); err != nil {
		t.Fatal(err)
	}
	p := newACLPair(t, []string{"--aclfile", file}, "aclfile", file)
	d := p.Diff
	doACL(t, d, "ACL", "LIST")
	a := p.conn()
	a.Do("AUTH", "alice", "pw")
	d.Do("ACL", "SETUSER", "bob", "on", ">b", "~b*", "+get", "+set", "(~x* +hget)")
	d.Do("ACL", "SETUSER", "default", ">dpw")
	save := func() string {
		d.Redis.Do("ACL", "SAVE")
		r, _ := os.ReadFile(file)
		d.Ordo.Do("ACL", "SAVE")
		o, _ := os.ReadFile(file)
		if normRules(string(r)) != normRules(string(o)) {
			t.Errorf("ACL SAVE:\n redis: %q\n  ordo: %q", r, o)
		}
		return string(o)
	}
	saved := save()
	d.Do("ACL", "DELUSER", "bob")
	d.Do("ACL", "LOAD")
	doACL(t, d, "ACL", "LIST")
	// ACL LOAD replaces the users: their clients are disconnected.
	expectClosed(t, a.Redis, "redis")
	expectClosed(t, a.Ordo, "ordo")
	for _, bad := range []string{
		"user alice on +nosuch -alsonot\nfoo bar\nuser carol (~x\nuser a\\x b\nuser dup\nuser dup on\nuser x on #123 bad\n",
		"  \nuser\n",
		"user ok on\nuser bad +@nosuch\n",
	} {
		os.WriteFile(file, []byte(bad), 0o644)
		d.Do("ACL", "LOAD")
		doACL(t, d, "ACL", "LIST")
	}
	// No default user in the file: a fresh one (nopass, all permissions).
	os.WriteFile(file, []byte("user zed on nopass +@all ~*\r\n"), 0o644)
	d.Do("ACL", "LOAD")
	doACL(t, d, "ACL", "LIST")
	os.WriteFile(file, []byte(saved), 0o644)
	d.Do("ACL", "LOAD")
	doACL(t, d, "ACL", "LIST")
	os.Remove(file)
	d.Do("ACL", "LOAD")
	doACL(t, d, "ACL", "LIST")
}

func TestACLConfigUsers(t *testing.T) {
	redistest.RequireRedis(t)
	r := redistest.StartRedis(t, "--user", "alice", "on", ">pw", "~a*", "+@read",
		"--user", "default", "on", ">dpw", "~*", "+@all", "-debug", "--requirepass", "dpw")
	cfg := engine.NewConfig()
	for _, kv := range [][2]string{{"port", "0"}, {"bind", "127.0.0.1"}, {"appendonly", "no"}, {"dir", t.TempDir()}} {
		cfg.Set(kv[0], kv[1], true)
	}
	conf := "requirepass dpw\nuser alice on >pw ~a* +@read\nuser default on >dpw ~* +@all -debug\n"
	if err := config.Read(cfg, strings.NewReader(conf), "ordo.conf"); err != nil {
		t.Fatal(err)
	}
	e := server.NewEngine(cfg)
	if err := e.ACLStartupError(); err != nil {
		t.Fatal(err)
	}
	s := server.New(e)
	s.Logf = func(string, ...any) {}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	t.Cleanup(func() { s.Close(); e.Close() })
	d := redistest.NewDiffWith(t, r.Addr, s.Addrs()[0])
	d.Do("PING")
	d.Do("AUTH", "alice", "pw")
	d.Do("ACL", "WHOAMI")
	d.Do("AUTH", "dpw")
	doACL(t, d, "ACL", "LIST")

	for _, bad := range []string{"user alice bad\n", "user a on\nuser a off\n", "user a (~x\n"} {
		err := config.Read(engine.NewConfig(), strings.NewReader(bad), "x.conf")
		if err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if err := config.Read(engine.NewConfig(), strings.NewReader("user alice on +nosuch\n"), "x.conf"); err != nil {
		t.Errorf("unknown commands are reported at load time only: %v", err)
	}
	cfg2 := engine.NewConfig()
	config.Read(cfg2, strings.NewReader("user alice on +nosuch\n"), "x.conf")
	if err := engine.New(cfg2).ACLStartupError(); err == nil || !strings.Contains(err.Error(), "Unknown command or category name in ACL") {
		t.Errorf("startup error: %v", err)
	}
}

// TestACLDescribeRandom compares ACL GETUSER/LIST of random rule sets:
// Redis's best-fit choice of categories in describing command rules.
func TestACLDescribeRandom(t *testing.T) {
	p := newACLPair(t, nil)
	d := p.Diff
	cats := []string{"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
		"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
		"blocking", "dangerous", "connection", "transaction", "scripting", "all"}
	cmds := []string{"get", "set", "hget", "config", "config|get", "config|set", "client", "client|kill",
		"debug", "xadd", "xinfo", "xinfo|help", "object|freq", "acl", "acl|list", "flushall", "lpush",
		"zadd", "eval", "ping", "auth", "multi", "exec", "publish", "subscribe", "keys", "scan", "info"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 150; i++ {
		args := []string{"ACL", "SETUSER", "u" + strconv.Itoa(i)}
		for n := rng.IntN(8) + 1; n > 0; n-- {
			switch r := rng.IntN(20); {
			case r < 9:
				sign := "+@"
				if rng.IntN(2) == 0 {
					sign = "-@"
				}
				args = append(args, sign+cats[rng.IntN(len(cats))])
			case r < 16:
				sign := "+"
				if rng.IntN(3) == 0 {
					sign = "-"
				}
				args = append(args, sign+cmds[rng.IntN(len(cmds))])
			case r == 16:
				args = append(args, []string{"+select|0", "+select|1", "+debug|object"}[rng.IntN(3)])
			case r == 17:
				args = append(args, []string{"~a", "%R~b", "%W~c", "%RW~d", "allkeys", "resetkeys", "&x", "allchannels", "resetchannels"}[rng.IntN(9)])
			case r == 18:
				args = append(args, []string{"allcommands", "nocommands", "on", "off", "reset", "nopass", ">p", "resetpass"}[rng.IntN(8)])
			default:
				args = append(args, "(+@"+cats[rng.IntN(len(cats))]+" -"+cmds[rng.IntN(len(cmds))]+" ~s)")
			}
		}
		d.Do(args...)
		doACL(t, d, "ACL", "GETUSER", args[2])
		if t.Failed() {
			t.Fatalf("after %q", args)
		}
	}
	doACL(t, d, "ACL", "LIST")
}

// TestACLDryRunRandom checks permissions of random users on commands
// with keys in every kind of position, with ACL DRYRUN.
func TestACLDryRunRandom(t *testing.T) {
	p := newACLPair(t, nil)
	d := p.Diff
	keys := []string{"a1", "r1", "w1", "rw1", "x"}
	k := func(rng *rand.Rand) string { return keys[rng.IntN(len(keys))] }
	rng := rand.New(rand.NewPCG(3, 4))
	ops := []string{"~a*", "%R~r*", "%W~w*", "%RW~rw*", "%R~rw*", "allkeys", "+@all", "+@read", "+@write",
		"-@dangerous", "+get", "-set", "+select|1", "+config|get", "+object|freq", "-@keyspace", "+@string"}
	for u := 0; u < 10; u++ {
		args := []string{"ACL", "SETUSER", "u" + strconv.Itoa(u), "on"}
		for n := rng.IntN(5) + 2; n > 0; n-- {
			args = append(args, ops[rng.IntN(len(ops))])
		}
		if u%3 == 0 {
			args = append(args, "(~w* +@write -del)", "(%R~x +mget)")
		}
		d.Do(args...)
	}
	for i := 0; i < 600; i++ {
		var c []string
		switch rng.IntN(22) {
		case 0:
			c = []string{"get", k(rng)}
		case 1:
			c = []string{"set", k(rng), "v"}
		case 2:
			c = []string{"set", k(rng), "v", "GET"}
		case 3:
			c = []string{"mget", k(rng), k(rng), k(rng)}
		case 4:
			c = []string{"mset", k(rng), "v", k(rng), "v"}
		case 5:
			c = []string{"lmove", k(rng), k(rng), "LEFT", "RIGHT"}
		case 6:
			c = []string{"copy", k(rng), k(rng)}
		case 7:
			c = []string{"zunionstore", k(rng), "2", k(rng), k(rng), "WEIGHTS", "1", "2"}
		case 8:
			c = []string{"georadius", k(rng), "0", "0", "1", "km", "STORE", k(rng)}
		case 9:
			c = []string{"blmpop", "0", "2", k(rng), k(rng), "LEFT"}
		case 10:
			c = []string{"eval", "return 1", "2", k(rng), k(rng)}
		case 11:
			c = []string{"object", "freq", k(rng)}
		case 12:
			c = []string{"del", k(rng), k(rng)}
		case 13:
			c = []string{"rename", k(rng), k(rng)}
		case 14:
			c = []string{"getex", k(rng), "PERSIST"}
		case 15:
			c = []string{"lcs", k(rng), k(rng)}
		case 16:
			c = []string{"smove", k(rng), k(rng), "m"}
		case 17:
			c = []string{"select", strconv.Itoa(rng.IntN(3))}
		case 18:
			c = []string{"config", "get", "x"}
		case 19:
			c = []string{"exists", k(rng), k(rng)}
		case 20:
			c = []string{"geosearchstore", k(rng), k(rng), "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "ASC"}
		default:
			c = []string{"zrangestore", k(rng), k(rng), "0", "-1"}
		}
		d.Do(append([]string{"ACL", "DRYRUN", "u" + strconv.Itoa(rng.IntN(10))}, c...)...)
	}
}

// CONFIG REWRITE writes the users as "user" lines, as Redis does.
func TestACLConfigRewrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ordo.conf")
	os.WriteFile(path, []byte("port 0\nuser old on nopass\nmaxmemory 1mb\nuser other off\n"), 0o644)
	cfg := engine.NewConfig()
	if err := config.Load(cfg, []string{path}); err != nil {
		t.Fatal(err)
	}
	e := engine.New(cfg)
	defer e.Close()
	cl := e.NewClient("embedded")
	do := func(args ...string) string { return callRaw(e, cl, args...) }
	do("ACL", "SETUSER", "bob", "on", ">x", "+get")
	do("ACL", "DELUSER", "other")
	if r := do("CONFIG", "REWRITE"); r != "+OK\r\n" {
		t.Fatal(r)
	}
	text, _ := os.ReadFile(path)
	want := "port 0\nuser bob on #2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881 resetchannels -@all +get\n" +
		"user default on nopass ~* &* +@all\nuser old on nopass resetchannels -@all\nmaxmemory 1048576\n"
	if !strings.HasPrefix(string(text), want) {
		t.Errorf("rewritten:\n%s\nwant:\n%s", text, want)
	}
	cfg2 := engine.NewConfig()
	if err := config.Load(cfg2, []string{path}); err != nil {
		t.Fatal(err)
	}
	e2 := engine.New(cfg2)
	defer e2.Close()
	if err := e2.ACLStartupError(); err != nil {
		t.Fatal(err)
	}
}
