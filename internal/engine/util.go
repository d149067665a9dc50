package engine

import (
	"math"
	"sort"
	"strconv"
)

func sortClients(cs []*Client) { sort.Slice(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID }) }

// parseFloatArg parses a float as Redis's strtod-based parsers do: no
// leading space, no trailing garbage, no NaN; inf/-inf accepted;
// overflow rejected.
func parseFloatArg(b []byte) (float64, bool) {
	if len(b) == 0 || isSpaceByte(b[0]) || isSpaceByte(b[len(b)-1]) {
		return 0, false
	}
	for _, ch := range b {
		if ch == '_' {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(view(b), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange && !math.IsInf(f, 0) {
			return f, f != 0
		}
		return 0, false
	}
	if math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// ParseFloat is parseFloatArg for other packages.
func ParseFloat(b []byte) (float64, bool) { return parseFloatArg(b) }

// FloatArg parses args[i] as a float, replying with Redis's error if it is not one.
func (c *Ctx) FloatArg(i int) (float64, bool) {
	f, ok := parseFloatArg(c.Args[i])
	if !ok {
		c.W.Error(ErrNotFloat)
	}
	return f, ok
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
