package mem

import (
	"sync"
	"testing"
)

func TestAcctChain(t *testing.T) {
	var hooked []*Acct
	root := NewAcct(nil, func(a *Acct) { hooked = append(hooked, a) })
	a := NewAcct(root, nil)
	b := NewAcct(root, nil)
	a.Map(100)
	b.MapPending(50)
	if a.MappedBytes() != 100 || b.MappedBytes() != 50 || root.MappedBytes() != 150 {
		t.Fatalf("mapped a=%d b=%d root=%d", a.MappedBytes(), b.MappedBytes(), root.MappedBytes())
	}
	if b.PendingBytes() != 50 || root.PendingBytes() != 50 || a.PendingBytes() != 0 {
		t.Fatal("pending")
	}
	if len(hooked) != 1 || hooked[0] != root {
		t.Fatalf("hook calls %v", hooked)
	}
	root.ResetPending()
	if root.PendingBytes() != 0 || b.PendingBytes() != 50 {
		t.Fatal("ResetPending")
	}
	a.Unmap(100)
	b.Unmap(50)
	if root.MappedBytes() != 0 {
		t.Fatal("Unmap")
	}
}

func TestNilAcct(t *testing.T) {
	var a *Acct
	a.Map(1)
	a.MapPending(1)
	a.Unmap(1)
	a.ResetPending()
	if a.MappedBytes() != 0 || a.PendingBytes() != 0 {
		t.Fatal("nil Acct counted")
	}
}

func TestAcctConcurrent(t *testing.T) {
	root := NewAcct(nil, nil)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		a := NewAcct(root, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				a.Map(4096)
				a.Unmap(4096)
			}
			a.Map(1)
		}()
	}
	wg.Wait()
	if root.MappedBytes() != 4 {
		t.Fatalf("root %d", root.MappedBytes())
	}
}

func TestMapAnon(t *testing.T) {
	b := MapAnon(5000)
	if b == nil {
		t.Skip("no mmap on this platform")
	}
	if len(b) != 8192 {
		t.Fatalf("len %d, want a whole number of pages", len(b))
	}
	for _, c := range b {
		if c != 0 {
			t.Fatal("not zeroed")
		}
	}
	b[len(b)-1] = 1
	UnmapAnon(b)
}

func BenchmarkAcctMapUnmap(b *testing.B) {
	root := NewAcct(nil, nil)
	a := NewAcct(root, nil)
	for i := 0; i < b.N; i++ {
		a.Map(4096)
		a.Unmap(4096)
	}
}
