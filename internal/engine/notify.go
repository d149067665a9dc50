package engine

import (
	"slices"
	"strconv"
)

// The keyspace-change hook: one call per changed key, with the event,
// inside the command's atomic step. Keyspace notifications, client-side
// caching and engine-maintained indexes are built on it; the engine
// itself keeps WATCH and blocking wake-ups on their own paths.

// KeyEvent is one change to one key.
type KeyEvent struct {
	DB int
	// Key is the changed key. It is only valid during the call: an
	// observer that keeps it must copy it. Empty for whole-database
	// events.
	Key string
	// Event names the change with Redis 7.0's keyspace-notification
	// event names ("set", "incrby", "hset", "lpush", "rpop", "zincr",
	// "rename_from", "rename_to", "move_from", "move_to", "copy_to", ...;
	// eventNames maps the commands whose event is not their own name):
	// "new" when a key is created (before the command's event), "del" for
	// a deletion, "expire"/"persist" for TTL changes, "expired" for a key
	// removed by expiry, and three events Redis does not notify: "flushdb"
	// when database DB was emptied (Key is empty; FLUSHALL reports one per
	// database), "swapdb" when DB and Other were swapped, and "loaded" for
	// each key of a dataset loaded whole (a replica's full sync).
	Event string
	// Other is SWAPDB's second database.
	Other int
}

// KeyObserver receives the engine's key events. KeyChanged runs with the
// engine lock held, after the change is made and before the command's
// reply is sent or its effects are logged; it must not call back into the
// engine nor block.
type KeyObserver interface {
	KeyChanged(ev KeyEvent)
}

// Observe adds o to the observers of every key change. Call it before the
// engine serves, or with the lock held.
func (e *Engine) Observe(o KeyObserver) { e.observers = append(e.observers, o) }

// notify reports an event to the observers.
func (e *Engine) notify(ev KeyEvent) {
	for _, o := range e.observers {
		o.KeyChanged(ev)
	}
}

// notifyOnce reports ev unless the current command already reported the
// same event for the same key (a command that creates a key and then
// fills it changes it once, as Redis notifies once).
func (c *Ctx) notifyOnce(ev KeyEvent) {
	if c.quiet && ev.Event != "new" {
		return
	}
	if c.lastEv.Event == ev.Event && c.lastEv.DB == ev.DB && c.lastEv.Key == ev.Key && c.lastEv.Event != "" {
		return
	}
	c.E.notify(ev)
	c.lastEv = ev
	c.lastEv.Key = string(ev.Key) // ev.Key may alias a request buffer reused later
}

// event is the name reported for the current command's changes: Redis's
// keyspace-notification event name for the command (eventNames), or the
// command's own name, or the one a handler set with SetEvent.
func (c *Ctx) event() string {
	if c.evName != "" {
		return c.evName
	}
	if c.Cmd == nil {
		return ""
	}
	if c.Cmd.event == "" { // a Command not made by the table (tests)
		if ev, ok := eventNames[c.Cmd.Name]; ok {
			return ev
		}
		return c.Cmd.Name
	}
	return c.Cmd.event
}

// Notify reports event for key in the current database, for handlers that
// report their changes themselves (see quietly).
func (c *Ctx) Notify(key []byte, event string) {
	if len(c.E.observers) > 0 {
		c.E.notify(KeyEvent{DB: c.DB.ID, Key: view(key), Event: event})
	}
}

// quietly runs fn without reporting its key changes (other than "new",
// which Redis reports from dbAdd whatever the command): RENAME, MOVE and
// COPY delete, add and set expiries, but Redis notifies only rename_from
// and rename_to, move_from and move_to, copy_to, which the handler
// reports after.
func (c *Ctx) quietly(fn func()) {
	c.quiet = true
	defer func() { c.quiet = false }()
	fn()
}

// SetEvent names the current command's following changes (for commands
// whose event depends on their arguments: ZADD INCR is "zincr", LMPOP
// RIGHT is "rpop" ...); "" restores the default.
func (c *Ctx) SetEvent(name string) { c.evName = name }

// eventNames are Redis 7.0's event names for the commands whose event is
// not their own name (t_string.c, t_list.c, t_hash.c, t_zset.c ...).
var eventNames = map[string]string{
	"setex": "set", "psetex": "set", "setnx": "set", "getset": "set",
	"mset": "set", "msetnx": "set",
	"incr": "incrby", "decr": "incrby", "decrby": "incrby",
	"hmset": "hset", "hsetnx": "hset",
	"lpushx": "lpush", "rpushx": "rpush",
	"blpop": "lpop", "brpop": "rpop",
	"zincrby": "zincr", "bzpopmin": "zpopmin", "bzpopmax": "zpopmax",
	"geoadd": "zadd", "georadius": "georadiusstore", "georadiusbymember": "georadiusstore",
	"unlink": "del", "getdel": "del",
	"pexpire": "expire", "expireat": "expire", "pexpireat": "expire",
	"bitfield": "setbit", "pfmerge": "pfadd",
}

// eventClass is the notify-keyspace-events class of a Redis event name
// (0: not a keyspace notification, as flushdb and swapdb).
func eventClass(ev string) int {
	switch ev {
	case "del", "expire", "persist", "rename_from", "rename_to", "move_from",
		"move_to", "copy_to", "restore":
		return nkGeneric
	case "set", "setrange", "incrby", "decrby", "incrbyfloat", "append", "setbit", "pfadd":
		return nkString
	case "expired":
		return nkExpired
	case "evicted":
		return nkEvicted
	case "new":
		return nkNew
	case "keymiss":
		return nkKeyMiss
	case "flushdb", "swapdb", "loaded":
		return 0
	}
	switch {
	case ev == "sortstore" || ev == "linsert" || ev == "lset" || ev == "lrem" || ev == "ltrim" ||
		ev == "lpush" || ev == "rpush" || ev == "lpop" || ev == "rpop":
		return nkList
	case len(ev) > 0 && ev[0] == 's':
		return nkSet
	case len(ev) > 0 && ev[0] == 'h':
		return nkHash
	case len(ev) > 0 && (ev[0] == 'z' || ev == "georadiusstore" || ev == "geosearchstore"):
		return nkZset
	case len(ev) > 0 && ev[0] == 'x':
		return nkStream
	case len(ev) > 0 && ev[0] == 'j': // JSON.* (a module's events in Redis)
		return nkModule
	}
	return nkGeneric
}

// keyspaceNotifier publishes key events as Redis's keyspace
// notifications (notify.c): "__keyspace@<db>__:<key>" carrying the event
// and "__keyevent@<db>__:<event>" carrying the key, for the classes
// notify-keyspace-events enables. It is one of the engine's observers
// while that parameter is not empty.
type keyspaceNotifier struct{ e *Engine }

func (n keyspaceNotifier) KeyChanged(ev KeyEvent) {
	e := n.e
	flags := e.nkFlags
	cls := eventClass(ev.Event)
	if flags&cls == 0 {
		return
	}
	if len(e.pubsub.channels) == 0 && len(e.pubsub.patterns) == 0 {
		return
	}
	buf := e.nkBuf[:0]
	db := strconv.Itoa(ev.DB)
	if flags&nkKeyspace != 0 {
		buf = append(buf, "__keyspace@"...)
		buf = append(buf, db...)
		buf = append(buf, "__:"...)
		buf = append(buf, ev.Key...)
		e.Publish(buf, []byte(ev.Event))
	}
	if flags&nkKeyevent != 0 {
		buf = append(buf[:0], "__keyevent@"...)
		buf = append(buf, db...)
		buf = append(buf, "__:"...)
		buf = append(buf, ev.Event...)
		e.Publish(buf, []byte(ev.Key))
	}
	e.nkBuf = buf
}

// keyMiss publishes the "keymiss" notification (class m) of a read
// command's lookup of a missing key, as Redis's lookupKeyRead does. It is
// a notification only: observers are not told, nothing changed.
func (c *Ctx) keyMiss(key []byte) {
	switch c.Cmd.Name {
	case "object|encoding", "object|freq", "object|idletime", "object|refcount":
		return // LOOKUP_NONOTIFY
	}
	keyspaceNotifier{c.E}.KeyChanged(KeyEvent{DB: c.DB.ID, Key: view(key), Event: "keymiss"})
}

// readLookup reports whether the current command's lookup of key is
// Redis's lookupKeyRead (counted in keyspace_hits/misses, a miss notified
// as keymiss): those of read-only commands, and of the writes that read
// so (GETDEL, GETEX, GETSET, SET GET, PFMERGE, the sources of the store
// commands).
func (c *Ctx) readLookup(key []byte) bool {
	if c.Cmd == nil || c.quiet || c.noStats {
		return false
	}
	if c.readStats || c.Cmd.Has(FlagReadonly) {
		return true
	}
	switch c.Cmd.Name {
	case "getdel", "getex", "getset", "pfmerge", "xack", "xclaim", "xautoclaim", "xreadgroup":
		return true
	case "sunionstore", "sinterstore", "sdiffstore", "zunionstore", "zinterstore", "zdiffstore",
		"zrangestore", "geosearchstore":
		return string(key) != string(c.Args[1])
	case "bitop":
		return len(c.Args) > 2 && string(key) != string(c.Args[2])
	case "copy", "sort", "georadius", "georadiusbymember":
		return string(key) == string(c.Args[1])
	}
	return false
}

// setKeyspaceEvents applies a (normalised) notify-keyspace-events value.
// Under the lock, or before the engine serves.
func (e *Engine) setKeyspaceEvents(v string) {
	flags := parseKeyspaceEvents(v)
	on := flags&(nkKeyspace|nkKeyevent) != 0 && flags&^(nkKeyspace|nkKeyevent) != 0
	e.nkFlags = flags
	i := slices.IndexFunc(e.observers, func(o KeyObserver) bool { _, ok := o.(keyspaceNotifier); return ok })
	switch {
	case on && i < 0:
		e.observers = append(e.observers, keyspaceNotifier{e})
	case !on && i >= 0:
		e.observers = slices.Delete(e.observers, i, i+1)
	}
}
