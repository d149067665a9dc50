// Package embedded measures the embedded Ordo database against BuntDB
// (github.com/tidwall/buntdb, the common embedded Go store with secondary
// indexes) side by side, with the same data, the same indexes and the same
// sync policy, for two ways of using Ordo: hashes under an engine (FT)
// index, and the index library's Collection on the embedded database
// (BuntDB's exact indexes: a numeric one and a (city, age) composite). It
// is test-only: the root module links BuntDB only into
// this package's tests.
//
// TestSideBySide (ORDO_BENCH=1) prints every rate per second of wall time
// and per second of the process's CPU time; TestMeasureMemory (MEASURE=1)
// splits each store's RSS into Go heap, free heap, runtime and the rest,
// and Ordo's into the hashes and the index. Figures and history:
// bench/README.md, "Embedded: Ordo against BuntDB". Last (2026-11-25,
// memory policy, load 15 to 20, CPU time, two runs): put 7.8x BuntDB's
// rate, range query 2.0x to 2.4x, point get 1.8x to 2.2x; RSS 1.5x, of
// which the index is about 25 MB: the hashes alone take less than BuntDB.
package embedded
