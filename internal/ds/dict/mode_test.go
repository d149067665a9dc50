package dict

import (
	"strconv"
	"testing"

	"github.com/ordo-db/ordo/internal/ds/mem"
)

// TestMode checks which value types get the packed string/object mode:
// only struct{ string; any } layouts may be converted to strObj.
func TestMode(t *testing.T) {
	type other struct {
		_ string
		_ int64
		_ int64
	}
	type reversed struct {
		_ any
		_ string
	}
	for name, got := range map[string]dictMode{
		"struct{}": New[struct{}](nil).mode,
		"string":   New[string](nil).mode,
		"Value":    New[Value](nil).mode,
		"int64":    New[int64](nil).mode,
		"int32":    New[int32](nil).mode,
		"other":    New[other](nil).mode,
		"reversed": New[reversed](nil).mode,
	} {
		want := map[string]dictMode{"struct{}": dictSet, "string": dictString, "Value": dictValue, "int64": dictInt}[name]
		if got != want {
			t.Errorf("%s: mode %d, want %d", name, got, want)
		}
	}
}

// TestAcctBalanced checks that growth, shrinking, rebuilds and Clear
// leave an Acct's count exactly at what the Dict still maps, and at zero
// after Clear; two Dicts with their own Accts count separately.
func TestAcctBalanced(t *testing.T) {
	a, b := mem.NewAcct(nil, nil), mem.NewAcct(nil, nil)
	da, db := New[string](a), New[struct{}](b)
	mapped := func(d *dictRegions) int64 {
		if d == nil {
			return 0
		}
		return int64(len(d.tab[0]) + len(d.tab[1]))
	}
	for i := 0; i < 200000; i++ {
		da.Set("k"+strconv.Itoa(i), "v")
		if i < 1000 {
			db.Set("k"+strconv.Itoa(i), struct{}{})
		}
	}
	if a.MappedBytes() == 0 || a.MappedBytes() != mapped(da.rg) {
		t.Fatalf("after growth: acct %d, dict maps %d", a.MappedBytes(), mapped(da.rg))
	}
	if b.MappedBytes() != mapped(db.rg) {
		t.Fatalf("small dict: acct %d, dict maps %d", b.MappedBytes(), mapped(db.rg))
	}
	for i := 0; i < 200000; i++ {
		if i%100 != 0 {
			da.Delete("k" + strconv.Itoa(i))
			da.ShrinkIfNeeded()
		}
	}
	for i := 0; i < 1000; i++ {
		da.Get("k0") // finish any rehash
	}
	if a.MappedBytes() != mapped(da.rg) {
		t.Fatalf("after shrink: acct %d, dict maps %d", a.MappedBytes(), mapped(da.rg))
	}
	da.Clear()
	if a.MappedBytes() != 0 {
		t.Fatalf("after Clear: %d", a.MappedBytes())
	}
}
