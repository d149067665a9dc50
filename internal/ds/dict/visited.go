package dict

import "math/bits"

// Visited reports whether a Scan that returned cursor (not 0) has already
// called back for key's bucket, provided the table did not shrink since
// the scan began (growth is fine). The engine's snapshot uses it to tell
// a key its walk has serialized from one it has still to reach, so that
// it never holds two copies of a key, nor the names of the keys walked.
//
// Why it holds: Scan increments the cursor's bits from the top, so with
// R = Reverse64(cursor) every call covers the hashes whose reversed bits
// have the next prefix (as long as the table's mask) and leaves R at the
// prefix after it, its lower bits zero; a table grown meanwhile only
// makes the prefixes longer. The hashes visited are those whose reversed
// value is below R. A shrink would merge a visited bucket with one not
// visited, and Scan would call back for some keys again: callers who rely
// on Visited do not shrink the table meanwhile.
func (d *Dict[V]) Visited(cursor uint64, key string) bool {
	return cursor != 0 && bits.Reverse64(dictHash(key)) < bits.Reverse64(cursor)
}
