package jsonval

import (
	"strconv"
	"strings"
	"testing"
)

// benchDoc is a mixed document of about 10 KB: objects, arrays, strings
// with escapes, integers and floats.
var benchDoc = func() []byte {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := 0; i < 100; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":` + strconv.Itoa(i) + `,"name":"item \"` + strconv.Itoa(i) + `\"\n","price":` +
			strconv.FormatFloat(float64(i)*1.25+0.01, 'f', -1, 64) + `,"tags":["a","b","c"],"ok":true,"x":null}`)
	}
	b.WriteString(`],"meta":{"count":100,"ratio":0.000123,"big":1e21}}`)
	return []byte(b.String())
}()

func BenchmarkParse(b *testing.B) {
	b.SetBytes(int64(len(benchDoc)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(benchDoc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppend(b *testing.B) {
	v, _ := Parse(benchDoc)
	buf := make([]byte, 0, 2*len(benchDoc))
	b.SetBytes(int64(len(benchDoc)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = Append(buf[:0], v, nil)
	}
}

func BenchmarkAppendIndent(b *testing.B) {
	v, _ := Parse(benchDoc)
	f := &Format{Indent: "  ", Newline: "\n", Space: " "}
	buf := make([]byte, 0, 4*len(benchDoc))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = Append(buf[:0], v, f)
	}
}

func BenchmarkClone(b *testing.B) {
	v, _ := Parse(benchDoc)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = Clone(v)
	}
}

func BenchmarkObjectSetGet(b *testing.B) {
	keys := make([]string, 64)
	for i := range keys {
		keys[i] = "key" + strconv.Itoa(i)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		o := &Object{}
		for _, k := range keys {
			o.Set(k, int64(i))
		}
		for _, k := range keys {
			if _, ok := o.Get(k); !ok {
				b.Fatal(k)
			}
		}
	}
}
