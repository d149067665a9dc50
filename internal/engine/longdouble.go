package engine

import (
	"math/big"

	"github.com/ordo-db/ordo/internal/ds/longdouble"
)

// IncrLongDouble adds incr to cur as Redis's INCRBYFLOAT does. errMsg is
// the error reply when it fails.
func IncrLongDouble(cur string, incr []byte, notFloat string) (string, string) {
	a := new(big.Float).SetPrec(longdouble.Prec)
	if cur != "" {
		v, ok := longdouble.Parse([]byte(cur))
		if !ok {
			return "", notFloat
		}
		a = v
	}
	b, ok := longdouble.Parse(incr)
	if !ok {
		return "", ErrNotFloat
	}
	sum, ok := longdouble.Add(a, b)
	if !ok {
		return "", "ERR increment would produce NaN or Infinity"
	}
	return longdouble.Format(sum), ""
}
