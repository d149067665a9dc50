package redistest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/resp"
)

func TestMain(m *testing.M) { Main(m) }

// transcriptDir is where every transcript lives; adding a file there is
// all it takes to have it checked against redis-server and ordo-server.
const transcriptDir = "../../testdata/transcripts"

// TestTranscripts replays every transcript against redis-server (the
// transcript must be right) and against ordo-server (Ordo must be right).
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(transcriptDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts in " + transcriptDir)
	}
	r, o := Shared(t)
	for _, f := range files {
		tr, err := LoadTranscript(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		t.Run(name+"/redis", func(t *testing.T) {
			if tr.OrdoOnly != "" {
				t.Skip("ordo-only: " + tr.OrdoOnly)
			}
			Dial(t, r.Addr).DoRaw("FLUSHALL")
			tr.Run(&prefixTB{TB: t, msg: "the transcript disagrees with redis-server (fix the transcript): "}, r.Addr)
		})
		t.Run(name+"/ordo", func(t *testing.T) {
			Dial(t, o.Addr).DoRaw("FLUSHALL")
			tr.Run(t, o.Addr)
		})
	}
}

// prefixTB prefixes error messages.
type prefixTB struct {
	testing.TB
	msg string
}

func (p *prefixTB) Errorf(format string, args ...any) {
	p.TB.Helper()
	p.TB.Errorf(p.msg+format, args...)
}

func TestParseTranscript(t *testing.T) {
	text := `# a comment
# ordo-only: needs JSON
redis> SET k "a b"
OK

127.0.0.1:6379> GET k
"a b"
# any-order
127.0.0.1:6379[2]> SMEMBERS s
1) "x"
2) "y"
# random
127.0.0.1:6379(TX)> SRANDMEMBER s
"x"
redis>
`
	tr, err := ParseTranscript("t", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if tr.OrdoOnly != "needs JSON" || len(tr.Steps) != 4 {
		t.Fatalf("%+v", tr)
	}
	want := []Step{
		{Line: 3, Command: `SET k "a b"`, Args: []string{"SET", "k", "a b"}, Want: []string{"OK"}},
		{Line: 6, Command: "GET k", Args: []string{"GET", "k"}, Want: []string{`"a b"`}},
		{Line: 9, Command: "SMEMBERS s", Args: []string{"SMEMBERS", "s"}, Want: []string{`1) "x"`, `2) "y"`}, Mode: "any-order"},
		{Line: 13, Command: "SRANDMEMBER s", Args: []string{"SRANDMEMBER", "s"}, Want: []string{`"x"`}, Mode: "random"},
	}
	for i, w := range want {
		g := tr.Steps[i]
		if g.Line != w.Line || g.Command != w.Command || strings.Join(g.Args, "|") != strings.Join(w.Args, "|") ||
			strings.Join(g.Want, "\n") != strings.Join(w.Want, "\n") || g.Mode != w.Mode {
			t.Errorf("step %d: %+v, want %+v", i, g, w)
		}
	}
	if _, err := ParseTranscript("t", []byte("OK\n")); err == nil {
		t.Error("output before a command accepted")
	}
	if !MatchOutput("any-order", []string{`1) "b"`, `2) "a"`}, []string{`1) "a"`, `2) "b"`}) ||
		MatchOutput("any-order", []string{`1) "b"`, `2) "b"`}, []string{`1) "a"`, `2) "b"`}) ||
		!MatchOutput("random", []string{`"q"`}, []string{`"x"`}) ||
		MatchOutput("random", []string{`(nil)`}, []string{`"x"`}) ||
		!MatchOutput("random", []string{`(integer) 29`}, []string{`(integer) 30`}) {
		t.Error("MatchOutput")
	}
}

// TestRenderCLIMatchesRedisCli renders replies of real redis-server and
// compares them with what `redis-cli --no-raw` (the interactive format)
// prints for the same commands.
func TestRenderCLIMatchesRedisCli(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-cli is not installed")
		}
		t.Skip("redis-cli not installed")
	}
	r := StartRedis(t)
	port := r.Addr[strings.LastIndexByte(r.Addr, ':')+1:]
	setup := Dial(t, r.Addr)
	setup.DoRaw("RPUSH", "l", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "x\ty\"\\z\xff\x01\n\r\a\b")
	setup.DoRaw("HSET", "h", "f", "v", "g", "w")
	setup.DoRaw("SADD", "s", "m")
	setup.DoRaw("ZADD", "z", "1.5", "a", "2", "b")
	cases := []struct {
		resp3 bool
		args  []string
	}{
		{false, []string{"LRANGE", "l", "0", "-1"}},
		{false, []string{"LRANGE", "l", "0", "1"}},
		{false, []string{"LRANGE", "nokey", "0", "1"}},
		{false, []string{"GET", "nokey"}},
		{false, []string{"SET", "k", "v"}},
		{false, []string{"INCR", "l"}},
		{false, []string{"LLEN", "l"}},
		{false, []string{"ECHO", ""}},
		{false, []string{"COMMAND", "INFO", "get", "nosuch"}},
		{false, []string{"ZRANGE", "z", "0", "-1", "WITHSCORES"}},
		{false, []string{"ZSCORE", "z", "a"}},
		{false, []string{"NOSUCHCMD", "x"}},
		{true, []string{"HGETALL", "h"}},
		{true, []string{"HGETALL", "nokey"}},
		{true, []string{"SMEMBERS", "s"}},
		{true, []string{"SMEMBERS", "nokey"}},
		{true, []string{"ZSCORE", "z", "a"}},
		{true, []string{"ZRANGE", "z", "0", "-1", "WITHSCORES"}},
		{true, []string{"GET", "nokey"}},
		{true, []string{"HELLO", "3"}},
		{true, []string{"SISMEMBER", "s", "m"}},
	}
	c2 := Dial(t, r.Addr)
	c3 := Dial(t, r.Addr)
	c3.DoRaw("HELLO", "3")
	for _, tc := range cases {
		argv := []string{"-p", port, "--no-raw"}
		c := c2
		if tc.resp3 {
			argv = append(argv, "-3")
			c = c3
		}
		out, err := exec.Command(cli, append(argv, tc.args...)...).Output()
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		v, _, err := resp.ParseReply(c.DoRaw(tc.args...))
		if err != nil {
			t.Fatal(err)
		}
		got := RenderCLI(v)
		if tc.args[0] == "HELLO" { // the client id differs between connections
			got = regexpReplaceID(got)
			out = []byte(regexpReplaceID(string(out)))
		}
		if got != string(out) {
			t.Errorf("%q (resp3=%v):\n got: %q\n cli: %q", tc.args, tc.resp3, got, out)
		}
	}
}

func regexpReplaceID(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.Contains(l, `"id" => (integer) `) {
			j := strings.LastIndexByte(l, ' ')
			if _, err := strconv.Atoi(l[j+1:]); err == nil {
				lines[i] = l[:j+1] + "ID"
			}
		}
	}
	return strings.Join(lines, "\n")
}
