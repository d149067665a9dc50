package stream

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/ordo-db/ordo/internal/ds/listpack"
	"math/rand/v2"
	"strconv"
	"testing"
)

// model is the brute-force stream the fuzz test compares against.
type model struct {
	ids []ID
	fvs [][][]byte
}

func (m *model) del(i int) {
	m.ids = append(m.ids[:i:i], m.ids[i+1:]...)
	m.fvs = append(m.fvs[:i:i], m.fvs[i+1:]...)
}

func render(id ID, fv [][]byte) string {
	var b bytes.Buffer
	b.WriteString(id.String())
	for _, x := range fv {
		b.WriteByte('|')
		b.Write(x)
	}
	return b.String()
}

func check(t *testing.T, s *Stream, m *model, step string) {
	t.Helper()
	if int(s.Length) != len(m.ids) {
		t.Fatalf("%s: Length %d, model %d", step, s.Length, len(m.ids))
	}
	var got []string
	s.Range(ID{}, Max, false, func(id ID, fv [][]byte) bool { got = append(got, render(id, fv)); return true })
	if len(got) != len(m.ids) {
		t.Fatalf("%s: Range gave %d entries, model %d", step, len(got), len(m.ids))
	}
	for i := range got {
		if want := render(m.ids[i], m.fvs[i]); got[i] != want {
			t.Fatalf("%s: entry %d is %q, model %q", step, i, got[i], want)
		}
	}
	var rev []string
	s.Range(ID{}, Max, true, func(id ID, fv [][]byte) bool { rev = append(rev, render(id, fv)); return true })
	for i := range rev {
		if rev[i] != got[len(got)-1-i] {
			t.Fatalf("%s: reverse range differs at %d", step, i)
		}
	}
	if len(m.ids) > 0 {
		if last, _ := s.LastValid(); last != m.ids[len(m.ids)-1] {
			t.Fatalf("%s: LastValid %v, model %v", step, last, m.ids[len(m.ids)-1])
		}
		if first, _ := s.FirstValid(); first != m.ids[0] {
			t.Fatalf("%s: FirstValid %v, model %v", step, first, m.ids[0])
		}
	}
	for _, nd := range s.nodes {
		if _, _, ok := ValidateNode(nd.lp); !ok {
			t.Fatalf("%s: invalid node %v", step, nd.master)
		}
	}
	bytesOK(t, s, step)
}

// Fuzz: random appends (shared and other fields, integer-looking and
// binary values), deletes, exact and approximate trims by length and by
// ID, and sub-ranges, against the model; nodes always validate.
func FuzzStreamModel(f *testing.F) {
	f.Add(uint64(1), uint16(300), uint8(5))
	f.Add(uint64(7), uint16(2000), uint8(100))
	f.Add(uint64(42), uint16(900), uint8(1))
	f.Fuzz(func(t *testing.T, seed uint64, ops uint16, maxEntries uint8) {
		r := rand.New(rand.NewPCG(seed, 99))
		s := New()
		m := &model{}
		last := ID{}
		fields := [][]byte{[]byte("f"), []byte("g"), []byte("123"), []byte("-5"), {0, 1, 2}}
		for op := 0; op < int(ops)%3000; op++ {
			switch k := r.IntN(20); {
			case k < 12:
				last = ID{last.Ms + uint64(r.IntN(3)), last.Seq + 1 + uint64(r.IntN(1000))}
				n := 1 + r.IntN(3)
				fv := make([][]byte, 0, 2*n)
				for i := 0; i < n; i++ {
					fv = append(fv, fields[r.IntN(len(fields))])
					switch r.IntN(4) {
					case 0:
						fv = append(fv, []byte(strconv.FormatInt(r.Int64N(1<<40)-1<<39, 10)))
					case 1:
						fv = append(fv, bytes.Repeat([]byte{'x'}, r.IntN(5000)))
					default:
						fv = append(fv, []byte(fmt.Sprint("v", r.IntN(100))))
					}
				}
				s.Append(last, fv, int64(200+r.IntN(4000)), int64(maxEntries))
				m.ids = append(m.ids, last)
				m.fvs = append(m.fvs, fv)
			case k < 15 && len(m.ids) > 0:
				i := r.IntN(len(m.ids))
				id := m.ids[i]
				if !s.Delete(id) {
					t.Fatalf("Delete %v: not found", id)
				}
				m.del(i)
				if s.Delete(id) {
					t.Fatalf("Delete %v twice", id)
				}
			case k < 17:
				maxlen := int64(r.IntN(len(m.ids) + 1))
				approx := r.IntN(2) == 0
				n := s.Trim(TrimArgs{Strategy: TrimMaxLen, MaxLen: maxlen, Approx: approx})
				for range n {
					m.del(0)
				}
				if !approx && int64(len(m.ids)) != min(maxlen, int64(len(m.ids))) {
					t.Fatalf("exact MAXLEN %d left %d", maxlen, len(m.ids))
				}
			case k < 18 && len(m.ids) > 0:
				minid := m.ids[r.IntN(len(m.ids))]
				approx := r.IntN(2) == 0
				n := s.Trim(TrimArgs{Strategy: TrimMinID, MinID: minid, Approx: approx})
				for range n {
					if !m.ids[0].Less(minid) {
						t.Fatalf("MINID %v removed %v", minid, m.ids[0])
					}
					m.del(0)
				}
				if !approx && len(m.ids) > 0 && m.ids[0].Less(minid) {
					t.Fatalf("exact MINID %v left %v", minid, m.ids[0])
				}
			default:
				if len(m.ids) == 0 {
					continue
				}
				a, b := m.ids[r.IntN(len(m.ids))], m.ids[r.IntN(len(m.ids))]
				if b.Less(a) {
					a, b = b, a
				}
				var got []ID
				s.Range(a, b, false, func(id ID, _ [][]byte) bool { got = append(got, id); return true })
				var want []ID
				for _, id := range m.ids {
					if !id.Less(a) && !b.Less(id) {
						want = append(want, id)
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("Range %v..%v: %v, model %v", a, b, got, want)
				}
			}
			check(t, s, m, fmt.Sprint("op ", op))
		}
		cp := s.Copy()
		check(t, cp, m, "copy")
	})
}

func TestListpackIntegers(t *testing.T) {
	for _, v := range []int64{0, 1, 127, 128, -1, 4095, 4096, -4096, -4097, 32767, 32768, -32768, -32769,
		8388607, 8388608, -8388608, -8388609, 1<<31 - 1, 1 << 31, -1 << 31, -1<<31 - 1, 1<<63 - 1, -1 << 63} {
		lp := lpNew(0)
		var a appender
		lp = a.int(lp, v)
		lp = a.str(lp, []byte(strconv.FormatInt(v, 10)))
		if n, ok := lpValidate(lp); !ok || n != 2 {
			t.Fatalf("%d: invalid listpack", v)
		}
		x, off := lpInt(lp, lpHeaderSize)
		y, _ := lpInt(lp, off)
		if x != v || y != v {
			t.Fatalf("%d: read back %d and %d", v, x, y)
		}
		if binary.LittleEndian.Uint32(lp) != uint32(len(lp)) {
			t.Fatalf("%d: header size", v)
		}
	}
	for _, s := range []string{"-0", "01", "+1", " 1", "", "9223372036854775808", "-9223372036854775809", "1a"} {
		if _, ok := listpack.ParseInt([]byte(s)); ok {
			t.Errorf("%q taken for an integer", s)
		}
	}
}

func TestIDs(t *testing.T) {
	if id, ok := Max.Incr(); ok || id != Max {
		t.Fatal("Max.Incr")
	}
	if id, ok := (ID{}).Decr(); ok || id != (ID{}) {
		t.Fatal("0-0.Decr")
	}
	if id, _ := (ID{1, 1<<64 - 1}).Incr(); id != (ID{2, 0}) {
		t.Fatal("carry")
	}
	if id, _ := (ID{2, 0}).Decr(); id != (ID{1, 1<<64 - 1}) {
		t.Fatal("borrow")
	}
}

// The off-heap chunks are released as nodes go: a stream trimmed to
// nothing maps nothing.
func TestSlabReleased(t *testing.T) {
	s := New()
	for i := 1; i <= 5000; i++ {
		s.Append(ID{uint64(i), 0}, [][]byte{[]byte("f"), []byte("value")}, 4096, 100)
	}
	if s.slab == nil || len(s.slab.chunks) == 0 {
		t.Skip("no mappings on this platform")
	}
	s.Trim(TrimArgs{Strategy: TrimMaxLen, MaxLen: 0})
	if s.Length != 0 || len(s.nodes) != 0 || len(s.slab.chunks) != 0 {
		t.Fatalf("after trimming: %d entries, %d nodes, %d chunks", s.Length, len(s.nodes), len(s.slab.chunks))
	}
}

func BenchmarkAppend(b *testing.B) {
	s := New()
	fv := [][]byte{[]byte("name"), []byte("alice"), []byte("age"), []byte("31"), []byte("city"), []byte("paris")}
	for i := 0; i < b.N; i++ {
		s.Append(ID{uint64(i + 1), 0}, fv, 4096, 100)
	}
}

// bytesOK checks the running count behind Bytes.
func bytesOK(t *testing.T, s *Stream, step string) {
	t.Helper()
	var n int64
	for _, nd := range s.nodes {
		n += nd.size()
	}
	if n != s.nbytes {
		t.Fatalf("%s: nbytes %d, nodes hold %d", step, s.nbytes, n)
	}
	// Each chunk's live count is its sealed nodes' bytes; only the last
	// node may be open, in the slab's open chunk.
	live := map[*chunk]int{}
	for i := range s.nodes {
		nd := &s.nodes[i]
		if nd.ck == nil {
			continue
		}
		if s.isOpen(nd) {
			if i != len(s.nodes)-1 {
				t.Fatalf("%s: node %d of %d is open", step, i, len(s.nodes))
			}
			continue
		}
		live[nd.ck] += len(nd.lp)
	}
	if s.slab != nil {
		if s.slab.open != nil && (len(s.nodes) == 0 || !s.isOpen(&s.nodes[len(s.nodes)-1])) {
			t.Fatalf("%s: a chunk is open without an open tail", step)
		}
		for _, c := range s.slab.chunks {
			if c.live != live[c] {
				t.Fatalf("%s: chunk live %d, its nodes hold %d", step, c.live, live[c])
			}
			if c.live == 0 && c != s.slab.open {
				t.Fatalf("%s: an empty chunk stays mapped", step)
			}
		}
	}
}
