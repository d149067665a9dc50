package geohash

import "testing"

var sinkF float64
var sinkH Hash

func BenchmarkEncodeWGS84(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkH, _ = EncodeWGS84(13.361389+float64(i&1023)*1e-4, 38.115556, StepMax)
	}
}

func BenchmarkDecodeScore(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkF, _, _ = DecodeScore(3479099956230698 + float64(i&1023))
	}
}

func BenchmarkDistance(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkF = Distance(13.361389, 38.115556, 15.087269+float64(i&1023)*1e-4, 37.502669)
	}
}

func BenchmarkAreasByShape(b *testing.B) {
	s := Shape{Lon: 15, Lat: 37, Radius: 200, Conversion: 1000}
	for i := 0; i < b.N; i++ {
		s.Radius = 200 + float64(i&1023)
		sinkH = AreasByShape(&s).Hash
	}
}
