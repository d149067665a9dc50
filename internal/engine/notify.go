package engine

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
	// Event names the change: the command's name for a write ("set",
	// "hset", "lpush", ...), "del" for a deletion, "expired" for a key
	// removed by expiry, "flushdb" when database DB was emptied (Key is
	// empty; FLUSHALL reports one per database), "swapdb" when DB and
	// Other were swapped.
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
	if c.lastEv.Event == ev.Event && c.lastEv.DB == ev.DB && c.lastEv.Key == ev.Key && c.lastEv.Event != "" {
		return
	}
	c.E.notify(ev)
	c.lastEv = ev
	c.lastEv.Key = string(ev.Key) // ev.Key may alias a request buffer reused later
}

// event is the name reported for the current command's changes.
func (c *Ctx) event() string {
	if c.Cmd == nil {
		return ""
	}
	return c.Cmd.Name
}
