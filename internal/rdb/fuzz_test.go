package rdb

import (
	"bytes"
	"testing"

	"github.com/ordo-db/ordo/internal/ds/stream"
)

// sampleStream is a stream with mixed fields, a deleted entry and a group.
func sampleStream() *Value {
	s := stream.New()
	s.Append(stream.ID{Ms: 1, Seq: 1}, [][]byte{[]byte("f"), []byte("1"), []byte("g"), []byte("x")}, 4096, 3)
	s.Append(stream.ID{Ms: 2, Seq: 0}, [][]byte{[]byte("f"), []byte("-7")}, 4096, 3)
	s.Append(stream.ID{Ms: 2, Seq: 5}, [][]byte{[]byte("f"), []byte("1"), []byte("g"), []byte("y")}, 4096, 3)
	s.Append(stream.ID{Ms: 9, Seq: 0}, [][]byte{[]byte("h"), []byte("")}, 4096, 3)
	s.Delete(stream.ID{Ms: 2, Seq: 0})
	rs := &Stream{Length: s.Length, LastID: StreamID{9, 0}, FirstID: StreamID{1, 1}, MaxDeletedID: StreamID{2, 0}, EntriesAdded: 4}
	s.EachNode(func(m stream.ID, lp []byte) { rs.Nodes = append(rs.Nodes, StreamNode{StreamID{m.Ms, m.Seq}, lp}) })
	rs.Groups = []StreamGroup{{Name: []byte("g"), LastID: StreamID{2, 5}, EntriesRead: 3,
		PEL:       []StreamNACK{{StreamID{1, 1}, 1700000000000, 2}},
		Consumers: []StreamConsumer{{Name: []byte("c"), SeenTime: 1700000000000, PEL: []StreamID{{1, 1}}}, {Name: []byte("d")}}}}
	return &Value{Kind: KindStream, Stream: rs}
}

func FuzzDecodeValue(f *testing.F) {
	for _, v := range sample() {
		f.Add(AppendValue(nil, v, true))
		f.Add(AppendValue(nil, v, false))
	}
	f.Add(AppendValue(nil, sampleStream(), false))
	f.Add([]byte{TypeHashZipmap, 0x0b, 0x01, 0x01, 'a', 0x01, 0x00, 'b', 0xff})
	f.Add([]byte{TypeSetIntset, 0x0c, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 2, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodeValue(b)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error", err)
			}
			return
		}
		// Whatever decodes re-encodes to something that decodes the same.
		again, err := DecodeValue(AppendValue(nil, v, true))
		if err != nil {
			t.Fatalf("re-encoding failed: %v", err)
		}
		if again.Kind != v.Kind || again.Len() != v.Len() {
			t.Fatalf("re-encoding changed the value")
		}
	})
}

func FuzzReadFile(f *testing.F) {
	var buf bytes.Buffer
	w := NewWriter(&buf, true)
	w.Aux("redis-ver", "7.0.15")
	w.SelectDB(0, 2, 1)
	for i, v := range sample() {
		w.Entry([]byte{byte('a' + i)}, v, int64(i)*1000-1)
	}
	w.Close()
	f.Add(buf.Bytes())
	f.Add([]byte("REDIS0009\xff\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("REDIS0003\xfe\x00\x00\x01a\x01b\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ReadFile(bytes.NewReader(b), Handler{Entry: func(e *Entry) error { return nil }})
	})
}

func FuzzLZF(f *testing.F) {
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))
	f.Add([]byte("abcabcabcabcabcabcabcabcXYZabcabcabc0123456789"))
	f.Fuzz(func(t *testing.T, b []byte) {
		// Any input decompresses without panicking.
		lzfDecompress(b, 4*len(b)+8)
		if len(b) < 5 {
			return
		}
		c := lzfCompress(b, len(b)-4)
		if c == nil {
			return
		}
		out, ok := lzfDecompress(c, len(b))
		if !ok || !bytes.Equal(out, b) {
			t.Fatalf("round trip failed")
		}
	})
}
