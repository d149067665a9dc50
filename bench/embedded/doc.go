// Package embedded measures the embedded Ordo database against BuntDB
// (github.com/tidwall/buntdb, the common embedded Go store with secondary
// indexes) side by side, with the same data, the same indexes and the same
// sync policy, for two ways of using Ordo: hashes under an engine (FT)
// index, and the index library's Collection on the embedded database
// (BuntDB's exact indexes: a numeric one and a (city, age) composite). It
// is test-only: the root module links BuntDB only into
// this package's tests.
package embedded
