package aof

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
)

// Save is SAVE (engine lock held).
func (a *AOF) Save() error {
	if a.rewriteRunning.Load() {
		return errors.New(engine.ErrBgsaveInProgress)
	}
	if err := a.saveLocked(); err != nil {
		a.logf("aof: SAVE failed: %v", err)
		return err
	}
	a.logf("DB saved on disk")
	return nil
}

// BackgroundSave is BGSAVE (engine lock held).
func (a *AOF) BackgroundSave(schedule bool) (string, error) {
	if a.bgsaveRunning.Load() {
		return "", errors.New(engine.ErrBgsaveInProgress)
	}
	if a.rewriteRunning.Load() {
		if schedule {
			a.rewriteScheduled.Store(true)
			return "Background saving scheduled", nil
		}
		return "", errors.New(engine.ErrBgsaveAofActive)
	}
	if err := a.startRewriteLocked(true); err != nil {
		return "", err
	}
	return "Background saving started", nil
}

// BackgroundRewriteAOF is BGREWRITEAOF (engine lock held).
func (a *AOF) BackgroundRewriteAOF() (string, error) {
	if a.bgsaveRunning.Load() {
		a.rewriteScheduled.Store(true)
		return "Background append only file rewriting scheduled", nil
	}
	if a.rewriteRunning.Load() {
		return "", errors.New(engine.ErrAofRewriteInProgress)
	}
	if err := a.startRewriteLocked(false); err != nil {
		return "", err
	}
	return "Background append only file rewriting started", nil
}

// LastSave is LASTSAVE.
func (a *AOF) LastSave() int64 { return a.lastSave.Load() }

// Reload is DEBUG RELOAD (engine lock held): snapshot, empty the
// data set, load it back.
func (a *AOF) Reload() error {
	if err := a.Save(); err != nil {
		return err
	}
	for _, db := range a.e.DBs() {
		db.Flush()
	}
	prop := a.e.Propagate
	a.e.Propagate = nil
	defer func() { a.e.Propagate = prop }()
	files := a.man.incrs
	if a.man.base != "" {
		files = append([]string{a.man.base}, files...)
	}
	for i, f := range files {
		if _, _, err := a.replayFile(f, i == len(files)-1); err != nil {
			return err
		}
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func okErr(b bool) string {
	if b {
		return "ok"
	}
	return "err"
}

// InfoPersistence is the persistence section of INFO, with Redis 7.0's fields.
func (a *AOF) InfoPersistence() string {
	var b strings.Builder
	kv := func(k string, v any) { fmt.Fprintf(&b, "%s:%v\r\n", k, v) }
	running := a.rewriteRunning.Load()
	bg := a.bgsaveRunning.Load()
	cur := int64(-1)
	if running {
		cur = (time.Now().UnixMilli() - a.rewriteStart.Load()) / 1000
	}
	kv("loading", boolInt(a.loading.Load()))
	kv("async_loading", 0)
	kv("current_cow_peak", 0)
	kv("current_cow_size", 0)
	kv("current_cow_size_age", 0)
	kv("current_fork_perc", "0.00")
	kv("current_save_keys_processed", 0)
	kv("current_save_keys_total", 0)
	kv("rdb_changes_since_last_save", a.e.Dirty())
	kv("rdb_bgsave_in_progress", boolInt(bg))
	kv("rdb_last_save_time", a.lastSave.Load())
	kv("rdb_last_bgsave_status", okErr(a.lastBgsaveOK.Load()))
	kv("rdb_last_bgsave_time_sec", a.lastRewriteSecs.Load())
	if bg {
		kv("rdb_current_bgsave_time_sec", cur)
	} else {
		kv("rdb_current_bgsave_time_sec", -1)
	}
	kv("rdb_saves", a.rewrites.Load())
	kv("rdb_last_cow_size", 0)
	kv("rdb_last_load_keys_expired", a.loadExpired.Load())
	kv("rdb_last_load_keys_loaded", a.loadedKeys.Load())
	kv("aof_enabled", boolInt(a.enabled))
	kv("aof_rewrite_in_progress", boolInt(running && !bg))
	kv("aof_rewrite_scheduled", boolInt(a.rewriteScheduled.Load()))
	kv("aof_last_rewrite_time_sec", a.lastRewriteSecs.Load())
	if running && !bg {
		kv("aof_current_rewrite_time_sec", cur)
	} else {
		kv("aof_current_rewrite_time_sec", -1)
	}
	kv("aof_last_bgrewrite_status", okErr(a.lastRewriteOK.Load()))
	kv("aof_rewrites", a.rewrites.Load())
	kv("aof_rewrites_consecutive_failures", a.rewriteFailures.Load())
	kv("aof_last_write_status", okErr(a.lastWriteOK.Load()))
	kv("aof_last_cow_size", 0)
	kv("module_fork_in_progress", 0)
	kv("module_fork_last_cow_size", 0)
	if a.enabled {
		a.mu.Lock()
		buffered := a.end - a.written
		a.mu.Unlock()
		kv("aof_current_size", a.baseSize.Load()+a.incrSize.Load())
		kv("aof_base_size", a.baseSize.Load())
		kv("aof_pending_rewrite", boolInt(a.rewriteScheduled.Load()))
		kv("aof_buffer_length", buffered)
		kv("aof_pending_bio_fsync", 0)
		kv("aof_delayed_fsync", a.delayedFsync.Load())
	}
	return b.String()
}

// Logging reports whether the log is on (appendonly yes at start): a
// replica's full sync then saves the new dataset into it; without it the
// replica keeps the file it received as dump.rdb (internal/repl).
func (a *AOF) Logging() bool { return a.enabled }
