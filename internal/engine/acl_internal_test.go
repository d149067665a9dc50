package engine

import "testing"

// Pub/sub commands are not in Ordo yet: the channel rules are checked
// through the API the pub/sub layer will call.
func TestACLChannelAllowed(t *testing.T) {
	e := New(nil)
	defer e.Close()
	e.Lock()
	defer e.Unlock()
	if msg := e.acl.setUser("u", []string{"on", "&news.*", "&exact", "(&sel)"}); msg != "" {
		t.Fatal(msg)
	}
	u := e.acl.users["u"]
	for _, c := range []struct {
		ch      string
		pattern bool
		want    bool
	}{
		{"news.1", false, true}, {"exact", false, true}, {"sel", false, true}, {"other", false, false},
		{"news.*", true, true}, {"news.1", true, false}, {"exact", true, true}, {"n*", true, false},
	} {
		got := u.ChannelAllowed(c.ch)
		if c.pattern {
			got = u.ChannelPatternAllowed(c.ch)
		}
		if got != c.want {
			t.Errorf("%q pattern=%v: %v", c.ch, c.pattern, got)
		}
	}
	if !e.acl.def.ChannelAllowed("x") || !e.acl.def.ChannelPatternAllowed("*") {
		t.Error("the default user has allchannels")
	}
	if e.ClientUser(e.NewClient("normal")) != e.acl.def {
		t.Error("new clients are the default user")
	}
	// The channel arguments of PUBLISH/SUBSCRIBE/PSUBSCRIBE are checked
	// by the selectors in dispatch once those commands exist.
	s := u.root()
	if r, pos := s.checkChannels("psubscribe", [][]byte{[]byte("psubscribe"), []byte("news.*"), []byte("x*")}); r != aclDeniedChannel || pos != 2 {
		t.Errorf("psubscribe: %d %d", r, pos)
	}
	if r, _ := s.checkChannels("publish", [][]byte{[]byte("publish"), []byte("news.x"), []byte("msg")}); r != aclOK {
		t.Errorf("publish: %d", r)
	}
}
