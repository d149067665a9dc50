package engine

// The error replies users see, exactly as Redis 7.0 writes them. Keep
// every user-visible error string here so there is one place to check
// against Redis.
const (
	ErrWrongType       = "WRONGTYPE Operation against a key holding the wrong kind of value"
	ErrNotInteger      = "ERR value is not an integer or out of range"
	ErrNotFloat        = "ERR value is not a valid float"
	ErrSyntax          = "ERR syntax error"
	ErrNoSuchKey       = "ERR no such key"
	ErrOverflow        = "ERR increment or decrement would overflow"
	ErrOOM             = "OOM command not allowed when used memory > 'maxmemory'."
	ErrDBIndex         = "ERR DB index is out of range"
	ErrInvalidExpire   = "ERR invalid expire time in '%s' command"
	ErrOutOfRange      = "ERR index out of range"
	ErrNotPositive     = "ERR value is out of range, must be positive"
	ErrTimeout         = "ERR timeout is not a float or out of range"
	ErrTimeoutNegative = "ERR timeout is negative"
	ErrSameObject      = "ERR source and destination objects are the same"
	ErrNaN             = "ERR resulting score is not a number (NaN)"
	ErrHashValueNotInt = "ERR hash value is not an integer"
	ErrHashValueNotFlt = "ERR hash value is not a float"
	ErrNoAuth          = "NOAUTH Authentication required."
	ErrWrongPass       = "WRONGPASS invalid username-password pair or user is disabled."
	ErrAuthNotSet      = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
	ErrExecAbort       = "EXECABORT Transaction discarded because of previous errors."
	ErrStringTooLong   = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	ErrCountPositive   = "ERR count should be greater than 0"
)
