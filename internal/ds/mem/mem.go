// Package mem accounts for memory that data structures map outside the
// Go heap.
//
// The big pointer-free arrays of the dicts and sorted sets (package dict,
// package zset) are mapped from the OS once large: they do not count in
// the Go runtime's heap statistics, so whoever owns the structures must
// count them to report memory use and enforce limits. An Acct is that
// count. Every structure that may map memory is given an *Acct when it is
// made and adds and subtracts the size of each mapping it makes and
// frees; a nil *Acct means "not counted" (every method is a no-op or
// returns 0 on nil).
//
// # Guarantees
//
//   - An Acct has no process-global state: two owners (two engines) with
//     their own Accts count only their own structures. Accts may be
//     chained: an Acct made with a parent also adds everything it counts
//     to the parent (and its ancestors), so an owner can keep a total
//     above per-instance counts.
//   - All methods are safe for concurrent use (mappings are freed by
//     runtime cleanups, which run on their own goroutine). Each update is
//     O(depth of the chain) atomic additions.
//   - MappedBytes is exact once every structure counted has been freed or
//     collected and its cleanup has run; before that it includes dead
//     mappings still awaiting a garbage collection.
//
// # Dead mappings and the collector
//
// A mapping whose structure becomes unreachable is returned to the OS by
// a runtime cleanup, which runs only after a garbage collection; mapped
// bytes do not count towards the collector's heap goal, so a workload
// that keeps replacing big structures could hold many dead mappings
// before heap growth alone triggers a cycle. The Acct does not start
// collections itself (a library must not call runtime.GC): it keeps the
// bytes mapped since the owner last acted ("pending") and calls the
// owner's hook, given to NewAcct, after each such mapping; the owner
// decides whether to collect and calls ResetPending when it does.
package mem

import "sync/atomic"

// Acct counts the bytes mapped outside the Go heap by the structures of
// one owner. The zero value is a usable Acct with no parent and no hook.
type Acct struct {
	parent  *Acct
	onMap   func(*Acct)
	mapped  atomic.Int64
	pending atomic.Int64
}

// NewAcct returns an Acct that also counts into parent (may be nil).
// onPending, if not nil, is called (on the goroutine that maps) after
// each call to MapPending on this Acct or on one of its descendants,
// with this Acct as argument; it must be cheap and must not block.
func NewAcct(parent *Acct, onPending func(*Acct)) *Acct {
	return &Acct{parent: parent, onMap: onPending}
}

// Map records n bytes newly mapped.
func (a *Acct) Map(n int) {
	for ; a != nil; a = a.parent {
		a.mapped.Add(int64(n))
	}
}

// MapPending records n bytes newly mapped by a structure whose dead
// mappings are typically freed by a cleanup after a garbage collection
// rather than at once, adds them to the pending count and calls the
// hooks.
func (a *Acct) MapPending(n int) {
	for ; a != nil; a = a.parent {
		a.mapped.Add(int64(n))
		a.pending.Add(int64(n))
		if a.onMap != nil {
			a.onMap(a)
		}
	}
}

// Unmap records n bytes returned to the OS.
func (a *Acct) Unmap(n int) {
	for ; a != nil; a = a.parent {
		a.mapped.Add(-int64(n))
	}
}

// MappedBytes is the number of bytes currently mapped.
func (a *Acct) MappedBytes() int64 {
	if a == nil {
		return 0
	}
	return a.mapped.Load()
}

// PendingBytes is the number of bytes recorded with MapPending since the
// last ResetPending.
func (a *Acct) PendingBytes() int64 {
	if a == nil {
		return 0
	}
	return a.pending.Load()
}

// ResetPending sets the pending count back to zero (the owner started a
// collection).
func (a *Acct) ResetPending() {
	if a != nil {
		a.pending.Store(0)
	}
}
