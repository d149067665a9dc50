package engine_test

import (
	"bufio"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// twin is one connection to Redis and one to Ordo, driven in lockstep.
type twin struct {
	t    *testing.T
	r, o *redistest.Conn
}

func newTwin(t *testing.T, redisAddr, ordoAddr string) *twin {
	return &twin{t, redistest.Dial(t, redisAddr), redistest.Dial(t, ordoAddr)}
}

// send sends a command to both without reading.
func (tw *twin) send(args ...string) {
	tw.r.Send(args...)
	tw.o.Send(args...)
}

// read reads n frames from both and compares them byte for byte.
func (tw *twin) read(what string, n int) {
	tw.t.Helper()
	for i := 0; i < n; i++ {
		r, o := tw.r.ReadRaw(), tw.o.ReadRaw()
		if string(r) != string(o) {
			tw.t.Errorf("%s (frame %d):\n redis %q\n ordo  %q", what, i+1, r, o)
		}
	}
}

// do sends a command to both and compares n frames of replies.
func (tw *twin) do(n int, args ...string) {
	tw.t.Helper()
	tw.send(args...)
	tw.read(strings.Join(args, " "), n)
}

// readSet reads n frames from both and compares them as multisets of
// (kind, channel) with the sequence of counts (UNSUBSCRIBE without
// arguments answers in hash-table order in Redis).
func (tw *twin) readSet(what string, n int) {
	tw.t.Helper()
	shape := func(c *redistest.Conn) (names []string, counts []int64) {
		for i := 0; i < n; i++ {
			v, _, err := resp.ParseReply(c.ReadRaw())
			if err != nil || len(v.Elems) != 3 {
				tw.t.Fatalf("%s: bad frame %v %v", what, v, err)
			}
			names = append(names, v.Elems[0].Str+" "+v.Elems[1].Str)
			counts = append(counts, v.Elems[2].Int)
		}
		slices.Sort(names)
		return
	}
	rn, rc := shape(tw.r)
	on, oc := shape(tw.o)
	if !slices.Equal(rn, on) || !slices.Equal(rc, oc) {
		tw.t.Errorf("%s:\n redis %q %v\n ordo  %q %v", what, rn, rc, on, oc)
	}
}

func startPair(t *testing.T, settings ...string) (*redistest.Redis, *redistest.Ordo) {
	redistest.RequireRedis(t)
	var extra []string
	for i := 0; i+1 < len(settings); i += 2 {
		extra = append(extra, "--"+settings[i], settings[i+1])
	}
	return redistest.StartRedis(t, extra...), redistest.StartOrdo(t, settings...)
}

// RESP2 subscribed mode: confirmations with multiple channels, duplicate
// subscriptions, the commands allowed and the error for the others, PING's
// reply, unsubscribing with and without arguments, RESET.
func TestPubSubRESP2Replies(t *testing.T) {
	r, o := startPair(t)
	tw := newTwin(t, r.Addr, o.Addr)
	tw.do(3, "SUBSCRIBE", "a", "b", "a")
	tw.do(1, "PING")
	tw.do(1, "PING", "hello")
	tw.do(1, "PING", "x", "y")
	for _, c := range [][]string{{"GET", "x"}, {"SET", "x", "1"}, {"PUBLISH", "a", "m"}, {"MULTI"},
		{"SELECT", "1"}, {"PUBSUB", "CHANNELS"}, {"PUBSUB", "NUMSUB", "a"}, {"SPUBLISH", "s", "m"},
		{"HELLO"}, {"CLIENT", "ID"}, {"EXEC"}, {"DISCARD"}, {"WATCH", "k"}} {
		tw.do(1, c...)
	}
	tw.do(1, "SUBSCRIBE")
	tw.do(1, "PUBSUB", "NOSUCH")
	tw.do(1, "NOSUCHCOMMAND")
	tw.do(2, "PSUBSCRIBE", "p*", "q?")
	tw.do(2, "SSUBSCRIBE", "s1", "s2")
	tw.do(1, "UNSUBSCRIBE", "a")
	tw.do(2, "UNSUBSCRIBE", "nosuch", "b")
	tw.do(1, "PUNSUBSCRIBE", "q?")
	tw.do(1, "PUNSUBSCRIBE")
	tw.do(1, "PING")
	tw.do(1, "SUNSUBSCRIBE", "s1")
	tw.do(1, "SUNSUBSCRIBE")
	tw.do(1, "PING")
	tw.do(1, "GET", "x")
	tw.do(1, "UNSUBSCRIBE")
	tw.do(1, "PUNSUBSCRIBE")
	tw.do(1, "SUNSUBSCRIBE")
	// Unsubscribing from everything at once, in some order.
	tw.do(4, "SUBSCRIBE", "c1", "c2", "c3", "c4")
	tw.send("UNSUBSCRIBE")
	tw.readSet("UNSUBSCRIBE (all)", 4)
	tw.do(3, "PSUBSCRIBE", "x*", "y*", "z*")
	tw.send("PUNSUBSCRIBE")
	tw.readSet("PUNSUBSCRIBE (all)", 3)
	tw.do(2, "SSUBSCRIBE", "x", "y")
	tw.send("SUNSUBSCRIBE")
	tw.readSet("SUNSUBSCRIBE (all)", 2)
	// SUBSCRIBE inside MULTI, and RESET leaving subscribed mode.
	tw.do(1, "MULTI")
	tw.do(1, "SUBSCRIBE", "m")
	tw.do(1, "PING")
	tw.do(1, "EXEC")
	tw.do(1, "PING")
	tw.do(1, "RESET")
	tw.do(1, "PING")
	tw.do(1, "PUBSUB", "NUMSUB", "m")
	tw.do(1, "SUBSCRIBE", "q")
	tw.do(1, "QUIT")
}

// RESP3: confirmations and messages are push frames, any command is
// allowed while subscribed, and a message published to oneself comes
// before the PUBLISH reply.
func TestPubSubRESP3(t *testing.T) {
	r, o := startPair(t)
	tw := newTwin(t, r.Addr, o.Addr)
	tw.send("HELLO", "3")
	tw.r.ReadRaw()
	tw.o.ReadRaw()
	tw.do(2, "SUBSCRIBE", "a", "b")
	tw.do(1, "PSUBSCRIBE", "a*")
	tw.do(1, "PING")
	tw.do(1, "PING", "x")
	tw.do(1, "GET", "x")
	tw.do(1, "SET", "x", "1")
	tw.do(3, "PUBLISH", "a", "hi")
	tw.do(2, "PUBLISH", "ab", "there")
	tw.do(1, "PUBSUB", "NUMSUB", "a", "b", "c")
	tw.do(1, "PUBSUB", "NUMPAT")
	tw.do(1, "UNSUBSCRIBE", "a")
	tw.do(2, "PUBLISH", "a", "again")
	tw.do(1, "MULTI")
	tw.do(1, "PUBLISH", "b", "tx")
	tw.do(1, "EXEC")
	tw.do(1, "PUNSUBSCRIBE")
	tw.do(1, "UNSUBSCRIBE")
	tw.do(1, "UNSUBSCRIBE")
	tw.do(1, "SSUBSCRIBE", "s")
	tw.do(2, "SPUBLISH", "s", "sm")
	tw.do(1, "SUNSUBSCRIBE")
	tw.do(1, "SUNSUBSCRIBE")
	tw.do(1, "EVAL", "return redis.call('publish', 'nobody', 'x')", "0")
}

// Messages to RESP2 and RESP3 subscribers of channels, patterns and shard
// channels, from another connection; and PUBSUB introspection.
func TestPubSubMessagesAndIntrospection(t *testing.T) {
	r, o := startPair(t)
	sub2 := newTwin(t, r.Addr, o.Addr)
	sub3 := newTwin(t, r.Addr, o.Addr)
	pub := newTwin(t, r.Addr, o.Addr)
	sub3.send("HELLO", "3")
	sub3.r.ReadRaw()
	sub3.o.ReadRaw()
	sub2.do(3, "SUBSCRIBE", "news", "sport", "")
	sub2.do(1, "PSUBSCRIBE", "n*")
	sub2.do(1, "SSUBSCRIBE", "shard")
	sub3.do(1, "SUBSCRIBE", "news")
	sub3.do(2, "PSUBSCRIBE", "[ns]port", "h?llo\\*")
	sub3.do(2, "SSUBSCRIBE", "shard", "other")

	pub.do(1, "PUBLISH", "news", "m1")
	sub2.read("news to sub2", 2) // message, pmessage
	sub3.read("news to sub3", 1)
	pub.do(1, "PUBLISH", "sport", "m2")
	sub2.read("sport to sub2", 1)
	sub3.read("sport to sub3", 1)
	pub.do(1, "PUBLISH", "hallo*", "m3")
	sub3.read("pattern with escape", 1)
	pub.do(1, "PUBLISH", "", "empty channel")
	sub2.read("empty channel", 1)
	pub.do(1, "PUBLISH", "news", "binary\x00\r\nmessage")
	sub2.read("binary", 2)
	sub3.read("binary", 1)
	pub.do(1, "PUBLISH", "nobody", "m")
	sub2.read("pattern only", 1)
	pub.do(1, "SPUBLISH", "shard", "s1")
	sub2.read("smessage", 1)
	sub3.read("smessage", 1)
	pub.do(1, "SPUBLISH", "news", "not a shard subscriber")

	pub.send("PUBSUB", "CHANNELS")
	cmpSorted(t, pub, "PUBSUB CHANNELS")
	pub.send("PUBSUB", "CHANNELS", "s*")
	cmpSorted(t, pub, "PUBSUB CHANNELS s*")
	pub.do(1, "PUBSUB", "CHANNELS", "nomatch*")
	pub.do(1, "PUBSUB", "NUMSUB", "news", "sport", "", "nosuch", "news")
	pub.do(1, "PUBSUB", "NUMSUB")
	pub.do(1, "PUBSUB", "NUMPAT")
	pub.send("PUBSUB", "SHARDCHANNELS")
	cmpSorted(t, pub, "PUBSUB SHARDCHANNELS")
	pub.do(1, "PUBSUB", "SHARDCHANNELS", "o*")
	pub.do(1, "PUBSUB", "SHARDNUMSUB", "shard", "other", "x")
	pub.do(1, "PUBSUB", "SHARDNUMSUB")
	pub.do(1, "PUBSUB", "CHANNELS", "a", "b")
	pub.do(1, "PUBSUB", "SHARDCHANNELS", "a", "b")
	pub.do(1, "PUBSUB", "NUMPAT", "x")
	pub.do(1, "PUBSUB", "HELP")
	pub.do(1, "PUBSUB", "help", "x")
	pub.do(1, "PUBSUB")
	pub.do(1, "PUBLISH", "x")
	pub.do(1, "SPUBLISH", "x")
	for _, args := range [][]string{{"INFO", "stats"}} {
		rv, ov := pub.r.Do(args...), pub.o.Do(args...)
		for _, f := range []string{"pubsub_channels:", "pubsub_patterns:", "pubsubshard_channels:"} {
			if a, b := infoField(rv.Str, f), infoField(ov.Str, f); a != b {
				t.Errorf("INFO %s redis %s ordo %s", f, a, b)
			}
		}
	}
	// CLIENT LIST: the pubsub type, the P flag and the counts.
	fields := func(c *redistest.Conn, args ...string) string {
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(c.Do(args...).Str), "\n") {
			var keep []string
			for _, f := range strings.Fields(l) {
				for _, k := range []string{"flags=", "sub=", "psub=", "ssub=", "resp="} {
					if strings.HasPrefix(f, k) {
						keep = append(keep, f)
					}
				}
			}
			lines = append(lines, strings.Join(keep, " "))
		}
		slices.Sort(lines)
		return strings.Join(lines, "; ")
	}
	for _, args := range [][]string{{"CLIENT", "LIST", "TYPE", "pubsub"}, {"CLIENT", "LIST", "TYPE", "normal"}} {
		if a, b := fields(pub.r, args...), fields(pub.o, args...); a != b {
			t.Errorf("%q:\n redis %s\n ordo  %s", args, a, b)
		}
	}
	// Disconnected subscribers are forgotten.
	sub2.r.Close()
	sub2.o.Close()
	for i := 0; ; i++ { // until both servers noticed the close (sub3's 2 patterns remain)
		rv, ov := pub.r.Do("PUBSUB", "NUMPAT"), pub.o.Do("PUBSUB", "NUMPAT")
		if rv.Int == 2 && ov.Int == 2 {
			break
		}
		if i == 100000 {
			t.Fatalf("NUMPAT after the close: redis %d, ordo %d", rv.Int, ov.Int)
		}
	}
	pub.do(1, "PUBSUB", "NUMSUB", "news", "sport")
	pub.do(1, "PUBSUB", "NUMPAT")
}

func infoField(info, name string) string {
	for _, l := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(l, name); ok {
			return v
		}
	}
	return "?"
}

// cmpSorted reads one array reply from both and compares it as a set.
func cmpSorted(t *testing.T, tw *twin, what string) {
	t.Helper()
	rv, _, _ := resp.ParseReply(tw.r.ReadRaw())
	ov, _, _ := resp.ParseReply(tw.o.ReadRaw())
	if a, b := redistest.Canonical(rv, true), redistest.Canonical(ov, true); a != b {
		t.Errorf("%s:\n redis %s\n ordo  %s", what, a, b)
	}
}

// No message is lost or reordered for a subscriber under its limits, and
// none arrives after the UNSUBSCRIBE confirmation, even while another
// client keeps publishing.
func TestPubSubOrderingAndUnsubscribe(t *testing.T) {
	o := redistest.StartOrdo(t)
	sub := redistest.Dial(t, o.Addr)
	pub := redistest.Dial(t, o.Addr)
	sub.Do("SUBSCRIBE", "ch")
	const n = 20000
	var batch []byte
	for i := 0; i < n; i++ {
		batch = resp.AppendCommand(batch, "PUBLISH", "ch", fmt.Sprint(i))
	}
	done := make(chan error, 1)
	go func() {
		_, err := pub.NetConn().Write(batch)
		done <- err
	}()
	for i := 0; i < n; i++ {
		v, _, err := resp.ParseReply(sub.ReadRaw())
		if err != nil || len(v.Elems) != 3 || v.Elems[2].Str != fmt.Sprint(i) {
			t.Fatalf("message %d: got %v (%v)", i, v, err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		pub.ReadRaw()
	}

	// A publisher publishes without pause while the subscriber leaves.
	stop := make(chan struct{})
	pubDone := make(chan struct{})
	go func() {
		defer close(pubDone)
		p, err := net.Dial("tcp", o.Addr)
		if err != nil {
			return
		}
		defer p.Close()
		br := bufio.NewReader(p)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := p.Write(resp.AppendCommand(nil, "PUBLISH", "ch", "late")); err != nil {
				return
			}
			if _, err := resp.ReadRawReply(br, nil); err != nil {
				return
			}
		}
	}()
	sub.Send("UNSUBSCRIBE", "ch")
	sub.Send("PING")
	for i := 0; ; i++ {
		v, _, _ := resp.ParseReply(sub.ReadRaw())
		if len(v.Elems) == 3 && v.Elems[0].Str == "unsubscribe" {
			break
		}
		if i > 1e6 || len(v.Elems) != 3 || v.Elems[0].Str != "message" {
			t.Fatalf("before the unsubscribe confirmation: %v", v)
		}
	}
	if got := string(sub.ReadRaw()); got != "+PONG\r\n" {
		t.Fatalf("after UNSUBSCRIBE: %q, want +PONG", got)
	}
	close(stop)
	<-pubDone
}

// A subscriber that never reads is disconnected once its output passes
// the pubsub hard limit, on Redis and on Ordo alike, while PUBLISH keeps
// answering and a subscriber that reads receives every message in order.
func TestPubSubSlowSubscriber(t *testing.T) {
	r, o := startPair(t)
	payload := strings.Repeat("x", 4096)
	for _, srv := range []struct{ name, addr string }{{"redis", r.Addr}, {"ordo", o.Addr}} {
		t.Run(srv.name, func(t *testing.T) {
			admin := redistest.Dial(t, srv.addr)
			if v := admin.Do("CONFIG", "SET", "client-output-buffer-limit", "pubsub 256kb 128kb 60"); v.Str != "OK" {
				t.Fatalf("CONFIG SET: %v", v)
			}
			slow := redistest.Dial(t, srv.addr)
			slow.Do("SUBSCRIBE", "ch")
			fast := redistest.Dial(t, srv.addr)
			fast.Do("SUBSCRIBE", "ch")
			got := make(chan int, 1)
			var why string
			stop := make(chan struct{})
			// read carries the reader's progress; it reads until the
			// marker message.
			read := make(chan int, 1<<16)
			go func() {
				n := 0
				br := bufio.NewReader(fast.NetConn())
				for {
					raw, err := resp.ReadRawReply(br, nil)
					if err != nil {
						why = err.Error()
						got <- -1
						return
					}
					v, _, _ := resp.ParseReply(raw)
					if len(v.Elems) != 3 {
						why = fmt.Sprintf("%q", raw)
						got <- -1
						return
					}
					if v.Elems[2].Str == "end" {
						got <- n
						return
					}
					if v.Elems[2].Str != payload {
						why = fmt.Sprintf("payload %d: %.60q", n, v.Elems[2].Str)
						got <- -1
						return
					}
					n++
					read <- n
					select {
					case <-stop:
						return
					default:
					}
				}
			}()
			pub := redistest.Dial(t, srv.addr)
			sent, dropped := 0, false
			for batch := 0; batch < 500 && !dropped; batch++ {
				// The reading subscriber keeps up: at most one batch is
				// queued for it at any time, well under its limit, however
				// the goroutines are scheduled.
				for n := 0; n < sent; {
					select {
					case n = <-read:
					case x := <-got:
						t.Fatalf("the reading subscriber stopped after %d messages (%s)", x, why)
					}
				}
				var b []byte
				for i := 0; i < 20; i++ {
					b = resp.AppendCommand(b, "PUBLISH", "ch", payload)
				}
				pub.Write(b)
				for i := 0; i < 20; i++ {
					reply := string(pub.ReadRaw())
					sent++
					if reply == ":1\r\n" {
						dropped = true
					} else if reply != ":2\r\n" {
						t.Fatalf("PUBLISH: %q", reply)
					}
				}
			}
			if !dropped {
				close(stop)
				t.Fatalf("the slow subscriber was never disconnected after %d messages", sent)
			}
			if v := pub.Do("PUBLISH", "ch", "end"); v.Int != 1 {
				t.Fatalf("PUBLISH end: %v", v)
			}
			if n := <-got; n != sent {
				t.Errorf("the reading subscriber got %d of %d messages (%s)", n, sent, why)
			}
			if v := pub.Do("PUBSUB", "NUMSUB", "ch"); v.Elems[1].Int != 1 {
				t.Errorf("NUMSUB after the disconnection: %v", v)
			}
		})
	}
}

// A protocol error from a subscribed client: Redis's error after the
// earlier replies, then the connection closes.
func TestPubSubProtocolError(t *testing.T) {
	r, o := startPair(t)
	for _, proto := range []string{"2", "3"} {
		tw := newTwin(t, r.Addr, o.Addr)
		tw.send("HELLO", proto)
		tw.r.ReadRaw()
		tw.o.ReadRaw()
		tw.send("SUBSCRIBE", "a")
		tw.r.Write([]byte("*1\r\n$x\r\n"))
		tw.o.Write([]byte("*1\r\n$x\r\n"))
		tw.read("RESP"+proto+" subscribe then protocol error", 2)
		for _, c := range []*redistest.Conn{tw.r, tw.o} {
			c.NetConn().SetReadDeadline(time.Now().Add(10 * time.Second))
			if n, err := c.NetConn().Read(make([]byte, 1)); err == nil {
				t.Errorf("RESP%s: connection still open (%d bytes)", proto, n)
			}
		}
	}
}

// A RESP3 subscriber served in a blocking command gets its reply before
// the messages published after it.
func TestPubSubRESP3Blocking(t *testing.T) {
	r, o := startPair(t)
	sub := newTwin(t, r.Addr, o.Addr)
	other := newTwin(t, r.Addr, o.Addr)
	sub.send("HELLO", "3")
	sub.r.ReadRaw()
	sub.o.ReadRaw()
	sub.do(1, "SUBSCRIBE", "ch")
	sub.send("BLPOP", "l", "0")
	for _, c := range []*redistest.Conn{other.r, other.o} {
		for i := 0; ; i++ { // until the BLPOP is blocked
			if strings.Contains(c.Do("INFO", "clients").Str, "blocked_clients:1") {
				break
			}
			if i == 100000 {
				t.Fatal("BLPOP never blocked")
			}
		}
	}
	other.do(1, "RPUSH", "l", "x")
	other.do(1, "PUBLISH", "ch", "after")
	sub.read("BLPOP reply, then the message", 2)
	sub.send("BLPOP", "l", "0.01")
	sub.read("BLPOP timeout", 1)
}
