package server

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
)

// LoadDumpAtStart is redis-server's start-up with appendonly no: the RDB
// file dir/dbfilename, if there is one, is loaded (every type Redis 7.0
// writes; keys already expired are skipped); a file that cannot be
// loaded stops the start, as in Redis. With appendonly yes Ordo's own
// log is loaded instead (internal/aof) and dump.rdb is ignored, as Redis
// ignores it when the AOF is on.
func LoadDumpAtStart(e *engine.Engine, logf func(string, ...any)) error {
	path := filepath.Join(e.Config.Get("dir"), e.Config.Get("dbfilename"))
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("loading %s: %w", path, err)
	}
	defer f.Close()
	start := time.Now()
	e.Lock()
	defer e.Unlock()
	st, err := e.LoadRDB(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		for _, db := range e.DBs() {
			db.Flush()
		}
		return fmt.Errorf("fatal error loading the DB %s: %w", path, err)
	}
	logf("Done loading RDB, keys loaded: %d, keys expired: %d.", st.Keys, st.Skipped)
	logf("DB loaded from disk: %.3f seconds", time.Since(start).Seconds())
	return nil
}

// SaveDumpAtExit writes dir/dbfilename at shutdown (after a BGSAVE still
// writing it has finished, so the newer file stays).
func SaveDumpAtExit(e *engine.Engine, logf func(string, ...any)) error {
	e.WaitRDBBackground()
	e.Lock()
	defer e.Unlock()
	logf("Saving the final RDB snapshot before exiting.")
	if _, err := e.SaveRDBFile(); err != nil {
		return err
	}
	logf("DB saved on disk")
	return nil
}
