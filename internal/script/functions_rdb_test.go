package script_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
	"github.com/ordo-db/ordo/internal/script"
)

func callRaw(e *engine.Engine, cl *engine.Client, args ...string) string {
	var w resp.Writer
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	e.Lock()
	e.Call(cl, b, &w)
	e.Unlock()
	return string(w.Buf)
}

// TestFunctionsInRDBFiles: an RDB file written by Ordo carries the
// libraries (FUNCTION2) and redis-server loads them; one saved by
// redis-server loads into Ordo.
func TestFunctionsInRDBFiles(t *testing.T) {
	const lib = "#!lua name=rdblib\nredis.register_function{function_name='rf', callback=function(k, a) return a[1] end, flags={'no-writes'}}"
	e := engine.New(engine.NewConfig(), script.Register)
	defer e.Close()
	cl := e.NewClient("embedded")
	cl.Authenticated = true
	if got := callRaw(e, cl, "FUNCTION", "LOAD", lib); got != "$6\r\nrdblib\r\n" {
		t.Fatalf("FUNCTION LOAD: %q", got)
	}
	callRaw(e, cl, "SET", "k", "v")
	var buf bytes.Buffer
	e.Lock()
	st, err := e.WriteRDB(&buf)
	e.Unlock()
	if err != nil || st.Libraries != 1 {
		t.Fatalf("WriteRDB: %v %+v", err, st)
	}
	want := callRaw(e, cl, "FUNCTION", "LIST", "WITHCODE")

	// Ordo -> Ordo.
	e2 := engine.New(engine.NewConfig(), script.Register)
	defer e2.Close()
	cl2 := e2.NewClient("embedded")
	cl2.Authenticated = true
	e2.Lock()
	st, err = e2.LoadRDB(bytes.NewReader(buf.Bytes()))
	e2.Unlock()
	if err != nil || st.Libraries != 1 || st.Keys != 1 {
		t.Fatalf("LoadRDB: %v %+v", err, st)
	}
	if got := callRaw(e2, cl2, "FUNCTION", "LIST", "WITHCODE"); got != want {
		t.Fatalf("after LoadRDB:\n got %q\nwant %q", got, want)
	}

	// Ordo -> redis-server.
	redistest.RequireRedis(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ordo.rdb"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := redistest.StartRedis(t, "--dir", dir, "--dbfilename", "ordo.rdb")
	rc := redistest.Dial(t, r.Addr)
	if got := string(rc.DoRaw("FUNCTION", "LIST", "WITHCODE")); got != want {
		t.Fatalf("redis-server loading Ordo's RDB:\n got %q\nwant %q", got, want)
	}
	if got := string(rc.DoRaw("FCALL_RO", "rf", "0", "x")); got != "$1\r\nx\r\n" {
		t.Fatalf("FCALL on redis-server: %q", got)
	}

	// redis-server -> Ordo.
	rc.DoRaw("FUNCTION", "LOAD", "#!lua name=fromredis\nredis.register_function('fr', function() return 7 end)")
	if got := string(rc.DoRaw("SAVE")); got != "+OK\r\n" {
		t.Fatalf("SAVE: %q", got)
	}
	saved, err := os.ReadFile(filepath.Join(dir, "ordo.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	e3 := engine.New(engine.NewConfig(), script.Register)
	defer e3.Close()
	cl3 := e3.NewClient("embedded")
	cl3.Authenticated = true
	e3.Lock()
	st, err = e3.LoadRDB(bytes.NewReader(saved))
	e3.Unlock()
	if err != nil || st.Libraries != 2 {
		t.Fatalf("LoadRDB of redis-server's file: %v %+v", err, st)
	}
	if got := callRaw(e3, cl3, "FCALL", "fr", "0"); got != ":7\r\n" {
		t.Fatalf("FCALL after loading redis-server's RDB: %q", got)
	}
	if got := callRaw(e3, cl3, "FUNCTION", "LIST", "LIBRARYNAME", "rdblib", "WITHCODE"); got != want {
		t.Fatalf("rdblib after loading redis-server's RDB: %q", got)
	}
}
