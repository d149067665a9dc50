package bench

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// writeChart draws one horizontal bar per row: the ratio Ordo/Redis on a
// log scale around 1.0, green where Ordo is ahead, red where it is behind.
func writeChart(path string, rs []Result) error {
	const (
		rowH   = 18
		labelW = 360
		barW   = 520
		top    = 40
		pad    = 10
	)
	w, h := labelW+barW+2*pad+60, top+rowH*len(rs)+pad+20
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	text := func(x, y int, s string, c color.Color) {
		d := &font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
		d.DrawString(s)
	}
	text(pad, 16, "Ordo / Redis (log scale; 1.0 = equal). Green: Ordo ahead. Red: Ordo behind.", color.Black)
	// Scale: log2(ratio) in [-3, 3] maps onto the bar area.
	x0 := labelW + pad + barW/2
	scale := float64(barW/2) / 3
	for i, r := range rs {
		y := top + i*rowH
		label := r.Group + ": " + r.Name
		if len(label) > 50 {
			label = label[:50]
		}
		text(pad, y+13, label, color.Black)
		ratio := r.Ratio()
		if ratio <= 0 || r.Err != "" {
			text(x0+4, y+13, "n/a", color.Gray{100})
			continue
		}
		l := math.Max(-3, math.Min(3, math.Log2(ratio)))
		good := r.OrdoBetter()
		c := color.RGBA{200, 60, 60, 255}
		if good {
			c = color.RGBA{60, 160, 80, 255}
		}
		// For lower-is-better rows, draw the inverse so that right = good.
		if !r.HigherBetter {
			l = -l
		}
		x1 := x0 + int(l*scale)
		a, b := x0, x1
		if a > b {
			a, b = b, a
		}
		draw.Draw(img, image.Rect(a, y+3, b+1, y+rowH-3), image.NewUniform(c), image.Point{}, draw.Src)
		text(max(x1, x0)+4, y+13, fmt.Sprintf("%.2f", ratio), color.Black)
	}
	// The 1.0 axis.
	draw.Draw(img, image.Rect(x0, top-4, x0+1, h-20), image.NewUniform(color.Black), image.Point{}, draw.Src)
	text(x0-12, h-6, "1.0", color.Black)
	text(x0-barW/2, h-6, "1/8", color.Gray{90})
	text(x0+barW/2-20, h-6, "8x", color.Gray{90})
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return png.Encode(f, img)
}
