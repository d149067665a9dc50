package engine

import (
	"strings"
	"testing"
	"time"
)

// INFO commandstats sums the calls' time, not each call's whole
// microseconds: five calls of 400 ns are 2 us (usec_per_call 0.40), where
// flooring each would show 0.
func TestCommandStatsSumsSubMicrosecondCalls(t *testing.T) {
	e := New(nil)
	defer e.Close()
	e.Lock()
	defer e.Unlock()
	cl := e.NewClient("embedded")
	cmd := e.cmds.Lookup([][]byte{[]byte("get")})
	for range 5 {
		e.recordCall(cl, cmd, [][]byte{[]byte("get"), []byte("k")}, true, false, 400*time.Nanosecond)
	}
	var line string
	for _, l := range e.commandStatsLines() {
		if strings.HasPrefix(l, "cmdstat_get:") {
			line = l
		}
	}
	if want := "cmdstat_get:calls=5,usec=2,usec_per_call=0.40,rejected_calls=0,failed_calls=0"; line != want {
		t.Errorf("got %q, want %q", line, want)
	}
}
