package repl_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ordo-db/ordo/internal/aof"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/server"
)

// A replica without the log (appendonly no) keeps the file its master
// sent as dir/dbfilename, as redis-server's replica does, so that a
// restart (which loads dump.rdb with appendonly no) comes back with the
// synced data; both transfer forms (disk-based and diskless).
func TestReplicaKeepsReceivedRDB(t *testing.T) {
	for _, diskless := range []string{"yes", "no"} {
		t.Run("diskless="+diskless, func(t *testing.T) {
			m := redistest.StartOrdo(t, "repl-diskless-sync", diskless, "repl-diskless-sync-delay", "0")
			master := redistest.Dial(t, m.Addr)
			master.FillMSET(5000, "k:", "v:")
			master.Do("HSET", "h", "f", "1", "g", "2")
			master.Do("ZADD", "z", "1", "a", "2", "b")
			master.Do("SET", "ttl", "x", "EX", "1000")

			dir := t.TempDir()
			o := redistest.StartOrdo(t, "dir", dir)
			p, err := aof.Open(o.Engine, func(string, ...any) {})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close(false) })
			replica := redistest.Dial(t, o.Addr)
			replica.Do("REPLICAOF", "127.0.0.1", port(m.Addr))
			waitSynced(t, master, replica)
			if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
				t.Fatalf("no dump.rdb after the full sync: %v", err)
			}
			if tmps, _ := filepath.Glob(filepath.Join(dir, "temp-*")); len(tmps) > 0 {
				t.Fatalf("temporary files left: %v", tmps)
			}

			// The restart: a fresh server on the same dir loads the file.
			r := redistest.StartOrdo(t, "dir", dir)
			if err := server.LoadDumpAtStart(r.Engine, func(string, ...any) {}); err != nil {
				t.Fatal(err)
			}
			compare(t, master, redistest.Dial(t, r.Addr))
		})
	}
}
