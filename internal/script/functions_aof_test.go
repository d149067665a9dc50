package script_test

import (
	"testing"

	"github.com/ordo-db/ordo/internal/aof"
	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
	"github.com/ordo-db/ordo/internal/script"
)

type aofInst struct {
	e  *engine.Engine
	a  *aof.AOF
	cl *engine.Client
}

func openAOF(t *testing.T, dir string) *aofInst {
	t.Helper()
	cfg := engine.NewConfig()
	for _, kv := range [][2]string{{"dir", dir}, {"appendonly", "yes"}, {"appendfsync", "always"}} {
		if err := cfg.Set(kv[0], kv[1], true); err != nil {
			t.Fatal(err)
		}
	}
	e := engine.New(cfg, script.Register)
	a, err := aof.Open(e, t.Logf)
	if err != nil {
		e.Close()
		t.Fatal(err)
	}
	cl := e.NewClient("embedded")
	cl.Authenticated = true
	return &aofInst{e: e, a: a, cl: cl}
}

func (in *aofInst) do(args ...string) string {
	var w resp.Writer
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	in.e.Lock()
	in.e.Call(in.cl, b, &w)
	in.e.Unlock()
	return string(w.Buf)
}

func (in *aofInst) close(t *testing.T, snapshot bool) {
	t.Helper()
	if err := in.a.Close(snapshot); err != nil {
		t.Fatal(err)
	}
	in.e.Close()
}

// TestFunctionsSurviveRestart: FUNCTION LOAD/DELETE/RESTORE are logged,
// and a rewrite re-emits one FUNCTION LOAD per library.
func TestFunctionsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	in := openAOF(t, dir)
	in.do("FUNCTION", "LOAD", libA)
	in.do("FUNCTION", "LOAD", "#!lua name=gone\nredis.register_function('g', function() return 1 end)")
	in.do("FUNCTION", "LOAD", "#!lua name=third\nredis.register_function('h', function(k, a) return redis.call('set', k[1], a[1]) end)")
	in.do("FUNCTION", "DELETE", "gone")
	in.do("FCALL", "h", "1", "k", "v")
	want := in.do("FUNCTION", "LIST", "WITHCODE")
	check := func(in *aofInst) {
		t.Helper()
		if got := in.do("FUNCTION", "LIST", "WITHCODE"); got != want {
			t.Fatalf("FUNCTION LIST after restart:\n got %q\nwant %q", got, want)
		}
		if got := in.do("FCALL", "f1", "1", "k"); got != "$1\r\nv\r\n" {
			t.Fatalf("FCALL after restart: %q", got)
		}
	}
	in.close(t, false)
	in = openAOF(t, dir)
	check(in)
	in.close(t, true) // a snapshot: the rewrite emits the libraries
	in = openAOF(t, dir)
	check(in)
	in.do("FUNCTION", "FLUSH")
	in.close(t, false)
	in = openAOF(t, dir)
	if got := in.do("FUNCTION", "LIST"); got != "*0\r\n" {
		t.Fatalf("after FLUSH and restart: %q", got)
	}
	in.close(t, false)
}
