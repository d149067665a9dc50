package engine_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/rdb"
	"github.com/ordo-db/ordo/internal/resp"
)

// FuzzStreamRestore: a stream payload with random bytes changed (its
// checksum fixed, so that the decoder sees it) is either refused with
// Redis's "Bad data format" or restores into a stream that every stream
// command can then work on without an internal error.
func FuzzStreamRestore(f *testing.F) {
	e := engine.New(nil)
	defer e.Close()
	cl := e.NewClient("embedded")
	do := func(args ...string) string {
		w := &resp.Writer{Proto: 2}
		a := make([][]byte, len(args))
		for i, s := range args {
			a[i] = []byte(s)
		}
		e.Lock()
		e.Call(cl, a, w)
		e.Unlock()
		return string(w.Buf)
	}
	for i := 1; i <= 30; i++ {
		f := "f"
		if i%4 == 0 {
			f = "other"
		}
		do("XADD", "src", strings.Repeat("1", i%3+1)+"-*", f, strings.Repeat("v", i%7), "n", "12")
	}
	do("XDEL", "src", "1-1")
	do("XGROUP", "CREATE", "src", "g", "0")
	do("XREADGROUP", "GROUP", "g", "c", "COUNT", "4", "STREAMS", "src", ">")
	do("XGROUP", "CREATECONSUMER", "src", "g", "idle")
	dump := do("DUMP", "src")
	v, _, _ := resp.ParseReply([]byte(dump))
	f.Add([]byte(v.Str), uint16(40), byte(1))
	f.Add([]byte(v.Str), uint16(7), byte(0x80))
	f.Fuzz(func(t *testing.T, p []byte, at uint16, x byte) {
		if len(p) < 10 {
			return
		}
		b := append([]byte(nil), p[:len(p)-8]...)
		b[int(at)%len(b)] ^= x
		b = binary.LittleEndian.AppendUint64(b, rdb.CRC64(0, b))
		do("DEL", "k")
		r := do("RESTORE", "k", "0", string(b))
		if r != "+OK\r\n" {
			if !strings.HasPrefix(r, "-ERR Bad data format") && !strings.HasPrefix(r, "-ERR DUMP payload") {
				t.Fatalf("RESTORE: %q", r)
			}
			return
		}
		for _, cmd := range [][]string{
			{"XRANGE", "k", "-", "+"}, {"XREVRANGE", "k", "+", "-"}, {"XINFO", "STREAM", "k", "FULL"},
			{"XINFO", "GROUPS", "k"}, {"XLEN", "k"}, {"XADD", "k", "*", "f", "v"}, {"XDEL", "k", "1-1", "11-2"},
			{"XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", "0"}, {"XREADGROUP", "GROUP", "g", "d", "STREAMS", "k", ">"},
			{"XAUTOCLAIM", "k", "g", "e", "0", "0"}, {"XPENDING", "k", "g", "-", "+", "10"}, {"XTRIM", "k", "MAXLEN", "3"},
			{"XREVRANGE", "k", "+", "-"}, {"DUMP", "k"}, {"XTRIM", "k", "MINID", "99999999999999"},
		} {
			if r := do(cmd...); strings.HasPrefix(r, "-ERR internal error") {
				t.Fatalf("%q after restoring a mutated payload: %s", cmd, r)
			}
		}
	})
}
