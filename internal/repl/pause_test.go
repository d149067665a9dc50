package repl_test

import (
	"os"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
)

// TestFullSyncPause measures how long other clients wait while a replica
// attaches to an ordo-server holding 1M keys: the longest PING round
// trip from another client during the full sync. A measurement, not an
// assertion (run with ORDO_REPL_PAUSE=1; see README's Replication).
func TestFullSyncPause(t *testing.T) {
	if os.Getenv("ORDO_REPL_PAUSE") == "" {
		t.Skip("a measurement: ORDO_REPL_PAUSE=1 go test ./internal/repl -run TestFullSyncPause -v")
	}
	o := redistest.StartOrdo(t, "repl-diskless-sync", "no")
	o.Server.Logf = t.Logf
	m := redistest.Dial(t, o.Addr)
	const keys = 1_000_000
	m.FillMSET(keys, "key:", "value-")
	replica := redistest.StartOrdo(t)
	rc := redistest.Dial(t, replica.Addr)
	pinger := redistest.Dial(t, o.Addr)
	start := time.Now()
	replicaOf(t, rc, o.Addr)
	var worst time.Duration
	pings := 0
	for info(rc, "master_link_status") != "up" {
		t0 := time.Now()
		pinger.Do("PING")
		if d := time.Since(t0); d > worst {
			worst = d
		}
		pings++
		if time.Since(start) > 2*time.Minute {
			t.Fatal("no sync within 2 minutes")
		}
	}
	t.Logf("full sync of %d keys: %v until the replica's link is up; longest PING from another client %v (%d PINGs)",
		keys, time.Since(start).Round(time.Millisecond), worst.Round(time.Microsecond), pings)
}
