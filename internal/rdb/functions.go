package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// DumpFunctions is FUNCTION DUMP's payload: one FUNCTION2 opcode and the
// library code per library, then the RDB version and the CRC64, the
// framing of DUMP (Redis's functionDumpCommand).
func DumpFunctions(codes [][]byte, compress bool) []byte {
	var b []byte
	for _, c := range codes {
		b = append(b, OpFunction2)
		b = appendString(b, c, compress)
	}
	b = binary.LittleEndian.AppendUint16(b, Version)
	return binary.LittleEndian.AppendUint64(b, CRC64(0, b))
}

// ErrFunctionPayload is a FUNCTION RESTORE payload whose body is not a
// list of FUNCTION2 records.
var ErrFunctionPayload = errors.New("given type is not a function")

// ParseFunctions reads the library codes of a FUNCTION DUMP payload whose
// footer VerifyPayload accepted.
func ParseFunctions(p []byte) ([][]byte, error) {
	d := &decoder{r: bytes.NewReader(p[:len(p)-10])}
	var codes [][]byte
	for d.pos < int64(len(p)-10) {
		op, err := d.byte()
		if err != nil {
			return nil, err
		}
		if op != OpFunction2 {
			return nil, ErrFunctionPayload
		}
		code, err := d.string()
		if err != nil {
			return nil, err
		}
		codes = append(codes, code)
	}
	return codes, nil
}
