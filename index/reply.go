package index

import (
	"fmt"
	"strconv"

	"github.com/ordo-db/ordo/backend"
)

// firstErr returns the first error among batch results.
func firstErr(rs []backend.Result) error {
	for _, r := range rs {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

// ---- reply parsing ----

func asString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	}
	return "", false
}

func asInt(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case string:
		return strconv.ParseInt(x, 10, 64)
	}
	return 0, fmt.Errorf("index: expected an integer reply, got %T", v)
}

func asFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int64:
		return float64(x), nil
	case string:
		return parseScore(x)
	}
	return 0, fmt.Errorf("index: expected a score, got %T", v)
}

func parseScore(s string) (float64, error) {
	switch s {
	case "inf", "+inf":
		return posInf, nil
	case "-inf":
		return negInf, nil
	}
	return strconv.ParseFloat(s, 64)
}

func asStrings(v any) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("index: expected an array reply, got %T", v)
	}
	out := make([]string, len(arr))
	for i, x := range arr {
		s, ok := asString(x)
		if !ok && x != nil {
			return nil, fmt.Errorf("index: expected strings, got %T", x)
		}
		out[i] = s
	}
	return out, nil
}

// asPairs parses member/score replies in both shapes: RESP2's flat
// [m1 s1 m2 s2] and RESP3's [[m1 s1] [m2 s2]].
func asPairs(v any) ([]string, []float64, error) {
	arr, ok := v.([]any)
	if !ok {
		if v == nil {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("index: expected an array reply, got %T", v)
	}
	if len(arr) > 0 {
		if _, nested := arr[0].([]any); nested {
			flat := make([]any, 0, 2*len(arr))
			for _, p := range arr {
				pp, _ := p.([]any)
				if len(pp) != 2 {
					return nil, nil, fmt.Errorf("index: malformed pair in reply")
				}
				flat = append(flat, pp...)
			}
			arr = flat
		}
	}
	if len(arr)%2 != 0 {
		return nil, nil, fmt.Errorf("index: odd member/score reply")
	}
	ms := make([]string, len(arr)/2)
	ss := make([]float64, len(arr)/2)
	for i := 0; i < len(arr); i += 2 {
		m, _ := asString(arr[i])
		s, err := asFloat(arr[i+1])
		if err != nil {
			return nil, nil, err
		}
		ms[i/2], ss[i/2] = m, s
	}
	return ms, ss, nil
}
