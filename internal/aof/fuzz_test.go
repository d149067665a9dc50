package aof

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzScanner: the log reader never panics, always ends, and reports bad
// bytes as a *Corruption at an offset inside the file.
func FuzzScanner(f *testing.F) {
	var rec = newRecordBuf()
	rec.open()
	rec.addStrings("SET", "k", "v")
	rec.end()
	good := append([]byte(fileMagic), rec.take(nil)...)
	f.Add(good)
	f.Add(good[:len(good)-3])
	f.Add([]byte(fileMagic))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newScanner(bytes.NewReader(data), "fuzz.aof", int64(len(data)))
		err := s.header()
		for n := 0; err == nil; n++ {
			if n > len(data) {
				t.Fatal("more records than bytes")
			}
			_, err = s.next()
		}
		if err == io.EOF {
			return
		}
		var c *Corruption
		if !errors.As(err, &c) {
			t.Fatalf("error %v is not a *Corruption", err)
		}
		if c.Offset < 0 || c.Offset > int64(len(data)) {
			t.Fatalf("corruption at offset %d of %d bytes", c.Offset, len(data))
		}
	})
}

// FuzzManifest: a corrupt manifest is an error, never a panic.
func FuzzManifest(f *testing.F) {
	f.Add([]byte("ordo-manifest 1\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseManifest(data)
		if err == nil {
			_ = m.encode()
		}
	})
}
