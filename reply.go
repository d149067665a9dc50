package ordo

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/internal/resp"
)

// Error is an error reply from a command ("ERR ...", "WRONGTYPE ..."):
// the one error type of every Ordo API (backend.Error), whatever carries
// the command.
type Error = backend.Error

// ErrNil is returned by Reply's accessors when the reply is null (a
// missing key), as go-redis returns redis.Nil.
var ErrNil = errors.New("ordo: nil")

// Reply is a command's reply. Its accessors follow go-redis's Cmd: Result
// and Val for the reply as a Go value, Text, Int64, Float64, Bool and the
// slice forms for typed access, Err for the error alone.
type Reply struct {
	v   resp.Value
	err error
}

func newReply(v resp.Value) *Reply {
	if v.Kind == resp.KindError {
		return &Reply{v: v, err: &Error{Msg: v.Str}}
	}
	return &Reply{v: v}
}

// Err returns the error reply or failure, if any. A null reply is not an
// error here (see IsNil); the typed accessors return ErrNil for it.
func (r *Reply) Err() error { return r.err }

// IsNil reports whether the reply is null.
func (r *Reply) IsNil() bool { return r.err == nil && r.v.Kind == resp.KindNull }

// Result returns the reply as a Go value: string for bulk and status
// replies, int64, float64 (RESP3 doubles), bool (RESP3 booleans), nil for
// null, []any for arrays and sets, map[string]any for RESP3 maps; an error
// element of an array (EXEC, scripts) is an *Error.
func (r *Reply) Result() (any, error) {
	if r.err != nil {
		return nil, r.err
	}
	return toGo(r.v), nil
}

// Value is Result.
func (r *Reply) Value() (any, error) { return r.Result() }

// Val is Result without the error (nil on error).
func (r *Reply) Val() any {
	v, _ := r.Result()
	return v
}

func toGo(v resp.Value) any {
	switch v.Kind {
	case resp.KindNull:
		return nil
	case resp.KindError:
		return &Error{Msg: v.Str}
	case resp.KindInt:
		return v.Int
	case resp.KindBool:
		return v.Int != 0
	case resp.KindDouble:
		f, _ := strconv.ParseFloat(v.Str, 64)
		return f
	case resp.KindArray, resp.KindSet, resp.KindPush:
		out := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			out[i] = toGo(e)
		}
		return out
	case resp.KindMap:
		m := make(map[string]any, len(v.Elems)/2)
		for i := 0; i+1 < len(v.Elems); i += 2 {
			m[v.Elems[i].Str] = toGo(v.Elems[i+1])
		}
		return m
	}
	return v.Str
}

func isAggregate(k resp.Kind) bool {
	return k == resp.KindArray || k == resp.KindMap || k == resp.KindSet || k == resp.KindPush
}

// Text returns a string reply (an integer reply as its decimal text).
func (r *Reply) Text() (string, error) {
	if r.err != nil {
		return "", r.err
	}
	switch {
	case r.v.Kind == resp.KindNull:
		return "", ErrNil
	case r.v.Kind == resp.KindInt:
		return strconv.FormatInt(r.v.Int, 10), nil
	case isAggregate(r.v.Kind):
		return "", fmt.Errorf("ordo: reply is an array, not a string")
	}
	return r.v.Str, nil
}

// Int64 returns an integer reply (or a string that holds an integer).
func (r *Reply) Int64() (int64, error) {
	if r.err != nil {
		return 0, r.err
	}
	switch r.v.Kind {
	case resp.KindInt, resp.KindBool:
		return r.v.Int, nil
	case resp.KindNull:
		return 0, ErrNil
	}
	return strconv.ParseInt(r.v.Str, 10, 64)
}

// Int is Int64.
func (r *Reply) Int() (int64, error) { return r.Int64() }

// Uint64 returns an integer reply as uint64.
func (r *Reply) Uint64() (uint64, error) {
	if r.err != nil {
		return 0, r.err
	}
	switch r.v.Kind {
	case resp.KindInt:
		if r.v.Int < 0 {
			return 0, fmt.Errorf("ordo: reply %d is negative", r.v.Int)
		}
		return uint64(r.v.Int), nil
	case resp.KindNull:
		return 0, ErrNil
	}
	return strconv.ParseUint(r.v.Str, 10, 64)
}

// Float64 returns a double reply (or a string or integer that holds one).
func (r *Reply) Float64() (float64, error) {
	if r.err != nil {
		return 0, r.err
	}
	switch r.v.Kind {
	case resp.KindInt:
		return float64(r.v.Int), nil
	case resp.KindNull:
		return 0, ErrNil
	}
	return strconv.ParseFloat(r.v.Str, 64)
}

// Float is Float64.
func (r *Reply) Float() (float64, error) { return r.Float64() }

// Bool returns an integer reply as a boolean (1 is true), a RESP3 boolean,
// or "OK" as true, as go-redis does.
func (r *Reply) Bool() (bool, error) {
	if r.err != nil {
		return false, r.err
	}
	switch r.v.Kind {
	case resp.KindInt, resp.KindBool:
		return r.v.Int != 0, nil
	case resp.KindNull:
		return false, ErrNil
	case resp.KindSimple:
		if r.v.Str == "OK" {
			return true, nil
		}
	}
	return strconv.ParseBool(r.v.Str)
}

// Slice returns an array reply as Go values (see Result).
func (r *Reply) Slice() ([]any, error) {
	v, err := r.Result()
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case []any:
		return x, nil
	case nil:
		return nil, ErrNil
	}
	return nil, fmt.Errorf("ordo: reply is not an array")
}

// StringSlice returns an array reply as strings (null elements become "",
// integers their decimal text).
func (r *Reply) StringSlice() ([]string, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.v.Kind == resp.KindNull {
		return nil, ErrNil
	}
	if !isAggregate(r.v.Kind) {
		return nil, fmt.Errorf("ordo: reply is not an array")
	}
	out := make([]string, len(r.v.Elems))
	for i, e := range r.v.Elems {
		if e.Kind == resp.KindInt {
			out[i] = strconv.FormatInt(e.Int, 10)
		} else {
			out[i] = e.Str
		}
	}
	return out, nil
}

// Strings is StringSlice.
func (r *Reply) Strings() ([]string, error) { return r.StringSlice() }

// Int64Slice returns an array of integer replies.
func (r *Reply) Int64Slice() ([]int64, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.v.Kind == resp.KindNull {
		return nil, ErrNil
	}
	if !isAggregate(r.v.Kind) {
		return nil, fmt.Errorf("ordo: reply is not an array")
	}
	out := make([]int64, len(r.v.Elems))
	for i, e := range r.v.Elems {
		if e.Kind == resp.KindInt {
			out[i] = e.Int
			continue
		}
		n, err := strconv.ParseInt(e.Str, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("ordo: element %d: %w", i, err)
		}
		out[i] = n
	}
	return out, nil
}

// String formats the reply for debugging, as redis-cli would print it.
func (r *Reply) String() string {
	if r.err != nil {
		return "(error) " + r.err.Error()
	}
	return fmt.Sprint(toGo(r.v))
}
