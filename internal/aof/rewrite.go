package aof

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"
	"unsafe"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

var errInProgress = errors.New(engine.ErrAofRewriteInProgress)

// Output sizes of a rewrite.
const (
	chunkBytes  = 1 << 20 // a synchronous save writes this much at a time
	recordBytes = 64 << 10
)

// rewrite is the base stream being built by a synchronous snapshot
// (SAVE, shutdown, DEBUG RELOAD: the engine lock is held throughout) or
// the head of a background one.
type rewrite struct {
	base   record
	baseDB int
	err    error
}

func newRewrite() *rewrite {
	return &rewrite{base: newRecordBuf(), baseDB: -1}
}

func (rw *rewrite) emit(db int, args [][]byte) {
	if db >= 0 && db != rw.baseDB {
		rw.base.addStrings("SELECT", strconv.Itoa(db))
		rw.baseDB = db
	}
	rw.base.add(args)
	if rw.base.openLen() > recordBytes {
		rw.base.end()
	}
}

// reserve writes the size hint for database db (reserveDirective).
func (rw *rewrite) reserve(db, keys, expires int) {
	rw.emit(db, [][]byte{[]byte(reserveDirective), strconv.AppendInt(nil, int64(keys), 10), strconv.AppendInt(nil, int64(expires), 10)})
}

func keyBytes(k string) []byte { return unsafe.Slice(unsafe.StringData(k), len(k)) }

// tmpBase creates the temporary base file of a rewrite.
func (a *AOF) tmpBase() (*os.File, string, error) {
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return nil, "", err
	}
	name := filepath.Join(a.dir, "temp-rewrite-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36)+".ordo")
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, "", err
	}
	if _, err := f.Write([]byte(fileMagic)); err != nil {
		f.Close()
		os.Remove(name)
		return nil, "", err
	}
	return f, name, nil
}

// startRewriteLocked starts a background rewrite (engine lock held): the
// instant T0 of its base is now (see the package doc).
func (a *AOF) startRewriteLocked(bgsave bool) error {
	if a.rewriteRunning.Load() {
		return errInProgress
	}
	if a.closed.Load() {
		return errors.New("ERR shutting down")
	}
	bg := &bgRewrite{bgsave: bgsave}
	a.beginBase(bg)
	bg.sw = a.beginSwitch()
	a.rewriteRunning.Store(true)
	a.bgsaveRunning.Store(bgsave)
	a.rewriteStart.Store(time.Now().UnixMilli())
	a.rwCancel.Store(false)
	a.rwDone = make(chan struct{})
	go a.runRewrite(bg, a.rwDone)
	return nil
}

// beginBase is T0 of bg's base (engine lock held). State that is not in
// keys (index definitions) comes first: the keys loaded after it are
// indexed as they are replayed. Then each database's size hint, as of
// T0; then the snapshot the keys are written from.
func (a *AOF) beginBase(bg *bgRewrite) {
	head := newRewrite()
	a.e.RewriteState(head.emit)
	head.base.end()
	bg.head = head.base.take(nil)
	for _, db := range a.e.DBs() {
		bg.hints = append(bg.hints, [2]int{db.Len(), db.ExpiresLen()})
	}
	enc := newEncoder() // used under the engine lock only
	bg.snap = a.e.BeginSnapshotEncoded(func(buf []byte, key string, v engine.Value, at int64) []byte {
		buf, err := enc.appendValue(buf, key, v, at)
		if err != nil && bg.err == nil {
			bg.err = err
		}
		return buf
	})
}

// bgRewrite is a running background rewrite.
type bgRewrite struct {
	bgsave bool
	head   []byte   // closed records: the engine's state at T0
	hints  [][2]int // keys and keys with a TTL per database at T0
	snap   *engine.Snapshot
	sw     *switchState
	err    error // from the encoder, under the engine lock
}

// BackgroundRewrite starts a rewrite (taking the engine lock).
func (a *AOF) BackgroundRewrite(bgsave bool) error {
	a.e.Lock()
	defer a.e.Unlock()
	return a.startRewriteLocked(bgsave)
}

func (a *AOF) runRewrite(bg *bgRewrite, done chan struct{}) {
	start := time.Now()
	err := a.rewriteBody(bg)
	a.e.Lock()
	a.rewriteRunning.Store(false)
	a.bgsaveRunning.Store(false)
	close(done)
	sched := a.rewriteScheduled.Swap(false)
	if sched && err == nil && !a.closed.Load() {
		a.startRewriteLocked(false)
	}
	a.e.Unlock()
	a.lastRewriteSecs.Store(int64(time.Since(start).Seconds()))
	if bg.bgsave {
		a.lastBgsaveOK.Store(err == nil)
	} else {
		a.lastRewriteOK.Store(err == nil)
	}
	if err != nil {
		a.rewriteFailures.Add(1)
		a.logf("Background AOF rewrite failed: %v", err)
		return
	}
	a.rewrites.Add(1)
	a.rewriteFailures.Store(0)
	a.logf("Background AOF rewrite finished successfully (%.3f s; longest lock hold %v; writes paused %v for the switch)",
		time.Since(start).Seconds(), bg.snap.LongestHold().Round(time.Microsecond), bg.sw.paused.Round(time.Microsecond))
}

// rewriteBody writes the base of a background rewrite from its snapshot
// and installs it; see the package doc.
func (a *AOF) rewriteBody(bg *bgRewrite) (err error) {
	sw := bg.sw
	f, tmp, err := a.tmpBase()
	if err != nil {
		bg.snap.WalkTo(engine.SnapshotSink{Canceled: func() bool { return true }})
		a.dropSwitch(sw, false)
		return err
	}
	size := int64(len(fileMagic))
	w := bufio.NewWriterSize(f, 256<<10)
	written := 0
	write := func(b []byte) error {
		n, err := w.Write(b)
		size += int64(n)
		written += n
		if err == nil && written >= 4<<20 {
			// Bound the changes kept for the new incremental file: move
			// them to it now and then.
			written = 0
			err = a.drainAfterMark(sw)
		}
		// Let the clients ready now run before the next piece (at most
		// a slice's or a record's worth): with GOMAXPROCS 1 the runtime
		// preempts a goroutine only after 10 ms, and a client's request
		// waited behind the rewrite's serialization that long.
		runtime.Gosched()
		return err
	}
	cur := -1
	var rec record
	sel := func(db int) {
		if db != cur {
			rec.addStrings("SELECT", strconv.Itoa(db))
			if h := bg.hints[db]; h[0] > 0 {
				rec.add([][]byte{[]byte(reserveDirective), strconv.AppendInt(nil, int64(h[0]), 10), strconv.AppendInt(nil, int64(h[1]), 10)})
			}
			cur = db
		}
	}
	// A big collection's copy is turned into commands here, without
	// the lock, a record at a time.
	bigEnc := newEncoder()
	var bigErr error
	bigEmit := func(args [][]byte) {
		rec.add(args)
		if rec.openLen() > recordBytes {
			rec.end()
			if bigErr == nil {
				bigErr = write(rec.buf)
			}
			rec.buf = rec.buf[:0]
		}
	}
	err = write(bg.head)
	if err == nil {
		err = bg.snap.WalkTo(engine.SnapshotSink{
			Chunk: func(db int, buf []byte) error {
				rec = record{buf: rec.buf[:0], start: -1}
				sel(db)
				rec.frame(buf)
				return write(rec.buf)
			},
			Big: func(db int, key string, v engine.Value, at int64) error {
				rec = record{buf: rec.buf[:0], start: -1}
				sel(db)
				bigErr = nil
				bigEnc.err = nil
				bigEnc.each(key, v, at, bigEmit)
				rec.end()
				if bigErr == nil {
					bigErr = write(rec.buf)
				}
				if bigErr == nil {
					bigErr = bigEnc.err
				}
				return bigErr
			},
			Canceled: a.rwCancel.Load,
		})
	}
	if err == nil {
		a.e.Lock()
		err = bg.err
		a.e.Unlock()
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		f.Close()
		os.Remove(tmp)
		a.dropSwitch(sw, false)
		return err
	}
	return a.finishSwitch(sw, f, tmp, size)
}

// encoder turns values into the commands recreating them, reusing its
// scratch space: a rewrite encodes every key of the data set, and an
// argument list, a number's digits and a closure per key were most of
// what a rewrite allocated (and so most of the collections it caused
// under load, which grew the heap and paused clients; bench/README.md's
// soak section). One encoder is used by one goroutine at a time.
type encoder struct {
	buf  []byte   // appendValue's output
	args [][]byte // a string's SET or a PEXPIREAT
	num  []byte
	err  error
	// append is e.appendCmd as a func value, made once (a method value
	// made per call would be allocated per key).
	append func([][]byte)
}

func newEncoder() *encoder {
	e := &encoder{args: make([][]byte, 0, 5), num: make([]byte, 0, 20)}
	e.append = e.appendCmd
	return e
}

func (e *encoder) appendCmd(args [][]byte) { e.buf = resp.AppendCommandBytes(e.buf, args) }

// appendValue appends the commands recreating key's value v (at: its
// absolute expiry, -1 for none) as RESP requests to buf. The engine lock
// is held or v is a private copy.
func (e *encoder) appendValue(buf []byte, key string, v engine.Value, at int64) ([]byte, error) {
	e.buf, e.err = buf, nil
	e.each(key, v, at, e.append)
	buf, e.buf = e.buf, nil
	return buf, e.err
}

// each calls emit with each command recreating key's value: SET ... PXAT
// for a string, Typed.Rewrite and PEXPIREAT for a collection. The args
// given to emit are valid only during the call.
func (e *encoder) each(key string, v engine.Value, at int64, emit func([][]byte)) {
	kb := keyBytes(key)
	if v.Obj() == nil {
		s := v.Str()
		e.args = append(e.args[:0], setCmd, kb, unsafe.Slice(unsafe.StringData(s), len(s)))
		if at >= 0 {
			e.num = strconv.AppendInt(e.num[:0], at, 10)
			e.args = append(e.args, pxatArg, e.num)
		}
		emit(e.args)
		return
	}
	t, ok := v.Obj().(engine.Typed)
	if !ok {
		if e.err == nil {
			e.err = fmt.Errorf("key %q holds a %T, which cannot be rewritten", key, v.Obj())
		}
		return
	}
	t.Rewrite(key, emit)
	if at >= 0 {
		e.num = strconv.AppendInt(e.num[:0], at, 10)
		emit(append(e.args[:0], pexpireatCmd, kb, e.num))
	}
}

var (
	setCmd       = []byte("SET")
	pxatArg      = []byte("PXAT")
	pexpireatCmd = []byte("PEXPIREAT")
)

// switchState carries a switch from its point (a background rewrite's
// T0, under the engine lock) to the file operations.
type switchState struct {
	mark   int64         // logical offset of the switch point in the change stream
	paused time.Duration // how long writes waited for the switch
	seq    int           // of the new base and incremental file
	newf   *os.File      // the new incremental file, once created
	live   bool          // newf is already the log's file (restart.go)
}

// newIncr creates the switch's new incremental file (not listed by the
// installed manifest until the switch completes).
func (a *AOF) newIncr(sw *switchState) error {
	if sw.newf != nil {
		return nil
	}
	sw.seq = a.man.maxSeq() + 1
	path := filepath.Join(a.dir, a.incrName(sw.seq))
	if err := createWithMagic(path); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		os.Remove(path)
		return err
	}
	sw.newf = f
	return nil
}

// drainAfterMark moves the changes kept since the switch point to the
// new incremental file, so that they are not kept in memory while the
// base is written. Writers do not wait for it.
func (a *AOF) drainAfterMark(sw *switchState) error {
	if !a.enabled {
		return nil
	}
	if err := a.newIncr(sw); err != nil {
		return err
	}
	a.mu.Lock()
	kept := a.afterMark
	a.afterMark, a.afterRec = nil, 0
	a.afterOff += int64(len(kept))
	a.mu.Unlock()
	if len(kept) == 0 {
		return nil
	}
	_, err := sw.newf.Write(kept)
	if cap(kept) <= 16<<20 {
		a.mu.Lock()
		a.afterSpare = kept[:0]
		a.mu.Unlock()
	}
	return err
}

// dropSwitch gives up a switch and removes its new incremental file.
func (a *AOF) dropSwitch(sw *switchState, holdBusy bool) {
	a.abortSwitch(holdBusy)
	if sw.live {
		return // the log's file: changes keep going to it
	}
	if sw.newf != nil {
		sw.newf.Close()
		os.Remove(filepath.Join(a.dir, a.incrName(sw.seq)))
		sw.newf = nil
	}
}

// beginSwitch marks the switch point (engine lock held): changes up to
// here are in the new base, later ones belong to the new incremental
// file. Until the switch is complete they keep going to the old
// incremental file as well (so the old manifest stays complete and
// writers are acknowledged as usual) and are kept in memory (afterMark,
// moved to the new file now and then by drainAfterMark) for the new one.
func (a *AOF) beginSwitch() *switchState {
	a.e.ResetDirty()
	a.lastDB = -1
	sw := &switchState{}
	if !a.enabled {
		return sw
	}
	a.rec.end()
	if len(a.rec.buf) > 0 { // cannot happen outside a transaction, but be safe
		a.closeRecord()
	}
	a.mu.Lock()
	sw.mark = a.end
	// Nothing after the switch point joins a record from before it.
	a.dual, a.afterMark, a.afterOff, a.bufRec, a.afterRec = true, nil, 0, 0, 0
	a.mu.Unlock()
	return sw
}

// abortSwitch gives up a switch: changes keep going to the old file only.
func (a *AOF) abortSwitch(holdBusy bool) {
	if !a.enabled {
		return
	}
	a.mu.Lock()
	a.dual, a.afterMark, a.afterOff, a.afterSpare, a.afterRec = false, nil, 0, nil, 0
	if holdBusy {
		a.busy = false
	}
	a.cond.Broadcast()
	a.mu.Unlock()
}

// finishSwitch completes a rewrite whose base is in f (tmp): it installs
// the base, a new incremental file holding the changes since the switch
// point, and the manifest naming them. Everything that can be done while
// writers go on is done first: the base is synced and renamed to its
// final name, the changes kept so far are moved to the new incremental
// file, which is synced, and the new manifest is written and synced
// under a temporary name (none of these files is listed by the installed
// manifest, so a crash meanwhile loads the old files, and the next start
// removes them). Writers wait once, while both incremental files are
// brought to the same point; then the leader mirrors its writes into the
// new file (see the package doc), the manifest is renamed into place,
// and the new file replaces the old one between two leaders' writes. The
// directory is fsynced before the old files are removed. (Writers used
// to wait for the new file's creation, its fsync and the manifest's two
// fsyncs: 8-301 ms under the soak's load; now 1-308 µs.)
func (a *AOF) finishSwitch(sw *switchState, f *os.File, tmp string, size int64) (err error) {
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if err := f.Sync(); err != nil {
		f.Close()
		a.dropSwitch(sw, false)
		return err
	}
	if err := f.Close(); err != nil {
		a.dropSwitch(sw, false)
		return err
	}
	if !a.enabled {
		// No log: the snapshot is the whole state.
		seq := a.man.maxSeq() + 1
		m := manifest{base: a.baseName(seq), baseSeq: seq}
		if err := os.Rename(tmp, filepath.Join(a.dir, m.base)); err != nil {
			return err
		}
		if err := a.writeManifest(m); err != nil {
			os.Remove(filepath.Join(a.dir, m.base))
			return err
		}
		a.installed(m, size, 0)
		return nil
	}
	if sw.live {
		return a.finishLive(sw, tmp, size)
	}
	if err := a.newIncr(sw); err != nil {
		a.dropSwitch(sw, false)
		return err
	}
	m := manifest{base: a.baseName(sw.seq), baseSeq: sw.seq, incrs: []string{a.incrName(sw.seq)}, seqs: []int{sw.seq}}
	manTmp := ""
	fail := func(err error, holdBusy bool) error {
		if manTmp != "" {
			os.Remove(manTmp)
		}
		os.Remove(filepath.Join(a.dir, m.base))
		a.dropSwitch(sw, holdBusy)
		return err
	}
	// Without blocking writers: the files, and the changes kept so far.
	var pre int64 // bytes since the switch point in the new file, fdatasync'd
	err = func() error {
		if err := os.Rename(tmp, filepath.Join(a.dir, m.base)); err != nil {
			return err
		}
		if err := a.drainAfterMark(sw); err != nil {
			return err
		}
		a.mu.Lock()
		pre = a.afterOff
		a.mu.Unlock()
		if err := fdatasync(sw.newf); err != nil {
			return err
		}
		if err := syncDir(a.dir); err != nil {
			return err
		}
		var err error
		manTmp, err = a.prepareManifest(m)
		return err
	}()
	if err != nil {
		return fail(err, false)
	}
	// The fsyncs above can take long on a busy disk (62 ms were seen
	// under the soak), and what arrived meanwhile would be written
	// while writers wait: move it to the new file now (not fsynced:
	// pre stays what is).
	if err := a.drainAfterMark(sw); err != nil {
		return fail(err, false)
	}
	// Mirror: take the writer's place once, for as long as it takes to
	// bring both files up to the same point (a write to each, of what
	// arrived since the drain above); from then on the leader writes what
	// it writes to the old file to the new one too, before it lets
	// anyone reply. So the new file always holds every change since the
	// switch point that any reply depends on, and the manifest can be
	// renamed while writers go on.
	a.mu.Lock()
	for a.busy {
		a.cond.Wait()
	}
	a.busy = true
	buf, after, off, endNow := a.buf, a.afterMark, a.afterOff, a.end
	a.buf, a.bufRec = a.spare[:0], 0
	f0 := a.file
	a.mu.Unlock()
	t0 := time.Now()
	if off+int64(len(after)) != endNow-sw.mark {
		a.mu.Lock()
		a.buf, a.bufRec = append(buf, a.buf...), 0
		a.mu.Unlock()
		return fail(fmt.Errorf("aof: %d bytes kept since the switch point, %d appended", off+int64(len(after)), endNow-sw.mark), true)
	}
	err = a.writeOut(f0, buf, false)
	if err == nil && len(after) > 0 {
		if _, err = sw.newf.Write(after); err != nil {
			a.fileSize -= int64(len(buf)) // retried by the next leader
			a.incrSize.Add(-int64(len(buf)))
			f0.Truncate(a.fileSize)
		}
	}
	a.mu.Lock()
	if err != nil {
		a.buf, a.bufRec = append(buf, a.buf...), 0 // the next leader retries
		a.mu.Unlock()
		return fail(err, true)
	}
	a.written = endNow
	a.spare = buf[:0]
	a.mirror = sw.newf
	a.mirrorSize = int64(len(fileMagic)) + off + int64(len(after))
	a.mirrorSynced = sw.mark + pre // in the base, or fsynced in the new file
	// What follows endNow, kept in afterMark too until now, reaches the
	// new file through the leaders' writes.
	a.dual, a.afterMark, a.afterOff, a.afterSpare, a.afterRec = false, nil, 0, nil, 0
	a.busy = false
	a.updPending()
	a.cond.Broadcast()
	a.mu.Unlock()
	sw.paused = time.Since(t0)
	if err := os.Rename(manTmp, a.manifestPath()); err != nil {
		a.mu.Lock()
		for a.busy {
			a.cond.Wait()
		}
		a.mirror = nil
		a.mu.Unlock()
		return fail(fmt.Errorf("aof: manifest: %w", err), false)
	}
	// Installed: the new file replaces the old one, between two leaders.
	old := a.man
	a.man = m
	a.mu.Lock()
	for a.busy {
		a.cond.Wait()
	}
	oldf := a.file
	a.file = sw.newf
	a.fileGen++
	a.fileSize = a.mirrorSize
	incrSize := a.mirrorSize
	a.synced = a.mirrorSynced
	a.mirror = nil
	a.updPending()
	a.mu.Unlock()
	// Writers go on. The rename reaches the disk before the old files go.
	syncErr := syncDir(a.dir)
	a.fileRW.Lock() // a running fsync of the old file ends first
	oldf.Close()
	a.fileRW.Unlock()
	a.installed(m, size, incrSize)
	if syncErr != nil {
		// The new manifest is in place but may not survive a power loss:
		// keep the old files, which it would then still name.
		a.logf("aof: fsync of %s: %v (old files kept)", a.dir, syncErr)
		return nil
	}
	a.removeReplaced(old, m)
	return nil
}

// installed updates the statistics after a switch to m.
func (a *AOF) installed(m manifest, size, incr int64) {
	a.baseSize.Store(size)
	a.incrSize.Store(incr)
	a.rewriteBaseSize.Store(size)
	a.lastSave.Store(time.Now().Unix())
}

// removeReplaced deletes the files of old that m no longer names.
func (a *AOF) removeReplaced(old, m manifest) {
	for _, n := range append([]string{old.base}, old.incrs...) {
		if n != "" && n != m.base && (len(m.incrs) == 0 || n != m.incrs[0]) {
			os.Remove(filepath.Join(a.dir, n))
		}
	}
}

// saveLocked writes a snapshot synchronously (engine lock held): SAVE,
// shutdown, DEBUG RELOAD.
func (a *AOF) saveLocked() error {
	if a.rewriteRunning.Load() {
		return errInProgress
	}
	f, tmp, err := a.tmpBase()
	if err != nil {
		return err
	}
	rw := newRewrite()
	a.e.RewriteState(rw.emit)
	size := int64(len(fileMagic))
	now := engine.NowMs()
	enc := newEncoder()
	dbi := 0
	emit := func(args [][]byte) { rw.emit(dbi, args) }
	var spare []byte
	for i, db := range a.e.DBs() {
		if db.Len() > 0 {
			rw.reserve(i, db.Len(), db.ExpiresLen())
		}
		dbi = i
		db.Each(now, func(k string, v engine.Value, at int64) bool {
			enc.each(k, v, at, emit)
			if enc.err != nil && rw.err == nil {
				rw.err = enc.err
			}
			if len(rw.base.buf) >= chunkBytes && err == nil {
				rw.base.end()
				out := rw.base.take(spare)
				var n int
				n, err = f.Write(out)
				size += int64(n)
				spare = out
			}
			return rw.err == nil && err == nil
		})
	}
	if err == nil {
		err = rw.err
	}
	if err == nil {
		rw.base.end()
		var n int
		n, err = f.Write(rw.base.take(nil))
		size += int64(n)
	}
	if err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	sw := a.beginSwitch()
	if err := a.finishSwitch(sw, f, tmp, size); err != nil {
		return err
	}
	a.rewrites.Add(1)
	return nil
}
