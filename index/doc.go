// Package index is Ordo's secondary-index library: typed indexes kept in
// Redis sorted sets and hashes, one value in Go and one call per
// operation. It writes the sorted-set and hash commands of the redis.io
// "Secondary indexing" patterns so that no one hand-builds
// "0056:0028.44:90" again.
//
// Every index speaks only Redis commands to a backend.Backend (package
// github.com/ordo-db/ordo/backend), so the same code runs on the embedded
// database (db.Backend() of an *ordo.DB from ordo.Open), on ordo-server,
// and on any Redis or Valkey through go-redis (goredis.New(client), package
// github.com/ordo-db/ordo/backend/goredis), standalone or Redis Cluster.
// Changes that must stay together (an index entry and the data it points
// to) are applied atomically, with MULTI/EXEC or a Lua script, on every
// backend. Error replies come back as *backend.Error.
//
// The package links neither the embedded engine nor a Redis client (a
// test checks it with go list -deps): the program picks its backend.
//
// Where the data lives in Ordo (embedded or ordo-server), the engine's own
// indexes (FT.CREATE/FT.SEARCH; from Go, ordo.DB's CreateIndex and typed
// Search) are kept in step by the engine whatever writes the keys, with no
// script per write. This package's indexes are the portable path: the same
// code on Redis, Valkey and Redis Cluster. A Collection still uses them on
// every backend, the embedded one included.
//
// Keys: an index named "ages" keeps its data under keys that carry a hash
// tag ("{ages}..."), so that on Redis Cluster every key an atomic update
// touches lives in one hash slot.
package index
