package repl_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
)

func testOrdoMaster(t *testing.T, replicaAddr string, o *redistest.Ordo) {
	master := redistest.Dial(t, o.Addr)
	writeAll(t, master, "pre:")
	replica := redistest.Dial(t, replicaAddr)
	replicaOf(t, replica, o.Addr)
	waitSynced(t, master, replica)
	compare(t, master, replica)
	writeAll(t, master, "post:")
	waitSynced(t, master, replica)
	compare(t, master, replica)

	master.Do("SET", "w", "1")
	if v := master.Do("WAIT", "1", "10000"); v.Int != 1 {
		t.Fatalf("WAIT 1: %v", v)
	}
	if v := master.Do("INFO", "replication"); !strings.Contains(v.Str, "connected_slaves:1") ||
		!strings.Contains(v.Str, "state=online") {
		t.Fatalf("INFO replication of the master: %s", v.Str)
	}
	if v := master.Do("ROLE"); len(v.Elems) != 3 || v.Elems[0].Str != "master" || len(v.Elems[2].Elems) != 1 {
		t.Fatalf("ROLE of the master: %v", v)
	}
	full, ok, _ := o.Server.Repl.SyncStats()
	for i := 0; i < 3; i++ {
		if n := replica.Do("CLIENT", "KILL", "TYPE", "master").Int; n != 1 {
			t.Fatalf("CLIENT KILL TYPE master on the replica killed %d", n)
		}
		master.Do("INCR", "ctr")
		master.Do("MULTI")
		master.Do("RPUSH", "list", "x")
		master.Do("SADD", "set", "x"+strings.Repeat("y", i))
		master.Do("EXEC")
		waitSynced(t, master, replica)
	}
	compare(t, master, replica)
	full2, ok2, _ := o.Server.Repl.SyncStats()
	if full2 != full || ok2 != ok+3 {
		t.Fatalf("after 3 killed links: full syncs %d -> %d, partial %d -> %d (want +0, +3)", full, full2, ok, ok2)
	}
	master.Do("FLUSHALL")
	master.Do("SET", "x", "y")
	waitSynced(t, master, replica)
	compare(t, master, replica)

	replica.Do("REPLICAOF", "NO", "ONE")
	deadline := time.Now().Add(20 * time.Second)
	for info(master, "connected_slaves") != "0" {
		if time.Now().After(deadline) {
			t.Fatal("the master still lists its replica 20s after REPLICAOF NO ONE")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if v := master.Do("WAIT", "1", "50"); v.Int != 0 {
		t.Fatalf("WAIT 1 without replicas: %v", v)
	}
}

func TestOrdoMasterRedisReplica(t *testing.T) {
	o := redistest.StartOrdo(t, "repl-diskless-sync", "no")
	testOrdoMaster(t, redistest.StartRedis(t).Addr, o)
}

func TestOrdoMasterOrdoReplica(t *testing.T) {
	o := redistest.StartOrdo(t, "repl-diskless-sync", "no")
	testOrdoMaster(t, redistest.StartOrdo(t).Addr, o)
}
