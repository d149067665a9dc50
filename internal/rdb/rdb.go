// Package rdb reads and writes Redis's serialization format: RDB files
// (version 10, as written by Redis 7.0; older versions are read) and the
// single-value payloads of DUMP and RESTORE.
//
// The package knows nothing of the engine: values are converted to and
// from Value, a plain representation that keeps only what decides how
// Redis encodes a value (its kind, its elements, and whether it is in a
// compact encoding: intset or listpack).
//
// Decoding never panics on corrupt input: every error is an *Error that
// carries the byte position where decoding failed. Streams are decoded
// with their nodes validated as Redis's deep check does and their groups'
// pending entries checked against their consumers; module values are
// recognised but not decoded (ErrUnsupported).
package rdb

import (
	"errors"
	"fmt"
)

// Version is the RDB version written (Redis 7.0's RDB_VERSION).
const Version = 10

// Object types, as rdb.h numbers them.
const (
	TypeString          = 0
	TypeList            = 1
	TypeSet             = 2
	TypeZSet            = 3
	TypeHash            = 4
	TypeZSet2           = 5
	TypeModulePreGA     = 6
	TypeModule2         = 7
	TypeHashZipmap      = 9
	TypeListZiplist     = 10
	TypeSetIntset       = 11
	TypeZSetZiplist     = 12
	TypeHashZiplist     = 13
	TypeListQuicklist   = 14
	TypeStreamListpacks = 15
	TypeHashListpack    = 16
	TypeZSetListpack    = 17
	TypeListQuicklist2  = 18
	TypeStreamListpack2 = 19
)

// Opcodes of a whole file.
const (
	OpFunction2    = 245
	OpFunctionPre  = 246
	OpModuleAux    = 247
	OpIdle         = 248
	OpFreq         = 249
	OpAux          = 250
	OpResizeDB     = 251
	OpExpireTimeMS = 252
	OpExpireTime   = 253
	OpSelectDB     = 254
	OpEOF          = 255
)

// Kind is the type of a value, as TYPE names it.
type Kind uint8

// The value kinds.
const (
	KindString Kind = iota
	KindList
	KindSet
	KindZSet
	KindHash
	KindStream
)

func (k Kind) String() string {
	switch k {
	case KindString:
		return "string"
	case KindList:
		return "list"
	case KindSet:
		return "set"
	case KindZSet:
		return "zset"
	case KindHash:
		return "hash"
	case KindStream:
		return "stream"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Value is one value in the engine-independent form.
//
//   - string: Str.
//   - list: Elems, head to tail.
//   - set: Elems, the members (unique).
//   - hash: Elems, field, value, field, value ... (unique fields).
//   - zset: Elems are the members (unique), Scores their scores, in
//     ascending (score, member) order when written compactly.
//
// Compact says the value is in Redis's small encoding: an intset for a
// set (every member an integer), a listpack for a hash or a sorted set.
// The encoder writes compact values in that encoding and others in the
// general one (hashtable, skiplist), which is what makes redis-server
// load them with the same encodings. Decoded values report the encoding
// they were stored in. Lists are always written as quicklists of
// listpacks.
type Value struct {
	Kind    Kind
	Compact bool
	Str     []byte
	Elems   [][]byte
	Scores  []float64
	Stream  *Stream // KindStream
}

// StreamID is a stream entry ID.
type StreamID struct{ Ms, Seq uint64 }

// Stream is a stream as RDB_TYPE_STREAM_LISTPACKS_2 stores it: its nodes
// (each a listpack in Redis's stream node layout, validated when
// decoded), metadata and consumer groups. V1 marks one read from the
// older RDB_TYPE_STREAM_LISTPACKS, which lacks FirstID, MaxDeletedID,
// EntriesAdded and the groups' EntriesRead: the loader derives them as
// Redis does.
type Stream struct {
	Nodes        []StreamNode
	Length       uint64
	LastID       StreamID
	FirstID      StreamID
	MaxDeletedID StreamID
	EntriesAdded uint64
	Groups       []StreamGroup
	V1           bool
}

// StreamNode is one listpack of entries, keyed by its master ID.
type StreamNode struct {
	Master StreamID
	LP     []byte
}

// StreamGroup is a consumer group; every pending entry belongs to one
// of its consumers.
type StreamGroup struct {
	Name        []byte
	LastID      StreamID
	EntriesRead int64 // -1: unknown
	PEL         []StreamNACK
	Consumers   []StreamConsumer
}

// StreamNACK is a pending entry of a group.
type StreamNACK struct {
	ID            StreamID
	DeliveryTime  int64
	DeliveryCount uint64
}

// StreamConsumer is a consumer with the IDs of its pending entries.
type StreamConsumer struct {
	Name     []byte
	SeenTime int64
	PEL      []StreamID
}

// Len is the number of elements (fields for a hash; 1 for a string).
func (v *Value) Len() int {
	switch v.Kind {
	case KindString:
		return 1
	case KindHash:
		return len(v.Elems) / 2
	case KindStream:
		return int(v.Stream.Length)
	}
	return len(v.Elems)
}

// Error is a decoding error at byte Pos of the input.
type Error struct {
	Pos int64
	Msg string
	Err error // ErrUnsupported, ErrEmptyKey, io.ErrUnexpectedEOF or nil
}

func (e *Error) Error() string { return fmt.Sprintf("rdb: at byte %d: %s", e.Pos, e.Msg) }

// Unwrap returns the class of the error, if any.
func (e *Error) Unwrap() error { return e.Err }

var (
	// ErrUnsupported marks well-formed data Ordo cannot represent
	// (module values, pre-GA function code).
	ErrUnsupported = errors.New("rdb: unsupported value")
	// ErrEmptyKey marks an empty collection (Redis 7.0 refuses such a
	// RESTORE payload and skips such keys when loading a file).
	ErrEmptyKey = errors.New("rdb: empty key")
)
