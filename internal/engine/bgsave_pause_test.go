package engine_test

import (
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
)

type tLogWriter struct{ t *testing.T }

func (w tLogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// TestBgsavePause measures how long other clients wait while BGSAVE
// writes dump.rdb of 1M keys: the longest and the 99th-percentile PING
// round trip from another client until the save ends, and the longest
// lock hold (logged by the engine). A measurement, not an assertion
// (ORDO_BGSAVE_PAUSE=1 go test ./internal/engine -run TestBgsavePause -v).
func TestBgsavePause(t *testing.T) {
	if os.Getenv("ORDO_BGSAVE_PAUSE") == "" {
		t.Skip("a measurement: ORDO_BGSAVE_PAUSE=1 go test ./internal/engine -run TestBgsavePause -v")
	}
	o := redistest.StartOrdo(t)
	o.Engine.Log = slog.New(slog.NewTextHandler(tLogWriter{t}, nil))
	m := redistest.Dial(t, o.Addr)
	const keys = 1_000_000
	m.FillMSET(keys, "key:", "value-")
	// PINGs go on from before BGSAVE is sent until the save has ended.
	pinger := redistest.Dial(t, o.Addr)
	stop := make(chan struct{})
	got := make(chan []time.Duration)
	go func() {
		var rtts []time.Duration
		for {
			select {
			case <-stop:
				got <- rtts
				return
			default:
			}
			t0 := time.Now()
			pinger.Do("PING")
			rtts = append(rtts, time.Since(t0))
			if d := time.Since(t0); d > 20*time.Millisecond && os.Getenv("ORDO_BGSAVE_PAUSE") == "2" {
				t.Logf("slow PING %v at %v", d, t0.Format("15:04:05.000"))
			}
		}
	}()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	m.Do("BGSAVE")
	for !strings.Contains(m.Do("INFO", "persistence").Str, "rdb_bgsave_in_progress:0") {
		if time.Since(start) > 2*time.Minute {
			t.Fatal("BGSAVE did not end within 2 minutes")
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	rtts := <-got
	slices.Sort(rtts)
	t.Logf("BGSAVE of %d keys: %v; PING from another client: p99 %v, longest %v (%d PINGs)",
		keys, time.Since(start).Round(time.Millisecond), rtts[len(rtts)*99/100].Round(time.Microsecond),
		rtts[len(rtts)-1].Round(time.Microsecond), len(rtts))
}
