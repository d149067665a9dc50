package quicklist

import (
	"strconv"
	"testing"
)

func filled(n int) *List {
	l := New()
	for i := 0; i < n; i++ {
		l.PushBack("element:" + strconv.Itoa(i))
	}
	return l
}

// BenchmarkPushPop pushes at the front and pops at the back of a
// 10,000-element list (a queue in steady state).
func BenchmarkPushPop(b *testing.B) {
	l := filled(10000)
	b.ReportAllocs()
	for b.Loop() {
		l.PushFront("x")
		l.PopBack()
	}
}

// BenchmarkPushPopShort is BenchmarkPushPop with redis-benchmark's LPUSH
// value, "xxx", which packs (a one-element "x" list chunk does not shrink
// by a quarter in the packed form, "xxx" does).
func BenchmarkPushPopShort(b *testing.B) {
	l := filled(10000)
	b.ReportAllocs()
	for b.Loop() {
		l.PushFront("xxx")
		l.PopBack()
	}
}

// BenchmarkIndex reads scattered elements of a 10,000-element list.
func BenchmarkIndex(b *testing.B) {
	l := filled(10000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_ = l.BytesAt((i * 7919) % 10000)
		i++
	}
}

// BenchmarkRange reads 10 consecutive elements from a scattered start
// (LRANGE start start+9).
func BenchmarkRange(b *testing.B) {
	l := filled(10000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s := (i * 7919) % 9990
		for j := s; j < s+10; j++ {
			_ = l.BytesAt(j)
		}
		i++
	}
}

// BenchmarkInsert inserts in the middle of a 10,000-element list and
// removes the element again (Move and TruncateBack, as LREM does).
func BenchmarkInsert(b *testing.B) {
	l := filled(10000)
	var tmp []byte
	b.ReportAllocs()
	for b.Loop() {
		l.Insert(5000, "x")
		n := l.Len()
		for j := 5000; j < n-1; j++ {
			l.Move(j, j+1, &tmp)
		}
		l.TruncateBack(1)
	}
}
