package engine_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// fakeList stands in for a list until the list commands exist.
type fakeList struct{ n int }

func (f *fakeList) TypeName() string                        { return "list" }
func (f *fakeList) Encoding() string                        { return "listpack" }
func (f *fakeList) Len() int                                { return f.n }
func (f *fakeList) Copy() engine.Typed                      { c := *f; return &c }
func (f *fakeList) Rewrite(key string, emit func([][]byte)) {}
func (f *fakeList) MemoryUsage() int64                      { return 64 }
func (f *fakeList) String() string                          { return fmt.Sprintf("fakeList(%d)", f.n) }
func injectFakeList(t *testing.T, key string, n int)        { injectValue(t, 0, key, &fakeList{n}) }
func injectValue(t *testing.T, db int, key string, v engine.Typed) {
	_, o := redistest.Shared(t)
	e := o.Engine
	e.Lock()
	defer e.Unlock()
	c := &engine.Ctx{E: e, DB: e.DBs()[db], Now: engine.NowMs()}
	c.Set([]byte(key), engine.ObjectValue(v), false)
}

// near checks that a TTL-like reply of both servers agrees within tol
// (time passes between the two requests); negative codes must be equal.
func near(t *testing.T, d *redistest.Diff, tol int64, args ...string) {
	t.Helper()
	r, o := d.Redis.Do(args...), d.Ordo.Do(args...)
	if r.Kind != resp.KindInt || o.Kind != resp.KindInt {
		t.Errorf("%q: redis %v, ordo %v", args, r, o)
		return
	}
	if (r.Int < 0 || o.Int < 0) && r.Int != o.Int || abs(r.Int-o.Int) > tol {
		t.Errorf("%q: redis %d, ordo %d (tolerance %d)", args, r.Int, o.Int, tol)
	}
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func TestKeysDelExistsType(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("MSET", "a", "1", "b", "2", "c", "3")
	makeList(t, d, "l", "x")
	d.Do("EXISTS", "a", "a", "b", "nokey", "l")
	d.Do("TOUCH", "a", "a", "nokey", "l")
	d.Do("TYPE", "a")
	d.Do("TYPE", "l")
	d.Do("TYPE", "nokey")
	d.Do("DEL", "a", "nokey", "a")
	d.Do("UNLINK", "b", "l", "b")
	d.Do("DEL", "nokey")
	d.Do("EXISTS", "a", "b", "c", "l")
	d.Do("DEL")
	d.Do("UNLINK")
	d.Do("EXISTS")
	d.Do("TOUCH")
	d.Do("TYPE")
	d.Do("TYPE", "a", "b")
	d.Do("DBSIZE")
	d.Do("DBSIZE", "x")
	d.Do("SET", "e", "v", "PX", "1")
	time.Sleep(5 * time.Millisecond)
	d.Do("EXISTS", "e")
	d.Do("TYPE", "e")
	d.Do("DEL", "e")
	d.Both("HELLO", "3")
	d.Do("TYPE", "c")
	d.Do("DEL", "c")
}

func TestKeysExpireFamily(t *testing.T) {
	d := redistest.NewDiff(t)
	for _, cmd := range []string{"EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"} {
		d.Do(cmd, "nokey", "100")
		d.Do(cmd, "k")
		d.Do(cmd, "k", "x")
		d.Do(cmd, "k", "1.5")
		d.Do(cmd, "k", "100", "NX", "XX")
		d.Do(cmd, "k", "100", "NX", "GT")
		d.Do(cmd, "k", "100", "LT", "NX")
		d.Do(cmd, "k", "100", "GT", "LT")
		d.Do(cmd, "k", "100", "FOO")
		d.Do(cmd, "k", "x", "FOO") // options are checked first
		d.Do(cmd, "k", "x", "GT", "LT")
		d.Do(cmd, "nokey", "100", "nx", "gt")
		for _, v := range []string{"9223372036854775807", "-9223372036854775808", "9223372036854775", "9223372036854776", "-9223372036854776", "9223372036854775000"} {
			d.Do(cmd, "nokey", v)
		}
	}
	future := time.Now().Unix() + 1000
	fs := strconv.FormatInt(future, 10)
	d.Do("SET", "k", "v")
	d.Do("EXPIRE", "k", "100", "XX")
	d.Do("TTL", "k")
	d.Do("EXPIRE", "k", "100", "GT") // no TTL counts as infinite
	d.Do("EXPIRE", "k", "100", "LT")
	d.Do("TTL", "k")
	d.Do("EXPIRE", "k", "200", "NX")
	d.Do("EXPIRE", "k", "200", "XX")
	d.Do("TTL", "k")
	d.Do("EXPIRE", "k", "100", "GT")
	d.Do("EXPIRE", "k", "300", "GT")
	d.Do("EXPIRE", "k", "400", "LT")
	d.Do("EXPIRE", "k", "50", "LT")
	d.Do("TTL", "k")
	d.Do("EXPIRE", "k", "50", "xx", "lt", "xx")
	d.Do("EXPIREAT", "k", fs)
	d.Do("EXPIRETIME", "k")
	d.Do("PEXPIRETIME", "k")
	d.Do("EXPIREAT", "k", fs, "GT")
	d.Do("PEXPIREAT", "k", fs+"001", "GT")
	d.Do("PEXPIRETIME", "k")
	d.Do("PEXPIREAT", "k", fs+"000", "LT")
	d.Do("PEXPIRETIME", "k")
	d.Do("EXPIRETIME", "k")
	d.Do("PEXPIRE", "k", "123456")
	near(t, d, 1000, "PTTL", "k")
	d.Do("TTL", "k")
	// A time in the past (or zero, or negative) deletes the key.
	for _, c := range [][]string{{"EXPIRE", "0"}, {"EXPIRE", "-1"}, {"PEXPIRE", "-100"}, {"EXPIREAT", "1"}, {"PEXPIREAT", "0"}, {"EXPIREAT", "-5"}} {
		d.Do("SET", "k", "v")
		d.Do(c[0], "k", c[1])
		d.Do("EXISTS", "k")
	}
	d.Do("SET", "k", "v")
	d.Do("EXPIRE", "k", "-1", "NX")
	d.Do("EXISTS", "k")
	d.Do("SET", "k", "v", "EX", "100")
	d.Do("EXPIRE", "k", "-1", "GT")
	d.Do("EXPIRE", "k", "-1", "LT")
	d.Do("EXISTS", "k")
	makeList(t, d, "l", "a")
	d.Do("EXPIRE", "l", "100")
	d.Do("TTL", "l")
	d.Do("PERSIST", "l")
	d.Do("TTL", "l")

	// TTL, PTTL, EXPIRETIME, PEXPIRETIME and PERSIST.
	for _, cmd := range []string{"TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME", "PERSIST"} {
		d.Do(cmd, "nokey")
		d.Do(cmd)
		d.Do(cmd, "a", "b")
	}
	d.Do("SET", "p", "v")
	d.Do("TTL", "p")
	d.Do("PTTL", "p")
	d.Do("EXPIRETIME", "p")
	d.Do("PEXPIRETIME", "p")
	d.Do("PERSIST", "p")
	d.Do("PEXPIREAT", "p", fs+"499")
	d.Do("EXPIRETIME", "p") // rounds half up
	d.Do("PEXPIREAT", "p", fs+"500")
	d.Do("EXPIRETIME", "p")
	d.Do("PERSIST", "p")
	d.Do("PERSIST", "p")
	d.Do("TTL", "p")
	d.Both("HELLO", "3")
	d.Do("TTL", "p")
	d.Do("EXPIRE", "p", "10")
}

// TestKeysTTLExact checks Ordo's own clock arithmetic without Redis.
func TestKeysTTLExact(t *testing.T) {
	d := redistest.NewDiff(t)
	c := d.Ordo
	c.Do("SET", "k", "v")
	before := time.Now().UnixMilli()
	c.Do("PEXPIRE", "k", "100000")
	after := time.Now().UnixMilli()
	at := c.Do("PEXPIRETIME", "k").Int
	if at < before+100000 || at > after+100000 {
		t.Errorf("PEXPIRETIME %d not in [%d, %d]", at, before+100000, after+100000)
	}
	pttl := c.Do("PTTL", "k").Int
	if pttl <= 100000-1000 || pttl > 100000 {
		t.Errorf("PTTL %d, want just under 100000", pttl)
	}
	if ttl := c.Do("TTL", "k").Int; ttl != 100 {
		t.Errorf("TTL %d, want 100", ttl)
	}
	if et := c.Do("EXPIRETIME", "k").Int; et != (at+500)/1000 {
		t.Errorf("EXPIRETIME %d, want %d", et, (at+500)/1000)
	}
	c.Do("SET", "k", "v", "PX", "300")
	if p := c.Do("PTTL", "k").Int; p <= 0 || p > 300 {
		t.Errorf("PTTL after PX 300: %d", p)
	}
	time.Sleep(350 * time.Millisecond)
	if p := c.Do("PTTL", "k").Int; p != -2 {
		t.Errorf("PTTL after expiry: %d, want -2", p)
	}
	if v := c.Do("GET", "k"); !v.IsNull() {
		t.Errorf("GET after expiry: %v", v)
	}
}

func TestKeysRename(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("RENAME", "nokey", "x")
	d.Do("RENAMENX", "nokey", "x")
	d.Do("RENAME", "nokey", "nokey")
	d.Do("SET", "a", "1")
	d.Do("RENAME", "a", "a")
	d.Do("RENAMENX", "a", "a")
	d.Do("RENAME", "a", "b")
	d.Do("MGET", "a", "b")
	d.Do("SET", "c", "3", "EX", "100")
	d.Do("RENAME", "c", "b") // overwrites b; the TTL moves with the value
	d.Do("TTL", "b")
	d.Do("GET", "b")
	d.Do("EXISTS", "c")
	d.Do("SET", "d", "4")
	d.Do("RENAME", "d", "b") // the destination's TTL goes away
	d.Do("TTL", "b")
	d.Do("SET", "e", "5")
	d.Do("RENAMENX", "e", "b")
	d.Do("RENAMENX", "e", "f")
	d.Do("MGET", "b", "e", "f")
	makeList(t, d, "l", "x")
	d.Do("RENAME", "l", "b")
	d.Do("TYPE", "b")
	d.Do("TYPE", "l")
	d.Do("RENAME", "a")
	d.Do("RENAMENX", "a", "b", "c")
	d.Do("SET", "x", "v", "PX", "1")
	time.Sleep(5 * time.Millisecond)
	d.Do("RENAME", "x", "y")
	d.Do("EXISTS", "y")
}

func TestKeysCopyMove(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SET", "a", "1", "EX", "100")
	d.Do("COPY", "a", "b")
	d.Do("TTL", "b")
	d.Do("GET", "b")
	d.Do("COPY", "a", "b")
	d.Do("SET", "a", "2")
	d.Do("COPY", "a", "b", "REPLACE")
	d.Do("TTL", "b")
	d.Do("GET", "b")
	d.Do("COPY", "a", "a")
	d.Do("COPY", "a", "a", "DB", "0")
	d.Do("COPY", "a", "a", "DB", "1")
	d.Do("COPY", "nokey", "x")
	d.Do("COPY", "nokey", "nokey")
	d.Do("COPY", "a", "c", "DB", "16")
	d.Do("COPY", "a", "c", "DB", "-1")
	d.Do("COPY", "a", "c", "DB", "x")
	d.Do("COPY", "a", "c", "DB", "99999999999")
	d.Do("COPY", "a", "c", "DB")
	d.Do("COPY", "a", "c", "FOO")
	d.Do("COPY", "a", "c", "REPLACE", "REPLACE", "DB", "2", "DB", "3")
	d.Do("COPY", "a")
	d.Do("SELECT", "3")
	d.Do("GET", "c")
	d.Do("SELECT", "0")
	makeList(t, d, "l", "x", "y")
	d.Do("COPY", "l", "l2")
	d.Do("TYPE", "l2")
	if d.Ordo.Do("LRANGE", "l2", "0", "-1").Kind != resp.KindError {
		// The copy is deep: changing the source leaves it alone.
		d.Do("RPUSH", "l", "z")
		d.Do("LRANGE", "l2", "0", "-1")
		d.Do("LRANGE", "l", "0", "-1")
	}
	d.Do("COPY", "l", "a", "REPLACE")
	d.Do("TYPE", "a")

	d.Do("SET", "m", "v", "EX", "100")
	d.Do("MOVE", "m", "1")
	d.Do("EXISTS", "m")
	d.Do("MOVE", "m", "1")
	d.Do("MOVE", "nokey", "1")
	d.Do("MOVE", "m", "0")
	d.Do("MOVE", "m", "16")
	d.Do("MOVE", "m", "-1")
	d.Do("MOVE", "m", "x")
	d.Do("MOVE", "m", "4294967296")
	d.Do("MOVE", "m")
	d.Do("SELECT", "1")
	d.Do("TTL", "m")
	d.Do("GET", "m")
	d.Do("SET", "n", "db1")
	d.Do("SELECT", "0")
	d.Do("SET", "n", "db0")
	d.Do("MOVE", "n", "1")
	d.Do("GET", "n")
	d.Do("MOVE", "l", "2")
	d.Do("SELECT", "2")
	d.Do("TYPE", "l")
	d.Do("SELECT", "0")
}

func TestKeysKeysRandomkey(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("KEYS", "*")
	d.Do("RANDOMKEY")
	d.Do("SET", "only", "1")
	d.Do("RANDOMKEY")
	for _, k := range []string{"hello", "hallo", "hxllo", "hllo", "heeeello", "h*llo", "H\\llo", "a[b", "x\x00y"} {
		d.Do("SET", k, "1")
	}
	for _, p := range []string{"*", "h?llo", "h*llo", "h[ae]llo", "h[^e]llo", "h[a-b]llo", "h\\*llo", "*llo", "?", "a[b", "nomatch", "x*", "[", "H*", "h*"} {
		d.DoSorted("KEYS", p)
	}
	d.Do("SET", "gone", "1", "PX", "1")
	time.Sleep(5 * time.Millisecond)
	d.DoSorted("KEYS", "*")
	d.Do("KEYS")
	d.Do("RANDOMKEY", "x")
	r, o := d.DoShape("RANDOMKEY")
	if o.Kind != resp.KindBulk || d.Ordo.Do("EXISTS", o.Str).Int != 1 {
		t.Errorf("RANDOMKEY returned %v (redis %v)", o, r)
	}
	// Only expired keys left: RANDOMKEY collects them and answers nil.
	d.Do("FLUSHDB")
	for i := 0; i < 20; i++ {
		d.Do("SET", "e"+strconv.Itoa(i), "v", "PX", "1")
	}
	time.Sleep(5 * time.Millisecond)
	d.Do("RANDOMKEY")
	d.Both("HELLO", "3")
	d.Do("RANDOMKEY")
	d.Do("KEYS", "*")
}

func TestKeysScanBasic(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SCAN", "0")
	for _, c := range []string{"x", " 0", "0 ", "1.5", "0x10", "18446744073709551616", "-18446744073709551616", "+", "-"} {
		d.Do("SCAN", c)
	}
	d.Do("SCAN", "")   // strtoul accepts an empty string as 0
	d.Do("SCAN", "-0") //
	d.Do("SCAN", "+0")
	d.Do("SCAN", "0", "COUNT", "0")
	d.Do("SCAN", "0", "COUNT", "-1")
	d.Do("SCAN", "0", "COUNT", "x")
	d.Do("SCAN", "0", "COUNT")
	d.Do("SCAN", "0", "MATCH")
	d.Do("SCAN", "0", "TYPE")
	d.Do("SCAN", "0", "FOO", "bar")
	d.Do("SCAN", "x", "FOO", "bar") // the cursor is checked first
	d.Do("SCAN")
	for i := 0; i < 100; i++ {
		d.Do("SET", "key:"+strconv.Itoa(i), "v")
	}
	makeList(t, d, "alist", "a")
	makeList(t, d, "key:list", "a")
	d.Do("SET", "key:gone", "v", "PX", "1")
	time.Sleep(5 * time.Millisecond)
	for _, opts := range [][]string{
		nil, {"COUNT", "7"}, {"MATCH", "key:1*"}, {"MATCH", "*", "COUNT", "1000"}, {"TYPE", "string"},
		{"TYPE", "LIST"}, {"MATCH", "key:*", "TYPE", "list", "COUNT", "3"}, {"MATCH", "nomatch"},
		{"COUNT", "5", "COUNT", "50"}, {"TYPE", "nosuchtype"},
	} {
		want := fullScan(t, d.Redis, opts)
		got := fullScan(t, d.Ordo, opts)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Errorf("SCAN %q:\n redis %v\n  ordo %v", opts, want, got)
		}
	}
	d.Both("HELLO", "3")
	d.Do("SCAN", "0", "MATCH", "nomatch", "COUNT", "1000")
}

// fullScan iterates SCAN to the end and returns the sorted set of keys.
func fullScan(t *testing.T, c *redistest.Conn, opts []string) []string {
	t.Helper()
	seen := map[string]bool{}
	cursor := "0"
	for i := 0; i < 100000; i++ {
		v := c.Do(append([]string{"SCAN", cursor}, opts...)...)
		if v.Kind != resp.KindArray || len(v.Elems) != 2 {
			t.Fatalf("SCAN reply %v", v)
		}
		for _, k := range v.Elems[1].Elems {
			seen[k.Str] = true
		}
		cursor = v.Elems[0].Str
		if cursor == "0" {
			break
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestKeysScanGuarantee checks SCAN's promise while the keyspace changes
// between calls (growth and shrinking included): every key present for
// the whole scan is returned at least once. It runs against both servers.
func TestKeysScanGuarantee(t *testing.T) {
	d := redistest.NewDiff(t)
	for name, c := range map[string]*redistest.Conn{"redis": d.Redis, "ordo": d.Ordo} {
		scanGuarantee(t, name, c)
	}
}

func scanGuarantee(t *testing.T, name string, c *redistest.Conn) {
	c.Do("FLUSHDB")
	pipe := func(cmds [][]string) {
		for _, cmd := range cmds {
			c.Send(cmd...)
		}
		for range cmds {
			c.ReadRaw()
		}
	}
	var cmds [][]string
	for i := 0; i < 1000; i++ {
		cmds = append(cmds, []string{"SET", "stable:" + strconv.Itoa(i), "v"})
		cmds = append(cmds, []string{"SET", "temp:" + strconv.Itoa(i), "v"})
	}
	pipe(cmds)
	seen := map[string]bool{}
	cursor := "0"
	added, deleted := 0, 0
	for call := 0; call < 100000; call++ {
		v := c.Do("SCAN", cursor, "COUNT", "10")
		for _, k := range v.Elems[1].Elems {
			seen[k.Str] = true
		}
		cursor = v.Elems[0].Str
		if cursor == "0" {
			break
		}
		cmds = cmds[:0]
		switch {
		case call == 20:
			// Delete every temporary key at once: the table shrinks.
			for ; deleted < 1000; deleted++ {
				cmds = append(cmds, []string{"DEL", "temp:" + strconv.Itoa(deleted)})
			}
		case call == 40:
			// Add many keys at once: the table grows.
			for i := 0; i < 3000; i++ {
				cmds = append(cmds, []string{"SET", "new:" + strconv.Itoa(added), "v"})
				added++
			}
		default:
			for i := 0; i < 5; i++ {
				if deleted < 1000 {
					cmds = append(cmds, []string{"DEL", "temp:" + strconv.Itoa(deleted)})
					deleted++
				}
				cmds = append(cmds, []string{"SET", "new:" + strconv.Itoa(added), "v"})
				added++
			}
		}
		pipe(cmds)
	}
	if cursor != "0" {
		t.Fatalf("%s: SCAN did not finish", name)
	}
	missing := 0
	for i := 0; i < 1000; i++ {
		if !seen["stable:"+strconv.Itoa(i)] {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%s: SCAN missed %d of 1000 keys present for the whole scan", name, missing)
	}
}

func TestKeysFlushSwapdb(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("MSET", "a", "1", "b", "2")
	d.Do("SET", "t", "v", "EX", "100")
	d.Do("SELECT", "1")
	d.Do("SET", "c", "3")
	d.Do("SELECT", "0")
	d.Do("DBSIZE")
	d.Do("SWAPDB", "0", "1")
	d.Do("DBSIZE")
	d.Do("GET", "c")
	d.Do("SELECT", "1")
	d.Do("DBSIZE")
	d.Do("TTL", "t")
	d.Do("SELECT", "0")
	d.Do("SWAPDB", "0", "0")
	d.Do("SWAPDB", "0", "16")
	d.Do("SWAPDB", "16", "0")
	d.Do("SWAPDB", "-1", "0")
	d.Do("SWAPDB", "x", "0")
	d.Do("SWAPDB", "0", "x")
	d.Do("SWAPDB", "x", "y")
	d.Do("SWAPDB", "99999999999", "0")
	d.Do("SWAPDB", "0")
	d.Do("SWAPDB", "0", "1")
	d.Do("FLUSHDB")
	d.Do("DBSIZE")
	d.Do("SELECT", "0")
	d.Do("FLUSHDB", "x")
	d.Do("FLUSHDB", "ASYNC", "SYNC")
	d.Do("FLUSHDB", "sync")
	d.Do("FLUSHDB", "ASYNC")
	d.Do("SELECT", "1")
	d.Do("DBSIZE")
	d.Do("SELECT", "5")
	d.Do("SET", "x", "1")
	d.Do("FLUSHALL", "x")
	d.Do("FLUSHALL", "ASYNC", "x")
	d.Do("FLUSHALL", "SYNC")
	d.Do("DBSIZE")
	d.Do("SELECT", "1")
	d.Do("DBSIZE")
	d.Do("FLUSHALL", "async")
	d.Do("SELECT", "0")
}

// TestKeysActiveExpiry checks that keys with short TTLs disappear without
// being accessed (DBSIZE counts keys not yet collected).
func TestKeysActiveExpiry(t *testing.T) {
	d := redistest.NewDiff(t)
	for name, c := range map[string]*redistest.Conn{"redis": d.Redis, "ordo": d.Ordo} {
		for i := 0; i < 500; i++ {
			c.Send("SET", "vol:"+strconv.Itoa(i), "v", "PX", strconv.Itoa(50+i%50))
		}
		for i := 0; i < 20; i++ {
			c.Send("SET", "keep:"+strconv.Itoa(i), "v")
		}
		for i := 0; i < 520; i++ {
			c.ReadRaw()
		}
		if n := c.Do("DBSIZE").Int; n != 520 {
			t.Fatalf("%s: DBSIZE %d after setting 520 keys", name, n)
		}
		deadline := time.Now().Add(5 * time.Second)
		n := int64(-1)
		for time.Now().Before(deadline) {
			if n = c.Do("DBSIZE").Int; n == 20 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if n != 20 {
			t.Errorf("%s: DBSIZE %d 5 s later, want 20 (active expiry)", name, n)
		}
	}
}

// watchCase runs the same WATCH scenario on both servers: conn 1 runs
// setup and watches keys, conn 2 runs other, then conn 1 runs
// MULTI/PING/EXEC. The EXEC replies must match (nil when aborted).
func watchCase(t *testing.T, setup []string, watch []string, other ...[]string) {
	t.Helper()
	d := redistest.NewDiff(t)
	r, o := redistest.Shared(t)
	d2 := redistest.NewDiffWith(t, r.Addr, o.Addr)
	for i := 0; i+1 < len(setup); i += 2 {
		d.Do("SET", setup[i], setup[i+1])
	}
	d.Do(append([]string{"WATCH"}, watch...)...)
	for _, cmd := range other {
		d2.Do(cmd...)
	}
	d.Do("MULTI")
	d.Do("PING")
	if v := d.Do("EXEC"); testing.Verbose() {
		t.Logf("%q then %q: EXEC %v", watch, other, redistest.Canonical(v, false))
	}
}

func TestKeysWatch(t *testing.T) {
	kv := []string{"k", "v"}
	k := []string{"k"}
	// Changes that abort the transaction.
	watchCase(t, kv, k, []string{"SET", "k", "w"})
	watchCase(t, kv, k, []string{"SET", "k", "v"}) // same value still counts
	watchCase(t, kv, k, []string{"EXPIRE", "k", "100"})
	watchCase(t, kv, k, []string{"PEXPIREAT", "k", "1"})
	watchCase(t, kv, k, []string{"DEL", "k"})
	watchCase(t, kv, k, []string{"UNLINK", "k"})
	watchCase(t, kv, k, []string{"FLUSHDB"})
	watchCase(t, kv, k, []string{"SELECT", "3"}, []string{"FLUSHALL"})
	watchCase(t, kv, k, []string{"RENAME", "k", "k2"})
	watchCase(t, []string{"k", "v", "src", "x"}, k, []string{"RENAME", "src", "k"})
	watchCase(t, kv, k, []string{"MOVE", "k", "1"})
	watchCase(t, []string{"src", "x"}, k, []string{"COPY", "src", "k"})
	watchCase(t, kv, k, []string{"SELECT", "1"}, []string{"SET", "k", "x"}, []string{"SWAPDB", "0", "1"})
	watchCase(t, kv, k, []string{"SWAPDB", "0", "1"})
	watchCase(t, kv, k, []string{"APPEND", "k", "x"})
	watchCase(t, kv, k, []string{"SETRANGE", "k", "0", "x"})
	watchCase(t, []string{"k", "1"}, k, []string{"INCR", "k"})
	watchCase(t, []string{"k", "1"}, k, []string{"INCRBYFLOAT", "k", "1"})
	watchCase(t, kv, k, []string{"GETDEL", "k"})
	watchCase(t, kv, k, []string{"GETEX", "k", "EX", "100"})
	watchCase(t, kv, k, []string{"GETSET", "k", "x"})
	watchCase(t, kv, k, []string{"MSET", "a", "1", "k", "2"})
	watchCase(t, nil, k, []string{"SETNX", "k", "2"})
	watchCase(t, nil, k, []string{"MSETNX", "k", "2"})
	watchCase(t, nil, k, []string{"SET", "k", "v", "EX", "100"})
	// No change: the transaction runs.
	watchCase(t, kv, k, []string{"GET", "k"})
	watchCase(t, kv, k, []string{"SET", "other", "x"})
	watchCase(t, kv, k, []string{"PERSIST", "k"})
	watchCase(t, kv, k, []string{"SET", "k", "x", "NX"})
	watchCase(t, kv, k, []string{"EXPIRE", "k", "100", "XX"})
	watchCase(t, kv, k, []string{"SETRANGE", "k", "0", ""})
	watchCase(t, nil, k, []string{"DEL", "k"})
	watchCase(t, nil, k, []string{"EXPIRE", "k", "100"})
	watchCase(t, nil, k, []string{"FLUSHDB"})
	watchCase(t, nil, k, []string{"FLUSHALL"})
	watchCase(t, nil, k, []string{"SWAPDB", "0", "1"})
	watchCase(t, []string{"k", "v", "k2", "v"}, k, []string{"RENAMENX", "k2", "k"})
	watchCase(t, kv, k, []string{"SELECT", "2"}, []string{"FLUSHDB"})
	watchCase(t, kv, k, []string{"SCAN", "0"}, []string{"KEYS", "*"}, []string{"RANDOMKEY"})

	// A watched key that expires makes EXEC fail.
	d := redistest.NewDiff(t)
	d.Do("SET", "k", "v", "PX", "100")
	d.Do("WATCH", "k")
	time.Sleep(150 * time.Millisecond)
	d.Do("MULTI")
	d.Do("PING")
	d.Do("EXEC")
}

// TestKeysPropagation checks what the keyspace commands log: relative
// expiries as PEXPIREAT with an absolute time, expiries in the past as
// DEL, and nothing for commands that changed nothing.
func TestKeysPropagation(t *testing.T) {
	redistest.RequireRedis(t)
	o := redistest.StartOrdo(t)
	log := captureProp(o)
	c := redistest.Dial(t, o.Addr)
	now := time.Now().UnixMilli()
	c.Do("SET", "k", "v")
	c.Do("EXPIRE", "k", "100")
	c.Do("PEXPIRE", "k", "200000", "GT")
	c.Do("EXPIRE", "k", "1", "GT") // refused: not logged
	c.Do("EXPIREAT", "k", "99999999999")
	c.Do("PEXPIREAT", "k", "99999999999000", "XX")
	c.Do("EXPIRE", "nokey", "100") // no key: not logged
	c.Do("PERSIST", "k")
	c.Do("PERSIST", "k") // nothing to remove: not logged
	c.Do("EXPIRE", "k", "-1")
	c.Do("DEL", "k", "nokey") // nothing deleted: not logged
	c.Do("SET", "a", "1")
	c.Do("RENAME", "a", "b")
	c.Do("RENAMENX", "b", "b")
	c.Do("COPY", "b", "c", "DB", "2")
	c.Do("SELECT", "2")
	c.Do("MOVE", "c", "0")
	c.Do("SELECT", "0")
	c.Do("MOVE", "nokey", "1")
	c.Do("DEL", "b", "c", "nokey")
	c.Do("FLUSHDB")
	c.Do("FLUSHALL", "ASYNC")
	c.Do("SWAPDB", "0", "1")
	got := log()
	want := []string{
		"SET k v", "PEXPIREAT k ~100000", "PEXPIREAT k ~200000", "PEXPIREAT k 99999999999000",
		"PEXPIREAT k 99999999999000", "PERSIST k", "DEL k", "SET a 1", "RENAME a b",
		"COPY b c DB 2", "MOVE c 0", "DEL b c nokey", "FLUSHDB", "FLUSHALL ASYNC", "SWAPDB 0 1",
	}
	checkProp(t, got, want, now)
}

// TestKeysWakeBlocked checks that a list arriving at a key by RENAME,
// COPY, MOVE or SWAPDB serves a client blocked on that key, as Redis's
// dbAdd and SWAPDB do. It needs Ordo's list commands.
func TestKeysWakeBlocked(t *testing.T) {
	d := redistest.NewDiff(t)
	if r := d.Ordo.Do("RPUSH", "probe", "x"); r.Kind == resp.KindError {
		t.Skip("Ordo has no list commands yet: " + r.Str)
	}
	r, o := redistest.Shared(t)
	cases := [][][]string{
		{{"RPUSH", "src", "a"}, {"RENAME", "src", "q"}},
		{{"RPUSH", "src", "b"}, {"COPY", "src", "q"}},
		{{"SELECT", "1"}, {"RPUSH", "q", "c"}, {"MOVE", "q", "0"}},
		{{"SELECT", "1"}, {"RPUSH", "q", "d"}, {"SWAPDB", "0", "1"}},
		{{"SET", "q", "string"}, {"SWAPDB", "0", "1"}}, // not a list: still blocked
	}
	for _, cmds := range cases {
		var replies [2]string
		for i, addr := range []string{r.Addr, o.Addr} {
			a, b := redistest.Dial(t, addr), redistest.Dial(t, addr)
			b.Do("FLUSHALL")
			a.Send("BLPOP", "q", "1")
			time.Sleep(50 * time.Millisecond)
			for _, cmd := range cmds {
				b.Do(cmd...)
			}
			replies[i] = string(a.ReadRaw())
			a.Close()
			b.Close()
		}
		if replies[0] != replies[1] {
			t.Errorf("%q: BLPOP got %q from redis, %q from ordo", cmds, replies[0], replies[1])
		}
	}
}
