package rdb

import "hash/crc64"

// Redis's CRC64 is the Jones polynomial (0xad93d23594c935a9, reflected
// in and out), initial value 0 and no final xor. The standard library
// computes reflected CRCs with an inverted register; inverting on the
// way in and out gives Redis's values (crc64("123456789") ==
// 0xe9c6d914c4b8d9ca).
var jonesTable = crc64.MakeTable(0x95ac9329ac4bc9b5) // the Jones polynomial, bit-reversed

// CRC64 continues Redis's crc64(crc, p).
func CRC64(crc uint64, p []byte) uint64 {
	return ^crc64.Update(^crc, jonesTable, p)
}
