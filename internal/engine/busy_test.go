package engine

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

// hangGuard bounds waits that only a bug could make long: it is no
// timing assertion, just a failure instead of a hung test binary.
const hangGuard = 30 * time.Second

// waitQueued polls until n connections are queued in LockOrBusy
// (bounded: fails rather than hangs).
func waitQueued(t *testing.T, r *ScriptRun, n int) {
	t.Helper()
	for i := 0; i < 300000; i++ {
		if int(r.queued.Load()) == n {
			return
		}
		time.Sleep(100 * time.Microsecond)
	}
	t.Fatalf("%d connections queued, want %d", r.queued.Load(), n)
}

type lockResult struct {
	locked bool
	reply  string
}

// lockOrBusy runs LockOrBusy for PING on a new client in a goroutine;
// a connection that gets the lock releases it at once.
func lockOrBusy(e *Engine, out chan<- lockResult) {
	cl := e.NewClient("embedded")
	go func() {
		w := &resp.Writer{}
		ok := e.LockOrBusy(cl, [][]byte{[]byte("PING")}, w)
		if ok {
			e.Unlock()
		}
		out <- lockResult{ok, string(w.Buf)}
	}()
}

func recvLock(t *testing.T, ch <-chan lockResult) lockResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(hangGuard):
		t.Fatal("a connection was never answered")
	}
	return lockResult{}
}

// Connections queued behind a script all get the lock after it ends,
// even when the first one woken runs something other than a script (and
// so never calls End itself). The threshold is far beyond the guard: a
// connection that was not woken would not get the lock in time.
func TestLockOrBusyWakesEveryWaiter(t *testing.T) {
	e := New(nil)
	defer e.Close()
	e.Config.Set("busy-reply-threshold", "3600000", false)
	run := e.ScriptRun()

	e.Lock() // a script holds the lock
	run.Begin(NowMs())
	out := make(chan lockResult, 4)
	for i := 0; i < 4; i++ {
		lockOrBusy(e, out)
	}
	waitQueued(t, run, 4)
	run.End()
	e.Unlock()
	for i := 0; i < 4; i++ {
		if r := recvLock(t, out); !r.locked {
			t.Errorf("a queued connection was answered %q instead of getting the lock", r.reply)
		}
	}
}

// TestLockOrBusyBeforeBegin: a connection that arrives after an EVAL took
// the engine lock but before the script registered as running is
// answered BUSY once the script is past the threshold, like one that
// arrives later (it used to wait for the whole script).
func TestLockOrBusyBeforeBegin(t *testing.T) {
	e := New(nil)
	defer e.Close()
	e.Config.Set("busy-reply-threshold", "20", false)
	run := e.ScriptRun()
	run.SetKill(func(bool) string { return "" })

	e.Lock() // EVAL took the lock; its script has not begun
	out := make(chan lockResult, 2)
	lockOrBusy(e, out)
	waitQueued(t, run, 1)
	run.Begin(NowMs()) // the script starts, then runs "forever"
	r := recvLock(t, out)
	if r.locked || !strings.HasPrefix(r.reply, "-BUSY ") {
		t.Fatalf("queued before the script began: locked %v, reply %q", r.locked, r.reply)
	}
	// After the threshold, a new arrival is answered at once.
	lockOrBusy(e, out)
	if r := recvLock(t, out); r.locked || !strings.HasPrefix(r.reply, "-BUSY ") {
		t.Fatalf("arriving during the script: locked %v, reply %q", r.locked, r.reply)
	}
	run.End()
	e.Unlock()

	// A holder that never runs a script: the queued connection gets the
	// lock when it is released.
	e.Lock()
	lockOrBusy(e, out)
	waitQueued(t, run, 1)
	e.Unlock()
	if r := recvLock(t, out); !r.locked {
		t.Fatalf("queued behind a plain command: answered %q", r.reply)
	}
}

// TestLockOrBusyStress: many connections contending for the lock with
// scripts starting and ending among them all get through (no lost
// wake-up: a connection left queued with the lock free would hang).
func TestLockOrBusyStress(t *testing.T) {
	e := New(nil)
	defer e.Close()
	e.Config.Set("busy-reply-threshold", "3600000", false)
	run := e.ScriptRun()
	run.SetKill(func(bool) string { return "" })
	var wg sync.WaitGroup
	done := make(chan struct{})
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := e.NewClient("embedded")
			for i := 0; i < 2000; i++ {
				w := &resp.Writer{}
				if !e.LockOrBusy(cl, [][]byte{[]byte("PING")}, w) {
					t.Errorf("answered %q", w.Buf)
					return
				}
				if i%7 == 0 { // a short script
					run.Begin(NowMs())
					run.End()
				}
				e.Unlock()
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Fatalf("connections stuck; %d queued", run.queued.Load())
	}
}
