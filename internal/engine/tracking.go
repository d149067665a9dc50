package engine

import (
	"slices"
	"strconv"
	"strings"
)

// Client-side caching, as Redis 7.0's tracking.c: CLIENT TRACKING,
// CACHING, GETREDIR and TRACKINGINFO, and the invalidation messages.
//
// The tracking table maps each key a tracking client read (in the
// default mode) to the IDs of the clients that may cache it; it is the
// engine's own and, as Redis's, not per database. A change to a key
// (every write path reaches it through the keyspace-change hook: commands,
// MULTI/EXEC, scripts, expiry, eviction) removes the key's entry and sends
// each client in it an invalidation: a RESP3 push (">2 invalidate
// [key]"), or for a client that redirects (REDIRECT id), a push to the
// other client if it speaks RESP3, else a Pub/Sub message on
// "__redis__:invalidate" if it is subscribed. Messages go through the
// receiver's Outbox (outbox.go), which every tracking network client
// has, so they are ordered with its replies. A client's own changes are
// announced after the reply of the command that made them (Redis's
// tracking_pending_keys). In BCAST mode nothing is remembered: the
// changed keys matching each registered prefix are collected and sent,
// one message per prefix, when the engine lock is released (Redis sends
// them in beforeSleep, once per event-loop turn). A client sees them in
// the same place as with Redis: after the replies of the commands that
// changed the keys (a pipeline's replies, then one message with all its
// keys; a blocked command's reply before the invalidation its serving
// caused; TestTrackingBcastBatches). What differs is only how keys changed
// by different clients are grouped: Redis merges those of every client
// served in one turn, Ordo sends each client's batch apart, and which
// requests share a turn is up to the network, not to a client. FLUSHDB and FLUSHALL
// send every tracking client a null ("all keys").
//
// The table is bounded by tracking-table-max-keys: before each command,
// entries over the limit are dropped, their clients invalidated as if the
// keys had changed. An entry holds its first client ID inline, so the
// common case of one caching client costs no allocation besides the key.

// Client tracking flags (Redis's CLIENT_TRACKING_*).
const (
	trkOn uint8 = 1 << iota
	trkBcast
	trkOptin
	trkOptout
	trkNoloop
	trkCaching
	trkBrokenRedir
)

// clientTracking is one client's tracking state.
type clientTracking struct {
	flags    uint8
	redirect int64
	prefixes []string // BCAST prefixes, sorted
}

// trackIDs are the clients that may cache one key.
type trackIDs struct {
	first int64
	more  []int64
}

func (t *trackIDs) has(id int64) bool {
	return t.first == id || slices.Contains(t.more, id)
}

func (t *trackIDs) len() int { return 1 + len(t.more) }

// bcastState is one BCAST prefix: its clients and the keys changed since
// the last broadcast, each with the client that changed it last (for
// NOLOOP; nil when no client did).
type bcastState struct {
	clients map[*Client]struct{}
	keys    map[string]*Client
}

// pendingInv is an invalidation for the client running the current
// command, sent after its reply; null for a flush.
type pendingInv struct {
	key  string
	null bool
}

// trackingState is the engine's tracking table and prefix table.
type trackingState struct {
	clients   map[int64]*Client // clients with tracking on
	table     map[string]trackIDs
	items     int64 // client IDs in table
	prefixes  map[string]*bcastState
	bcastKeys bool // some prefix has changed keys to broadcast
	pending   []pendingInv
	observing bool
	effort    int    // trackingLimitUsedSlots's timeout_counter
	flushSeq  uint64 // the command that last flushed (FLUSHALL reports a flush per database)
	flushDB   int
	buf       []byte
}

// tracker is the KeyObserver that invalidates changed keys.
type tracker struct{ e *Engine }

func (t tracker) KeyChanged(ev KeyEvent) {
	e := t.e
	switch ev.Event {
	case "flushdb":
		// One null per command, whatever the number of databases.
		if e.trk.flushSeq == e.runSeq && ev.DB > e.trk.flushDB {
			e.trk.flushDB = ev.DB
			return
		}
		e.trk.flushSeq, e.trk.flushDB = e.runSeq, ev.DB
		e.invalidateOnFlush()
	case "swapdb", "loaded":
	default:
		var by *Client
		// Redis passes the modifying client only for commands (not for
		// expiry or eviction, nor for a script's commands, which run as
		// the script client).
		if ev.Event != "expired" && ev.Event != "evicted" && e.scriptRun.start.Load() == 0 {
			by = e.current
		}
		e.invalidateKey(ev.Key, by, true)
	}
}

// tracking reports whether the client has tracking on.
func (cl *Client) tracking() bool { return cl.trk != nil && cl.trk.flags&trkOn != 0 }

func (cl *Client) trkFlag(f uint8) bool { return cl.trk != nil && cl.trk.flags&f != 0 }

// clientByID finds a connected client.
func (e *Engine) clientByID(id int64) *Client {
	e.clientsMu.Lock()
	defer e.clientsMu.Unlock()
	return e.clients[id]
}

// enableTracking is Redis's enableTracking. Under the lock.
func (e *Engine) enableTracking(cl *Client, redir int64, opts uint8, prefixes []string) {
	t := &e.trk
	if t.clients == nil {
		t.clients = map[int64]*Client{}
		t.table = map[string]trackIDs{}
		t.prefixes = map[string]*bcastState{}
	}
	if !t.observing {
		t.observing = true
		e.observers = append(e.observers, tracker{e})
	}
	if cl.trk == nil {
		cl.trk = &clientTracking{}
	}
	ct := cl.trk
	t.clients[cl.ID] = cl
	ct.flags = ct.flags&trkCaching | trkOn
	ct.redirect = redir
	if opts&trkBcast != 0 {
		ct.flags |= trkBcast
		if len(prefixes) == 0 {
			prefixes = []string{""}
		}
		for _, p := range prefixes {
			bs := t.prefixes[p]
			if bs == nil {
				bs = &bcastState{clients: map[*Client]struct{}{}, keys: map[string]*Client{}}
				t.prefixes[p] = bs
			}
			if _, ok := bs.clients[cl]; !ok {
				bs.clients[cl] = struct{}{}
				if i, found := slices.BinarySearch(ct.prefixes, p); !found {
					ct.prefixes = slices.Insert(ct.prefixes, i, p)
				}
			}
		}
	}
	ct.flags |= opts & (trkOptin | trkOptout | trkNoloop)
	// Invalidations reach a network client through its Outbox, ordered
	// with its replies (as a subscriber's messages).
	if cl.out == nil && cl.Kind == "normal" {
		cl.out = newOutbox(e, cl)
	}
}

// disableTracking is Redis's disableTracking: the client's entries in the
// table are left to be dropped lazily. Under the lock.
func (e *Engine) disableTracking(cl *Client) {
	ct := cl.trk
	if ct == nil {
		return
	}
	if ct.flags&trkBcast != 0 {
		for _, p := range ct.prefixes {
			if bs := e.trk.prefixes[p]; bs != nil {
				delete(bs.clients, cl)
				if len(bs.clients) == 0 {
					delete(e.trk.prefixes, p)
				}
			}
		}
		ct.prefixes = nil
	}
	if ct.flags&trkOn != 0 {
		delete(e.trk.clients, cl.ID)
		ct.flags = 0
	}
}

// trackRead remembers the keys a read-only command of a tracking client
// read (Redis's trackingRememberKeys, called from call()).
func (e *Engine) trackRead(c *Ctx) {
	cl := c.Client
	ct := cl.trk
	if ct.flags&trkOn == 0 || ct.flags&trkBcast != 0 {
		return
	}
	switch c.Cmd.Name {
	case "eval_ro", "evalsha_ro", "fcall_ro": // their commands are tracked
		return
	}
	optin, optout, caching := ct.flags&trkOptin != 0, ct.flags&trkOptout != 0, ct.flags&trkCaching != 0
	if (optin && !caching) || (optout && caching) || c.Cmd.Has(FlagPubSub) {
		return
	}
	t := &e.trk
	for _, i := range c.Cmd.KeyIndexes(c.Args) {
		k := c.Args[i]
		ids, ok := t.table[string(k)]
		switch {
		case !ok:
			t.table[string(k)] = trackIDs{first: cl.ID}
		case ids.has(cl.ID):
			continue
		default:
			ids.more = append(ids.more, cl.ID)
			t.table[string(k)] = ids
		}
		t.items++
	}
}

// invalidateKey is Redis's trackingInvalidateKey: by is the client whose
// command changed the key (nil for expiry and eviction); bcast tells
// whether the change is one to broadcast (not a table eviction).
func (e *Engine) invalidateKey(key string, by *Client, bcast bool) {
	t := &e.trk
	if bcast && len(t.prefixes) > 0 {
		for p, bs := range t.prefixes {
			if strings.HasPrefix(key, p) {
				bs.keys[strings.Clone(key)] = by
				t.bcastKeys = true
			}
		}
	}
	ids, ok := t.table[key]
	if !ok {
		return
	}
	delete(t.table, key)
	t.items -= int64(ids.len())
	e.invalidateFor(ids.first, key)
	for _, id := range ids.more {
		e.invalidateFor(id, key)
	}
}

func (e *Engine) invalidateFor(id int64, key string) {
	target := e.trk.clients[id]
	if target == nil || target.trk.flags&trkBcast != 0 {
		return
	}
	if target == e.current {
		if target.trk.flags&trkNoloop != 0 {
			return
		}
		if e.executing > 0 {
			e.trk.pending = append(e.trk.pending, pendingInv{key: strings.Clone(key)})
			return
		}
	}
	e.sendTracking(target, []byte(key), false)
}

// invalidateOnFlush is Redis's trackingInvalidateKeysOnFlush: every
// tracking client is told that all keys are invalid, and the table is
// emptied.
func (e *Engine) invalidateOnFlush() {
	t := &e.trk
	ids := make([]int64, 0, len(t.clients))
	for id := range t.clients {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		cl := t.clients[id]
		if cl == e.current {
			t.pending = append(t.pending, pendingInv{null: true})
			continue
		}
		e.sendTracking(cl, nullFor(cl), true)
	}
	if len(t.table) > 0 {
		t.table = map[string]trackIDs{}
		t.items = 0
	}
}

var (
	null2 = []byte("$-1\r\n")
	null3 = []byte("_\r\n")
)

func nullFor(cl *Client) []byte {
	if cl.Proto > 2 {
		return null3
	}
	return null2
}

// flushPendingInvalidations sends the current client the invalidations
// of its own command, after its reply (Redis's
// trackingHandlePendingKeyInvalidations). cl.curW is its reply writer.
func (e *Engine) flushPendingInvalidations(cl *Client) {
	p := e.trk.pending
	e.trk.pending = p[:0]
	if cl.killed.Load() {
		return
	}
	for _, inv := range p {
		if inv.null {
			e.sendTracking(cl, nullFor(cl), true)
		} else {
			e.sendTracking(cl, []byte(inv.key), false)
		}
	}
	clear(p)
}

// sendTracking is Redis's sendTrackingMessage: key is a key name, or with
// proto an encoded array of keys or null.
func (e *Engine) sendTracking(cl *Client, key []byte, proto bool) {
	target := cl
	redirected := false
	if id := cl.trk.redirect; id != 0 {
		target = e.clientByID(id)
		if target == nil {
			cl.trk.flags |= trkBrokenRedir
			if cl.Proto > 2 {
				b := append(e.trk.buf[:0], ">2\r\n$21\r\ntracking-redir-broken\r\n:"...)
				b = strconv.AppendInt(b, id, 10)
				b = append(b, '\r', '\n')
				e.push(cl, b)
				e.trk.buf = b
			}
			return
		}
		redirected = true
	}
	b := e.trk.buf[:0]
	switch {
	case target.Proto > 2:
		b = append(b, ">2\r\n$10\r\ninvalidate\r\n"...)
	case redirected && target.subscribed():
		b = append(b, "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n"...)
	default:
		return // RESP2 has no push messages in the same connection
	}
	if proto {
		b = append(b, key...)
	} else {
		b = append(b, "*1\r\n"...)
		b = appendBulk(b, key)
	}
	e.push(target, b)
	if cap(b) <= 64<<10 {
		e.trk.buf = b[:0]
	}
}

// push queues bytes for a client: into its reply writer while it runs a
// command, else into its Outbox (a client without one, such as an
// embedded session, receives no push).
func (e *Engine) push(cl *Client, b []byte) {
	if cl.Kind != "normal" {
		return // an embedded session's replies are parsed one by one: no pushes
	}
	if w := cl.curW; w != nil {
		w.Raw(b)
		return
	}
	if cl.out != nil {
		cl.out.Append(b)
	}
}

// broadcastInvalidations sends the keys changed under each BCAST prefix
// to its clients (Redis's trackingBroadcastInvalidationMessages): one
// message per prefix, keys in byte order. Under the lock, when it is
// about to be released.
func (e *Engine) broadcastInvalidations() {
	t := &e.trk
	t.bcastKeys = false
	prefixes := make([]string, 0, len(t.prefixes))
	for p := range t.prefixes {
		prefixes = append(prefixes, p)
	}
	slices.Sort(prefixes)
	for _, p := range prefixes {
		bs := t.prefixes[p]
		if len(bs.keys) == 0 {
			continue
		}
		keys := make([]string, 0, len(bs.keys))
		for k := range bs.keys {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		all := buildKeyArray(nil, keys, bs.keys, nil)
		clients := make([]*Client, 0, len(bs.clients))
		for cl := range bs.clients {
			clients = append(clients, cl)
		}
		slices.SortFunc(clients, func(a, b *Client) int { return int(a.ID - b.ID) })
		for _, cl := range clients {
			if cl.trk.flags&trkNoloop != 0 {
				if adhoc := buildKeyArray(nil, keys, bs.keys, cl); adhoc != nil {
					e.sendTracking(cl, adhoc, true)
				}
				continue
			}
			e.sendTracking(cl, all, true)
		}
		clear(bs.keys)
	}
}

// buildKeyArray encodes keys as a RESP array, without those last changed
// by skip (NOLOOP); nil if that leaves none.
func buildKeyArray(dst []byte, keys []string, by map[string]*Client, skip *Client) []byte {
	n := 0
	for _, k := range keys {
		if skip == nil || by[k] != skip {
			n++
		}
	}
	if n == 0 && skip != nil {
		return nil
	}
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(n), 10)
	dst = append(dst, '\r', '\n')
	for _, k := range keys {
		if skip == nil || by[k] != skip {
			dst = appendBulk(dst, []byte(k))
		}
	}
	return dst
}

// limitTrackingTable is Redis's trackingLimitUsedSlots, run before each
// command while clients track: entries past tracking-table-max-keys are
// dropped, their clients invalidated.
func (e *Engine) limitTrackingTable() {
	t := &e.trk
	max := int(e.Config.Int("tracking-table-max-keys"))
	if max == 0 || len(t.table) <= max {
		t.effort = 0
		return
	}
	effort := 100 * (t.effort + 1)
	for k := range t.table {
		if effort == 0 {
			break
		}
		effort--
		e.invalidateKey(k, nil, false)
		if len(t.table) <= max {
			t.effort = 0
			return
		}
	}
	t.effort++
}

func registerTracking(t *Table) {
	t.register("client|tracking", clientTrackingCommand)
	t.register("client|caching", func(c *Ctx) {
		cl := c.Client
		if !cl.tracking() {
			c.W.Error("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
			return
		}
		switch {
		case c.ArgIs(2, "yes"):
			if !cl.trkFlag(trkOptin) {
				c.W.Error("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
				return
			}
		case c.ArgIs(2, "no"):
			if !cl.trkFlag(trkOptout) {
				c.W.Error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
				return
			}
		default:
			c.W.Error(ErrSyntax)
			return
		}
		cl.trk.flags |= trkCaching
		c.W.OK()
	})
	t.register("client|getredir", func(c *Ctx) {
		if c.Client.tracking() {
			c.W.Int(c.Client.trk.redirect)
			return
		}
		c.W.Int(-1)
	})
	t.register("client|trackinginfo", func(c *Ctx) {
		cl := c.Client
		c.W.Map(3)
		c.W.BulkString("flags")
		flags := []string{"off"}
		if cl.tracking() {
			flags[0] = "on"
		}
		if cl.trkFlag(trkBcast) {
			flags = append(flags, "bcast")
		}
		if cl.trkFlag(trkOptin) {
			flags = append(flags, "optin")
			if cl.trkFlag(trkCaching) {
				flags = append(flags, "caching-yes")
			}
		}
		if cl.trkFlag(trkOptout) {
			flags = append(flags, "optout")
			if cl.trkFlag(trkCaching) {
				flags = append(flags, "caching-no")
			}
		}
		if cl.trkFlag(trkNoloop) {
			flags = append(flags, "noloop")
		}
		if cl.trkFlag(trkBrokenRedir) {
			flags = append(flags, "broken_redirect")
		}
		c.W.Set(len(flags))
		for _, f := range flags {
			c.W.BulkString(f)
		}
		c.W.BulkString("redirect")
		if cl.tracking() {
			c.W.Int(cl.trk.redirect)
		} else {
			c.W.Int(-1)
		}
		c.W.BulkString("prefixes")
		var prefixes []string
		if cl.trk != nil {
			prefixes = cl.trk.prefixes
		}
		c.W.Array(len(prefixes))
		for _, p := range prefixes {
			c.W.BulkString(p)
		}
	})
}

// clientTrackingCommand is CLIENT TRACKING (ON|OFF) [REDIRECT id] [BCAST]
// [PREFIX p ...] [OPTIN] [OPTOUT] [NOLOOP], with Redis's checks in its
// order.
func clientTrackingCommand(c *Ctx) {
	cl := c.Client
	var (
		redir    int64
		opts     uint8
		prefixes []string
	)
	for j := 3; j < len(c.Args); j++ {
		more := len(c.Args) - 1 - j
		switch {
		case c.ArgIs(j, "redirect") && more > 0:
			j++
			if redir != 0 {
				c.W.Error("ERR A client can only redirect to a single other client")
				return
			}
			n, ok := ParseInt(c.Args[j])
			if !ok {
				c.W.Error(ErrNotInteger)
				return
			}
			redir = n
			if c.E.clientByID(redir) == nil {
				c.W.Error("ERR The client ID you want redirect to does not exist")
				return
			}
		case c.ArgIs(j, "bcast"):
			opts |= trkBcast
		case c.ArgIs(j, "optin"):
			opts |= trkOptin
		case c.ArgIs(j, "optout"):
			opts |= trkOptout
		case c.ArgIs(j, "noloop"):
			opts |= trkNoloop
		case c.ArgIs(j, "prefix") && more > 0:
			j++
			prefixes = append(prefixes, string(c.Args[j]))
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	switch {
	case c.ArgIs(2, "on"):
		if opts&trkBcast == 0 && len(prefixes) > 0 {
			c.W.Error("ERR PREFIX option requires BCAST mode to be enabled")
			return
		}
		if cl.tracking() && cl.trkFlag(trkBcast) != (opts&trkBcast != 0) {
			c.W.Error("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
			return
		}
		if opts&trkBcast != 0 && opts&(trkOptin|trkOptout) != 0 {
			c.W.Error("ERR OPTIN and OPTOUT are not compatible with BCAST")
			return
		}
		if opts&trkOptin != 0 && opts&trkOptout != 0 {
			c.W.Error("ERR You can't specify both OPTIN mode and OPTOUT mode")
			return
		}
		if (opts&trkOptin != 0 && cl.trkFlag(trkOptout)) || (opts&trkOptout != 0 && cl.trkFlag(trkOptin)) {
			c.W.Error("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
			return
		}
		if opts&trkBcast != 0 && !checkPrefixCollisions(c, prefixes) {
			return
		}
		c.E.enableTracking(cl, redir, opts, prefixes)
	case c.ArgIs(2, "off"):
		c.E.disableTracking(cl)
	default:
		c.W.Error(ErrSyntax)
		return
	}
	c.W.OK()
}

// checkPrefixCollisions is Redis's checkPrefixCollisionsOrReply: two
// prefixes of one client overlap when one starts the other.
func checkPrefixCollisions(c *Ctx, prefixes []string) bool {
	overlap := func(a, b string) bool {
		n := min(len(a), len(b))
		return a[:n] == b[:n]
	}
	var have []string
	if c.Client.trk != nil {
		have = c.Client.trk.prefixes
	}
	for i, p := range prefixes {
		for _, h := range have {
			if overlap(h, p) {
				c.W.Error("ERR Prefix '" + string(cString([]byte(p))) + "' overlaps with an existing prefix '" + string(cString([]byte(h))) + "'. Prefixes for a single client must not overlap.")
				return false
			}
		}
		for _, q := range prefixes[i+1:] {
			if overlap(p, q) {
				c.W.Error("ERR Prefix '" + string(cString([]byte(p))) + "' overlaps with another provided prefix '" + string(cString([]byte(q))) + "'. Prefixes for a single client must not overlap.")
				return false
			}
		}
	}
	return true
}
