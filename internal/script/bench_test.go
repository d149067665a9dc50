package script_test

import (
	"fmt"
	"testing"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
	"github.com/ordo-db/ordo/internal/script"
	"github.com/ordo-db/ordo/internal/sysinfo"
)

// lockKeys are the keys the benchmarks release, as the bench's
// lock:__rand_int__ (none exists: each call is a GET and a compare).
func lockKeys() [][]byte {
	keys := make([][]byte, 4096)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "lock:%012d", i*7919%1000000)
	}
	return keys
}

// BenchmarkEvalshaLockRelease measures EVALSHA of the lock-release script
// through the engine (no network).
func BenchmarkEvalshaLockRelease(b *testing.B) {
	e := engine.New(nil, script.Register)
	defer e.Close()
	cl := e.NewClient("embedded")
	cl.Authenticated = true
	w := &resp.Writer{Proto: 2}
	const release = "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end"
	e.Lock()
	e.Call(cl, [][]byte{[]byte("SCRIPT"), []byte("LOAD"), []byte(release)}, w)
	e.Unlock()
	args := [][]byte{[]byte("EVALSHA"), []byte("ae3671744a5dbb24ea37ef607b8b10ac7856d43e"), []byte("1"), nil, []byte("token")}
	runLockRelease(b, e, cl, w, args)
}

// BenchmarkFcallLockRelease measures FCALL of the lock-release script as
// a function (the bench's FCALL row) through the engine (no network).
func BenchmarkFcallLockRelease(b *testing.B) {
	e := engine.New(nil, script.Register)
	defer e.Close()
	cl := e.NewClient("embedded")
	cl.Authenticated = true
	w := &resp.Writer{Proto: 2}
	const lib = "#!lua name=benchlock\nredis.register_function('release', function(keys, args) " +
		"if redis.call('get',keys[1]) == args[1] then return redis.call('del',keys[1]) else return 0 end end)"
	e.Lock()
	e.Call(cl, [][]byte{[]byte("FUNCTION"), []byte("LOAD"), []byte(lib)}, w)
	e.Unlock()
	args := [][]byte{[]byte("FCALL"), []byte("release"), []byte("1"), nil, []byte("token")}
	runLockRelease(b, e, cl, w, args)
}

// runLockRelease calls args (a lock release whose fourth argument is the
// key) over lockKeys, reporting the process's CPU time per call: steadier
// than wall time on a shared machine.
func runLockRelease(b *testing.B, e *engine.Engine, cl *engine.Client, w *resp.Writer, args [][]byte) {
	keys := lockKeys()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := sysinfo.ProcessCPU()
	for i := 0; i < b.N; i++ {
		args[3] = keys[i%len(keys)]
		w.Reset()
		e.Lock()
		e.Call(cl, args, w)
		e.Unlock()
	}
	b.ReportMetric(float64(sysinfo.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	if string(w.Buf) != ":0\r\n" {
		b.Fatalf("reply %q", w.Buf)
	}
}
