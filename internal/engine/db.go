package engine

import (
	"strings"
	"unsafe"

	"github.com/ordo-db/ordo/internal/ds/dict"
)

// Value is what a key holds. A string value lives in s with o nil, so a
// plain string key costs no extra heap object for its header; every other
// type is a pointer in o (*Hash, *Set, *List, *ZSet, *JSON ...).
type Value struct {
	s string
	o any
}

// StringValue makes a string value; s must not alias a request buffer.
func StringValue(s string) Value { return Value{s: s} }

// argValue makes a string value of b, an argument of the running command,
// for storing into the keyspace with Set, SetKey or Add right away. The
// keyspace's Dict copies a string shorter than dict.BigValue into its
// record and keeps nothing of what it was given, so such a value may view
// b's bytes (a copy here would be an allocation per SET for nothing); a
// longer one is kept as passed and gets its own copy.
func argValue(b []byte) Value {
	if len(b) < dict.BigValue {
		return Value{s: view(b)}
	}
	return Value{s: string(b)}
}

// ObjectValue makes a value of a non-string type.
func ObjectValue(o any) Value { return Value{o: o} }

// rawString is the o of a string value whose encoding OBJECT ENCODING
// must report whatever its contents say (stringEncoding): raw for one
// written in place by SETBIT, BITFIELD, BITOP, APPEND or SETRANGE, as
// Redis's dbUnshareStringValue leaves it; embstr for INCRBYFLOAT's result,
// never an integer; an integer of its own (not shared) for a COPY. Such a
// value is a string everywhere (isString, Obj returns nil). A one-byte
// value in an interface costs no allocation.
type rawString struct{ enc strEncoding }

// strEncoding is a string's encoding where its content does not say it.
type strEncoding uint8

const (
	encRaw         strEncoding = iota // "raw"
	encEmbstr                         // "embstr"
	encIntUnshared                    // "int", not one of the shared integers
	// encOwned is "raw" too, for a buffer private to its key that the
	// HLL commands write in place (cmd_hll.go, ownedHLL). Whatever keeps
	// such a value beyond the command that read it must copy its bytes
	// (COPY does: copyValue) or drop the mark.
	encOwned
)

func (e strEncoding) String() string {
	switch e {
	case encEmbstr:
		return "embstr"
	case encIntUnshared:
		return "int"
	}
	return "raw"
}

// rawStringValue makes a raw-encoded string value.
func rawStringValue(s string) Value { return Value{s: s, o: rawString{encRaw}} }

// stringValueAs makes a string value encoded as enc (embstr or raw by its
// length for encEmbstr, as Redis's createStringObject), marked only where
// its content would say otherwise.
func stringValueAs(s string, enc strEncoding) Value {
	if enc == encEmbstr && len(s) > 44 {
		enc = encRaw
	}
	if stringEncoding(s) == enc.String() {
		return StringValue(s)
	}
	return Value{s: s, o: rawString{enc}}
}

// isString reports whether v is a string value.
func (v Value) isString() bool {
	if v.o == nil {
		return true
	}
	_, ok := v.o.(rawString)
	return ok
}

// Str returns the string of a string value.
func (v Value) Str() string { return v.s }

// Obj returns the object of a non-string value (nil for strings).
func (v Value) Obj() any {
	if _, ok := v.o.(rawString); ok {
		return nil
	}
	return v.o
}

// Typed is implemented by every non-string value type (*Hash, *Set,
// *List, *ZSet, JSON ...). It is what the keyspace commands (TYPE, COPY,
// OBJECT, MEMORY USAGE, SCAN TYPE) and persistence need from a value.
type Typed interface {
	TypeName() string // as TYPE replies: "hash", "list", ...
	Encoding() string // as OBJECT ENCODING replies
	Len() int         // number of elements
	// Copy returns a deep copy (COPY, and the rewrite's consistent view).
	Copy() Typed
	// Rewrite emits the commands that recreate the value at key, in
	// batches of a bounded number of elements (AOF rewrite, snapshots).
	Rewrite(key string, emit func(args [][]byte))
	// MemoryUsage estimates the bytes the value occupies (MEMORY USAGE).
	MemoryUsage() int64
}

// TypeName is the reply of TYPE for v.
func (v Value) TypeName() string {
	if v.isString() {
		return "string"
	}
	if t, ok := v.o.(Typed); ok {
		return t.TypeName()
	}
	return "none"
}

// DB is one of the numbered databases.
type DB struct {
	ID      int
	e       *Engine // for the snapshots' hooks (snapshot.go)
	keys    *dict.Dict[Value]
	expires *dict.Dict[int64] // absolute unix ms
	watched map[string][]*watchKey

	expireCursor uint64
	used         int64 // bytes of this database's keys and values (memory.go)
}

func newDB(e *Engine, id int) *DB {
	db := &DB{ID: id, e: e, keys: dict.New[Value](e.acct), expires: dict.New[int64](e.acct), watched: map[string][]*watchKey{}}
	db.keys.EnableMeta() // each key's access clock (lru.go)
	return db
}

// Len is the number of keys (including expired ones not yet collected).
func (db *DB) Len() int { return db.keys.Len() }

// ExpiresLen is the number of keys with a TTL.
func (db *DB) ExpiresLen() int { return db.expires.Len() }

// view returns a string aliasing b without copying, for lookups only: it
// must never be stored.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// Lookup returns the live value at key, deleting it first if it expired.
// It counts as an access to the key (lru.go).
func (c *Ctx) Lookup(key []byte) (Value, bool) {
	return c.lookupNotify(key, c.Client == nil || !c.Client.noTouch || c.Cmd != nil && c.Cmd.Name == "touch")
}

// LookupNoTouch is Lookup for commands that only inspect a key (TYPE,
// EXISTS, TTL, OBJECT ...): not an access (Redis's LOOKUP_NOTOUCH).
func (c *Ctx) LookupNoTouch(key []byte) (Value, bool) { return c.lookupNotify(key, false) }

// lookupNotify looks key up and reports a miss (the keymiss event; NOTOUCH
// is not NONOTIFY: a miss is a miss either way).
func (c *Ctx) lookupNotify(key []byte, touch bool) (Value, bool) {
	v, ok := c.DB.lookup(c, view(key), touch)
	if c.readLookup(key) {
		// INFO keyspace_hits/misses count read lookups (Redis's
		// lookupKeyRead), and a miss is the keymiss notification.
		if ok {
			c.E.Stats.KeyspaceHits.Add(1)
		} else {
			c.E.Stats.KeyspaceMisses.Add(1)
			if c.E.nkFlags&nkKeyMiss != 0 {
				c.keyMiss(key)
			}
		}
	}
	return v, ok
}

func (db *DB) lookup(c *Ctx, key string, touch bool) (Value, bool) {
	if len(c.E.snaps) > 0 && (c.Cmd == nil || c.Cmd.Flags&(FlagWrite|FlagMayReplicate) != 0) {
		c.E.snapCapture(db, key) // a write command may change it next
	}
	v, m, ok := db.keys.GetMeta(key)
	if !ok {
		return v, false
	}
	if db.expires.Len() > 0 {
		// Expired once its millisecond has passed (Redis's keyIsExpired:
		// now > when); at the millisecond itself the key is still there.
		if at, has := db.expires.Get(key); has && at < c.Now {
			// A replica deletes nothing itself: the key is absent for
			// its clients and live for its master's stream until the
			// master's DEL arrives (Redis 7.0's expireIfNeeded).
			if c.E.replica.Load() {
				return v, c.Client != nil && c.Client.Kind == KindMaster
			}
			if c.E.pausedNow(c.Now) {
				return Value{}, false // missing, but not deleted during CLIENT PAUSE
			}
			db.expireKey(c.E, key)
			return Value{}, false
		}
	}
	if touch && m != nil {
		*m = c.touchMeta(*m)
	}
	return v, true
}

// expireKey deletes an expired key and logs the deletion.
func (db *DB) expireKey(e *Engine, key string) {
	if len(e.snaps) > 0 {
		e.snapCapture(db, key)
	}
	k := strings.Clone(key)
	if old, ok := db.keys.Get(k); ok {
		db.used -= countedBytes(k, old)
	}
	db.keys.Delete(k)
	db.expires.Delete(k)
	e.Stats.ExpiredKeys.Add(1)
	db.touchWatched(k)
	if len(e.observers) > 0 {
		e.notify(KeyEvent{DB: db.ID, Key: k, Event: "expired"})
	}
	if e.Propagate != nil {
		e.Propagate(db.ID, [][]byte{[]byte("DEL"), []byte(k)})
	}
	e.dirty++
}

// Exists reports whether key is live.
func (c *Ctx) Exists(key []byte) bool {
	_, ok := c.Lookup(key)
	return ok
}

// SetKey is Redis's setKey for commands that store a value without
// having looked the key up (MSET, GETSET, the *STORE commands): the
// lookup counts as an access to an existing key (lru.go), then Set.
func (c *Ctx) SetKey(key []byte, v Value) {
	c.Lookup(key)
	c.Set(key, v, false)
}

// Set stores v at key, keeping an existing TTL only if keepTTL.
func (c *Ctx) Set(key []byte, v Value, keepTTL bool) { c.setAs(key, v, keepTTL, c.event()) }

// setAs is Set reporting the change as event (SORT ... STORE reports
// "sortstore", as Redis notifies).
func (c *Ctx) setAs(key []byte, v Value, keepTTL bool, event string) {
	k := view(key)
	db := c.DB
	if len(c.E.snaps) > 0 {
		c.E.snapCapture(db, k)
	}
	var m *uint32
	var isNew bool
	if len(c.E.observers) == 0 {
		// One lookup for the old value and the store (no "new" event to
		// report before the key exists).
		var old Value
		var had bool
		old, had, m = db.keys.Swap(k, v)
		isNew = !had
		if had {
			db.used -= countedBytes(k, old)
			if _, is := old.o.(*Stream); is {
				c.Ready(key) // blocked XREADGROUP clients get UNBLOCKED (Redis's dbOverwrite)
			}
		}
	} else {
		if old, ok := db.keys.Get(k); ok {
			db.used -= countedBytes(k, old)
			if _, is := old.o.(*Stream); is {
				c.Ready(key)
			}
		} else {
			c.notifyOnce(KeyEvent{DB: db.ID, Key: k, Event: "new"})
		}
		m, isNew = db.keys.SetMeta(k, v)
	}
	switch {
	case m == nil:
	case isNew:
		*m = c.newMeta()
	case !c.E.Config.LFU():
		// A new value is created now; under LFU Redis's dbOverwrite keeps
		// the old value's counter.
		*m = lruClock(c.Now)
	}
	db.used += keyBytes(k, v)
	if !keepTTL && db.expires.Len() > 0 {
		db.expires.Delete(k)
	}
	c.changedAs(key, event)
}

// Add stores a new value at a key known to be absent.
func (c *Ctx) Add(key []byte, v Value) {
	if len(c.E.snaps) > 0 {
		c.E.snapCapture(c.DB, view(key))
	}
	if len(c.E.observers) > 0 {
		c.notifyOnce(KeyEvent{DB: c.DB.ID, Key: view(key), Event: "new"})
	}
	if m, _ := c.DB.keys.SetMeta(view(key), v); m != nil {
		*m = c.newMeta()
	}
	c.DB.used += keyBytes(view(key), v)
	c.changed(key)
	if !v.isString() {
		// A new list or sorted set (RENAME, RESTORE, SORT STORE ...)
		// wakes clients blocked on the key, as Redis's dbAdd does.
		c.Ready(key)
	}
}

// Delete removes key and reports whether it existed (expired keys count as absent).
func (c *Ctx) Delete(key []byte) bool {
	old, ok := c.DB.lookup(c, view(key), false)
	if !ok {
		return false
	}
	k := view(key)
	if _, is := old.o.(*Stream); is {
		c.Ready(key) // blocked XREADGROUP clients get UNBLOCKED (Redis's dbGenericDelete)
	}
	c.DB.used -= countedBytes(k, old)
	c.DB.keys.Delete(k)
	if c.DB.expires.Len() > 0 {
		c.DB.expires.Delete(k)
	}
	c.E.shrinkKeys(c.DB)
	if len(c.DB.watched) > 0 {
		c.DB.touchWatched(k)
	}
	if len(c.E.observers) > 0 {
		c.notifyOnce(KeyEvent{DB: c.DB.ID, Key: k, Event: "del"})
	}
	return true
}

// Removed finishes a command that took `removed` elements out of the
// collection at key, leaving `left`: an empty collection is deleted (Redis
// never keeps empty keys), a changed one invalidates WATCHes, and each
// removal counts as a change for propagation.
func (c *Ctx) Removed(key []byte, removed, left int) {
	if removed == 0 {
		return
	}
	if left == 0 {
		c.Emptied(key)
	} else {
		c.Modified(key)
	}
	c.Dirty(removed)
}

// DeleteIfEmpty removes key when a collection value became empty.
func (c *Ctx) DeleteIfEmpty(key []byte, n int) {
	if n == 0 {
		c.Emptied(key)
	}
}

// Emptied deletes the key of a collection the current command emptied:
// the command's own event comes first, then "del", as Redis notifies
// (LPOP of the last element: "lpop", then "del").
func (c *Ctx) Emptied(key []byte) {
	c.changed(key)
	c.Delete(key)
}

// Modified must follow every change to the value at key: it invalidates
// WATCHes and wakes blocked clients. (Redis's signalModifiedKey.)
func (c *Ctx) Modified(key []byte) {
	c.recount(key)
	c.changed(key)
}

// recount counts the new size of the collection at key after a change in
// place (Modified), or a change of encoding only (SORT converting a small
// sorted set, as Redis's zsetConvert), which is no change for WATCH.
func (c *Ctx) recount(key []byte) {
	if v, ok := c.DB.keys.Get(view(key)); ok {
		if a, ok := v.o.(accounted); ok {
			p := a.countedBytes()
			n := keyMemoryUsage(view(key), v)
			c.DB.used += n - *p
			*p = n
		}
	}
}

// changed invalidates WATCHes and tells the observers that key changed.
func (c *Ctx) changed(key []byte) { c.changedAs(key, c.event()) }

func (c *Ctx) changedAs(key []byte, event string) {
	if len(c.DB.watched) > 0 {
		c.DB.touchWatched(view(key))
	}
	if len(c.E.observers) > 0 {
		c.notifyOnce(KeyEvent{DB: c.DB.ID, Key: view(key), Event: event})
	}
}

// Ready marks key as having received elements, so clients blocked on it
// are served after the current command. (Redis's signalKeyAsReady.)
func (c *Ctx) Ready(key []byte) {
	e := c.E
	if len(e.blocked) == 0 {
		return
	}
	bk := blockKey{c.DB.ID, view(key)}
	if _, ok := e.blocked[bk]; !ok || e.readySet[bk] {
		return
	}
	bk.key = string(key)
	e.readySet[bk] = true
	e.readyKeys = append(e.readyKeys, bk)
}

// TTL returns the absolute expiry of key in unix ms, or -1.
func (c *Ctx) TTL(key []byte) int64 {
	if c.DB.expires.Len() == 0 {
		return -1
	}
	if at, ok := c.DB.expires.Get(view(key)); ok {
		return at
	}
	return -1
}

// SetExpire sets the absolute expiry of an existing key (unix ms).
func (c *Ctx) SetExpire(key []byte, at int64) {
	if len(c.E.snaps) > 0 {
		c.E.snapCapture(c.DB, view(key))
	}
	c.DB.expires.Set(view(key), at)
	c.changedAs(key, "expire")
}

// Persist removes the expiry of key and reports whether it had one.
func (c *Ctx) Persist(key []byte) bool {
	if c.DB.expires.Len() == 0 {
		return false
	}
	if len(c.E.snaps) > 0 {
		c.E.snapCapture(c.DB, view(key))
	}
	_, ok := c.DB.expires.Delete(view(key))
	if ok {
		c.DB.expires.ShrinkIfNeeded()
		c.changedAs(key, "persist")
	}
	return ok
}

// activeExpireCycle samples up to n keys with a TTL and deletes the
// expired ones; it returns how many it deleted and sampled.
func (db *DB) activeExpireCycle(e *Engine, n int) (expired, sampled int) {
	now := NowMs()
	var dead []string
	for sampled < n {
		db.expireCursor = db.expires.Scan(db.expireCursor, func(k string, at int64) {
			sampled++
			if at < now { // as lookup: now > when
				dead = append(dead, k)
			}
		})
		if db.expireCursor == 0 {
			break
		}
	}
	for _, k := range dead {
		db.expireKey(e, k)
	}
	if len(dead) > 0 {
		e.shrinkKeys(db)
		db.expires.ShrinkIfNeeded()
	}
	return len(dead), sampled
}

// Each calls fn for every live key of db (for persistence snapshots).
func (db *DB) Each(now int64, fn func(key string, v Value, expireAt int64) bool) {
	db.keys.Each(func(k string, v Value) bool {
		at := int64(-1)
		if db.expires.Len() > 0 {
			if x, ok := db.expires.Get(k); ok {
				if x < now {
					return true
				}
				at = x
			}
		}
		return fn(k, v, at)
	})
}

// ScanKeys calls fn for the keys of one step of a SCAN-like cursor walk
// (start with 0; 0 is returned when the walk is complete). Every key
// present for the whole walk is seen at least once, some maybe twice
// (persistence: the background rewrite collects names in small steps).
func (db *DB) ScanKeys(cursor uint64, fn func(key string)) uint64 {
	return db.keys.Scan(cursor, func(k string, _ Value) { fn(k) })
}

// Flush empties db, invalidating every WATCH on it.
func (db *DB) Flush() int {
	n := db.keys.Len()
	db.touchWatchedExisting(nil, NowMs())
	db.clearDicts()
	db.used = 0
	return n
}

// clearDicts empties the keys and expires, or, when a running snapshot
// still walks them, hands them to it and starts fresh ones (snapshot.go).
func (db *DB) clearDicts() {
	if db.e != nil && len(db.e.snaps) > 0 && db.e.snapHolds(db) {
		db.keys = dict.New[Value](db.e.acct)
		db.keys.EnableMeta()
		db.expires = dict.New[int64](db.e.acct)
		return
	}
	db.keys.Clear()
	db.expires.Clear()
}

// ---- WATCH ----

// touchWatched marks the clients WATCHing key as dirty (Redis 7.0's
// touchWatchedKey, including its treatment of keys that were already
// expired when WATCHed: their deletion is no change, and the walk stops
// at one that still exists). A dirty client stops watching anything.
func (db *DB) touchWatched(key string) {
	list := db.watched[key]
	if len(list) == 0 {
		return
	}
	var dirty []*Client
	for _, wk := range list {
		if wk.expired {
			if _, ok := db.keys.Get(key); !ok {
				wk.expired = false
				continue
			}
			break
		}
		dirty = append(dirty, wk.cl)
	}
	for _, cl := range dirty {
		cl.unwatchAll()
		cl.dirtyCAS = true
	}
}

func (e *Engine) watch(c *Ctx, key []byte) {
	cl := c.Client
	for _, w := range cl.watched {
		if w.db == c.DB && w.key == view(key) {
			return
		}
	}
	k := string(key)
	wk := &watchKey{db: c.DB, key: k, cl: cl, expired: c.DB.expiredNow(k, c.Now)}
	cl.watched = append(cl.watched, wk)
	c.DB.watched[k] = append(c.DB.watched[k], wk)
}

// unwatchAll forgets the client's WATCHes and clears its dirty flag.
func (e *Engine) unwatchAll(cl *Client) {
	cl.unwatchAll()
	cl.dirtyCAS = false
}

// unwatchAll removes the client's WATCHes (the dirty flag is the
// caller's business).
func (cl *Client) unwatchAll() {
	for _, w := range cl.watched {
		db := w.db
		list := db.watched[w.key]
		for i, x := range list {
			if x == w {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(db.watched, w.key)
		} else {
			db.watched[w.key] = list
		}
	}
	cl.watched = nil
}

// ---- argument helpers shared by the command families ----

// ParseInt parses an integer argument as Redis's string2ll does.
func ParseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if b[0] == '+' || (b[0] == '0' && len(b) > 1) || (b[0] == '-' && (len(b) == 1 || b[1] == '0')) {
		return 0, false
	}
	// By hand rather than strconv.ParseInt, whose error for a non-number
	// allocates: this runs on every stored string (its encoding decides
	// its counted size), and most strings are not numbers.
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	var u uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if u > (1<<63)/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	switch {
	case neg && u <= 1<<63:
		return -int64(u-1) - 1, true
	case !neg && u < 1<<63:
		return int64(u), true
	}
	return 0, false
}

// IntArg parses args[i] as an integer, replying with Redis's error if it is not one.
func (c *Ctx) IntArg(i int) (int64, bool) {
	n, ok := ParseInt(c.Args[i])
	if !ok {
		c.W.Error(ErrNotInteger)
	}
	return n, ok
}

// Str copies args[i] into a string that may be stored.
func (c *Ctx) Str(i int) string { return string(c.Args[i]) }

// ArgIs reports whether args[i] equals s, ignoring ASCII case.
func (c *Ctx) ArgIs(i int, s string) bool { return EqualFold(c.Args[i], s) }

// EqualFold compares ASCII case-insensitively without allocating.
func EqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		x, y := b[i], s[i]
		if x >= 'A' && x <= 'Z' {
			x += 'a' - 'A'
		}
		if y >= 'A' && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// Get returns the object of type T at key. If the key is missing, obj is
// the zero T and ok is true; if it holds another type, a WRONGTYPE error
// is written and ok is false.
func Get[T any](c *Ctx, key []byte) (obj T, ok bool) {
	v, found := c.Lookup(key)
	if !found {
		return obj, true
	}
	t, is := v.o.(T)
	if !is {
		c.W.Error(ErrWrongType)
		return obj, false
	}
	return t, true
}

// GetString returns the string at key; ok is false after a WRONGTYPE reply.
func GetString(c *Ctx, key []byte) (s string, found, ok bool) {
	v, found := c.Lookup(key)
	if !found {
		return "", false, true
	}
	if !v.isString() {
		c.W.Error(ErrWrongType)
		return "", true, false
	}
	return v.s, true, true
}
