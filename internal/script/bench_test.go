package script_test

import (
	"testing"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
	"github.com/ordo-db/ordo/internal/script"
)

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
	args := [][]byte{[]byte("EVALSHA"), []byte("ae3671744a5dbb24ea37ef607b8b10ac7856d43e"), []byte("1"), []byte("k"), []byte("v")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.Reset()
		e.Lock()
		e.Call(cl, args, w)
		e.Unlock()
	}
	if string(w.Buf) != ":0\r\n" {
		b.Fatalf("reply %q", w.Buf)
	}
}
