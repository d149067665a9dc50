package repl_test

import (
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

// testChain: master → ordo-server replica → {ordo-server, redis-server}
// replicas of the replica. The middle one forwards the master's stream
// byte for byte (equal offsets down the chain) and serves partial
// resyncs from its backlog with the master's replication ID; after
// REPLICAOF NO ONE its replicas continue with it.
func testChain(t *testing.T, masterAddr string) {
	mid := redistest.StartOrdo(t, "repl-diskless-sync-delay", "0")
	tailO := redistest.StartOrdo(t)
	tailR := redistest.StartRedis(t)
	m := redistest.Dial(t, masterAddr)
	r1 := redistest.Dial(t, mid.Addr)
	r2 := redistest.Dial(t, tailO.Addr)
	r3 := redistest.Dial(t, tailR.Addr)
	writeAll(t, m, "pre:")
	m.Do("SELECT", "5")
	m.Do("SET", "in5", "before")
	replicaOf(t, r1, masterAddr)
	waitSynced(t, m, r1)
	replicaOf(t, r2, mid.Addr)
	replicaOf(t, r3, mid.Addr)
	// The master's stream is still in database 5: the full sync's
	// repl-stream-db tells the replicas of the replica.
	m.Do("SET", "in5", "after")
	m.Do("SELECT", "0")
	writeAll(t, m, "post:")
	for _, r := range []*redistest.Conn{r1, r2, r3} {
		waitSynced(t, m, r)
		compare(t, m, r)
	}
	if got, want := info(r1, "master_replid"), info(m, "master_replid"); got != want {
		t.Fatalf("the middle replica's replid %s, the master's %s", got, want)
	}

	// Dropped links: the tails resume from the middle's backlog, the
	// middle from the master's, and nobody needs a full sync.
	full, partial := infoInt(t, r1, "stats", "sync_full"), infoInt(t, r1, "stats", "sync_partial_ok")
	for i := 0; i < 3; i++ {
		r2.Do("CLIENT", "KILL", "TYPE", "master")
		r3.Do("CLIENT", "KILL", "TYPE", "master")
		m.Do("INCR", "ctr")
		r1.Do("CLIENT", "KILL", "TYPE", "master")
		m.Do("RPUSH", "list", "x")
		for _, r := range []*redistest.Conn{r1, r2, r3} {
			waitSynced(t, m, r)
		}
	}
	for _, r := range []*redistest.Conn{r1, r2, r3} {
		compare(t, m, r)
	}
	if f, p := infoInt(t, r1, "stats", "sync_full"), infoInt(t, r1, "stats", "sync_partial_ok"); f != full || p < partial+6 {
		t.Fatalf("the middle replica served %d full and %d partial resyncs after 6 dropped links (before: %d, %d)", f, p, full, partial)
	}

	// Promotion: the tails continue with the new master.
	r1.Do("REPLICAOF", "NO", "ONE")
	r1.Do("SET", "promoted", "yes")
	r1.Do("SELECT", "7")
	r1.Do("SET", "in7", "x")
	r1.Do("SELECT", "0")
	for _, r := range []*redistest.Conn{r2, r3} {
		waitSynced(t, r1, r)
		compare(t, r1, r)
	}
	if f := infoInt(t, r1, "stats", "sync_full"); f != full {
		t.Fatalf("the promoted replica served %d full syncs (before: %d)", f, full)
	}
}

func TestChainedReplicasRedisMaster(t *testing.T) {
	testChain(t, redistest.StartRedis(t, "--repl-diskless-sync-delay", "0").Addr)
}

func TestChainedReplicasOrdoMaster(t *testing.T) {
	testChain(t, redistest.StartOrdo(t, "repl-diskless-sync-delay", "0").Addr)
}

// TestOrdoMasterDiskless: a full sync in the diskless form ($EOF:<mark>)
// after repl-diskless-sync-delay, to redis-server and ordo-server.
func TestOrdoMasterDisklessRedisReplica(t *testing.T) {
	o := redistest.StartOrdo(t, "repl-diskless-sync", "yes", "repl-diskless-sync-delay", "1")
	testOrdoMaster(t, redistest.StartRedis(t).Addr, o)
}

func TestOrdoMasterDisklessOrdoReplica(t *testing.T) {
	o := redistest.StartOrdo(t, "repl-diskless-sync", "yes", "repl-diskless-sync-delay", "1")
	testOrdoMaster(t, redistest.StartOrdo(t).Addr, o)
}
