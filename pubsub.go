package ordo

import (
	"context"
	"errors"
	"sync"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// Message is one message received by a Subscription.
type Message struct {
	// Kind is "message" (a channel subscription), "pmessage" (a pattern
	// subscription; Pattern says which) or "smessage" (a shard channel).
	Kind    string
	Pattern string
	Channel string
	Payload string
}

// ErrSlowSubscriber ends a Subscription whose reader fell behind by more
// than the pubsub client-output-buffer-limit allows (by default 32 MB, or
// 8 MB for a minute), as Redis disconnects such a client: the messages
// not yet received are dropped, and publishers were never slowed down.
var ErrSlowSubscriber = errors.New("ordo: subscriber too slow: client-output-buffer-limit pubsub exceeded")

// Subscription receives the messages published to its channels and
// patterns, in publication order, on C. It is Redis's subscribed client in
// process: keyspace notifications arrive the same way once
// notify-keyspace-events is set (Options.Config or CONFIG SET):
//
//	db.Do(ctx, "CONFIG", "SET", "notify-keyspace-events", "KEA")
//	sub, _ := db.PSubscribe(ctx, "__keyspace@0__:user:*")
//	defer sub.Close()
//	for m := range sub.C {
//		fmt.Println(m.Channel, m.Payload) // __keyspace@0__:user:1 hset
//	}
//
// C is closed by Close, when the DB closes, or when the reader falls too
// far behind (then Err returns ErrSlowSubscriber). The methods are safe for
// concurrent use.
type Subscription struct {
	C <-chan Message

	db   *DB
	cl   *engine.Client
	c    chan Message
	ob   *engine.Outbox
	done chan struct{} // closed by Close
	kill chan struct{} // closed when the limits were exceeded
	once sync.Once
	wg   sync.WaitGroup

	mu  sync.Mutex
	err error
}

// Subscribe returns a Subscription to channels (SUBSCRIBE).
func (db *DB) Subscribe(ctx context.Context, channels ...string) (*Subscription, error) {
	return db.subscription(ctx, "SUBSCRIBE", channels)
}

// PSubscribe returns a Subscription to the glob patterns (PSUBSCRIBE).
func (db *DB) PSubscribe(ctx context.Context, patterns ...string) (*Subscription, error) {
	return db.subscription(ctx, "PSUBSCRIBE", patterns)
}

// SSubscribe returns a Subscription to shard channels (SSUBSCRIBE).
func (db *DB) SSubscribe(ctx context.Context, channels ...string) (*Subscription, error) {
	return db.subscription(ctx, "SSUBSCRIBE", channels)
}

// Publish posts message to channel and returns the number of subscribers
// that received it (PUBLISH).
func (db *DB) Publish(ctx context.Context, channel, message string) (int64, error) {
	return db.Do(ctx, "PUBLISH", channel, message).Int64()
}

func (db *DB) subscription(ctx context.Context, cmd string, names []string) (*Subscription, error) {
	if len(names) == 0 {
		return nil, errors.New("ordo: " + cmd + " needs at least one name")
	}
	if !db.enter() {
		return nil, ErrClosed
	}
	defer db.leave()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := make(chan Message, 64)
	s := &Subscription{C: c, c: c, db: db, done: make(chan struct{}), kill: make(chan struct{})}
	cl := db.e.NewClient("embedded")
	cl.Authenticated = true
	cl.Proto = 3 // messages as push frames
	var killOnce sync.Once
	cl.Kill = func() { killOnce.Do(func() { close(s.kill) }) } // under the engine lock: no more
	s.cl = cl
	if err := s.call(cmd, names); err != nil {
		db.e.RemoveClient(cl)
		return nil, err
	}
	s.ob = cl.Outbox()
	s.wg.Add(1)
	go s.run()
	return s, nil
}

// call runs a (un)subscription command for the subscription's client.
func (s *Subscription) call(cmd string, names []string) error {
	args := make([][]byte, 0, 1+len(names))
	args = append(args, []byte(cmd))
	for _, n := range names {
		args = append(args, []byte(n))
	}
	w := resp.Writer{Proto: 3}
	e := s.db.e
	e.Lock()
	e.Call(s.cl, args, &w)
	e.Unlock()
	if len(w.Buf) > 0 && w.Buf[0] == '-' {
		v, _, _ := resp.ParseReply(w.Buf)
		return &Error{Msg: v.Str}
	}
	return nil
}

// Subscribe adds channels to the subscription.
func (s *Subscription) Subscribe(ctx context.Context, channels ...string) error {
	return s.change(ctx, "SUBSCRIBE", channels, true)
}

// PSubscribe adds patterns to the subscription.
func (s *Subscription) PSubscribe(ctx context.Context, patterns ...string) error {
	return s.change(ctx, "PSUBSCRIBE", patterns, true)
}

// SSubscribe adds shard channels to the subscription.
func (s *Subscription) SSubscribe(ctx context.Context, channels ...string) error {
	return s.change(ctx, "SSUBSCRIBE", channels, true)
}

// Unsubscribe removes channels (all of them when none is given). No
// message published after it returns is delivered for them.
func (s *Subscription) Unsubscribe(ctx context.Context, channels ...string) error {
	return s.change(ctx, "UNSUBSCRIBE", channels, false)
}

// PUnsubscribe removes patterns (all of them when none is given).
func (s *Subscription) PUnsubscribe(ctx context.Context, patterns ...string) error {
	return s.change(ctx, "PUNSUBSCRIBE", patterns, false)
}

// SUnsubscribe removes shard channels (all of them when none is given).
func (s *Subscription) SUnsubscribe(ctx context.Context, channels ...string) error {
	return s.change(ctx, "SUNSUBSCRIBE", channels, false)
}

func (s *Subscription) change(ctx context.Context, cmd string, names []string, needNames bool) error {
	if needNames && len(names) == 0 {
		return errors.New("ordo: " + cmd + " needs at least one name")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-s.done:
		return errConnClosed
	default:
	}
	if !s.db.enter() {
		return ErrClosed
	}
	defer s.db.leave()
	return s.call(cmd, names)
}

// Err reports why C was closed: nil after Close, ErrClosed when the
// database closed, ErrSlowSubscriber when the reader fell too far behind.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close ends the subscription and closes C. Messages not yet received are
// dropped.
func (s *Subscription) Close() error {
	s.once.Do(func() { close(s.done) })
	s.wg.Wait()
	return nil
}

func (s *Subscription) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
}

// run moves messages from the client's Outbox to C.
func (s *Subscription) run() {
	defer s.wg.Done()
	defer close(s.c)
	defer s.db.e.RemoveClient(s.cl)
	closed := s.db.e.Done()
	for {
		select {
		case <-s.done:
			return
		case <-s.kill:
			s.fail(ErrSlowSubscriber)
			return
		case <-closed:
			s.fail(ErrClosed)
			return
		case <-s.ob.Notify():
		}
		taken := s.ob.Take()
		buf := taken
		for len(buf) > 0 {
			v, n, err := resp.ParseReply(buf)
			if err != nil {
				break
			}
			buf = buf[n:]
			m, ok := toMessage(v)
			if !ok {
				continue // a confirmation
			}
			select {
			case s.c <- m:
			case <-s.done:
				return
			case <-s.kill:
				s.fail(ErrSlowSubscriber)
				return
			case <-closed:
				s.fail(ErrClosed)
				return
			}
		}
		s.ob.Release(taken)
	}
}

func toMessage(v resp.Value) (Message, bool) {
	if len(v.Elems) < 3 {
		return Message{}, false
	}
	kind := v.Elems[0].Str
	switch {
	case (kind == "message" || kind == "smessage") && len(v.Elems) == 3:
		return Message{Kind: kind, Channel: v.Elems[1].Str, Payload: v.Elems[2].Str}, true
	case kind == "pmessage" && len(v.Elems) == 4:
		return Message{Kind: kind, Pattern: v.Elems[1].Str, Channel: v.Elems[2].Str, Payload: v.Elems[3].Str}, true
	}
	return Message{}, false
}
