// Package index is Ordo's secondary-index library: typed indexes kept in
// Redis sorted sets and hashes, one value in Go and one call per
// operation. It writes the sorted-set and hash commands of the redis.io
// "Secondary indexing" patterns so that no one hand-builds
// "0056:0028.44:90" again.
//
// Every index speaks only Redis commands to a Backend, so the same code
// runs on the embedded database (ordo.Open), on ordo-server, and on any
// Redis or Valkey through go-redis, standalone or Redis Cluster. Changes
// that must stay together (an index entry and the data it points to) are
// applied atomically, with MULTI/EXEC or a Lua script, on every backend.
//
// Keys: an index named "ages" keeps its data under keys that carry a hash
// tag ("{ages}..."), so that on Redis Cluster every key an atomic update
// touches lives in one hash slot.
package index
