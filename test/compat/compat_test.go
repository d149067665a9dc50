// Package compat runs real clients against ordo-server: go-redis v9,
// redis-cli (single commands and --pipe) and redis-benchmark. Every test
// runs against redis-server as well, so that a failure in the test itself
// shows up there first. Servers listen on loopback only; every run is
// bounded in size and time.
package compat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// servers returns a private redis-server and ordo-server with the same settings.
func servers(t *testing.T, settings ...string) map[string]string {
	t.Helper()
	var redisArgs []string
	for i := 0; i+1 < len(settings); i += 2 {
		redisArgs = append(redisArgs, "--"+settings[i], settings[i+1])
	}
	r := redistest.StartRedis(t, redisArgs...)
	o := redistest.StartOrdo(t, settings...)
	return map[string]string{"redis": r.Addr, "ordo": o.Addr}
}

func forEach(t *testing.T, addrs map[string]string, f func(t *testing.T, addr string)) {
	for _, name := range []string{"redis", "ordo"} {
		t.Run(name, func(t *testing.T) { f(t, addrs[name]) })
	}
}

func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed", name)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

func hostPort(t *testing.T, addr string) (string, string) {
	i := strings.LastIndexByte(addr, ':')
	return addr[:i], addr[i+1:]
}

// TestGoRedisWorkload: go-redis v9 connects (HELLO 3, CLIENT SETINFO)
// with and without a password and runs a typical workload.
func TestGoRedisWorkload(t *testing.T) {
	for _, pass := range []string{"", "s3cret"} {
		t.Run("password="+strconv.FormatBool(pass != ""), func(t *testing.T) {
			var settings []string
			if pass != "" {
				settings = []string{"requirepass", pass}
			}
			forEach(t, servers(t, settings...), func(t *testing.T, addr string) {
				for _, proto := range []int{3, 2} {
					t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
						goRedisWorkload(t, addr, pass, proto)
					})
				}
			})
		})
	}
}

func goRedisWorkload(t *testing.T, addr, pass string, proto int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rdb := redis.NewClient(&redis.Options{Addr: addr, Password: pass, Protocol: proto,
		DialTimeout: 2 * time.Second, ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second, PoolSize: 8})
	defer rdb.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(rdb.FlushAll(ctx).Err())
	must(rdb.Set(ctx, "greeting", "hello", 0).Err())
	if v, err := rdb.Get(ctx, "greeting").Result(); err != nil || v != "hello" {
		t.Fatalf("GET: %q %v", v, err)
	}
	if _, err := rdb.Get(ctx, "missing").Result(); !errors.Is(err, redis.Nil) {
		t.Fatalf("GET missing: %v", err)
	}
	if ok, err := rdb.SetNX(ctx, "lock", "token", 30*time.Second).Result(); err != nil || !ok {
		t.Fatalf("SETNX: %v %v", ok, err)
	}
	if ok, err := rdb.SetNX(ctx, "lock", "other", 30*time.Second).Result(); err != nil || ok {
		t.Fatalf("second SETNX: %v %v", ok, err)
	}
	if d, err := rdb.PTTL(ctx, "lock").Result(); err != nil || d <= 29*time.Second || d > 30*time.Second {
		t.Fatalf("PTTL: %v %v", d, err)
	}
	if n, err := rdb.Incr(ctx, "counter").Result(); err != nil || n != 1 {
		t.Fatalf("INCR: %d %v", n, err)
	}
	if f, err := rdb.IncrByFloat(ctx, "f", 0.1).Result(); err != nil || f != 0.1 {
		t.Fatalf("INCRBYFLOAT: %v %v", f, err)
	}
	if err := rdb.SAdd(ctx, "greeting", "x").Err(); err == nil || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
		t.Fatalf("SADD on a string: %v", err)
	}

	// Hashes, as the data-modeling document stores objects.
	must(rdb.HSet(ctx, "user:1000", "username", "antirez", "password", "P1pp0", "age", "34").Err())
	if n, err := rdb.HSet(ctx, "user:1000", "password", "12345").Result(); err != nil || n != 0 {
		t.Fatalf("HSET update: %d %v", n, err)
	}
	if m, err := rdb.HGetAll(ctx, "user:1000").Result(); err != nil || len(m) != 3 || m["password"] != "12345" {
		t.Fatalf("HGETALL: %v %v", m, err)
	}
	// HELLO 3 really switched the connection: HGETALL is a map in RESP3.
	raw, err := rdb.Do(ctx, "HGETALL", "user:1000").Result()
	if _, isMap := raw.(map[any]any); err != nil || isMap != (proto == 3) {
		t.Fatalf("HGETALL via Do with protocol %d: %T %v", proto, raw, err)
	}
	if v, err := rdb.HIncrBy(ctx, "user:1000", "age", 1).Result(); err != nil || v != 35 {
		t.Fatalf("HINCRBY: %v %v", v, err)
	}

	// Sets and lists: the non-range indexes.
	must(rdb.SAdd(ctx, "s", "a", "b", "c").Err())
	if ms, err := rdb.SMembers(ctx, "s").Result(); err != nil || len(ms) != 3 {
		t.Fatalf("SMEMBERS: %v %v", ms, err)
	}
	if ok, err := rdb.SIsMember(ctx, "s", "b").Result(); err != nil || !ok {
		t.Fatalf("SISMEMBER: %v %v", ok, err)
	}
	if m, err := rdb.SRandMember(ctx, "s").Result(); err != nil || !strings.Contains("abc", m) {
		t.Fatalf("SRANDMEMBER: %v %v", m, err)
	}
	// A pipeline of 1000 commands.
	cmds, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := 0; i < 500; i++ {
			p.Set(ctx, "k"+strconv.Itoa(i), i, 0)
			p.Get(ctx, "k"+strconv.Itoa(i))
		}
		return nil
	})
	must(err)
	for i := 0; i < 500; i++ {
		if v := cmds[2*i+1].(*redis.StringCmd).Val(); v != strconv.Itoa(i) {
			t.Fatalf("pipelined GET k%d = %q", i, v)
		}
	}
	if n, err := rdb.DBSize(ctx).Result(); err != nil || n < 500 {
		t.Fatalf("DBSIZE: %d %v", n, err)
	}

	// TxPipelined with WATCH: concurrent optimistic increments never lose one.
	const workers, each = 4, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				for attempt := 0; ; attempt++ {
					err := rdb.Watch(ctx, func(tx *redis.Tx) error {
						n, err := tx.Get(ctx, "watched").Int()
						if err != nil && !errors.Is(err, redis.Nil) {
							return err
						}
						_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
							p.Set(ctx, "watched", n+1, 0)
							p.HSet(ctx, "audit", strconv.Itoa(n+1), "x")
							return nil
						})
						return err
					}, "watched")
					if err == nil {
						break
					}
					if !errors.Is(err, redis.TxFailedErr) || attempt > 1000 {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n, err := rdb.Get(ctx, "watched").Int(); err != nil || n != workers*each {
		t.Fatalf("watched counter = %d (%v), want %d", n, err, workers*each)
	}
	if n, err := rdb.HLen(ctx, "audit").Result(); err != nil || n != workers*each {
		t.Fatalf("audit entries = %d (%v)", n, err)
	}

	// A transaction with a runtime error still runs its other commands.
	_, err = rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Incr(ctx, "greeting")
		p.Incr(ctx, "counter")
		return nil
	})
	if err == nil || !strings.HasPrefix(err.Error(), "ERR value is not an integer") {
		t.Fatalf("EXEC with a failing INCR: %v", err)
	}
	if n, _ := rdb.Get(ctx, "counter").Int(); n != 2 {
		t.Fatalf("counter = %d after the transaction", n)
	}
	must(rdb.Del(ctx, "greeting", "counter").Err())
	if n, err := rdb.Exists(ctx, "greeting", "counter").Result(); err != nil || n != 0 {
		t.Fatalf("EXISTS after DEL: %d %v", n, err)
	}

	// Lists: a capped list and a rotation list.
	for i := 0; i < 5; i++ {
		must(rdb.LPush(ctx, "latest", i).Err())
		must(rdb.LTrim(ctx, "latest", 0, 2).Err())
	}
	if l, err := rdb.LRange(ctx, "latest", 0, -1).Result(); err != nil || strings.Join(l, ",") != "4,3,2" {
		t.Fatalf("capped list: %v %v", l, err)
	}
	//lint:ignore SA1019 RPOPLPUSH itself (the rotation pattern) is what is tested
	if v, err := rdb.RPopLPush(ctx, "latest", "latest").Result(); err != nil || v != "2" {
		t.Fatalf("RPOPLPUSH: %v %v", v, err)
	}
}

// TestRedisCliCommands: redis-cli single commands print what they print against Redis.
func TestRedisCliCommands(t *testing.T) {
	cli := tool(t, "redis-cli")
	addrs := servers(t)
	cmds := [][]string{
		{"PING"},
		{"SET", "k", "v"},
		{"GET", "k"},
		{"GET", "missing"},
		{"HSET", "h", "a", "1", "b", "2"},
		{"HGETALL", "h"},
		{"RPUSH", "l", "x", "y"},
		{"LRANGE", "l", "0", "-1"},
		{"INCR", "k"},
		{"SET", "bin", "a\tb\xff"},
		{"GET", "bin"},
		{"NOSUCHCMD"},
	}
	out := map[string][]string{}
	for _, name := range []string{"redis", "ordo"} {
		host, port := hostPort(t, addrs[name])
		for _, mode := range [][]string{nil, {"--no-raw"}} {
			for _, c := range cmds {
				args := append(append([]string{"-h", host, "-p", port}, mode...), c...)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				b, _ := exec.CommandContext(ctx, cli, args...).CombinedOutput()
				cancel()
				out[name] = append(out[name], string(b))
			}
		}
	}
	for i := range out["redis"] {
		if out["redis"][i] != out["ordo"][i] {
			t.Errorf("redis-cli %q:\n redis: %q\n  ordo: %q", cmds[i%len(cmds)], out["redis"][i], out["ordo"][i])
		}
	}
}

// TestRedisCliPipe: `redis-cli --pipe` loads 100,000 SET commands, in RESP
// and as plain text lines (the bulk-loading document's two forms).
func TestRedisCliPipe(t *testing.T) {
	cli := tool(t, "redis-cli")
	const n = 100000
	var proto, text bytes.Buffer
	for i := 0; i < n; i++ {
		k, v := "Key"+strconv.Itoa(i), "Value"+strconv.Itoa(i)
		fmt.Fprintf(&proto, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", len(k), k, len(v), v)
		fmt.Fprintf(&text, "SET %s %s\r\n", k, v)
	}
	dir := t.TempDir()
	files := map[string]string{"resp": filepath.Join(dir, "data.resp"), "text": filepath.Join(dir, "data.txt")}
	os.WriteFile(files["resp"], proto.Bytes(), 0o644)
	os.WriteFile(files["text"], text.Bytes(), 0o644)
	forEach(t, servers(t), func(t *testing.T, addr string) {
		host, port := hostPort(t, addr)
		for _, form := range []string{"resp", "text"} {
			redistest.Dial(t, addr).DoRaw("FLUSHALL")
			in, _ := os.Open(files[form])
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			cmd := exec.CommandContext(ctx, cli, "-h", host, "-p", port, "--pipe")
			cmd.Stdin = in
			out, err := cmd.CombinedOutput()
			cancel()
			in.Close()
			if err != nil || !strings.Contains(string(out), "errors: 0, replies: 100000") {
				t.Fatalf("%s: %v\n%s", form, err, out)
			}
			c := redistest.Dial(t, addr)
			if v := c.Do("DBSIZE"); v.Int != n {
				t.Fatalf("%s: DBSIZE %v", form, v)
			}
			if v := c.Do("GET", "Key99999"); v.Str != "Value99999" {
				t.Fatalf("%s: GET Key99999 = %v", form, v)
			}
		}
	})
}

// TestRedisCliPipeErrors: errors are counted and printed as redis-cli does.
func TestRedisCliPipeErrors(t *testing.T) {
	cli := tool(t, "redis-cli")
	data := "SET a 1\r\nINCR a\r\nLPUSH a x\r\nNOSUCH\r\nGET a\r\n"
	outs := map[string]string{}
	forEach(t, servers(t), func(t *testing.T, addr string) {
		host, port := hostPort(t, addr)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, cli, "-h", host, "-p", port, "--pipe")
		cmd.Stdin = strings.NewReader(data)
		out, _ := cmd.CombinedOutput()
		outs[addr] = string(out)
		if !strings.Contains(string(out), "errors: 2, replies: 5") {
			t.Fatalf("%s", out)
		}
	})
	var got []string
	for _, o := range outs {
		got = append(got, o)
	}
	if len(got) == 2 && got[0] != got[1] {
		t.Errorf("outputs differ:\n%s\n%s", got[0], got[1])
	}
}

// TestRedisBenchmark: a redis-benchmark smoke run completes without errors.
func TestRedisBenchmark(t *testing.T) {
	bench := tool(t, "redis-benchmark")
	o := redistest.StartOrdo(t)
	host, port := hostPort(t, o.Addr)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bench, "-h", host, "-p", port, "-t", "set,get,incr,lpush,hset,sadd",
		"-n", "20000", "-c", "10", "-q")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	s := string(out)
	for _, name := range []string{"SET", "GET", "INCR", "LPUSH", "HSET", "SADD"} {
		if !strings.Contains(s, name+": ") {
			t.Errorf("no %s result in:\n%s", name, s)
		}
	}
	if strings.Contains(strings.ToLower(s), "error") {
		t.Errorf("errors in output:\n%s", s)
	}
	t.Logf("\n%s", strings.ReplaceAll(s, "\r", "\n"))
}
