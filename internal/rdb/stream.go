package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"github.com/ordo-db/ordo/internal/ds/listpack"
	"slices"
)

// Streams as Redis 7.0's rdbSaveObject and rdbLoadObject write and read
// them: the nodes (a 16-byte big-endian master ID, then the listpack),
// the length, last ID, then (version 2 only) first ID, maximal deleted ID
// and entries added; then the groups, each with its name, last ID,
// (version 2) entries read, the PEL (raw 16-byte IDs, delivery time in
// little-endian ms, delivery count) and the consumers (name, seen time,
// the raw IDs of their pending entries).

func encodeStreamID(b []byte, id StreamID) []byte {
	b = binary.BigEndian.AppendUint64(b, id.Ms)
	return binary.BigEndian.AppendUint64(b, id.Seq)
}

func decodeStreamID(b []byte) StreamID {
	return StreamID{binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:])}
}

func (a StreamID) less(b StreamID) bool { return a.Ms < b.Ms || a.Ms == b.Ms && a.Seq < b.Seq }

func appendStream(b []byte, s *Stream, compress bool) []byte {
	b = appendLen(b, uint64(len(s.Nodes)))
	var key [16]byte
	for _, n := range s.Nodes {
		b = appendRawString(b, encodeStreamID(key[:0], n.Master), compress)
		b = appendRawString(b, n.LP, compress)
	}
	b = appendLen(b, s.Length)
	b = appendLen(b, s.LastID.Ms)
	b = appendLen(b, s.LastID.Seq)
	b = appendLen(b, s.FirstID.Ms)
	b = appendLen(b, s.FirstID.Seq)
	b = appendLen(b, s.MaxDeletedID.Ms)
	b = appendLen(b, s.MaxDeletedID.Seq)
	b = appendLen(b, s.EntriesAdded)
	b = appendLen(b, uint64(len(s.Groups)))
	for _, g := range s.Groups {
		b = appendString(b, g.Name, compress)
		b = appendLen(b, g.LastID.Ms)
		b = appendLen(b, g.LastID.Seq)
		b = appendLen(b, uint64(g.EntriesRead))
		b = appendLen(b, uint64(len(g.PEL)))
		for _, n := range g.PEL {
			b = encodeStreamID(b, n.ID)
			b = binary.LittleEndian.AppendUint64(b, uint64(n.DeliveryTime))
			b = appendLen(b, n.DeliveryCount)
		}
		b = appendLen(b, uint64(len(g.Consumers)))
		for _, c := range g.Consumers {
			b = appendString(b, c.Name, compress)
			b = binary.LittleEndian.AppendUint64(b, uint64(c.SeenTime))
			b = appendLen(b, uint64(len(c.PEL)))
			for _, id := range c.PEL {
				b = encodeStreamID(b, id)
			}
		}
	}
	return b
}

// appendRawString writes bytes that rdbSaveRawString would never write
// as an integer (a node key or a listpack is never a short decimal
// integer) but may compress; appendString does the same here.
func appendRawString(b, s []byte, compress bool) []byte { return appendString(b, s, compress) }

func (d *decoder) stream(v *Value, v2 bool) error {
	s := &Stream{V1: !v2}
	v.Stream = s
	n, err := d.plainLen()
	if err != nil {
		return err
	}
	var live uint64
	for i := uint64(0); i < n; i++ {
		at := d.pos
		key, err := d.string()
		if err != nil {
			return err
		}
		if len(key) != 16 {
			return d.errAt(at, nil, "stream node key is not the size of a stream ID")
		}
		master := decodeStreamID(key) // before the next read reuses the buffer
		at = d.pos
		lp, err := d.string()
		if err != nil {
			return err
		}
		cnt, ok := validateStreamNode(lp)
		if !ok {
			return d.errAt(at, nil, "stream listpack integrity check failed")
		}
		if cnt == 0 {
			return d.errAt(at, nil, "empty listpack inside stream")
		}
		if len(s.Nodes) > 0 && !s.Nodes[len(s.Nodes)-1].Master.less(master) {
			return d.errAt(at, nil, "stream node keys out of order or duplicated")
		}
		live += uint64(cnt)
		s.Nodes = append(s.Nodes, StreamNode{master, slices.Clone(lp)})
	}
	meta := func(p *uint64) error {
		x, err := d.plainLen()
		*p = x
		return err
	}
	at := d.pos
	for _, p := range []*uint64{&s.Length, &s.LastID.Ms, &s.LastID.Seq} {
		if err := meta(p); err != nil {
			return err
		}
	}
	if v2 {
		for _, p := range []*uint64{&s.FirstID.Ms, &s.FirstID.Seq, &s.MaxDeletedID.Ms, &s.MaxDeletedID.Seq, &s.EntriesAdded} {
			if err := meta(p); err != nil {
				return err
			}
		}
	}
	if s.Length != live {
		return d.errAt(at, nil, "stream length inconsistent with its nodes")
	}
	ng, err := d.plainLen()
	if err != nil {
		return err
	}
	for i := uint64(0); i < ng; i++ {
		var g StreamGroup
		at := d.pos
		if g.Name, err = d.string(); err != nil {
			return err
		}
		g.Name = slices.Clone(g.Name)
		for _, sg := range s.Groups {
			if bytes.Equal(sg.Name, g.Name) {
				return d.errAt(at, nil, "duplicated consumer group name")
			}
		}
		if err := meta(&g.LastID.Ms); err != nil {
			return err
		}
		if err := meta(&g.LastID.Seq); err != nil {
			return err
		}
		g.EntriesRead = -1
		if v2 {
			var er uint64
			if err := meta(&er); err != nil {
				return err
			}
			g.EntriesRead = int64(er)
		}
		np, err := d.plainLen()
		if err != nil {
			return err
		}
		for j := uint64(0); j < np; j++ {
			at := d.pos
			raw, err := d.fixed(24)
			if err != nil {
				return err
			}
			var nk StreamNACK
			nk.ID = decodeStreamID(raw)
			nk.DeliveryTime = int64(binary.LittleEndian.Uint64(raw[16:]))
			if nk.DeliveryCount, err = d.plainLen(); err != nil {
				return err
			}
			if len(g.PEL) > 0 && !g.PEL[len(g.PEL)-1].ID.less(nk.ID) {
				return d.errAt(at, nil, "duplicated or unordered global PEL entry")
			}
			g.PEL = append(g.PEL, nk)
		}
		owned := make([]bool, len(g.PEL))
		nc, err := d.plainLen()
		if err != nil {
			return err
		}
		for j := uint64(0); j < nc; j++ {
			var c StreamConsumer
			at := d.pos
			if c.Name, err = d.string(); err != nil {
				return err
			}
			c.Name = slices.Clone(c.Name)
			for _, oc := range g.Consumers {
				if bytes.Equal(oc.Name, c.Name) {
					return d.errAt(at, nil, "duplicate stream consumer")
				}
			}
			raw, err := d.fixed(8)
			if err != nil {
				return err
			}
			c.SeenTime = int64(binary.LittleEndian.Uint64(raw))
			np, err := d.plainLen()
			if err != nil {
				return err
			}
			for k := uint64(0); k < np; k++ {
				at := d.pos
				raw, err := d.fixed(16)
				if err != nil {
					return err
				}
				id := decodeStreamID(raw)
				idx, found := slices.BinarySearchFunc(g.PEL, id, func(n StreamNACK, id StreamID) int {
					switch {
					case n.ID.less(id):
						return -1
					case id.less(n.ID):
						return 1
					}
					return 0
				})
				if !found {
					return d.errAt(at, nil, "consumer entry not found in group global PEL")
				}
				if owned[idx] {
					return d.errAt(at, nil, "duplicated consumer PEL entry")
				}
				owned[idx] = true
				c.PEL = append(c.PEL, id)
			}
			g.Consumers = append(g.Consumers, c)
		}
		for _, o := range owned {
			if !o {
				return d.errAt(at, nil, "stream group PEL entry without consumer")
			}
		}
		s.Groups = append(s.Groups, g)
	}
	return nil
}

var errNotStreamNode = errors.New("not a stream node")

// validateStreamNode checks that lp is a listpack laid out as a stream
// node (Redis's streamValidateListpackIntegrity, deep: the master entry,
// then entries whose lp-count matches their length, live and deleted
// counts matching the header) and returns its live entry count.
func validateStreamNode(lp []byte) (int64, bool) {
	// A state machine over the elements, in the listpack's order.
	const (
		stCount = iota
		stDeleted
		stMasterFields
		stMasterField
		stZero
		stFlags
		stMs
		stSeq
		stNumFields
		stField
		stValue
		stLpCount
	)
	var (
		st                       = stCount
		cnt, del, mf, live, dead int64
		flags, nf, left, seen    int64
	)
	integer := func(e []byte) (int64, error) {
		v, ok := listpack.ParseInt(e)
		if !ok {
			return 0, errNotStreamNode
		}
		return v, nil
	}
	_, err := readListpack(lp, func(e []byte) error {
		var err error
		var v int64
		seen++
		switch st {
		case stCount, stDeleted, stMasterFields, stZero, stFlags, stMs, stSeq, stNumFields, stLpCount:
			if v, err = integer(e); err != nil {
				return err
			}
		}
		switch st {
		case stCount:
			cnt, st = v, stDeleted
		case stDeleted:
			del, st = v, stMasterFields
		case stMasterFields:
			if v < 0 || v > int64(len(lp)) {
				return errNotStreamNode
			}
			mf, left, st = v, v, stMasterField
			if left == 0 {
				st = stZero
			}
		case stMasterField:
			if left--; left == 0 {
				st = stZero
			}
		case stZero:
			if v != 0 {
				return errNotStreamNode
			}
			st = stFlags
		case stFlags:
			flags, seen, st = v, 1, stMs
		case stMs:
			st = stSeq
		case stSeq:
			if flags&2 != 0 { // same fields as the master entry
				nf, left, st = mf, mf, stValue
				if left == 0 {
					st = stLpCount
				}
			} else {
				st = stNumFields
			}
		case stNumFields:
			if v < 0 || v > int64(len(lp)) {
				return errNotStreamNode
			}
			nf, left, st = v, 2*v, stField
			if left == 0 {
				st = stLpCount
			}
		case stField, stValue:
			if left--; left == 0 {
				st = stLpCount
			}
		case stLpCount:
			if v != seen-1 {
				return errNotStreamNode
			}
			_ = nf
			if flags&1 != 0 {
				dead++
			} else {
				live++
			}
			st = stFlags
		}
		return nil
	})
	if err != nil || st != stFlags || live != cnt || dead != del {
		return 0, false
	}
	return live, true
}
