package script_test

import (
	"bytes"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

// TestBusyFunctionKill: a function past busy-reply-threshold makes other
// clients get the FUNCTION KILL flavour of BUSY; SCRIPT KILL refuses to
// kill it and FUNCTION KILL does; FUNCTION KILL refuses to kill an EVAL.
func TestBusyFunctionKill(t *testing.T) {
	redistest.RequireRedis(t)
	r := redistest.StartRedis(t, "--busy-reply-threshold", "100")
	o := redistest.StartOrdo(t, "busy-reply-threshold", "100")
	const lib = "#!lua name=busy\nredis.register_function('spin', function() local i = 0 while i < 5e8 do i = i + 1 end return i end)"
	run := func(addr string) [][]byte {
		var out [][]byte
		a := redistest.Dial(t, addr)
		b := redistest.Dial(t, addr)
		out = append(out, b.DoRaw("FUNCTION", "LOAD", "REPLACE", lib))
		a.Send("FCALL", "spin", "0")
		out = append(out, waitBusy(t, b))
		out = append(out, b.DoRaw("GET", "x"))
		out = append(out, b.DoRaw("SCRIPT", "KILL"))
		out = append(out, b.DoRaw("FUNCTION", "KILL"))
		out = append(out, a.ReadRaw())
		out = append(out, b.DoRaw("PING"))
		a.Send("EVAL", "local i = 0 while i < 5e8 do i = i + 1 end return i", "0")
		out = append(out, waitBusy(t, b))
		out = append(out, b.DoRaw("FUNCTION", "KILL"))
		out = append(out, b.DoRaw("SCRIPT", "KILL"))
		out = append(out, a.ReadRaw())
		out = append(out, b.DoRaw("FUNCTION", "KILL"))
		return out
	}
	want := run(r.Addr)
	got := run(o.Addr)
	for i := range want {
		if !bytes.Equal(want[i], got[i]) {
			t.Errorf("step %d:\n redis: %q\n  ordo: %q", i, want[i], got[i])
		}
	}
}
