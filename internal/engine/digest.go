package engine

// DEBUG DIGEST and DEBUG DIGEST-VALUE, as Redis's debug.c computes them:
// SHA1s mixed (in order: strings, list elements, a key's parts) or xored
// (in any order: set members, hash fields, sorted-set members, the keys
// of a database), so that two servers holding the same data give the same
// hex digest whatever their encodings or hash orders.

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"

	"github.com/ordo-db/ordo/internal/ds/stream"
)

type digest [20]byte

// xor is Redis's xorDigest: d ^= SHA1(p).
func (d *digest) xor(p []byte) {
	h := sha1.Sum(p)
	for i := range d {
		d[i] ^= h[i]
	}
}

// mix is Redis's mixDigest: d = SHA1(d ^ SHA1(p)).
func (d *digest) mix(p []byte) {
	d.xor(p)
	*d = sha1.Sum(d[:])
}

func (d *digest) mixString(s string) { d.mix([]byte(s)) }

// Redis's object type numbers, mixed first into a value's digest.
const (
	objString = 0
	objList   = 1
	objSet    = 2
	objZSet   = 3
	objHash   = 4
)

// digestScore prints a score as Redis 7.0's debug.c does ("%.17g").
func digestScore(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', 17, 64)
}

// xorValueDigest is Redis's xorObjectDigest: the digest of the value v at
// key (with its expiry), mixed into d.
func (db *DB) xorValueDigest(key string, v Value, d *digest) {
	var typ uint32
	switch v.o.(type) {
	case nil, rawString:
		typ = objString
	case *List:
		typ = objList
	case *Set:
		typ = objSet
	case *ZSet:
		typ = objZSet
	case *Hash:
		typ = objHash
	case *Stream:
		typ = 6 // OBJ_STREAM
	default:
		typ = 5 // a module type in Redis (Ordo's JSON)
	}
	var aux [4]byte
	binary.BigEndian.PutUint32(aux[:], typ)
	d.mix(aux[:])
	switch x := v.o.(type) {
	case nil, rawString:
		d.mixString(v.s)
	case *List:
		for i, n := 0, x.Len(); i < n; i++ {
			d.mix(x.BytesAt(i))
		}
	case *Set:
		x.each(func(m string) bool {
			d.xor([]byte(m))
			return true
		})
	case *ZSet:
		x.Range(0, false, func(m []byte, score float64) bool {
			var e digest
			e.mix(m)
			e.mixString(digestScore(score))
			d.xor(e[:])
			return true
		})
	case *Hash:
		x.each(func(f, val string) bool {
			var e digest
			e.mixString(f)
			e.mixString(val)
			d.xor(e[:])
			return true
		})
	case *Stream:
		x.Range(stream.ID{}, stream.Max, false, func(id stream.ID, fv [][]byte) bool {
			d.mixString(strconv.FormatUint(id.Ms, 10) + "." + strconv.FormatUint(id.Seq, 10))
			for _, b := range fv {
				d.mix(b)
			}
			return true
		})
	default:
		if t, ok := v.o.(Typed); ok {
			// No Redis reference: the commands that rebuild the value.
			var e digest
			t.Rewrite(key, func(args [][]byte) {
				for _, a := range args {
					e.mix(a)
				}
			})
			d.xor(e[:])
		}
	}
	if db.expires.Len() > 0 {
		if _, ok := db.expires.Get(key); ok {
			d.xor([]byte("!!expire!!"))
		}
	}
}

// digestValue is DEBUG DIGEST-VALUE's digest of key: zeros if absent.
// As Redis, it does not expire the key.
func (db *DB) digestValue(key string) string {
	var d digest
	if v, ok := db.keys.Get(key); ok {
		db.xorValueDigest(key, v, &d)
	}
	return hex.EncodeToString(d[:])
}

// datasetDigest is DEBUG DIGEST: per database with keys, its number mixed
// in, then the xor of every key's digest (the key mixed, then its value).
func (e *Engine) datasetDigest() string {
	var final digest
	for i, db := range e.dbs {
		if db.keys.Len() == 0 {
			continue
		}
		var aux [4]byte
		binary.BigEndian.PutUint32(aux[:], uint32(i))
		final.mix(aux[:])
		db.keys.Each(func(k string, v Value) bool {
			var d digest
			d.mixString(k)
			db.xorValueDigest(k, v, &d)
			final.xor(d[:])
			return true
		})
	}
	return hex.EncodeToString(final[:])
}
