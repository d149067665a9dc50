package aof

import (
	"errors"
	"os"
	"path/filepath"
	"time"
)

// A replica's full sync replaces the data set without going through the
// log. Redis then stops the AOF and starts it again (restartAOFAfterSYNC:
// AOF_WAIT_REWRITE, a background rewrite, changes meanwhile in a temporary
// incremental file); RestartAfterSync is the same here, as one background
// rewrite whose T0 is the swap:
//   - under the engine lock (the caller's, right after the swap) a new
//     incremental file, not listed by the manifest, becomes the log's
//     file, and the rewrite's snapshot begins: every change after the swap
//     goes to that file through the group commit, as usual;
//   - the old files stop at the swap: what was buffered before it is
//     written to the old incremental file, which is fsynced and closed;
//   - the base is written from the snapshot without stopping anyone, and
//     the manifest naming it and the new incremental file is installed.
//
// A crash before the manifest is installed loads the old files: the data
// set as it was before the full sync, every change acknowledged before it
// included (the unlisted file is removed at start), from which the
// replica resyncs, as Redis's replica in AOF_WAIT_REWRITE restarts from
// its old AOF. A failed rewrite is retried (aof_rewrite_scheduled:1
// meanwhile, as Redis), from a new T0 and a new incremental file.

// liveState is the log's restart after a full sync (engine lock held).
type liveState struct {
	gen int64 // bumped by each restart: the retries of an older one stop
	seq int   // of the incremental file it made the log's file, 0 once listed
}

// RestartAfterSync makes the data set just swapped in (engine lock held)
// durable with a background rewrite; see above. The caller stops a
// running rewrite first (StopRewrite): its base is of the old data set.
// Without the log (appendonly no) there is nothing to restart: it
// returns an error, and the caller saves otherwise.
func (a *AOF) RestartAfterSync() error {
	if !a.enabled {
		return errors.New("aof: the log is off")
	}
	if a.closed.Load() {
		return errors.New("ERR shutting down")
	}
	if a.rewriteRunning.Load() {
		return errInProgress
	}
	a.live.gen++
	a.rewriteScheduled.Store(false)
	return a.startLiveLocked()
}

// RewriteRunning reports whether a rewrite (or BGSAVE) is running.
func (a *AOF) RewriteRunning() bool { return a.rewriteRunning.Load() }

// StopRewrite cancels a running rewrite or BGSAVE and waits for it to
// end (engine lock not held), as Redis kills its rewrite child before
// loading its master's data; like a killed child's, the cancellation
// is not a failure in INFO. A rewrite already past its walk completes.
func (a *AOF) StopRewrite() {
	a.e.Lock()
	if !a.rewriteRunning.Load() {
		a.e.Unlock()
		return
	}
	done := a.rwDone
	okRw, okBg, fails := a.lastRewriteOK.Load(), a.lastBgsaveOK.Load(), a.rewriteFailures.Load()
	a.rwCancel.Store(true)
	a.e.Unlock()
	a.logf("Killing running AOF rewrite for the synchronization with the master")
	<-done
	a.e.Lock()
	if !a.rewriteRunning.Load() {
		a.lastRewriteOK.Store(okRw)
		a.lastBgsaveOK.Store(okBg)
		a.rewriteFailures.Store(fails)
	}
	a.e.Unlock()
}

// startLiveLocked is T0 of a restart's rewrite (engine lock held). Its
// only wait is for a group-commit write in progress.
func (a *AOF) startLiveLocked() error {
	prevSeq := a.live.seq
	seq := max(a.man.maxSeq()+2, prevSeq+1) // other switches take maxSeq()+1
	path := filepath.Join(a.dir, a.incrName(seq))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write([]byte(fileMagic)); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	a.live.seq = seq
	a.e.ResetDirty()
	a.rec.end()
	if len(a.rec.buf) > 0 {
		a.closeRecord()
	}
	a.lastDB = -1 // the new file starts with a SELECT
	a.mu.Lock()
	for a.busy {
		a.cond.Wait()
	}
	// The writer's place is kept until the old file has what was
	// buffered before T0 (runLive).
	a.busy = true
	pre, mark, oldf := a.buf, a.end, a.file
	a.buf, a.bufRec = nil, 0 // nothing after T0 joins a record of the old file
	a.file = f
	a.fileGen++
	a.fileSize = int64(len(fileMagic))
	a.mu.Unlock()
	a.incrSize.Store(int64(len(fileMagic)))

	bg := &bgRewrite{sw: &switchState{live: true, seq: seq, newf: f}}
	a.beginBase(bg)
	a.rewriteRunning.Store(true)
	a.bgsaveRunning.Store(false)
	a.rewriteStart.Store(time.Now().UnixMilli())
	a.rwCancel.Store(false)
	a.rwDone = make(chan struct{})
	a.logf("Background append only file rewriting started after the synchronization with the master")
	go a.runLive(bg, a.rwDone, a.live.gen, pre, mark, oldf, prevSeq, a.man.base)
	return nil
}

// runLive closes the old file and runs the restart's rewrite; a failure
// is retried.
func (a *AOF) runLive(bg *bgRewrite, done chan struct{}, gen int64, pre []byte, mark int64, oldf *os.File, prevSeq int, base string) {
	// The old files stop at T0, with everything acknowledged before it.
	_, err := oldf.Write(pre)
	if err == nil {
		err = fdatasync(oldf)
	}
	if err != nil {
		a.logf("aof: writing the old AOF file before the restart: %v", err)
	}
	a.fileRW.Lock() // a running fsync of the old file ends first
	oldf.Close()
	a.fileRW.Unlock()
	a.mu.Lock()
	a.written = mark
	if err == nil {
		a.synced = max(a.synced, mark)
	}
	a.busy = false
	a.updPending()
	a.cond.Broadcast()
	a.mu.Unlock()
	if prevSeq != 0 {
		a.e.Lock()
		a.removeIfUnlisted(prevSeq) // a failed attempt's file
		a.e.Unlock()
	}

	start := time.Now()
	err = a.rewriteBody(bg)
	a.e.Lock()
	a.rewriteRunning.Store(false)
	close(done)
	canceled := a.rwCancel.Load()
	if err == nil {
		a.live.seq = 0
		if a.rewriteScheduled.Swap(false) && !a.closed.Load() {
			a.startRewriteLocked(false) // a BGSAVE SCHEDULE meanwhile
		}
	}
	a.e.Unlock()
	a.lastRewriteSecs.Store(int64(time.Since(start).Seconds()))
	switch {
	case err == nil:
		a.lastRewriteOK.Store(true)
		a.rewrites.Add(1)
		a.rewriteFailures.Store(0)
		a.logf("Background AOF rewrite finished successfully (%.3f s; longest lock hold %v)",
			time.Since(start).Seconds(), bg.snap.LongestHold().Round(time.Microsecond))
		return
	case canceled:
		a.logf("Background AOF rewrite after the synchronization stopped: %v", err)
		return
	}
	a.lastRewriteOK.Store(false)
	fails := a.rewriteFailures.Add(1)
	a.logf("Background AOF rewrite failed: %v", err)
	a.retryLive(gen, base, time.Second<<min(fails-1, 6))
}

// retryLive starts the restart's rewrite again after delay, unless the
// log was closed, a newer restart began, or another rewrite installed a
// base meanwhile (it holds the data set after the sync too).
func (a *AOF) retryLive(gen int64, base string, delay time.Duration) {
	a.e.Lock()
	if a.live.gen == gen {
		a.rewriteScheduled.Store(true)
	}
	a.e.Unlock()
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-a.stop:
		return
	case <-t.C:
	}
	for {
		a.e.Lock()
		if a.closed.Load() || a.live.gen != gen {
			a.e.Unlock()
			return
		}
		if a.rewriteRunning.Load() {
			done := a.rwDone
			a.e.Unlock()
			<-done
			continue
		}
		a.rewriteScheduled.Store(false)
		if a.man.base != base {
			a.removeIfUnlisted(a.live.seq)
			a.live.seq = 0
			a.e.Unlock()
			return
		}
		if err := a.startLiveLocked(); err != nil {
			a.logf("aof: restarting the AOF after the synchronization: %v", err)
		}
		a.e.Unlock()
		return
	}
}

// removeIfUnlisted removes incremental file seq unless the manifest
// lists it (engine lock held, no rewrite running or it is not the
// running one's).
func (a *AOF) removeIfUnlisted(seq int) {
	if seq == 0 {
		return
	}
	for _, s := range a.man.seqs {
		if s == seq {
			return
		}
	}
	os.Remove(filepath.Join(a.dir, a.incrName(seq)))
}

// finishLive installs a restart's base (renamed from tmp, synced): the
// new incremental file is already the log's file, so nobody waits.
func (a *AOF) finishLive(sw *switchState, tmp string, size int64) error {
	m := manifest{base: a.baseName(sw.seq), baseSeq: sw.seq, incrs: []string{a.incrName(sw.seq)}, seqs: []int{sw.seq}}
	basePath := filepath.Join(a.dir, m.base)
	if err := os.Rename(tmp, basePath); err != nil {
		return err
	}
	a.fsyncWritten() // what the new file holds so far
	manTmp, err := a.prepareManifest(m)
	if err == nil {
		err = syncDir(a.dir) // the base's name and the new file's
	}
	if err == nil {
		err = os.Rename(manTmp, a.manifestPath())
	}
	if err != nil {
		if manTmp != "" {
			os.Remove(manTmp)
		}
		os.Remove(basePath)
		return err
	}
	old := a.man
	a.man = m
	a.mu.Lock()
	for a.busy { // the leader's (fileSize is its own while it writes)
		a.cond.Wait()
	}
	incr := a.fileSize
	a.mu.Unlock()
	a.installed(m, size, incr)
	if err := syncDir(a.dir); err != nil {
		a.logf("aof: fsync of %s: %v (old files kept)", a.dir, err)
		return nil
	}
	a.removeReplaced(old, m)
	return nil
}
