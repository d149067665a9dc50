package search

import (
	"fmt"

	"github.com/ordo-db/ordo/internal/resp"
)

// EXPLAINSCORE: the scorers' explanations, with default.c's texts. A
// node is a string, or [string, [children]] when it has children.

type expl struct {
	s    string
	kids []*expl
}

func (e *expl) write(w *resp.Writer) {
	if len(e.kids) == 0 {
		w.BulkString(e.s)
		return
	}
	w.Array(2)
	w.BulkString(e.s)
	w.Array(len(e.kids))
	for _, k := range e.kids {
		k.write(w)
	}
}

// explain is scoreDoc's explanation.
func (ix *index) explain(scorer string, r *rres, d sdoc) *expl {
	switch scorer {
	case scorerDocScore:
		return &expl{s: fmt.Sprintf("Document's score is %.2f", d.score)}
	case scorerHamming:
		return &expl{s: "Payloads provided to scorer vary in length"}
	case scorerDisMax:
		return r.dismaxExpl()
	case scorerBM25, scorerBM25STD:
		if d.score == 0 && scorer == scorerBM25 {
			return &expl{s: "Document score is 0"}
		}
		avg := 0.0
		if ix.live > 0 {
			avg = float64(ix.totalLen) / float64(ix.live)
		}
		if scorer == scorerBM25STD {
			return &expl{s: fmt.Sprintf("Final BM25STD : words BM25 %.2f * document score %.2f / slop %d",
				r.bm25std(ix, d.doc, avg), d.score, r.minOffsetDelta())}
		}
		return &expl{s: fmt.Sprintf("Final BM25 : words BM25 %.2f * document score %.2f / slop %d",
			r.bm25(avg), d.score, r.minOffsetDelta()), kids: []*expl{r.bm25Expl(avg)}}
	}
	if d.score == 0 {
		return &expl{s: "Document score is 0"}
	}
	norm := d.maxFreq
	if scorer == scorerDocNorm {
		norm = d.length
	}
	return &expl{s: fmt.Sprintf("Final TFIDF : words TFIDF %.2f * document score %.2f / norm %d / slop %d",
		r.tfidf(), d.score, norm, r.minOffsetDelta()), kids: []*expl{r.tfidfExpl()}}
}

func (r *rres) tfidfExpl() *expl {
	switch r.kind {
	case rTerm:
		return &expl{s: fmt.Sprintf("(TFIDF %.2f = Weight %.2f * TF %d * IDF %.2f)", r.tfidf(), r.weight, r.freq, r.idf)}
	case rInter, rUnion:
		e := &expl{}
		s := 0.0
		for _, k := range r.kids {
			e.kids = append(e.kids, k.tfidfExpl())
			s += k.tfidf()
		}
		e.s = fmt.Sprintf("(Weight %.2f * total children TFIDF %.2f)", r.weight, s)
		return e
	}
	return &expl{s: fmt.Sprintf("(TFIDF %.2f = Weight %.2f * Frequency %d)", r.tfidf(), r.weight, r.freq)}
}

func (r *rres) bm25Expl(avg float64) *expl {
	switch r.kind {
	case rTerm:
		return &expl{s: fmt.Sprintf("(%.2f = IDF %.2f * F %d / (F %d + k1 1.2 * (1 - b 0.5 + b 0.5 * Average Len %.2f)))",
			r.bm25(avg), r.idf, r.freq, r.freq, avg)}
	case rInter, rUnion:
		e := &expl{}
		s := 0.0
		for _, k := range r.kids {
			e.kids = append(e.kids, k.bm25Expl(avg))
			s += k.bm25(avg)
		}
		e.s = fmt.Sprintf("(Weight %.2f * children BM25 %.2f)", r.weight, s)
		return e
	}
	if r.freq == 0 {
		return &expl{s: "Frequency 0 -> value 0"}
	}
	return &expl{s: fmt.Sprintf("(%.2f = Weight %.2f * F %d / (F %d + k1 1.2 * (1 - b 0.5 + b 0.5 * Average Len %.2f)))",
		r.bm25(avg), r.weight, r.freq, r.freq, avg)}
}

func (r *rres) dismaxExpl() *expl {
	switch r.kind {
	case rInter, rUnion:
		e := &expl{}
		s := 0.0
		for _, k := range r.kids {
			e.kids = append(e.kids, k.dismaxExpl())
			if r.kind == rInter {
				s += k.dismax()
			} else {
				s = max(s, k.dismax())
			}
		}
		e.s = fmt.Sprintf("%.2f = Weight %.2f * children DISMAX %.2f", r.weight*s, r.weight, s)
		return e
	}
	return &expl{s: fmt.Sprintf("DISMAX %.2f = Weight %.2f * Frequency %d", r.dismax(), r.weight, r.freq)}
}
