// Package aof is Ordo's persistence: an append-only log of effects, group
// committed, compacted in the background, verified record by record.
//
// # Layout
//
// Like Redis 7 the data lives in a directory (dir/appenddirname) holding
// one base file, one or more incremental files and a manifest naming them
// (appendonly.aof.ordo-manifest). The state is the base replayed, then
// each incremental file in order. The manifest is replaced atomically
// (write temp, fsync, rename, fsync the directory) and is itself
// checksummed. There is no RDB: a snapshot (SAVE, BGSAVE, shutdown) is a
// rewrite that produces a new base and an empty incremental file.
//
// # Format
//
// Every file starts with the magic "ORDOAOF1" and is a sequence of
// records: a 12-byte header (payload length, CRC32C of the payload,
// CRC32C of those 8 header bytes, little endian) followed by the payload,
// one or more commands as RESP arrays. A flipped bit anywhere is detected.
// A transaction (MULTI ... EXEC, which scripts also produce) is inside one
// record, so replay applies it whole or not at all; the MULTI and EXEC
// themselves are not stored. Changes buffered together (between two
// writes of the group commit, below) share a record too: a header per
// change made the log a quarter bigger than Redis's for small writes (57
// bytes a SET against 45), and rewrites that much more frequent. SELECT is
// written when the database changes.
//
// # Loading and damage
//
// Replay runs every command through the engine's command table (Exec with
// an internal client of kind "aof"), with propagation off. Keys carry
// absolute expiries (PEXPIREAT / SET ... PXAT), so keys that expired while
// the server was down are not loaded. The first invalid record decides:
//   - a torn tail of the last incremental file (an incomplete header or
//     payload, a zero-filled tail, or a bad checksum on the very last
//     record) is an interrupted append: the valid prefix is loaded, the file
//     is truncated there, and the offset and number of dropped bytes are
//     logged (refused instead if aof-load-truncated is no);
//   - anything else (a bad record followed by more data, damage in the base
//     or in an older incremental file, a bad manifest) refuses to start with
//     a message naming the file and offset, unless aof-load-corrupt-tail is
//     yes: then the valid prefix is loaded, the rest of that file is cut and
//     later files are ignored, all of it logged.
//
// # Writing and appendfsync
//
// engine.Propagate (under the engine lock) serializes each change into the
// open record and closed records into a memory buffer (joining the
// buffer's last record while no writer has taken it); nothing is written
// there. engine.SyncHook, which the server and the embedded DB call after
// releasing the lock and before sending replies, makes the buffer reach
// the file: the first caller becomes the leader, writes everything
// buffered with one write(2) and, under appendfsync always, one fdatasync,
// while other callers wait for it (group commit: a single fsync
// acknowledges every client whose changes it covers). A reply is never sent
// before the data it depends on is written (always: fsynced), including to
// clients that only read data written by others, as in Redis. Under
// everysec and no the hook only writes (a killed process loses nothing
// that was acknowledged); a background goroutine fsyncs once a second
// (everysec) and writes changes that no client waits for (active expiry).
// A failed write is retried (the file is truncated back to its last good
// size first); clients under always wait until it succeeds, and INFO
// reports aof_last_write_status:err meanwhile.
//
// # Rewrite without stopping clients
//
// Go cannot fork; the rewrite takes the engine's point-in-time snapshot
// instead (engine.BeginSnapshotEncoded, the machinery of BGSAVE and of a
// replica's full sync), which does per key what a fork's copy-on-write
// does per page. At its start (T0, one lock acquisition, O(databases))
// the snapshot begins, the engine-wide state (index definitions,
// functions) and each database's size hint are taken, and the change
// stream is marked: the new base holds the data set at T0, and every
// change after T0 belongs to the new incremental file. The snapshot then
// walks the keys in slices of 512 (one lock acquisition each, released
// between them, and after each copy of a big collection), and a key
// about to change for the first time after T0 is serialized just before
// the change, as it was at T0; either way a key is written once, in the
// log's own format (SET ... PXAT for strings, Typed.Rewrite and PEXPIREAT
// for collections). A collection of 1024 elements or more is copied under
// the lock (Typed.Copy: a memory copy for the packed types) and turned
// into commands after it is released. FLUSHALL, FLUSHDB, SWAPDB and the
// replacement of the data set during a rewrite are changes after T0 like
// any other (the snapshot keeps walking the dictionaries it started
// with). The base is streamed to its file as the walk goes, so it is not
// held in memory whole.
//
// Changes after T0 go to the old incremental file as before (and are
// acknowledged as before) and are also kept in memory; every few MB of
// base output they are moved to the new incremental file, so the memory
// kept is bounded. Once the base is written and fsynced, the new files
// are fsynced and the new manifest written (under a temporary name)
// while writers go on. Then writers wait once, while the group-commit
// writer's place is taken to bring both incremental files to the same
// point (one write to each); from then on the leader writes what it
// writes to the old file to the new one too, before any reply that
// depends on it, the manifest is renamed into place without stopping
// anyone, and the new file replaces the old one between two leaders'
// writes. A crash at any point loads either the old files (state at T0
// or later) or the new ones, each holding every acknowledged change;
// temporary and unlisted files are removed at the next start. The
// rewrite's memory cost is the snapshot's (the names of the keys changed
// meanwhile, the slices being written, copies of big collections) and
// the changes since T0 not yet moved, not a copy of the data.
//
// Measured under the soak (bench/soak.go, -soak 60s, on 2 cores shared
// with other jobs at load average 17-27, so only ratios within one run
// mean much; both figures are logged with each rewrite; bench/README.md
// has the whole account): before, with key lists, touched keys re-dumped
// in passes and a switch at the end, the longest lock hold per rewrite
// was 26-258 ms and writers waited 8-301 ms for the switch (the new
// file's creation and fsync, the manifest's two fsyncs, and an fsync of
// the old file in progress); with the snapshot and the mirrored switch,
// writers wait 0-443 µs (once 4.5 ms in 28 rewrites) and the longest
// hold is 1-95 ms (214 and 310 ms in 2 of 28), most of it copying a
// 200,000-member sorted set (47 ms for Typed.Copy, which then rebuilt
// the set's index by rehashing every member; it now copies the index slot
// for slot, about 13 ms of CPU, zset BenchmarkCopy). The base is in the log's own format, as before, so a
// stream over 64 MiB is still rewritten entry by entry (Stream.Rewrite).
// Since (2026-11-25, load average 8-15): a rewrite made about as much
// garbage as its file several times over (a buffer grown per slice, an
// argument list and a closure per key): 1.2 GB in 25 s of the soak, 75
// collections in 40 s, with mark assists on the only P. The encoder
// reuses its scratch, the snapshot its slice buffer, afterMark its
// buffer, and captured keys and big copies are written as they come:
// 310 MB and 27 collections. The rewrite yields the P after each piece it
// writes (with GOMAXPROCS 1 the runtime preempts only after 10 ms), and
// its share of the server's CPU fell from 21% to 13% (CPU profiles, 15
// s). What is left at the tail of PING in the runtime trace is mostly
// the copy of the 200,000-member sorted set under the lock (Typed.Copy
// rebuilding the tree, with its mmap: 10-70 ms wall on the loaded
// machine) and the machine's own preemptions; the longest hold per
// rewrite was 2-119 ms (median 19) in 29 rewrites; writers waited
// 0-374 µs at the switch in 23 of them, up to 62 ms in one (what arrived
// during the new file's fsyncs, now moved to it before writers wait:
// 0-20 µs in the next run's 21 rewrites).
// Automatic rewrites start when the files grow past
// auto-aof-rewrite-percentage of the size after the last rewrite (and past
// auto-aof-rewrite-min-size).
//
// # Shutdown and appendonly no
//
// A clean shutdown (SIGTERM, SHUTDOWN, DB.Close) writes a snapshot, so that
// the next start replays a compact base (SHUTDOWN NOSAVE only fsyncs).
// With appendonly no nothing is loaded or logged (a pure in-memory
// server); SAVE, BGSAVE and BGREWRITEAOF still write a snapshot in the
// same layout, which a later start with appendonly yes loads. appendonly,
// dir and the file names are read at start; appendfsync and the rewrite
// thresholds are read live.
//
// # Known limits
//
//   - Keys whose absolute expiry passed while the server was down are
//     loaded (replay never expires anything, as in Redis) and removed by
//     lazy and active expiry right after start, so DBSIZE may count them
//     for a moment.
//   - A failed write is retried forever; Redis's MISCONF refusal of
//     writes while the AOF cannot be written is not implemented.
//   - CONFIG SET appendonly (turning the log on or off at runtime) and
//     CONFIG SET dir do not move the log; they take effect at the next start.
//   - SAVE or DEBUG RELOAD inside MULTI splits that transaction's record.
//   - SIGKILL tests prove that nothing acknowledged is lost when the
//     process dies; power loss additionally relies on fdatasync and on the
//     directory fsyncs being honoured by the file system.
package aof

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
)

// AOF is the persistence state of one engine.
type AOF struct {
	e       *engine.Engine
	logf    func(format string, args ...any)
	dir     string // the aof directory
	name    string // appendfilename
	enabled bool   // appendonly at start

	// Manifest state (changed only by the switch, which holds mu-leadership).
	man manifest

	// Guarded by the engine lock.
	rec    record // records being built
	lastDB int    // database of the last SELECT in the current file
	inTx   int

	// Guarded by mu.
	mu    sync.Mutex
	cond  *sync.Cond
	buf   []byte // closed records not yet written
	spare []byte
	// bufRec and afterRec are 1 + the offset of the last record in buf
	// and in afterMark, while a change closed next may join it (0: it may
	// not). Records of changes that no writer has taken yet are one
	// record: a header per change made the log a quarter bigger than
	// Redis's under small writes, and so rewrites a quarter more frequent
	// (see closeRecord). Whatever takes, prepends to or empties buf or
	// afterMark resets these.
	bufRec, afterRec int
	end              int64 // logical bytes appended (buffered + written)
	written          int64 // logical bytes written to the file
	synced           int64 // logical bytes fsynced
	busy             bool  // a leader is writing, or a switch is in progress
	// dual: a rewrite passed its switch point; changes appended since are
	// also kept in afterMark, for the new incremental file (beginSwitch).
	dual      bool
	afterMark []byte
	afterOff  int64 // bytes of afterMark already moved to the new file
	// afterSpare is afterMark's buffer after drainAfterMark wrote it,
	// reused rather than grown anew every few MB.
	afterSpare []byte
	// mirror: the new incremental file of a switch about to complete;
	// the leader writes to it what it writes to file, after file (see
	// finishSwitch).
	mirror       *os.File
	mirrorSize   int64 // bytes in mirror
	mirrorSynced int64 // logical offset up to which mirror is fsynced
	file         *os.File
	fileSize     int64 // bytes in the current incremental file
	writeErr     error

	fileGen int64 // incremented when file changes (a.mu held)

	fileRW sync.RWMutex // fsync (read) vs closing a replaced file (write)

	unwritten atomic.Int64 // end - written, for Sync's fast path
	unsynced  atomic.Int64 // end - synced

	// Statistics for INFO (atomics or under the engine lock).
	baseSize         atomic.Int64 // size of the base after the last rewrite
	incrSize         atomic.Int64 // bytes in incremental files
	rewriteBaseSize  atomic.Int64 // aof size right after the last rewrite
	lastSave         atomic.Int64 // unix seconds
	rewriteRunning   atomic.Bool
	bgsaveRunning    atomic.Bool
	rewriteScheduled atomic.Bool
	lastRewriteOK    atomic.Bool
	lastBgsaveOK     atomic.Bool
	lastWriteOK      atomic.Bool
	rewrites         atomic.Int64
	rewriteFailures  atomic.Int64
	lastRewriteSecs  atomic.Int64
	rewriteStart     atomic.Int64 // unix ms
	loading          atomic.Bool
	loadedKeys       atomic.Int64
	loadExpired      atomic.Int64
	delayedFsync     atomic.Int64

	live liveState // a replica's restart of the log (restart.go)

	rwDone   chan struct{} // closed when the running rewrite ends
	rwCancel atomic.Bool   // stops the running rewrite (Close)
	stop     chan struct{}
	stopped  chan struct{}
	closed   atomic.Bool
}

// Open attaches persistence to e: it loads the data (appendonly yes),
// installs the propagation and sync hooks, and registers the SAVE/BGSAVE
// machinery. logf receives log lines (nil: standard error).
func Open(e *engine.Engine, logf func(format string, args ...any)) (*AOF, error) {
	if logf == nil {
		logf = e.Logf // the engine's logger; silent without one
	}
	cfg := e.Config
	a := &AOF{
		e:       e,
		logf:    logf,
		dir:     filepath.Join(cfg.Get("dir"), cfg.Get("appenddirname")),
		name:    cfg.Get("appendfilename"),
		enabled: cfg.Bool("appendonly"),
		rec:     newRecordBuf(),
		lastDB:  -1,
		stop:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	a.cond = sync.NewCond(&a.mu)
	a.lastSave.Store(time.Now().Unix())
	a.lastRewriteOK.Store(true)
	a.lastBgsaveOK.Store(true)
	a.lastWriteOK.Store(true)
	a.lastRewriteSecs.Store(-1)
	if a.enabled {
		if err := os.MkdirAll(a.dir, 0o755); err != nil {
			return nil, fmt.Errorf("aof: %w", err)
		}
		// Base files of rewrites a crash interrupted.
		if tmps, _ := filepath.Glob(filepath.Join(a.dir, "temp-rewrite-*.ordo")); len(tmps) > 0 {
			for _, t := range tmps {
				os.Remove(t)
			}
			a.logf("Removed %d temporary file(s) of interrupted rewrites", len(tmps))
		}
		if err := a.load(); err != nil {
			return nil, err
		}
		if err := a.openIncr(); err != nil {
			return nil, err
		}
		a.removeUnlisted()
	}
	e.Lock()
	e.Propagate = a.propagate
	if a.enabled {
		e.SyncHook = a.Sync
	}
	e.Persistence = a
	e.Unlock()
	go a.background()
	return a, nil
}

// Close stops background work and, if snapshot, writes a snapshot (else
// it only makes the log durable). It takes the engine lock.
func (a *AOF) Close(snapshot bool) error {
	a.e.Lock()
	if a.closed.Swap(true) {
		a.e.Unlock()
		return nil
	}
	a.rwCancel.Store(true)
	done := a.rwDone
	a.e.Unlock()
	if done != nil {
		<-done
	}
	close(a.stop)
	<-a.stopped
	var err error
	a.e.Lock()
	if a.enabled && snapshot {
		err = a.saveLocked()
		if err != nil {
			a.logf("aof: snapshot at shutdown failed: %v", err)
		} else {
			a.logf("DB saved on disk")
		}
	}
	a.e.Propagate = nil
	a.e.SyncHook = nil
	a.e.Persistence = nil
	a.e.Unlock()
	if a.enabled {
		if serr := a.syncTo(-1, true); err == nil {
			err = serr
		}
		a.mu.Lock()
		if a.file != nil {
			a.file.Close()
			a.file = nil
		}
		a.mu.Unlock()
	}
	return err
}

// propagate is engine.Propagate: it runs under the engine lock.
func (a *AOF) propagate(db int, args [][]byte) {
	if len(args) == 0 {
		return
	}
	if !a.enabled {
		return
	}
	switch {
	case engine.EqualFold(args[0], "multi"):
		a.inTx++
		return
	case engine.EqualFold(args[0], "exec"):
		if a.inTx > 0 {
			a.inTx--
		}
	default:
		if db != a.lastDB {
			a.rec.addStrings("SELECT", strconv.Itoa(db))
			a.lastDB = db
		}
		a.rec.add(args)
	}
	if a.inTx == 0 {
		a.closeRecord()
	}
}

// closeRecord moves the record built so far to the write buffer. While
// no writer has taken the buffer's last record, the change joins it:
// its payload is appended and the header's length and checksums
// extended. Replay applies a record whole or not at all, which is
// harmless for changes made one after the other (a torn record was
// never acknowledged: replies wait for the write of everything before
// them), and a transaction stays whole inside a bigger record. While a
// rewrite keeps the changes since its switch point (dual), a change
// joins a record only if it can join the same record in both buffers,
// so that the two receive the same bytes.
func (a *AOF) closeRecord() {
	a.rec.end()
	if len(a.rec.buf) == 0 {
		return
	}
	a.mu.Lock()
	rec := a.rec.buf
	if a.dual && a.afterMark == nil {
		a.afterMark, a.afterSpare = a.afterSpare[:0], nil
	}
	payload := rec[hdrLen:]
	if a.bufRec > 0 && canJoin(a.buf[a.bufRec-1:], payload) &&
		(!a.dual || a.afterRec > 0 && canJoin(a.afterMark[a.afterRec-1:], payload)) {
		joinRecord(a.buf[a.bufRec-1:], payload)
		a.buf = append(a.buf, payload...)
		if a.dual {
			joinRecord(a.afterMark[a.afterRec-1:], payload)
			a.afterMark = append(a.afterMark, payload...)
		}
		rec = payload
	} else {
		a.bufRec = len(a.buf) + 1
		a.buf = append(a.buf, rec...)
		if a.dual {
			a.afterRec = len(a.afterMark) + 1
			a.afterMark = append(a.afterMark, rec...)
		}
	}
	a.end += int64(len(rec))
	a.updPending()
	a.mu.Unlock()
	a.rec.buf = a.rec.buf[:0]
	if cap(a.rec.buf) > 1<<20 {
		a.rec.buf = nil
	}
}

// updPending refreshes the fast-path counters (a.mu held).
func (a *AOF) updPending() {
	a.unwritten.Store(a.end - a.written)
	a.unsynced.Store(a.end - a.synced)
}

// Sync is engine.SyncHook: it returns once what was propagated before the
// call is written (and, under appendfsync always, fsynced). Under
// appendfsync always it also returns when ctx is done before the fsync
// (a full or failing disk retries without end): the caller then gets
// ctx's error and the write stays queued, retried by the group commit.
// Under everysec and no the write to the file is not waited for long
// (a failed write is reported, not retried here), so ctx is not needed.
func (a *AOF) Sync(ctx context.Context) error {
	if a.unsynced.Load() == 0 {
		return nil
	}
	always := a.e.Config.Get("appendfsync") == "always"
	if !always && a.unwritten.Load() == 0 {
		return nil
	}
	if !always || ctx.Done() == nil {
		a.syncTo(0, always)
		return nil
	}
	done := make(chan struct{})
	go func() {
		a.syncTo(0, always)
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// syncTo makes the log durable up to the current end (target 0) or up to
// everything (-1: always fsync). It is the group commit.
func (a *AOF) syncTo(target int64, fsync bool) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if target <= 0 {
		target = a.end
	}
	backoff := time.Millisecond
	for {
		if a.file == nil {
			return nil
		}
		if a.written >= target && (!fsync || a.synced >= target) {
			return nil
		}
		if a.busy {
			// A leader is writing, or a rewrite is installing the next file.
			a.cond.Wait()
			continue
		}
		if a.writeErr != nil && backoff > time.Millisecond {
			// Retry a failed write after a pause.
			a.mu.Unlock()
			time.Sleep(backoff)
			a.mu.Lock()
			if a.closed.Load() && a.writeErr != nil {
				return a.writeErr
			}
		}
		a.busy = true
		buf, end := a.buf, a.end
		a.buf, a.bufRec = a.spare[:0], 0
		f, mf := a.file, a.mirror
		a.mu.Unlock()
		err := a.writeOut(f, buf, fsync)
		if err == nil && mf != nil {
			if err = a.writeMirror(mf, buf, fsync); err != nil {
				// The two files are written as a pair: undo the
				// current file's part, and retry both.
				a.fileSize -= int64(len(buf))
				a.incrSize.Add(-int64(len(buf)))
				f.Truncate(a.fileSize)
			}
		}
		a.mu.Lock()
		a.busy = false
		if mf != nil && err == nil && fsync {
			a.mirrorSynced = end
		}
		if err != nil {
			// Keep the data for the next attempt, in order.
			a.buf, a.bufRec = append(buf, a.buf...), 0
			a.writeErr = err
			a.lastWriteOK.Store(false)
			a.logf("aof: error writing to the AOF file: %v", err)
			backoff = min(max(2*backoff, 10*time.Millisecond), time.Second)
			a.cond.Broadcast()
			if !fsync {
				return err
			}
			continue
		}
		if a.writeErr != nil {
			a.logf("aof: AOF write error solved, AOF writes are working again")
		}
		a.writeErr = nil
		a.lastWriteOK.Store(true)
		a.written = end
		if fsync {
			a.synced = end
		}
		a.updPending()
		a.spare = buf[:0]
		if cap(a.spare) > 4<<20 {
			a.spare = nil
		}
		a.cond.Broadcast()
	}
}

// writeOut writes buf at the end of f (restoring the size on a short
// write) and optionally fsyncs. Called by the leader only.
func (a *AOF) writeOut(f *os.File, buf []byte, fsync bool) error {
	if len(buf) > 0 {
		n, err := f.Write(buf)
		if err != nil {
			if n > 0 {
				if terr := f.Truncate(a.fileSize); terr == nil {
					f.Seek(a.fileSize, 0)
				}
			}
			return err
		}
		a.fileSize += int64(n)
		a.incrSize.Add(int64(n))
	}
	if fsync {
		t0 := time.Now()
		if err := fdatasync(f); err != nil {
			return err
		}
		// LATENCY's event for appendfsync always (Redis's flushAppendOnlyFile).
		a.e.LatencySample("aof-fsync-always", time.Since(t0).Milliseconds())
	}
	return nil
}

// writeMirror writes buf, which the leader wrote to the current file, to
// the mirror too (the leader only, after writeOut).
func (a *AOF) writeMirror(mf *os.File, buf []byte, fsync bool) error {
	if len(buf) > 0 {
		if n, err := mf.Write(buf); err != nil {
			if n > 0 {
				mf.Truncate(a.mirrorSize)
			}
			return err
		}
	}
	if fsync {
		if err := fdatasync(mf); err != nil {
			mf.Truncate(a.mirrorSize)
			return err
		}
	}
	a.mirrorSize += int64(len(buf))
	return nil
}

// background fsyncs once a second under everysec, writes changes no
// client waits for, and starts automatic rewrites.
func (a *AOF) background() {
	defer close(a.stopped)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	lastFsync := time.Now()
	for {
		select {
		case <-a.stop:
			return
		case <-t.C:
		}
		if !a.enabled {
			continue
		}
		policy := a.e.Config.Get("appendfsync")
		a.mu.Lock()
		dirty := a.end > a.written
		unsynced := a.written > a.synced || dirty
		a.mu.Unlock()
		if dirty {
			a.syncTo(0, false)
		}
		if policy == "everysec" && unsynced && time.Since(lastFsync) >= time.Second {
			lastFsync = time.Now()
			a.fsyncWritten()
		}
		a.maybeAutoRewrite()
	}
}

// fsyncWritten fsyncs what has been written, without blocking writers.
func (a *AOF) fsyncWritten() {
	a.fileRW.RLock()
	a.mu.Lock()
	f, w, gen := a.file, a.written, a.fileGen
	a.mu.Unlock()
	var err error
	if f != nil {
		err = fdatasync(f)
	}
	a.fileRW.RUnlock()
	if err != nil {
		a.lastWriteOK.Store(false)
		a.logf("aof: fsync failed: %v", err)
		return
	}
	a.mu.Lock()
	if w > a.synced && gen == a.fileGen { // not if the file was replaced meanwhile
		a.synced = w
	}
	a.updPending()
	a.mu.Unlock()
}

func (a *AOF) maybeAutoRewrite() {
	cfg := a.e.Config
	perc := cfg.Int("auto-aof-rewrite-percentage")
	if perc <= 0 || a.rewriteRunning.Load() {
		return
	}
	cur := a.baseSize.Load() + a.incrSize.Load()
	base := max(a.rewriteBaseSize.Load(), 1)
	if cur < cfg.Int("auto-aof-rewrite-min-size") {
		return
	}
	if (cur-base)*100/base < perc {
		return
	}
	a.logf("Starting automatic rewriting of AOF on %d%% growth", (cur-base)*100/base)
	if err := a.BackgroundRewrite(false); err != nil && !errors.Is(err, errInProgress) {
		a.logf("aof: automatic rewrite: %v", err)
	}
}

// openIncr opens the last incremental file for appending (creating one
// and a manifest that names it if there is none).
func (a *AOF) openIncr() error {
	if len(a.man.incrs) == 0 {
		seq := a.man.maxSeq() + 1
		name := a.incrName(seq)
		if err := createWithMagic(filepath.Join(a.dir, name)); err != nil {
			return err
		}
		m := a.man
		m.incrs = append([]string(nil), m.incrs...)
		m.incrs = append(m.incrs, name)
		m.seqs = append(m.seqs, seq)
		if err := a.writeManifest(m); err != nil {
			return err
		}
		a.man = m
	}
	path := filepath.Join(a.dir, a.man.incrs[len(a.man.incrs)-1])
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("aof: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("aof: %w", err)
	}
	if st.Size() == 0 {
		if _, err := f.Write([]byte(fileMagic)); err != nil {
			f.Close()
			return fmt.Errorf("aof: %w", err)
		}
		st, _ = f.Stat()
	}
	a.file = f
	a.fileSize = st.Size()
	var incr int64
	for _, n := range a.man.incrs {
		if st, err := os.Stat(filepath.Join(a.dir, n)); err == nil {
			incr += st.Size()
		}
	}
	a.incrSize.Store(incr)
	if a.man.base != "" {
		if st, err := os.Stat(filepath.Join(a.dir, a.man.base)); err == nil {
			a.baseSize.Store(st.Size())
		}
	}
	a.rewriteBaseSize.Store(a.baseSize.Load() + incr)
	return nil
}

func (a *AOF) incrName(seq int) string { return a.name + "." + strconv.Itoa(seq) + ".incr.ordo" }
func (a *AOF) baseName(seq int) string { return a.name + "." + strconv.Itoa(seq) + ".base.ordo" }

// createWithMagic creates a file holding only the magic, fsynced.
func createWithMagic(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("aof: %w", err)
	}
	if _, err := f.Write([]byte(fileMagic)); err != nil {
		f.Close()
		return fmt.Errorf("aof: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("aof: %w", err)
	}
	return f.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// removeUnlisted deletes base and incremental files the manifest no
// longer names (left by a crash between installing a rewrite's manifest
// and deleting the files it replaced).
func (a *AOF) removeUnlisted() {
	listed := map[string]bool{a.man.base: true}
	for _, n := range a.man.incrs {
		listed[n] = true
	}
	for _, pat := range []string{".*.base.ordo", ".*.incr.ordo"} {
		old, _ := filepath.Glob(filepath.Join(a.dir, a.name+pat))
		for _, p := range old {
			if !listed[filepath.Base(p)] {
				os.Remove(p)
				a.logf("Removed %s, which the manifest no longer lists", filepath.Base(p))
			}
		}
	}
}
