package engine

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/ordo-db/ordo/internal/ds/glob"
	"github.com/ordo-db/ordo/internal/resp"
)

// Pub/Sub, as Redis's pubsub.c: SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE,
// PUNSUBSCRIBE, PUBLISH, SSUBSCRIBE, SUNSUBSCRIBE, SPUBLISH and PUBSUB.
//
// The registry belongs to the engine (nothing process-global) and is only
// touched under the engine lock. A message is encoded once per publish
// and appended to each subscriber's Outbox (outbox.go), or straight to the
// publisher's own reply writer when it is its own subscriber, so it comes
// before the PUBLISH reply as in Redis. A client that unsubscribed is
// removed from the registry under the same lock, so no message published
// after its UNSUBSCRIBE reaches it; messages from one publisher are
// appended in publication order.

// subSet is a client's set of channels (or patterns), remembering the
// order of subscription so that UNSUBSCRIBE without arguments answers in
// a stable order (Redis answers in its hash table's order).
type subSet struct {
	m   map[string]uint64
	seq uint64
}

func (s *subSet) add(k string) bool {
	if _, ok := s.m[k]; ok {
		return false
	}
	if s.m == nil {
		s.m = map[string]uint64{}
	}
	s.seq++
	s.m[k] = s.seq
	return true
}

func (s *subSet) remove(k string) bool {
	if _, ok := s.m[k]; !ok {
		return false
	}
	delete(s.m, k)
	return true
}

func (s *subSet) len() int { return len(s.m) }

func (s *subSet) keys() []string {
	out := make([]string, 0, len(s.m))
	for k := range s.m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(s.m[a], s.m[b]) })
	return out
}

// clientSubs is what one client is subscribed to.
type clientSubs struct {
	channels, patterns, shard subSet
}

// pubsubRegistry maps channels and patterns to their subscribers.
type pubsubRegistry struct {
	channels map[string]map[*Client]struct{}
	patterns map[string]map[*Client]struct{}
	shard    map[string]map[*Client]struct{}
	patList  [][]byte // the keys of patterns, for PUBLISH's scan
	scratch  []byte   // PUBLISH's encoding buffer
}

func (r *pubsubRegistry) init() {
	r.channels = map[string]map[*Client]struct{}{}
	r.patterns = map[string]map[*Client]struct{}{}
	r.shard = map[string]map[*Client]struct{}{}
}

// subscribed reports whether the client has any subscription (Redis's
// CLIENT_PUBSUB flag). Under the lock.
func (cl *Client) subscribed() bool {
	s := cl.subs
	return s != nil && s.channels.len()+s.patterns.len()+s.shard.len() > 0
}

func (cl *Client) subCount() int64 {
	if cl.subs == nil {
		return 0
	}
	return int64(cl.subs.channels.len() + cl.subs.patterns.len())
}

func (cl *Client) shardCount() int64 {
	if cl.subs == nil {
		return 0
	}
	return int64(cl.subs.shard.len())
}

// The three kinds of subscription.
type subKind int

const (
	kindChannel subKind = iota
	kindPattern
	kindShard
)

var subNames = [3][2]string{
	{"subscribe", "unsubscribe"},
	{"psubscribe", "punsubscribe"},
	{"ssubscribe", "sunsubscribe"},
}

func (cl *Client) set(k subKind) *subSet {
	switch k {
	case kindPattern:
		return &cl.subs.patterns
	case kindShard:
		return &cl.subs.shard
	}
	return &cl.subs.channels
}

func (r *pubsubRegistry) table(k subKind) map[string]map[*Client]struct{} {
	switch k {
	case kindPattern:
		return r.patterns
	case kindShard:
		return r.shard
	}
	return r.channels
}

func (cl *Client) count(k subKind) int64 {
	if k == kindShard {
		return cl.shardCount()
	}
	return cl.subCount()
}

// attach gives the client an Outbox on its first subscription.
func (e *Engine) attach(cl *Client) {
	if cl.subs == nil {
		cl.subs = &clientSubs{}
	}
	if cl.out == nil {
		cl.out = newOutbox(e, cl)
	}
}

func (e *Engine) subscribe(cl *Client, k subKind, name []byte) {
	e.attach(cl)
	s := cl.set(k)
	ch := string(name)
	if s.add(ch) {
		t := e.pubsub.table(k)
		m := t[ch]
		if m == nil {
			m = map[*Client]struct{}{}
			t[ch] = m
			if k == kindPattern {
				e.pubsub.patList = append(e.pubsub.patList, []byte(ch))
			}
		}
		m[cl] = struct{}{}
	}
}

func (e *Engine) unsubscribe(cl *Client, k subKind, ch string) bool {
	if cl.subs == nil || !cl.set(k).remove(ch) {
		return false
	}
	t := e.pubsub.table(k)
	m := t[ch]
	delete(m, cl)
	if len(m) == 0 {
		delete(t, ch)
		if k == kindPattern {
			if i := slices.IndexFunc(e.pubsub.patList, func(p []byte) bool { return string(p) == ch }); i >= 0 {
				e.pubsub.patList = slices.Delete(e.pubsub.patList, i, i+1)
			}
		}
	}
	return true
}

// unsubscribeAll drops every subscription of cl without replying (RESET,
// disconnection). Under the lock.
func (e *Engine) unsubscribeAll(cl *Client) {
	if cl.subs == nil {
		return
	}
	for _, k := range []subKind{kindChannel, kindPattern, kindShard} {
		for _, ch := range cl.set(k).keys() {
			e.unsubscribe(cl, k, ch)
		}
	}
}

// replySub writes a subscription confirmation: a push in RESP3, an array
// in RESP2.
func replySub(w *resp.Writer, kind string, ch []byte, null bool, n int64) {
	w.Push(3)
	w.BulkString(kind)
	if null {
		w.Null()
	} else {
		w.Bulk(ch)
	}
	w.Int(n)
}

func subscribeHandler(k subKind) Handler {
	return func(c *Ctx) {
		cl := c.Client
		for _, ch := range c.Args[1:] {
			c.E.subscribe(cl, k, ch)
			replySub(c.W, subNames[k][0], ch, false, cl.count(k))
		}
	}
}

func unsubscribeHandler(k subKind) Handler {
	return func(c *Ctx) {
		cl := c.Client
		e := c.E
		if len(c.Args) > 1 {
			for _, ch := range c.Args[1:] {
				e.unsubscribe(cl, k, view(ch))
				replySub(c.W, subNames[k][1], ch, false, cl.count(k))
			}
			return
		}
		var names []string
		if cl.subs != nil {
			names = cl.set(k).keys()
		}
		if len(names) == 0 {
			replySub(c.W, subNames[k][1], nil, true, cl.count(k))
			return
		}
		for _, ch := range names {
			e.unsubscribe(cl, k, ch)
			replySub(c.W, subNames[k][1], []byte(ch), false, cl.count(k))
		}
	}
}

// appendBulk appends b as a RESP bulk string. A publication is encoded
// once as the body after the array or push header (hdr3, hdr4), shared by
// every receiver whatever its protocol.
func appendBulk(dst []byte, b []byte) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(b)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, b...)
	return append(dst, '\r', '\n')
}

var (
	hdr3 = [2][]byte{[]byte("*3\r\n"), []byte(">3\r\n")}
	hdr4 = [2][]byte{[]byte("*4\r\n"), []byte(">4\r\n")}
)

// deliver sends an encoded message to cl: into its reply writer if it is
// the client running the current command (so it precedes that command's
// reply, as in Redis), otherwise to its Outbox.
func (e *Engine) deliver(cl *Client, hdr [2][]byte, body []byte) {
	if w := cl.curW; w != nil {
		p := 0
		if w.Proto == 3 {
			p = 1
		}
		w.Raw(hdr[p])
		w.Raw(body)
		return
	}
	if cl.out == nil {
		return
	}
	p := 0
	if cl.Proto == 3 {
		p = 1
	}
	cl.out.Append(hdr[p], body)
}

// Publish delivers msg to the subscribers of channel and of the patterns
// matching it, and returns how many received it. Under the lock.
func (e *Engine) Publish(channel, msg []byte) int64 {
	var n int64
	subs := e.pubsub.channels[view(channel)]
	// Receivers copy the body (Outbox.Append, or the publisher's own
	// writer), so one scratch buffer serves every publication.
	body := e.pubsub.scratch[:0]
	if len(subs) > 0 {
		body = append(body, "$7\r\nmessage\r\n"...)
		body = appendBulk(body, channel)
		body = appendBulk(body, msg)
		for cl := range subs {
			e.deliver(cl, hdr3, body)
			n++
		}
	}
	for _, pat := range e.pubsub.patList {
		if !glob.Match(pat, channel, false) {
			continue
		}
		body = append(body[:0], "$8\r\npmessage\r\n"...)
		body = appendBulk(body, pat)
		body = appendBulk(body, channel)
		body = appendBulk(body, msg)
		for cl := range e.pubsub.patterns[view(pat)] {
			e.deliver(cl, hdr4, body)
			n++
		}
	}
	if cap(body) <= 64<<10 {
		e.pubsub.scratch = body[:0]
	}
	return n
}

// publishShard is SPUBLISH's delivery.
func (e *Engine) publishShard(channel, msg []byte) int64 {
	subs := e.pubsub.shard[view(channel)]
	if len(subs) == 0 {
		return 0
	}
	body := e.pubsub.scratch[:0]
	defer func() {
		if cap(body) <= 64<<10 {
			e.pubsub.scratch = body[:0]
		}
	}()
	body = append(body, "$8\r\nsmessage\r\n"...)
	body = appendBulk(body, channel)
	body = appendBulk(body, msg)
	for cl := range subs {
		e.deliver(cl, hdr3, body)
	}
	return int64(len(subs))
}

// PubSubCounts returns the numbers INFO reports: channels, patterns and
// shard channels with subscribers. Under the lock.
func (e *Engine) PubSubCounts() (channels, patterns, shard int) {
	return len(e.pubsub.channels), len(e.pubsub.patterns), len(e.pubsub.shard)
}

// subscribedModeError is Redis's refusal of other commands while a RESP2
// client is subscribed.
func subscribedModeError(name string) string {
	return "ERR Can't execute '" + name + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
}

// allowedSubscribed reports whether a RESP2 client in subscribed mode may
// run cmd.
func allowedSubscribed(name string) bool {
	switch name {
	case "ping", "subscribe", "ssubscribe", "unsubscribe", "sunsubscribe",
		"psubscribe", "punsubscribe", "quit", "reset":
		return true
	}
	return false
}

func registerPubSub(t *Table) {
	t.register("subscribe", subscribeHandler(kindChannel))
	t.register("psubscribe", subscribeHandler(kindPattern))
	t.register("ssubscribe", subscribeHandler(kindShard))
	t.register("unsubscribe", unsubscribeHandler(kindChannel))
	t.register("punsubscribe", unsubscribeHandler(kindPattern))
	t.register("sunsubscribe", unsubscribeHandler(kindShard))
	t.register("publish", func(c *Ctx) {
		c.W.Int(c.E.Publish(c.Args[1], c.Args[2]))
	})
	t.register("spublish", func(c *Ctx) {
		c.W.Int(c.E.publishShard(c.Args[1], c.Args[2]))
	})
	t.registerContainer("pubsub")
	t.register("pubsub|channels", func(c *Ctx) { pubsubChannels(c, c.E.pubsub.channels) })
	t.register("pubsub|shardchannels", func(c *Ctx) { pubsubChannels(c, c.E.pubsub.shard) })
	t.register("pubsub|numsub", func(c *Ctx) { pubsubNumsub(c, c.E.pubsub.channels) })
	t.register("pubsub|shardnumsub", func(c *Ctx) { pubsubNumsub(c, c.E.pubsub.shard) })
	t.register("pubsub|numpat", func(c *Ctx) { c.W.Int(int64(len(c.E.pubsub.patterns))) })
	t.register("pubsub|help", func(c *Ctx) {
		lines := []string{
			"PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
			"CHANNELS [<pattern>]",
			"    Return the currently active channels matching a <pattern> (default: '*').",
			"NUMPAT",
			"    Return number of subscriptions to patterns.",
			"NUMSUB [<channel> ...]",
			"    Return the number of subscribers for the specified channels, excluding",
			"    pattern subscriptions(default: no channels).",
			"SHARDCHANNELS [<pattern>]",
			"    Return the currently active shard level channels matching a <pattern> (default: '*').",
			"SHARDNUMSUB [<shardchannel> ...]",
			"    Return the number of subscribers for the specified shard level channel(s)",
			"HELP",
			"    Prints this help.",
		}
		c.W.Array(len(lines))
		for _, l := range lines {
			c.W.Simple(l)
		}
	})
}

// pubsubChannels is PUBSUB CHANNELS / SHARDCHANNELS [pattern], sorted
// (Redis answers in its hash table's order).
func pubsubChannels(c *Ctx, m map[string]map[*Client]struct{}) {
	if len(c.Args) > 3 {
		c.W.Error("ERR unknown subcommand or wrong number of arguments for '" + string(c.Args[1]) + "'. Try PUBSUB HELP.")
		return
	}
	var out []string
	for ch := range m {
		if len(c.Args) == 2 || glob.Match(c.Args[2], []byte(ch), false) {
			out = append(out, ch)
		}
	}
	slices.Sort(out)
	c.W.Array(len(out))
	for _, ch := range out {
		c.W.BulkString(ch)
	}
}

// pubsubNumsub is PUBSUB NUMSUB / SHARDNUMSUB [channel ...].
func pubsubNumsub(c *Ctx, m map[string]map[*Client]struct{}) {
	c.W.Array(2 * (len(c.Args) - 2))
	for _, ch := range c.Args[2:] {
		c.W.Bulk(ch)
		c.W.Int(int64(len(m[view(ch)])))
	}
}
