package hll

import "testing"

// FuzzHLL: any string that passes Valid can be counted, merged and made
// dense without a panic; a corrupt one is an error.
func FuzzHLL(f *testing.F) {
	f.Add(New())
	b := New()
	for i := 0; i < 200; i++ {
		idx, cnt := PatLen([]byte{byte(i), byte(i >> 3)})
		b, _ = Set(b, idx, cnt, 3000)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		if !Valid(b) {
			return
		}
		c := append([]byte(nil), b...)
		_, _ = Count(c)
		var regs [Registers]uint8
		_ = Merge(&regs, c)
		if d, err := ToDense(append([]byte(nil), b...)); err == nil {
			if _, err := Count(d); err != nil {
				t.Fatalf("dense form of a valid HLL is corrupt: %v", err)
			}
		}
	})
}
