package bench

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
)

// chartSVG draws an SVG with one horizontal bar per row: the ratio
// Ordo/Redis on a log scale around 1.0 (log2 clamped to [-3, 3], so the
// ends are 1/8 and 8x), green where Ordo is ahead, red where it is
// behind. For lower-is-better rows the bar is mirrored, so right of the
// 1.0 line always means Ordo ahead. Each bar is labelled with the ratio
// itself; a row without a ratio (an error, no Redis figure) says n/a.
// Every row of the results is drawn, whichever run it comes from.
func chartSVG(rs []Result) []byte {
	const (
		rowH   = 18
		labelW = 360
		barW   = 520
		top    = 40
		pad    = 10
	)
	w, h := labelW+barW+2*pad+60, top+rowH*len(rs)+pad+20
	x0 := labelW + pad + barW/2
	scale := float64(barW/2) / 3

	var b bytes.Buffer
	esc := func(s string) string {
		var e bytes.Buffer
		xml.EscapeText(&e, []byte(s))
		return e.String()
	}
	text := func(x, y int, fill, anchor, s string) {
		fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" fill=\"%s\" text-anchor=\"%s\">%s</text>\n", x, y, fill, anchor, esc(s))
	}
	fmt.Fprintf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"12\">\n", w, h, w, h)
	fmt.Fprintf(&b, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", w, h)
	text(pad, 16, "black", "start", "Ordo / Redis (log scale; 1.0 = equal). Green: Ordo ahead. Red: Ordo behind.")
	for i, r := range rs {
		y := top + i*rowH
		label := r.Group + ": " + r.Name
		if len(label) > 50 {
			label = label[:50]
		}
		text(pad, y+13, "black", "start", label)
		ratio := r.Ratio()
		if ratio <= 0 || r.Err != "" {
			text(x0+4, y+13, "#646464", "start", "n/a")
			continue
		}
		l := math.Max(-3, math.Min(3, math.Log2(ratio)))
		fill := "#c83c3c"
		if r.OrdoBetter() {
			fill = "#3ca050"
		}
		if !r.HigherBetter {
			l = -l
		}
		x1 := x0 + int(math.Round(l*scale))
		a, c := min(x0, x1), max(x0, x1)
		fmt.Fprintf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%s</title></rect>\n",
			a, y+3, c-a+1, rowH-6, fill, esc(fmt.Sprintf("%s: %s: %.2f", r.Group, r.Name, ratio)))
		text(c+4, y+13, "black", "start", fmt.Sprintf("%.2f", ratio))
	}
	// The 1.0 axis and the ends of the scale.
	fmt.Fprintf(&b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", x0, top-4, x0, h-20)
	text(x0, h-6, "black", "middle", "1.0")
	text(x0-barW/2, h-6, "#5a5a5a", "start", "1/8")
	text(x0+barW/2, h-6, "#5a5a5a", "end", "8x")
	b.WriteString("</svg>\n")
	return b.Bytes()
}
