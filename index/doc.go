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
// indexes (FT.CREATE/FT.SEARCH; from Go, ordo.DB's CreateIndex, typed
// Search and GetDoc) are kept in step by the engine whatever writes the
// keys, with no script per write. This package's indexes are the portable
// path: the same code, keys and results on Redis, Valkey, Redis Cluster
// and Ordo. On the embedded database a Collection keeps that layout but
// skips the command round trips where the backend offers a shortcut
// (optional interfaces of package backend, used when present): reads of
// whole objects go through backend.HashReader (under the engine lock, no
// RESP), and Put/Delete through backend.Atomic (the swap planned in Go
// and run as one MULTI/EXEC, no Lua).
//
// A Collection does not answer its queries from the engine's FT indexes:
// its results are defined by its sorted sets (ties in id order, bytewise
// ranges on String fields, float64 scores; Numeric and Composite expose
// the sorted sets themselves), which FT.SEARCH does not reproduce. A
// program that wants the engine's indexes declares them with CreateIndex
// over the objects' hashes ({name}:obj:*) and queries them with Search.
//
// Keys: an index named "ages" keeps its data under keys that carry a hash
// tag ("{ages}..."), so that on Redis Cluster every key an atomic update
// touches lives in one hash slot.
package index
