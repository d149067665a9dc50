package engine

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// BGSAVE's dump.rdb. Redis forks and its child writes the file from a
// copy-on-write image of the dataset; Ordo takes a point-in-time
// Snapshot (snapshot.go): the file holds the data at the instant BGSAVE
// ran, serialized by a goroutine in slices of a few hundred keys per
// lock acquisition (keys changed meanwhile are serialized just before
// their first change), then written to dir/dbfilename through a
// temporary file, synced and renamed. The image costs about the file's
// size in memory until it is written. Without a persistence layer (an
// engine with no AOF), the engine keeps Redis's rdb_* statistics and
// LASTSAVE itself.

type rdbBackground struct {
	running  atomic.Bool
	failed   atomic.Bool  // the last background save failed
	lastSave atomic.Int64 // unix seconds of the last successful save; 0: none
	lastSecs atomic.Int64 // duration of the last background save, -1: none
	started  atomic.Int64 // unix seconds when the running one started
	lastTry  atomic.Int64 // unix seconds of the last start (save points' retry delay)
	saves    atomic.Int64
	done     chan struct{} // closed when the running save ends
}

// errRDBBusy is BGSAVE's refusal while its dump.rdb is being written.
var errRDBBusy = errors.New(ErrBgsaveInProgress)

// startRDBBackground encodes the dataset and writes it to dump.rdb in the
// background. Under the lock.
func (e *Engine) startRDBBackground() error {
	bg := &e.rdbBg
	if bg.running.Load() {
		return errRDBBusy
	}
	snap := e.BeginSnapshot()
	dirty := e.dirty
	path := filepath.Join(e.Config.Get("dir"), e.Config.Get("dbfilename"))
	start := time.Now()
	bg.running.Store(true)
	bg.started.Store(start.Unix())
	bg.lastTry.Store(start.Unix())
	done := make(chan struct{})
	bg.done = done
	e.Logf("Background saving started")
	go func() {
		defer close(done)
		snap.Walk()
		keys := 0
		err := writeFileSynced(path, func(w io.Writer) error {
			var err error
			keys, err = snap.WriteRDB(w)
			return err
		})
		e.Lock()
		bg.lastSecs.Store(int64(time.Since(start) / time.Second))
		bg.failed.Store(err != nil)
		if err == nil {
			bg.lastSave.Store(time.Now().Unix())
			bg.saves.Add(1)
			if e.Persistence == nil {
				e.dirty = max(e.dirty-dirty, 0)
			}
			e.Logf("Background saving terminated with success (%d keys; longest lock hold %v)", keys, snap.LongestHold().Round(time.Microsecond))
		} else {
			e.Logf("Background saving error: %v", err)
		}
		bg.running.Store(false)
		e.Unlock()
	}()
	return nil
}

// WaitRDBBackground waits for a running BGSAVE's dump.rdb to be written
// (for SHUTDOWN and tests). Without the lock.
func (e *Engine) WaitRDBBackground() {
	e.Lock()
	done := e.rdbBg.done
	e.Unlock()
	if done != nil {
		<-done
	}
}

// writeFileSynced writes path through a temporary file in the same
// directory, buffered, fsynced and renamed, as Redis's rdbSave: a crash
// leaves the old file or the new one, never a part.
func writeFileSynced(path string, write func(w io.Writer) error) error {
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf("temp-%d-%d.rdb", os.Getpid(), time.Now().UnixNano()))
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
