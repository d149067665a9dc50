// Package embedded measures the embedded Ordo database against BuntDB
// (github.com/tidwall/buntdb, the common embedded Go store with secondary
// indexes) side by side, with the same data, the same indexes and the same
// sync policy. It is test-only: the root module links BuntDB only into
// this package's tests.
package embedded
