package script_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordo-db/ordo"
	"github.com/ordo-db/ordo/internal/redistest"
)

// waitBusy polls PING on c until it answers BUSY (bounded). A PING that
// the server reads before the EVAL sent on the other connection gets
// PONG; any PING read once the EVAL holds the engine lock is answered
// BUSY when the script crosses busy-reply-threshold, even one read
// before the script registered as running.
func waitBusy(t *testing.T, c *redistest.Conn) []byte {
	t.Helper()
	for i := 0; i < 2000; i++ {
		r := c.DoRaw("PING")
		if bytes.HasPrefix(r, []byte("-BUSY")) {
			return r
		}
		if string(r) != "+PONG\r\n" {
			t.Fatalf("PING before the script: %q", r)
		}
		time.Sleep(5 * time.Millisecond) // polling, not ordering: the EVAL was sent first
	}
	t.Fatal("server never answered BUSY")
	return nil
}

// TestBusyScriptKill: a script running past busy-reply-threshold makes
// other clients get BUSY until SCRIPT KILL stops it; a script that wrote
// cannot be killed.
func TestBusyScriptKill(t *testing.T) {
	redistest.RequireRedis(t)
	r := redistest.StartRedis(t, "--busy-reply-threshold", "100")
	o := redistest.StartOrdo(t, "busy-reply-threshold", "100")
	type result struct{ busy, kill, killed, after, unkill, done, notbusy, get []byte }
	// The unkillable script runs for a fixed wall time (whatever the
	// machine's speed): long past the threshold and a round trip, short
	// of the 10 s reply deadline.
	const timed = "local t = redis.call('time') local stop = t[1] * 1e6 + t[2] + ARGV[1] " +
		"local i = 0 while true do i = i + 1 if i % 10000 == 0 then t = redis.call('time') " +
		"if t[1] * 1e6 + t[2] >= stop then break end end end return 'done'"
	run := func(addr string) result {
		var res result
		a := redistest.Dial(t, addr)
		b := redistest.Dial(t, addr)
		// A bounded loop that runs for many seconds unless killed.
		a.Send("EVAL", "local i = 0 while i < 5e8 do i = i + 1 end return i", "0")
		res.busy = waitBusy(t, b)
		res.get = b.DoRaw("GET", "x")
		res.kill = b.DoRaw("SCRIPT", "KILL")
		res.killed = a.ReadRaw()
		res.after = b.DoRaw("PING")
		// A script that wrote cannot be killed; it runs to its end.
		a.Send("EVAL", "redis.call('set','x','1') "+timed, "0", "1500000")
		waitBusy(t, b)
		res.unkill = b.DoRaw("SCRIPT", "KILL")
		res.done = a.ReadRaw()
		res.notbusy = b.DoRaw("SCRIPT", "KILL")
		return res
	}
	want := run(r.Addr)
	got := run(o.Addr)
	for _, c := range []struct {
		name      string
		want, got []byte
	}{{"BUSY", want.busy, got.busy}, {"GET while busy", want.get, got.get}, {"SCRIPT KILL", want.kill, got.kill},
		{"killed script", want.killed, got.killed}, {"PING after", want.after, got.after},
		{"UNKILLABLE", want.unkill, got.unkill}, {"unkillable result", want.done, got.done},
		{"NOTBUSY", want.notbusy, got.notbusy}} {
		if !bytes.Equal(c.want, c.got) {
			t.Errorf("%s:\n redis: %q\n  ordo: %q", c.name, c.want, c.got)
		}
	}
	if !bytes.HasPrefix(got.unkill, []byte("-UNKILLABLE")) {
		t.Errorf("SCRIPT KILL of a writing script: %q", got.unkill)
	}
}

// TestSandbox: scripts cannot reach the file system or the process.
func TestSandbox(t *testing.T) {
	d := redistest.NewDiff(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "pwned")
	for _, body := range []string{
		"return io.open('" + path + "', 'w')",
		"os.execute('touch " + path + "')",
		"return loadfile('/etc/passwd')",
		"return dofile('/etc/passwd')",
		"return require('io')",
		"return package.loaded.io",
		"return _G.io",
		"return _G.os",
		"return load('return io')()",
		"return debug.getinfo(1)",
		"return getfenv(0).io",
		"return {pcall(function() return io.open('" + path + "', 'w') end)}",
	} {
		eval(d, body)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a script created %s", path)
	}
	// Ordo-only (Lua 5.1 words these errors slightly differently).
	for _, body := range []string{"return loadstring('return os')()",
		"local co = coroutine.wrap(function() return io end) return co()"} {
		if r := d.Ordo.Do("EVAL", body, "0"); !strings.Contains(r.Str, "nonexistent global variable") {
			t.Errorf("%s: %v", body, r)
		}
	}
	// Ordo-only: rawget cannot reach the real globals behind _G either.
	o := d.Ordo.Do("EVAL", "return {rawget(_G, 'io') == nil, rawget(_G, 'redis') == nil, getmetatable(_G) == false}", "0")
	if len(o.Elems) != 3 || o.Elems[0].Int != 1 || o.Elems[2].Int != 1 {
		t.Errorf("sandbox escape through rawget/getmetatable: %v", o)
	}
	// String metatables and library tables are read-only too.
	r := d.Ordo.Do("EVAL", "string.rep = nil return 1", "0")
	if !strings.Contains(r.Str, "Attempt to modify a readonly table") {
		t.Errorf("string.rep = nil: %v", r)
	}
	d.Do("EVAL", "return string.rep('a', 3)", "0")
}

// TestEffectsPropagation: a script's writes are propagated (wrapped in
// MULTI/EXEC when more than one), never the EVAL itself.
func TestEffectsPropagation(t *testing.T) {
	o := redistest.StartOrdo(t)
	var mu sync.Mutex
	var log []string
	o.Engine.Lock()
	o.Engine.Propagate = func(db int, args [][]byte) {
		mu.Lock()
		defer mu.Unlock()
		parts := []string{string(rune('0' + db))}
		for _, a := range args {
			parts = append(parts, string(a))
		}
		log = append(log, strings.Join(parts, " "))
	}
	o.Engine.Unlock()
	c := redistest.Dial(t, o.Addr)
	take := func() string {
		mu.Lock()
		defer mu.Unlock()
		s := strings.Join(log, " | ")
		log = nil
		return s
	}
	check := func(want string, args ...string) {
		t.Helper()
		c.DoRaw(args...)
		if got := take(); got != want {
			t.Errorf("%q propagated %q, want %q", args, got, want)
		}
	}
	check("0 set a 1", "EVAL", "return redis.call('set','a','1')", "0")
	check("", "EVAL", "return redis.call('get','a')", "0")
	check("0 MULTI | 0 set b 2 | 0 incr a | 0 EXEC", "EVAL", "redis.call('set','b','2') return redis.call('incr','a')", "0")
	check("0 MULTI | 0 del a | 1 set c 3 | 1 EXEC", "EVAL", "redis.call('del','a') redis.call('select',1) return redis.call('set','c','3')", "0")
	check("0 set d 4", "EVAL", "redis.call('set','d','4') return redis.call('nosuch')", "0")
	check("", "EVAL", "return redis.pcall('incr','nosuchkey', 'x')", "0")
	check("", "EVALSHA", "nope", "0")
}

// TestEmbedded: scripts work in the embedded database.
func TestEmbedded(t *testing.T) {
	db, err := ordo.Open(t.TempDir(), &ordo.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	const release = "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end"
	if err := db.Do(ctx, "SET", "lock:res", "token123").Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := db.Do(ctx, "EVAL", release, 1, "lock:res", "bad").Int(); err != nil || n != 0 {
		t.Fatalf("release with wrong token: %v %v", n, err)
	}
	if n, err := db.Do(ctx, "EVAL", release, 1, "lock:res", "token123").Int(); err != nil || n != 1 {
		t.Fatalf("release: %v %v", n, err)
	}
	sha, err := db.Do(ctx, "SCRIPT", "LOAD", "return ARGV[1] .. KEYS[1]").Text()
	if err != nil {
		t.Fatal(err)
	}
	if s, err := db.Do(ctx, "EVALSHA", sha, 1, "k", "v").Text(); err != nil || s != "vk" {
		t.Fatalf("EVALSHA: %q %v", s, err)
	}
	if err := db.Do(ctx, "EVAL", "return redis.call('nosuch')", 0).Err(); err == nil ||
		!strings.HasPrefix(err.Error(), "ERR Unknown Redis command called from script script: ") {
		t.Fatalf("error: %v", err)
	}
	// Inside MULTI on one connection.
	conn := db.Conn()
	conn.Do(ctx, "MULTI")
	conn.Do(ctx, "EVAL", "return redis.call('incr', KEYS[1])", 1, "n")
	conn.Do(ctx, "EVAL", "return redis.call('incr', KEYS[1])", 1, "n")
	if v, err := conn.Do(ctx, "EXEC").Value(); err != nil {
		t.Fatalf("EXEC: %v %v", v, err)
	}
	if n, err := db.Do(ctx, "GET", "n").Int(); err != nil || n != 2 {
		t.Fatalf("GET n = %v %v", n, err)
	}
}

// TestScriptAOF: in the append-only file a script leaves its effects
// (not the EVAL), and they survive a restart.
func TestScriptAOF(t *testing.T) {
	dir := t.TempDir()
	opts := &ordo.Options{Config: map[string]string{"appendonly": "yes", "appendfsync": "always"}}
	db, err := ordo.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	body := "redis.call('set', KEYS[1], ARGV[1]) redis.call('incrby', KEYS[2], 5) redis.call('pexpire', KEYS[1], 100000) return 1"
	if err := db.Do(ctx, "EVAL", body, 2, "sk", "cnt", "hello").Err(); err != nil {
		t.Fatal(err)
	}
	var all []byte
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			all = append(all, b...)
		}
		return nil
	})
	if bytes.Contains(all, []byte("EVAL")) || !bytes.Contains(all, []byte("incrby")) {
		t.Errorf("append-only files: EVAL logged or effects missing:\n%q", all)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = ordo.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if s, err := db.Do(ctx, "GET", "sk").Text(); err != nil || s != "hello" {
		t.Errorf("after restart GET sk = %q %v", s, err)
	}
	if n, err := db.Do(ctx, "GET", "cnt").Int(); err != nil || n != 5 {
		t.Errorf("after restart GET cnt = %d %v", n, err)
	}
	if n, err := db.Do(ctx, "PTTL", "sk").Int(); err != nil || n <= 0 || n > 100000 {
		t.Errorf("after restart PTTL sk = %d %v", n, err)
	}
}
