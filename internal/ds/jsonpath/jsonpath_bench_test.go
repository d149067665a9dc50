package jsonpath

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/ds/jsonval"
)

func benchDoc(b *testing.B) any {
	var s strings.Builder
	s.WriteString(`{"store":{"book":[`)
	for i := 0; i < 200; i++ {
		if i > 0 {
			s.WriteByte(',')
		}
		s.WriteString(`{"id":` + strconv.Itoa(i) + `,"price":` + strconv.Itoa(i%37) + `.5,"tags":[1,2,3]}`)
	}
	s.WriteString(`]}}`)
	v, err := jsonval.Parse([]byte(s.String()))
	if err != nil {
		b.Fatal(err)
	}
	return v
}

func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if p := New(`$.store.book[?(@.price < 10 && @.id > 3)].tags[0:2]`); p.Err != "" {
			b.Fatal(p.Err)
		}
	}
}

func BenchmarkEval(b *testing.B) {
	d := benchDoc(b)
	for _, path := range []string{`$.store.book[150].price`, `$.store.book[*].price`, `$..price`, `$.store.book[?(@.price < 10)].id`} {
		p := New(path)
		b.Run(path, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = Eval(p.Segs, d, false)
			}
		})
	}
}

func BenchmarkEvalWithPaths(b *testing.B) {
	d := benchDoc(b)
	p := New(`$..price`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = Eval(p.Segs, d, true)
	}
}
