package bench

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

func TestChartSVG(t *testing.T) {
	rs := []Result{
		{Group: "throughput", Name: "SET -P 16 <&>", Redis: 100, Ordo: 150, HigherBetter: true},
		{Group: "throughput", Name: "GET -P 1", Redis: 100, Ordo: 50, HigherBetter: true},
		{Group: "memory", Name: "RSS", Redis: 100, Ordo: 40},
		{Group: "load", Name: "broken", Redis: 1, Ordo: 1, Err: "timeout"},
		{Group: "restart", Name: "no redis", Ordo: 1},
	}
	svg := chartSVG(rs)
	// Well-formed XML; collect the texts and the bars.
	d := xml.NewDecoder(bytes.NewReader(svg))
	var texts []string
	bars := map[string]int{} // fill -> count
	lines := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			switch tok.Name.Local {
			case "rect":
				for _, a := range tok.Attr {
					if a.Name.Local == "fill" {
						bars[a.Value]++
					}
				}
			case "line":
				lines++
			case "text":
				var s string
				if err := d.DecodeElement(&s, &tok); err != nil {
					t.Fatal(err)
				}
				texts = append(texts, s)
			}
		}
	}
	all := strings.Join(texts, "|")
	for _, want := range []string{"throughput: SET -P 16 <&>", "1.50", "0.50", "0.40", "n/a", "1.0", "1/8", "8x"} {
		if !strings.Contains(all, want) {
			t.Errorf("chart lacks text %q; texts: %s", want, all)
		}
	}
	if strings.Count(all, "n/a") != 2 {
		t.Errorf("want n/a for the error row and the row without a Redis figure; texts: %s", all)
	}
	// Green: SET (higher, better) and RSS (lower, better); red: GET.
	if bars["#3ca050"] != 2 || bars["#c83c3c"] != 1 {
		t.Errorf("bars by colour = %v, want 2 green and 1 red", bars)
	}
	if lines != 1 {
		t.Errorf("%d lines, want the 1.0 axis only", lines)
	}
}
