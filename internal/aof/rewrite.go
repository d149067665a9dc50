package aof

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
	"unsafe"

	"github.com/ordo-db/ordo/internal/engine"
)

var errInProgress = errors.New(engine.ErrAofRewriteInProgress)

// Tuning of the background rewrite.
const (
	chunkKeys    = 256     // keys dumped per lock acquisition
	chunkBytes   = 1 << 20 // or this many bytes of output
	recordBytes  = 64 << 10
	finalTouched = 1024 // touched keys left for the final, atomic step
	maxPasses    = 8
	// deferElems: a collection this big is copied under the lock and
	// serialized after it is released (see deferredDump).
	deferElems = 1024
)

// deferredDump is a big collection's value at the moment the rewrite
// dumped it: a deep copy (Typed.Copy, a memory copy for the packed
// types) taken under the engine lock, turned into commands after the
// lock is released. Serializing a list of millions of elements under
// the lock held every client for hundreds of milliseconds; the copy
// takes a fraction of that.
type deferredDump struct {
	db  int
	key string
	v   engine.Typed
	at  int64
}

type rwDB struct {
	keys    []string // names at T0, dumped in order
	next    int
	touched map[string]struct{}
	pass    []string // touched keys being re-dumped
	pnext   int
}

// rewrite is the state of a running background rewrite; every field is
// guarded by the engine lock.
type rewrite struct {
	dbs    []*rwDB
	base   record
	baseDB int
	cancel bool
	err    error
	bgsave bool

	// deferBig makes emitValue copy big collections into deferred
	// (background rewrite only; a synchronous save holds the lock anyway).
	deferBig bool
	deferred []deferredDump

	// Statistics for the log line: the longest lock hold and how long
	// writers waited while the new files were installed.
	maxHold, switchTime time.Duration
	passes              int
	finalKeys           int
}

func newRewrite(n int, bgsave bool) *rewrite {
	rw := &rewrite{dbs: make([]*rwDB, n), base: newRecordBuf(), baseDB: -1, bgsave: bgsave}
	for i := range rw.dbs {
		rw.dbs[i] = &rwDB{touched: map[string]struct{}{}}
	}
	return rw
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

func (rw *rewrite) touch(db int, key []byte) {
	if db < 0 || db >= len(rw.dbs) {
		return
	}
	m := rw.dbs[db].touched
	if _, ok := m[string(key)]; !ok {
		m[string(key)] = struct{}{}
	}
}

func (rw *rewrite) resetDB(db int) {
	rw.dbs[db] = &rwDB{touched: map[string]struct{}{}}
}

// track records the keys a propagated change touches (under the lock).
func (rw *rewrite) track(a *AOF, db int, args [][]byte) {
	name := string(args[0])
	switch {
	case engine.EqualFold(args[0], "multi"), engine.EqualFold(args[0], "exec"), engine.EqualFold(args[0], "select"):
		return
	case engine.EqualFold(args[0], "flushall"):
		rw.emit(-1, [][]byte{[]byte("FLUSHALL")})
		for i := range rw.dbs {
			rw.resetDB(i)
		}
		return
	case engine.EqualFold(args[0], "flushdb"):
		rw.emit(db, [][]byte{[]byte("FLUSHDB")})
		rw.resetDB(db)
		return
	case engine.EqualFold(args[0], "swapdb"):
		if len(args) == 3 {
			x, ok1 := engine.ParseInt(args[1])
			y, ok2 := engine.ParseInt(args[2])
			if ok1 && ok2 && x >= 0 && y >= 0 && int(x) < len(rw.dbs) && int(y) < len(rw.dbs) {
				rw.emit(-1, [][]byte{[]byte("SWAPDB"), args[1], args[2]})
				rw.dbs[x], rw.dbs[y] = rw.dbs[y], rw.dbs[x]
				return
			}
		}
		rw.err = fmt.Errorf("unexpected %q during rewrite", name)
		return
	}
	cmd := a.e.Lookup(args)
	var idx []int
	if cmd != nil {
		idx = cmd.KeyIndexes(args)
	}
	if len(idx) == 0 {
		// A change without keys applies to the base stream at its place.
		rw.emit(db, args)
		return
	}
	for _, i := range idx {
		if i < len(args) {
			rw.touch(db, args[i])
		}
	}
	switch {
	case engine.EqualFold(args[0], "move") && len(args) > 2:
		if d, ok := engine.ParseInt(args[2]); ok {
			rw.touch(int(d), args[1])
		}
	case engine.EqualFold(args[0], "copy") && len(args) > 3:
		for i := 3; i+1 < len(args); i++ {
			if engine.EqualFold(args[i], "db") {
				if d, ok := engine.ParseInt(args[i+1]); ok {
					rw.touch(int(d), args[2])
				}
			}
		}
	}
}

func keyBytes(k string) []byte { return unsafe.Slice(unsafe.StringData(k), len(k)) }

// dumpKey emits the current value of key (under the lock); withDel first
// deletes what the base stream may hold for it.
func (a *AOF) dumpKey(rw *rewrite, dbi int, key string, withDel bool, now int64) {
	kb := keyBytes(key)
	if withDel {
		rw.emit(dbi, [][]byte{[]byte("DEL"), kb})
	}
	c := engine.Ctx{E: a.e, DB: a.e.DBs()[dbi], Now: now}
	v, ok := c.Lookup(kb)
	if !ok {
		return
	}
	a.emitValue(rw, dbi, key, v, c.TTL(kb))
}

func (a *AOF) emitValue(rw *rewrite, dbi int, key string, v engine.Value, at int64) {
	kb := keyBytes(key)
	if v.Obj() == nil {
		s := v.Str()
		args := [][]byte{[]byte("SET"), kb, unsafe.Slice(unsafe.StringData(s), len(s))}
		if at >= 0 {
			args = append(args, []byte("PXAT"), strconv.AppendInt(nil, at, 10))
		}
		rw.emit(dbi, args)
		return
	}
	t, ok := v.Obj().(engine.Typed)
	if !ok {
		rw.err = fmt.Errorf("key %q holds a %T, which cannot be rewritten", key, v.Obj())
		return
	}
	if rw.deferBig && t.Len() >= deferElems {
		rw.deferred = append(rw.deferred, deferredDump{db: dbi, key: key, v: t.Copy(), at: at})
		return
	}
	t.Rewrite(key, func(args [][]byte) { rw.emit(dbi, args) })
	if at >= 0 {
		rw.emit(dbi, [][]byte{[]byte("PEXPIREAT"), kb, strconv.AppendInt(nil, at, 10)})
	}
}

// takeDeferred returns the deferred dumps (engine lock held). Their
// output follows what the base stream holds now, and selects its own
// databases, so the stream's next command must select its database again.
func (rw *rewrite) takeDeferred() []deferredDump {
	defs := rw.deferred
	if len(defs) > 0 {
		rw.deferred = nil
		rw.baseDB = -1
	}
	return defs
}

// serializeDeferred turns deferred dumps into closed records (no lock:
// the values are private copies).
func serializeDeferred(defs []deferredDump, spare []byte) []byte {
	r := record{buf: spare[:0], start: -1}
	cur := -1
	for _, d := range defs {
		if d.db != cur {
			r.addStrings("SELECT", strconv.Itoa(d.db))
			cur = d.db
		}
		d.v.Rewrite(d.key, func(args [][]byte) {
			r.add(args)
			if r.openLen() > recordBytes {
				r.end()
			}
		})
		if d.at >= 0 {
			r.add([][]byte{[]byte("PEXPIREAT"), keyBytes(d.key), strconv.AppendInt(nil, d.at, 10)})
		}
	}
	r.end()
	return r.buf
}

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

// startRewriteLocked starts a background rewrite (engine lock held).
func (a *AOF) startRewriteLocked(bgsave bool) error {
	if a.rw != nil || a.rewriteRunning.Load() {
		return errInProgress
	}
	if a.closed.Load() {
		return errors.New("ERR shutting down")
	}
	a.rw = newRewrite(len(a.e.DBs()), bgsave)
	a.rw.deferBig = true
	// State that is not in keys (index definitions) comes first: the keys
	// loaded after it are indexed as they are replayed.
	a.e.RewriteState(a.rw.emit)
	a.rewriteRunning.Store(true)
	a.bgsaveRunning.Store(bgsave)
	a.rewriteStart.Store(time.Now().UnixMilli())
	a.rwDone = make(chan struct{})
	go a.runRewrite(a.rw, a.rwDone)
	return nil
}

// BackgroundRewrite starts a rewrite (taking the engine lock).
func (a *AOF) BackgroundRewrite(bgsave bool) error {
	a.e.Lock()
	defer a.e.Unlock()
	return a.startRewriteLocked(bgsave)
}

func (a *AOF) runRewrite(rw *rewrite, done chan struct{}) {
	start := time.Now()
	err := a.rewriteBody(rw)
	a.e.Lock()
	if a.rw == rw {
		a.rw = nil
	}
	a.rewriteRunning.Store(false)
	a.bgsaveRunning.Store(false)
	close(done)
	sched := a.rewriteScheduled.Swap(false)
	if sched && err == nil && !a.closed.Load() {
		a.startRewriteLocked(false)
	}
	a.e.Unlock()
	a.lastRewriteSecs.Store(int64(time.Since(start).Seconds()))
	if rw.bgsave {
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
	a.logf("Background AOF rewrite finished successfully (%.3f s; %d passes over touched keys, %d in the final step; longest lock hold %v; writes paused %v for the switch)",
		time.Since(start).Seconds(), rw.passes, rw.finalKeys, rw.maxHold.Round(time.Microsecond), rw.switchTime.Round(time.Microsecond))
}

// rewriteBody does the work of a background rewrite; see the package doc.
func (a *AOF) rewriteBody(rw *rewrite) (err error) {
	f, tmp, err := a.tmpBase()
	if err != nil {
		return err
	}
	size := int64(len(fileMagic))
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	flushOut := func(b []byte) error {
		if len(b) == 0 {
			return nil
		}
		n, err := f.Write(b)
		size += int64(n)
		return err
	}
	var spare, spareDef []byte
	// step runs fn under the lock, then writes what it produced.
	step := func(fn func(now int64)) error {
		a.e.Lock()
		t0 := time.Now()
		unlock := func() {
			rw.maxHold = max(rw.maxHold, time.Since(t0))
			a.e.Unlock()
		}
		if rw.cancel {
			unlock()
			return errors.New("rewrite canceled")
		}
		fn(engine.NowMs())
		if rw.err != nil {
			unlock()
			return rw.err
		}
		rw.base.end()
		out := rw.base.take(spare)
		defs := rw.takeDeferred()
		unlock()
		err := flushOut(out)
		spare = out[:0]
		if err == nil && len(defs) > 0 {
			extra := serializeDeferred(defs, spareDef)
			err = flushOut(extra)
			spareDef = extra[:0]
		}
		return err
	}
	// Phase 1: the names at T0 (tracking is on since the start), by
	// cursor steps of a few thousand keys; a key seen twice by the cursor
	// is listed once (duplicates would be dumped twice). The walk belongs
	// to the database's bookkeeping, which SWAPDB moves along with the
	// data; FLUSHDB/FLUSHALL replace it (an emptied database needs no walk).
	var walks []*rwDB
	step(func(int64) { walks = slices.Clone(rw.dbs) })
	for _, d := range walks {
		var cursor uint64
		var keys []string
		for {
			gone := false
			if err := step(func(int64) {
				i := slices.Index(rw.dbs, d)
				if i < 0 {
					gone = true
					return
				}
				db := a.e.DBs()[i]
				for n := len(keys) + 4096; len(keys) < n; {
					cursor = db.ScanKeys(cursor, func(k string) { keys = append(keys, k) })
					if cursor == 0 {
						break
					}
				}
			}); err != nil {
				return err
			}
			if gone {
				keys = nil
				break
			}
			if cursor == 0 {
				break
			}
		}
		slices.Sort(keys)
		keys = slices.Compact(keys)
		if err := step(func(int64) {
			d.keys = keys
			if i := slices.Index(rw.dbs, d); i >= 0 && len(keys) > 0 {
				rw.reserve(i, len(keys), a.e.DBs()[i].ExpiresLen())
			}
		}); err != nil {
			return err
		}
	}
	// Phase 2: untouched keys, in chunks.
	for {
		more := false
		if err := step(func(now int64) {
			n := 0
			for i, d := range rw.dbs {
				for d.next < len(d.keys) && n < chunkKeys && len(rw.base.buf) < chunkBytes {
					k := d.keys[d.next]
					d.next++
					n++
					if _, t := d.touched[k]; !t {
						a.dumpKey(rw, i, k, false, now)
					}
				}
				if d.next < len(d.keys) {
					more = true
					break
				}
				d.keys = nil
			}
		}); err != nil {
			return err
		}
		if !more {
			break
		}
	}
	// The bulk of the base reaches the disk before the passes, so the
	// fsync at the switch is short; syncing right before the final step
	// instead let thousands of keys be touched meanwhile (under load the
	// sync took hundreds of ms), all dumped under the lock.
	if err := f.Sync(); err != nil {
		return err
	}
	// Phase 3: touched keys, in passes, until few remain.
	for p := 0; p < maxPasses; p++ {
		rw.passes = p
		total := 0
		step(func(int64) {
			for _, d := range rw.dbs {
				total += len(d.touched)
			}
		})
		if total <= finalTouched {
			break
		}
		if err := step(func(int64) {
			for _, d := range rw.dbs {
				d.pass, d.pnext = d.pass[:0], 0
				for k := range d.touched {
					d.pass = append(d.pass, k)
				}
				d.touched = map[string]struct{}{}
			}
		}); err != nil {
			return err
		}
		for {
			more := false
			if err := step(func(now int64) {
				n := 0
				for i, d := range rw.dbs {
					for d.pnext < len(d.pass) && n < chunkKeys && len(rw.base.buf) < chunkBytes {
						k := d.pass[d.pnext]
						d.pnext++
						n++
						if _, t := d.touched[k]; !t {
							a.dumpKey(rw, i, k, true, now)
						}
					}
					if d.pnext < len(d.pass) {
						more = true
						break
					}
					d.pass = nil
				}
			}); err != nil {
				return err
			}
			if !more {
				break
			}
		}
	}
	// Phase 4 (T1): the last touched keys and the switch, atomically.
	a.e.Lock()
	t1 := time.Now()
	if rw.cancel {
		a.e.Unlock()
		return errors.New("rewrite canceled")
	}
	now := engine.NowMs()
	for i, d := range rw.dbs {
		rw.finalKeys += len(d.touched)
		for k := range d.touched {
			a.dumpKey(rw, i, k, true, now)
		}
	}
	if rw.err != nil {
		a.e.Unlock()
		return rw.err
	}
	rw.base.end()
	out := rw.base.take(nil)
	defs := rw.takeDeferred()
	a.rw = nil
	sw := a.beginSwitch()
	rw.maxHold = max(rw.maxHold, time.Since(t1))
	a.e.Unlock()
	if err := flushOut(out); err != nil {
		a.abortSwitch(false)
		return err
	}
	if err := flushOut(serializeDeferred(defs, spareDef)); err != nil {
		a.abortSwitch(false)
		return err
	}
	err = a.finishSwitch(sw, f, tmp, size)
	rw.switchTime = sw.paused
	return err
}

// switchState carries the switch from T1 (under the engine lock) to the
// file operations.
type switchState struct {
	mark   int64         // logical offset of T1 in the change stream
	paused time.Duration // how long writes waited for the switch
}

// beginSwitch marks T1 (engine lock held): changes up to here are in the
// new base, later ones belong to the new incremental file. Until the
// switch is complete they keep going to the old incremental file as well
// (so the old manifest stays complete and writers are acknowledged as
// usual) and are kept in memory (afterMark) for the new one: writers wait
// only for the switch itself, not for the base to be written and synced.
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
	a.dual, a.afterMark = true, nil
	a.mu.Unlock()
	return sw
}

// abortSwitch gives up a switch: changes keep going to the old file only.
func (a *AOF) abortSwitch(holdBusy bool) {
	if !a.enabled {
		return
	}
	a.mu.Lock()
	a.dual, a.afterMark = false, nil
	if holdBusy {
		a.busy = false
	}
	a.cond.Broadcast()
	a.mu.Unlock()
}

// finishSwitch completes a rewrite whose base is in f (tmp): it installs
// the base, a new incremental file holding the changes since T1, and the
// manifest naming them. Writers wait only while the new incremental file
// is written and the manifest replaced.
func (a *AOF) finishSwitch(sw *switchState, f *os.File, tmp string, size int64) (err error) {
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if err := f.Sync(); err != nil {
		f.Close()
		a.abortSwitch(false)
		return err
	}
	if err := f.Close(); err != nil {
		a.abortSwitch(false)
		return err
	}
	seq := a.man.maxSeq() + 1
	var after []byte
	var endNow int64
	if a.enabled {
		// Take the writer's place: no change is written anywhere until
		// the new files are installed.
		a.mu.Lock()
		for a.busy {
			a.cond.Wait()
		}
		a.busy = true
		after, endNow = a.afterMark, a.end
		a.mu.Unlock()
		t0 := time.Now()
		defer func() { sw.paused = time.Since(t0) }()
		if int64(len(after)) != endNow-sw.mark {
			a.abortSwitch(true)
			return fmt.Errorf("aof: %d bytes kept since the switch point, %d appended", len(after), endNow-sw.mark)
		}
	}
	baseName := a.baseName(seq)
	m := manifest{base: baseName, baseSeq: seq}
	var newf *os.File
	err = func() error {
		if err := os.Rename(tmp, filepath.Join(a.dir, baseName)); err != nil {
			return err
		}
		if a.enabled {
			incr := a.incrName(seq)
			if err := createWithMagic(filepath.Join(a.dir, incr)); err != nil {
				return err
			}
			m.incrs, m.seqs = []string{incr}, []int{seq}
			nf, err := os.OpenFile(filepath.Join(a.dir, incr), os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				return err
			}
			newf = nf
			if len(after) > 0 {
				if _, err := nf.Write(after); err != nil {
					return err
				}
			}
			if err := fdatasync(nf); err != nil {
				return err
			}
		}
		return a.writeManifest(m)
	}()
	if err != nil {
		if newf != nil {
			newf.Close()
		}
		os.Remove(filepath.Join(a.dir, baseName))
		if len(m.incrs) > 0 {
			os.Remove(filepath.Join(a.dir, m.incrs[0]))
		}
		a.abortSwitch(a.enabled)
		return err
	}
	old := a.man
	a.man = m
	if a.enabled {
		a.fileRW.Lock()
		a.mu.Lock()
		oldf := a.file
		a.file = newf
		a.fileSize = int64(len(fileMagic)) + int64(len(after))
		// Everything up to endNow is in the base or the new file (synced);
		// what was appended since is in buf and afterMark alike: buf
		// keeps only that part.
		a.buf = append(a.buf[:0], a.afterMark[len(after):]...)
		a.written, a.synced = endNow, endNow
		a.dual, a.afterMark = false, nil
		a.busy = false
		a.updPending()
		a.cond.Broadcast()
		a.mu.Unlock()
		a.fileRW.Unlock()
		oldf.Close()
	}
	a.baseSize.Store(size)
	a.incrSize.Store(int64(len(fileMagic)) + int64(len(after)))
	a.rewriteBaseSize.Store(size)
	a.lastSave.Store(time.Now().Unix())
	for _, n := range append([]string{old.base}, old.incrs...) {
		if n != "" && n != m.base && (len(m.incrs) == 0 || n != m.incrs[0]) {
			os.Remove(filepath.Join(a.dir, n))
		}
	}
	return nil
}

// saveLocked writes a snapshot synchronously (engine lock held): SAVE,
// shutdown, DEBUG RELOAD.
func (a *AOF) saveLocked() error {
	if a.rw != nil || a.rewriteRunning.Load() {
		return errInProgress
	}
	f, tmp, err := a.tmpBase()
	if err != nil {
		return err
	}
	rw := newRewrite(len(a.e.DBs()), false)
	a.e.RewriteState(rw.emit)
	size := int64(len(fileMagic))
	now := engine.NowMs()
	for i, db := range a.e.DBs() {
		if db.Len() > 0 {
			rw.reserve(i, db.Len(), db.ExpiresLen())
		}
		db.Each(now, func(k string, v engine.Value, at int64) bool {
			a.emitValue(rw, i, k, v, at)
			if len(rw.base.buf) >= chunkBytes && err == nil {
				rw.base.end()
				var n int
				n, err = f.Write(rw.base.take(nil))
				size += int64(n)
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
