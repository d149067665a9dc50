package engine

import (
	"sync"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

// Connections queued behind a script all get the lock soon after it ends,
// even when the first one woken runs something other than a script (and
// so never calls End itself): none may sleep until busy-reply-threshold.
func TestLockOrBusyWakesEveryWaiter(t *testing.T) {
	e := New(nil)
	defer e.Close()
	e.Config.Set("busy-reply-threshold", "5000", false)
	run := &ScriptRun{}
	e.SetScriptRun(run)

	e.Lock() // a script holds the lock
	run.Begin(NowMs())
	var wg sync.WaitGroup
	done := make(chan time.Duration, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := e.NewClient("embedded")
			start := time.Now()
			if e.LockOrBusy(cl, [][]byte{[]byte("PING")}, &resp.Writer{}) {
				time.Sleep(time.Millisecond) // a short non-script command
				e.Unlock()
			}
			done <- time.Since(start)
		}()
	}
	time.Sleep(50 * time.Millisecond) // let them queue
	run.End()
	e.Unlock()
	wg.Wait()
	close(done)
	for d := range done {
		if d > 2*time.Second {
			t.Errorf("a queued connection waited %v for the lock after the script ended", d)
		}
	}
}
