package search

import (
	"strings"
	"testing"
)

// FuzzHighlight: fragmenting, highlighting and summarizing any text for
// any query never panics, and highlighting the whole text with empty tags
// gives the text back.
func FuzzHighlight(f *testing.F) {
	f.Add("Hello world, running\r\n  Smith; the runner\\-up", "hello|run*", uint8(3), uint8(20))
	f.Add("a b c d e f g h i j k l m n o p q r s t u v hello", "hello -x", uint8(0), uint8(1))
	f.Add("héllo wörld hello", "%hello%", uint8(1), uint8(5))
	f.Fuzz(func(t *testing.T, text, q string, frags, ctx uint8) {
		n, err := parseQuery(q, nil, fuzzIndex)
		if err != nil {
			return
		}
		o := &searchOpts{hl: &hlSpec{}, lang: "english"}
		h := (&state{}).newHighlighter(fuzzIndex, n, o)
		for _, name := range []string{"title", "x"} {
			fd := fuzzIndex.attr(name)
			set := hlField{frags: int(frags), ctx: int(ctx), sep: "... "}
			for _, mode := range []uint8{hlMode, sumMode, hlMode | sumMode} {
				set.mode = mode
				out, ok := h.summarize(fd, text, &set, "english")
				if mode == hlMode && ok && out != text {
					t.Fatalf("%q with empty tags: %q", text, out)
				}
				set.open, set.close = "<b>", "</b>"
				if out, ok := h.summarize(fd, text, &set, "english"); ok && mode == hlMode &&
					strings.ReplaceAll(strings.ReplaceAll(out, "<b>", ""), "</b>", "") != strings.ReplaceAll(strings.ReplaceAll(text, "<b>", ""), "</b>", "") {
					t.Fatalf("%q highlighted: %q", text, out)
				}
				set.open, set.close = "", ""
			}
		}
	})
}
