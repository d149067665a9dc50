package engine

import (
	"bytes"
	"strconv"
	"testing"
	"unsafe"
)

// A snapshot (BGSAVE, a replica's full sync, the AOF rewrite's base) taken
// while PFADD writes dense HLLs in place holds each HLL as it was when
// the snapshot began: the key is serialized at the write's lookup, before
// its registers change. The PFADDs do write in place (the value's bytes
// stay where they were), else the test would prove nothing.
func TestHLLInPlaceSnapshot(t *testing.T) {
	st := newSnapTester(t)
	const keys = 1500
	add := func(key string, from, n int) {
		args := []string{"PFADD", key}
		for i := range n {
			args = append(args, "e"+strconv.Itoa(from+i))
		}
		st.do(args...)
	}
	for k := range keys {
		st.do("PFADD", "h"+strconv.Itoa(k), "a")
		st.do("PFDEBUG", "TODENSE", "h"+strconv.Itoa(k))
		add("h"+strconv.Itoa(k), k*10, 20)
	}
	data := func(key string) *byte {
		st.e.Lock()
		defer st.e.Unlock()
		v, _ := st.e.dbs[0].keys.Get(key)
		return unsafe.StringData(v.s)
	}
	before := data("h7")
	add("h7", 1e6, 50)
	if data("h7") != before {
		t.Fatal("PFADD on a dense HLL of its own copied it")
	}

	st.e.Lock()
	var ref bytes.Buffer
	if _, err := st.e.WriteRDB(&ref); err != nil {
		t.Fatal(err)
	}
	s := st.e.BeginSnapshot()
	s.walkSlice(s.dbs[0]) // some keys walked, most not
	st.e.Unlock()
	for k := range keys {
		add("h"+strconv.Itoa(k), 1e7+k*100, 50)
		if k%50 == 0 {
			st.do("PFCOUNT", "h"+strconv.Itoa(k)) // the cache, in place
		}
	}
	if data("h7") != before {
		t.Fatal("PFADD during a snapshot copied the HLL")
	}
	checkSnapshot(t, s, ref.Bytes())
}
