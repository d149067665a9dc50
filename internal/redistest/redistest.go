// Package redistest is the differential test harness: it starts a real
// redis-server (Debian's package) and an in-process ordo-server on free
// loopback ports, sends the same commands to both and compares the raw
// replies byte for byte. Redis is the specification.
//
// When redis-server is not installed, tests fail if the environment
// variable CI is set (CI must install it: see .ci/run) and are skipped
// with a message otherwise.
package redistest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
	"github.com/ordo-db/ordo/internal/server"
)

// Redis is a redis-server child process on a loopback port.
type Redis struct {
	Addr string
	cmd  *exec.Cmd
	dir  string
}

var (
	sharedMu    sync.Mutex
	sharedRedis *Redis
	sharedOrdo  *Ordo
)

// RedisServerPath finds redis-server, or returns "".
func RedisServerPath() string {
	if p := os.Getenv("REDIS_SERVER"); p != "" {
		return p
	}
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return ""
	}
	return p
}

// RequireRedis fails (in CI) or skips (elsewhere) when redis-server is missing.
func RequireRedis(t testing.TB) string {
	t.Helper()
	p := RedisServerPath()
	if p == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server is not installed; .ci/run must install it (apt-get install -y redis-server)")
		}
		t.Skip("redis-server not installed (apt-get install -y redis-server); differential test skipped")
	}
	return p
}

// FreePort returns a free TCP port on 127.0.0.1.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// StartRedis starts a private redis-server with extra config arguments.
// It is stopped when the test ends.
func StartRedis(t testing.TB, extra ...string) *Redis {
	t.Helper()
	r := startRedis(t, extra...)
	t.Cleanup(r.Stop)
	return r
}

func startRedis(t testing.TB, extra ...string) *Redis {
	path := RequireRedis(t)
	dir, err := os.MkdirTemp("", "redistest")
	if err != nil {
		t.Fatal(err)
	}
	for attempt := 0; attempt < 5; attempt++ {
		port := FreePort(t)
		args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
			"--appendonly", "no", "--dir", dir, "--enable-debug-command", "yes", "--daemonize", "no",
			"--logfile", ""}, extra...)
		cmd := exec.Command(path, args...)
		// The child dies with the test binary, even if the binary crashes.
		SetPdeathsig(cmd)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		// The port was free when chosen, but another server (an in-process
		// Ordo on port 0) may have taken it since: only accept the listener
		// if it is the process we started.
		if waitListening(addr, 3*time.Second) && listenerPID(addr, extra) == cmd.Process.Pid {
			return &Redis{Addr: addr, cmd: cmd, dir: dir}
		}
		cmd.Process.Kill()
		cmd.Wait()
	}
	t.Fatal("redistest: redis-server did not start")
	return nil
}

// Stop kills the server and removes its directory.
func (r *Redis) Stop() {
	if r.cmd.Process != nil {
		r.cmd.Process.Kill()
		r.cmd.Wait()
	}
	os.RemoveAll(r.dir)
}

// listenerPID asks the server at addr for its process_id (INFO server),
// authenticating first if the server's arguments set a password.
func listenerPID(addr string, args []string) int {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return -1
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(3 * time.Second))
	var req []byte
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--requirepass" {
			req = resp.AppendCommand(req, "AUTH", args[i+1])
		}
	}
	br := bufio.NewReader(c)
	c.Write(resp.AppendCommand(req, "INFO", "server"))
	if len(req) > 0 {
		resp.ReadReply(br)
	}
	v, err := resp.ReadReply(br)
	if err != nil {
		return -1
	}
	for _, ln := range strings.Split(v.Str, "\r\n") {
		if pid, ok := strings.CutPrefix(ln, "process_id:"); ok {
			n, _ := strconv.Atoi(pid)
			return n
		}
	}
	return -1
}

func waitListening(addr string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			c.Close()
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// Ordo is an in-process ordo-server on a loopback port.
type Ordo struct {
	Addr   string
	Engine *engine.Engine
	Server *server.Server
}

// StartOrdo starts an in-process ordo-server (persistence off unless
// configured) with extra "name value" settings; stopped when the test ends.
func StartOrdo(t testing.TB, settings ...string) *Ordo {
	t.Helper()
	o := startOrdo(t, settings...)
	t.Cleanup(o.Stop)
	return o
}

func startOrdo(t testing.TB, settings ...string) *Ordo {
	cfg := engine.NewConfig()
	base := []string{"port", "0", "bind", "127.0.0.1", "appendonly", "no", "save", "", "dir", t.TempDir()}
	all := append(base, settings...)
	for i := 0; i+1 < len(all); i += 2 {
		if err := cfg.Set(all[i], all[i+1], true); err != nil {
			t.Fatalf("redistest: ordo config %s: %v", all[i], err)
		}
	}
	e := server.NewEngine(cfg)
	s := server.New(e)
	s.Logf = func(string, ...any) {}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	return &Ordo{Addr: s.Addrs()[0], Engine: e, Server: s}
}

// Stop closes the server.
func (o *Ordo) Stop() {
	o.Server.Close()
	o.Engine.Close()
}

// Shared returns one redis-server and one ordo-server for the whole test
// binary (started on first use), so that a package's many tests do not
// each pay for starting servers. Tests using them must not run in parallel.
func Shared(t testing.TB) (*Redis, *Ordo) {
	t.Helper()
	RequireRedis(t)
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if sharedRedis == nil {
		sharedRedis = startRedis(t)
		sharedOrdo = startOrdo(&keepTB{t}, "dir", os.TempDir())
	}
	return sharedRedis, sharedOrdo
}

// Main runs a package's tests and then stops the shared servers. Every
// package that uses Shared or NewDiff calls it from TestMain:
//
//	func TestMain(m *testing.M) { redistest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	sharedMu.Lock()
	if sharedRedis != nil {
		sharedRedis.Stop()
		sharedOrdo.Stop()
	}
	stopSharedCluster()
	sharedMu.Unlock()
	os.Exit(code)
}

// keepTB lets shared servers outlive the test that started them.
type keepTB struct{ testing.TB }

func (k *keepTB) TempDir() string {
	d, _ := os.MkdirTemp("", "ordotest")
	return d
}
func (k *keepTB) Cleanup(func()) {}

// Conn is a raw RESP connection.
type Conn struct {
	c  net.Conn
	br *bufio.Reader
	t  testing.TB
}

// Dial connects to addr.
func Dial(t testing.TB, addr string) *Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	cn := &Conn{c: c, br: bufio.NewReaderSize(c, 64*1024), t: t}
	t.Cleanup(func() { c.Close() })
	return cn
}

// Send writes a command without reading its reply.
func (c *Conn) Send(args ...string) {
	c.t.Helper()
	if _, err := c.c.Write(resp.AppendCommand(nil, args...)); err != nil {
		c.t.Fatal(err)
	}
}

// Write writes raw bytes.
func (c *Conn) Write(b []byte) {
	c.t.Helper()
	if _, err := c.c.Write(b); err != nil {
		c.t.Fatal(err)
	}
}

// FillMSET stores n keys, keyPrefix+i → valuePrefix+i for i in [0, n),
// with MSETs of 1,000 keys sent pipelined, and fails the test on an error
// reply: the bulk data set of the load and pause tests.
func (c *Conn) FillMSET(n int, keyPrefix, valuePrefix string) {
	c.t.Helper()
	for i := 0; i < n; i += 1000 {
		args := []string{"MSET"}
		for j := i; j < min(i+1000, n); j++ {
			args = append(args, keyPrefix+strconv.Itoa(j), valuePrefix+strconv.Itoa(j))
		}
		c.Send(args...)
	}
	for i := 0; i < n; i += 1000 {
		if raw := c.ReadRaw(); len(raw) > 0 && raw[0] == '-' {
			c.t.Fatalf("redistest: MSET: %q", raw)
		}
	}
}

// ReadRaw reads one raw reply (within 10 s).
func (c *Conn) ReadRaw() []byte {
	c.t.Helper()
	c.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	raw, err := resp.ReadRawReply(c.br, nil)
	if err != nil {
		c.t.Fatalf("redistest: reading reply: %v", err)
	}
	return raw
}

// DoRaw sends a command and returns the raw reply.
func (c *Conn) DoRaw(args ...string) []byte {
	c.t.Helper()
	c.Send(args...)
	return c.ReadRaw()
}

// Do sends a command and returns the parsed reply.
func (c *Conn) Do(args ...string) resp.Value {
	c.t.Helper()
	v, _, err := resp.ParseReply(c.DoRaw(args...))
	if err != nil {
		c.t.Fatal(err)
	}
	return v
}

// Close closes the connection.
func (c *Conn) Close() { c.c.Close() }

// NetConn exposes the connection (for deadlines and raw reads).
func (c *Conn) NetConn() net.Conn { return c.c }

// Diff sends every command to Redis and to Ordo and compares the replies.
type Diff struct {
	t           testing.TB
	Redis, Ordo *Conn
}

// NewDiff connects to the shared servers and empties them.
func NewDiff(t testing.TB) *Diff {
	t.Helper()
	r, o := Shared(t)
	d := &Diff{t: t, Redis: Dial(t, r.Addr), Ordo: Dial(t, o.Addr)}
	d.Redis.DoRaw("FLUSHALL")
	d.Ordo.DoRaw("FLUSHALL")
	return d
}

// NewDiffWith compares two specific servers.
func NewDiffWith(t testing.TB, redisAddr, ordoAddr string) *Diff {
	return &Diff{t: t, Redis: Dial(t, redisAddr), Ordo: Dial(t, ordoAddr)}
}

// Do compares raw replies byte for byte and returns Redis's reply.
func (d *Diff) Do(args ...string) resp.Value {
	d.t.Helper()
	want := d.Redis.DoRaw(args...)
	got := d.Ordo.DoRaw(args...)
	if !bytes.Equal(want, got) {
		d.t.Errorf("%q:\n redis: %q\n  ordo: %q", args, want, got)
	}
	v, _, _ := resp.ParseReply(want)
	return v
}

// DoSorted compares replies whose array elements (at any depth) may come
// in any order, such as SMEMBERS or HGETALL of a large hash.
func (d *Diff) DoSorted(args ...string) resp.Value {
	d.t.Helper()
	want, _, _ := resp.ParseReply(d.Redis.DoRaw(args...))
	got, _, _ := resp.ParseReply(d.Ordo.DoRaw(args...))
	if Canonical(want, true) != Canonical(got, true) {
		d.t.Errorf("%q (unordered):\n redis: %s\n  ordo: %s", args, Canonical(want, true), Canonical(got, true))
	}
	return want
}

// DoPairs compares map-like flat replies (HGETALL, ZRANGE WITHSCORES of
// equal scores) as unordered sets of pairs.
func (d *Diff) DoPairs(args ...string) resp.Value {
	d.t.Helper()
	want, _, _ := resp.ParseReply(d.Redis.DoRaw(args...))
	got, _, _ := resp.ParseReply(d.Ordo.DoRaw(args...))
	if pairs(want) != pairs(got) {
		d.t.Errorf("%q (unordered pairs):\n redis: %s\n  ordo: %s", args, pairs(want), pairs(got))
	}
	return want
}

// DoShape compares only the kind and length of the replies (for random
// commands such as SRANDMEMBER), returning both.
func (d *Diff) DoShape(args ...string) (redis, ordo resp.Value) {
	d.t.Helper()
	redis, _, _ = resp.ParseReply(d.Redis.DoRaw(args...))
	ordo, _, _ = resp.ParseReply(d.Ordo.DoRaw(args...))
	if redis.Kind != ordo.Kind || len(redis.Elems) != len(ordo.Elems) {
		d.t.Errorf("%q (shape):\n redis: %s\n  ordo: %s", args, Canonical(redis, false), Canonical(ordo, false))
	}
	return redis, ordo
}

// Both sends a command to both servers without comparing (set-up steps
// whose replies legitimately differ).
func (d *Diff) Both(args ...string) {
	d.t.Helper()
	d.Redis.DoRaw(args...)
	d.Ordo.DoRaw(args...)
}

// Canonical renders a reply as one line; with sorted, array elements are
// sorted so that order does not matter.
func Canonical(v resp.Value, sorted bool) string {
	switch v.Kind {
	case resp.KindArray, resp.KindSet, resp.KindMap, resp.KindPush:
		parts := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			parts[i] = Canonical(e, sorted)
		}
		if sorted {
			sort.Strings(parts)
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, "%c[", v.Kind)
		for i, p := range parts {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(p)
		}
		b.WriteString("]")
		return b.String()
	case resp.KindInt, resp.KindBool:
		return fmt.Sprintf("%c%d", v.Kind, v.Int)
	case resp.KindNull:
		return "nil"
	}
	return fmt.Sprintf("%c%q", v.Kind, v.Str)
}

func pairs(v resp.Value) string {
	if v.Kind == resp.KindMap {
		v.Kind = resp.KindArray
	}
	if v.Kind != resp.KindArray || len(v.Elems)%2 != 0 {
		return Canonical(v, false)
	}
	ps := make([]string, 0, len(v.Elems)/2)
	for i := 0; i < len(v.Elems); i += 2 {
		ps = append(ps, Canonical(v.Elems[i], false)+"="+Canonical(v.Elems[i+1], false))
	}
	sort.Strings(ps)
	return fmt.Sprint(ps)
}
