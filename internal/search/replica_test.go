package search_test

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
)

// TestIndexFollowsReplica: an index on an Ordo replica of redis-server
// covers the keys of the full sync and then the replicated writes.
func TestIndexFollowsReplica(t *testing.T) {
	// Redis's defaults: a diskless sync delayed 5 s, newlines sent meanwhile.
	r := redistest.StartRedis(t)
	o := redistest.StartOrdo(t)
	rc, oc := redistest.Dial(t, r.Addr), redistest.Dial(t, o.Addr)
	for i := 0; i < 50; i++ {
		rc.Do("HSET", fmt.Sprintf("doc:%d", i), "n", fmt.Sprint(i), "tag", "a")
	}
	if v := oc.Do("FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "doc:", "SCHEMA", "n", "NUMERIC", "tag", "TAG"); v.Str != "OK" {
		t.Fatal(v)
	}
	host, port, _ := net.SplitHostPort(r.Addr)
	if v := oc.Do("REPLICAOF", host, port); v.Str != "OK" {
		t.Fatal(v)
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("replica: %s not reached within 20s\n%s\ndbsize %v", what, oc.Do("INFO", "replication").Str, oc.Do("DBSIZE"))
			}
		}
	}
	waitFor("link up with 50 keys", func() bool {
		return strings.Contains(oc.Do("INFO", "replication").Str, "master_link_status:up") && oc.Do("DBSIZE").Int == 50
	})
	if v := oc.Do("FT.SEARCH", "idx", "@n:[10 19]", "NOCONTENT"); len(v.Elems) == 0 || v.Elems[0].Int != 10 {
		t.Fatalf("after the full sync: %v", v)
	}
	rc.Do("HSET", "doc:100", "n", "15")
	rc.Do("DEL", "doc:10")
	waitFor("the replicated writes", func() bool { return oc.Do("EXISTS", "doc:100").Int == 1 && oc.Do("EXISTS", "doc:10").Int == 0 })
	if v := oc.Do("FT.SEARCH", "idx", "@n:[10 19]", "NOCONTENT"); len(v.Elems) == 0 || v.Elems[0].Int != 10 {
		t.Fatalf("after replicated writes: %v", v)
	}
}
