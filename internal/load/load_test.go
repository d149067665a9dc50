package load_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/load"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// server is a redis-server or an ordo-server under test.
type server struct {
	name string
	addr string
}

func servers(t *testing.T) []server {
	t.Helper()
	r := redistest.StartRedis(t)
	o := redistest.StartOrdo(t)
	return []server{{"redis", r.Addr}, {"ordo", o.Addr}}
}

func hostPort(t *testing.T, addr string) (string, string) {
	t.Helper()
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return h, p
}

func textInput(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "SET Key%d Value%d\n", i, i)
	}
	return b.Bytes()
}

func respInput(n int) []byte {
	var b []byte
	for i := 0; i < n; i++ {
		b = resp.AppendCommand(b, "SET", fmt.Sprintf("Key%d", i), fmt.Sprintf("Value%d", i))
	}
	return b
}

func writeFile(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type outcome struct {
	stdout, stderr string
	code           int
}

func runLoad(t *testing.T, addr string, stdin []byte, args ...string) outcome {
	t.Helper()
	h, p := hostPort(t, addr)
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- load.LoadMain(append([]string{"-h", h, "-p", p, "-pipe-timeout", "10"}, args...), bytes.NewReader(stdin), &out, &errb)
	}()
	select {
	case code := <-done:
		return outcome{out.String(), errb.String(), code}
	case <-time.After(60 * time.Second):
		t.Fatal("ordo load did not finish within 60 s")
	}
	return outcome{}
}

// runRedisCli runs `redis-cli --pipe` on the same input, or skips.
func runRedisCli(t *testing.T, addr string, stdin []byte) outcome {
	t.Helper()
	path, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli not installed")
	}
	h, p := hostPort(t, addr)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "-h", h, "-p", p, "--pipe")
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return outcome{out.String(), errb.String(), code}
}

func do(t *testing.T, addr string, args ...string) resp.Value {
	t.Helper()
	c := redistest.Dial(t, addr)
	defer c.Close()
	return c.Do(args...)
}

func summary(errors, replies int) string {
	return fmt.Sprintf("All data transferred. Waiting for the last reply...\nLast reply received from server.\nerrors: %d, replies: %d\n", errors, replies)
}

// TestLoad100k loads 100,000 SETs in both formats into both servers, and
// checks that redis-cli --pipe prints the same on the same input.
func TestLoad100k(t *testing.T) {
	const n = 100000
	inputs := map[string][]byte{"text": textInput(n), "resp": respInput(n)}
	for _, s := range servers(t) {
		for _, format := range []string{"text", "resp"} {
			t.Run(s.name+"/"+format, func(t *testing.T) {
				do(t, s.addr, "FLUSHALL")
				file := writeFile(t, inputs[format])
				start := time.Now()
				got := runLoad(t, s.addr, nil, file)
				el := time.Since(start)
				if got.code != 0 || got.stdout != summary(0, n) || got.stderr != "" {
					t.Fatalf("ordo load: code %d\nstdout %q\nstderr %q", got.code, got.stdout, got.stderr)
				}
				t.Logf("%d commands in %v (%.0f/s)", n, el, n/el.Seconds())
				if v := do(t, s.addr, "DBSIZE"); v.Int != n {
					t.Fatalf("DBSIZE %v, want %d", v, n)
				}
				if v := do(t, s.addr, "GET", "Key99999"); v.Str != "Value99999" {
					t.Fatalf("GET Key99999 = %v", v)
				}
				do(t, s.addr, "FLUSHALL")
				want := runRedisCli(t, s.addr, inputs[format])
				if want != got {
					t.Fatalf("redis-cli --pipe printed\n%+v\nordo load printed\n%+v", want, got)
				}
			})
		}
	}
}

// TestLoadErrors: error replies are printed as redis-cli prints them,
// counted, and make the exit status 1.
func TestLoadErrors(t *testing.T) {
	var in bytes.Buffer
	in.WriteString("SET a 1\nINCR a\nSET s notanumber\n")
	in.WriteString("INCR s\n")                                        // ERR value is not an integer or out of range
	in.WriteString("NOSUCHCOMMAND x\n")                               // ERR unknown command
	in.Write(resp.AppendCommand(nil, "GET"))                          // wrong number of arguments
	in.Write(resp.AppendCommand(nil, "LPUSH", "s", "x"))              // WRONGTYPE
	in.WriteString("MGET a s\n")                                      // an array reply
	in.Write(resp.AppendCommand(nil, "ECHO", "01234567890123456789")) // a 20-byte bulk that is not the magic
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			do(t, s.addr, "FLUSHALL")
			got := runLoad(t, s.addr, in.Bytes())
			if got.code != 1 || got.stdout != summary(4, 9) {
				t.Fatalf("code %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
			}
			for _, e := range []string{"ERR value is not an integer or out of range", "ERR unknown command 'NOSUCHCOMMAND'",
				"ERR wrong number of arguments for 'get' command", "WRONGTYPE"} {
				if !strings.Contains(got.stderr, e) {
					t.Errorf("stderr lacks %q:\n%s", e, got.stderr)
				}
			}
			do(t, s.addr, "FLUSHALL")
			want := runRedisCli(t, s.addr, in.Bytes())
			if want != got {
				t.Fatalf("redis-cli --pipe printed\n%+v\nordo load printed\n%+v", want, got)
			}
		})
	}
}

// TestLoadStdinQuoting reads from stdin ("-") text lines quoted as
// redis-cli understands, mixed with RESP, with binary values.
func TestLoadStdinQuoting(t *testing.T) {
	var in bytes.Buffer
	in.WriteString("SET \"key with spaces\" \"line1\\r\\nline2\\x00\\xff\"\r\n")
	in.WriteString("\n   \n")
	in.WriteString("SET 'single quoted' 'it\\'s'\n")
	in.Write(resp.AppendCommand(nil, "SET", "resp\r\nkey", "v\x00"))
	in.WriteString("HSET h f1 v1 f2 \"\"\n")
	in.WriteString("SET broken \"unterminated\n") // skipped, counted as an error
	in.WriteString("SET last ok")                 // no final newline
	r := redistest.StartRedis(t)
	got := runLoad(t, r.Addr, in.Bytes(), "-")
	if got.code != 1 || got.stdout != summary(1, 5) {
		t.Fatalf("code %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
	}
	if got.stderr != "line 14: ERR Protocol error: unbalanced quotes in request\n" {
		t.Fatalf("stderr %q", got.stderr)
	}
	checks := [][2]string{
		{"key with spaces", "line1\r\nline2\x00\xff"},
		{"single quoted", "it's"},
		{"resp\r\nkey", "v\x00"},
		{"last", "ok"},
	}
	for _, c := range checks {
		if v := do(t, r.Addr, "GET", c[0]); v.Str != c[1] {
			t.Errorf("GET %q = %q, want %q", c[0], v.Str, c[1])
		}
	}
	if v := do(t, r.Addr, "HGET", "h", "f2"); v.Kind != resp.KindBulk || v.Str != "" {
		t.Errorf("HGET h f2 = %v", v)
	}
}

// TestLoadMalformedRESP stops at malformed RESP, still collects the
// replies of what was sent, and fails.
func TestLoadMalformedRESP(t *testing.T) {
	in := resp.AppendCommand(nil, "SET", "a", "1")
	in = append(in, "*2\r\n$3\r\nGET\r\n:1\r\n"...)
	in = resp.AppendCommand(in, "SET", "b", "2")
	r := redistest.StartRedis(t)
	got := runLoad(t, r.Addr, in)
	if got.code != 1 || got.stdout != summary(1, 1) || !strings.Contains(got.stderr, "line 11: expected '$', got ':'") {
		t.Fatalf("code %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
	}
	if v := do(t, r.Addr, "EXISTS", "b"); v.Int != 0 {
		t.Fatal("the command after malformed input was sent")
	}
}

func TestLoadAuth(t *testing.T) {
	r := redistest.StartRedis(t, "--requirepass", "s3cret")
	got := runLoad(t, r.Addr, textInput(10), "-a", "s3cret")
	if got.code != 0 || got.stdout != summary(0, 10) {
		t.Fatalf("%+v", got)
	}
	got = runLoad(t, r.Addr, textInput(10), "-a", "wrong")
	if got.code != 1 || !strings.HasPrefix(got.stderr, "AUTH failed: WRONGPASS") {
		t.Fatalf("%+v", got)
	}
	got = runLoad(t, r.Addr, textInput(10))
	// Every command is refused, the final ECHO too: that refusal still
	// ends the load (redis-cli would wait for its pipe timeout).
	if got.code != 1 || got.stdout != summary(10, 10) || !strings.Contains(got.stderr, "NOAUTH Authentication required.") {
		t.Fatalf("%+v", got)
	}
	// -n selects a database first.
	c := redistest.Dial(t, r.Addr)
	c.Do("AUTH", "s3cret")
	got = runLoad(t, r.Addr, []byte("SET indb3 x\n"), "-a", "s3cret", "-n", "3")
	if got.code != 0 {
		t.Fatalf("%+v", got)
	}
	c.Do("SELECT", "3")
	if v := c.Do("GET", "indb3"); v.Str != "x" {
		t.Fatalf("key not in db 3: %v", v)
	}
}

func TestLoadConnectionRefused(t *testing.T) {
	port := redistest.FreePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	got := runLoad(t, addr, textInput(1))
	want := fmt.Sprintf("Could not connect to Redis at %s: Connection refused\n", addr)
	if got.code != 1 || got.stderr != want {
		t.Fatalf("%+v", got)
	}
}

// TestLoadPipeTimeout: a server that never answers.
func TestLoadPipeTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	var out, errb bytes.Buffer
	res, err := load.Run(context.Background(), bytes.NewReader(textInput(3)), load.Options{
		Addr: ln.Addr().String(), PipeTimeout: 1 * time.Second, Stdout: &out, Stderr: &errb})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 1 || res.Complete || errb.String() != "No replies for 1 seconds: exiting.\n" ||
		out.String() != "All data transferred. Waiting for the last reply...\nerrors: 1, replies: 0\n" {
		t.Fatalf("%+v\nstdout %q\nstderr %q", res, out.String(), errb.String())
	}
}

// TestLoadProgress draws a progress line, and erases it before other
// output.
func TestLoadProgress(t *testing.T) {
	r := redistest.StartRedis(t)
	var out, errb bytes.Buffer
	pr, pw := io.Pipe()
	go func() {
		for i := 0; i < 5; i++ {
			pw.Write(textInput(1000))
			time.Sleep(30 * time.Millisecond)
		}
		pw.Close()
	}()
	res, err := load.Run(context.Background(), pr, load.Options{Addr: r.Addr, Stdout: &out, Stderr: &errb,
		Progress: true, ProgressInterval: 10 * time.Millisecond})
	if err != nil || res.Replies != 5000 || res.Commands != 5000 {
		t.Fatal(res, err)
	}
	if !strings.Contains(errb.String(), "sent ") || !strings.HasSuffix(errb.String(), "\r\x1b[K") {
		t.Fatalf("progress %q", errb.String())
	}
	if out.String() != summary(0, 5000) {
		t.Fatalf("stdout %q", out.String())
	}
}

// TestLoadQuotedLikeRedisCli: quoted text lines give the same output and
// the same values as redis-cli --pipe (where the server's inline parser
// reads them).
func TestLoadQuotedLikeRedisCli(t *testing.T) {
	in := []byte("SET \"k 1\" \"a\\tb\\x41\\\"\"\nSET 'k2' 'it\\'s'\r\nAPPEND \"k 1\" \"\"\nGET nokey\nSET k3\n")
	r := redistest.StartRedis(t)
	got := runLoad(t, r.Addr, in)
	v1, v2 := do(t, r.Addr, "GET", "k 1"), do(t, r.Addr, "GET", "k2")
	do(t, r.Addr, "FLUSHALL")
	want := runRedisCli(t, r.Addr, in)
	if got != want {
		t.Fatalf("redis-cli --pipe printed\n%+v\nordo load printed\n%+v", want, got)
	}
	if w1, w2 := do(t, r.Addr, "GET", "k 1"), do(t, r.Addr, "GET", "k2"); v1.Str != w1.Str || v2.Str != w2.Str || v1.Str != "a\tbA\"" {
		t.Fatalf("values %q %q, redis-cli's %q %q", v1.Str, v2.Str, w1.Str, w2.Str)
	}
}
