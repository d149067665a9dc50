package index

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/ordo-db/ordo/backend"
)

// Completion is the autocomplete index of the secondary-indexing page
// ("Completion", "Adding frequency into the mix", "Normalizing strings for
// case and accents"): terms typed by users, with how often each was typed;
// a prefix query returns the most frequent completions first.
//
// Layout (name "q"; every key carries the hash tag {q}, so on Redis
// Cluster the whole index is one slot and each update one script):
//
//	{q}:p:             sorted set: normalized term → count (every term; the truth)
//	{q}:p:<prefix>     sorted set: normalized term → count, for every non-empty
//	                   prefix (cut at UTF-8 character boundaries) of every term
//	{q}:f:<term>       hash: original form → how often it was typed
//	{q}:show           hash: normalized term → its most frequent original form
//	{q}:decay          string: the ZSCAN cursor of the decay sweep
//
// Choice of layout: the page keeps "term:count" members in one lexicographic
// set, so a prefix query returns completions in alphabetical order and must
// read all of them to find the most frequent. Here an update writes the new
// count into the sorted set of each prefix of the term (one Lua script:
// ZINCRBY on {q}:p:, then ZADD of the total into each prefix set), so "top N
// completions of a prefix" is one ZRANGE ... REV LIMIT on one key: O(log n + N)
// whatever the number of completions. The cost is memory: a term of L
// characters is a member of L+1 sets. MaxPerPrefix caps each prefix set at its
// K most frequent terms (the {q}:p: set is never capped, so nothing is lost:
// a term dropped from a capped set comes back when its count rises again).
//
// Decay (the page's "purge searches that are no longer popular"): a decay step
// visits the next DecayBatch terms of {q}:p: (a ZSCAN whose cursor lives in
// {q}:decay), multiplies their counts by DecayFactor (rounding down) and
// forgets the terms whose count falls under MinCount. With DecayProbability p,
// each Add also runs one step with probability p (drawn in Go from Rand, so
// tests are deterministic), inside the same script: a term that no one types
// any more is halved once per sweep and disappears after a few sweeps, while
// popular terms keep being re-counted. Decay and DecayAll run steps by hand
// (from a cron job, say). Unlike the page's variant (decrement one random
// completion among those shown), the sweep also forgets terms never shown.
//
// Normalization: queries and terms go through Normalize (case folding, accent
// stripping, punctuation removal: "Banana", "BANANA", "Ba'nana" and "Bánána"
// are all "banana"); the original form typed most often is kept for display
// (the page's "normalized:frequency:original").
type Completion struct {
	b    backend.Backend
	Name string
	base string
	o    CompletionOptions
}

// CompletionOptions tune a Completion; the zero value is usable.
type CompletionOptions struct {
	// MaxPerPrefix caps each prefix set at its K most frequent terms
	// (0: no cap). A query for more than K completions returns at most K.
	MaxPerPrefix int
	// MaxForms caps the original forms remembered per term (default 4);
	// the least typed form other than the displayed one is dropped.
	MaxForms int
	// DecayProbability is the chance that an Add also runs a decay step
	// (0: decay only through Decay and DecayAll).
	DecayProbability float64
	// DecayFactor multiplies counts on each decay (default 0.5).
	DecayFactor float64
	// DecayBatch is how many terms one decay step visits (default 32; a
	// small set, stored as a listpack, is visited whole by one ZSCAN).
	DecayBatch int
	// MinCount: a term whose count falls under it is forgotten (default 1).
	MinCount int64
	// Rand returns a number in [0, 1) (default math/rand/v2.Float64).
	Rand func() float64
	// Normalize maps a term to its indexed form (default Normalize).
	Normalize func(string) string
}

// ErrEmptyTerm is returned for a term that normalizes to nothing ("?!").
var ErrEmptyTerm = errors.New("index: term is empty after normalization")

// NewCompletion returns the completion index called name.
func NewCompletion(b backend.Backend, name string, o CompletionOptions) *Completion {
	if o.MaxForms <= 0 {
		o.MaxForms = 4
	}
	if o.DecayFactor <= 0 || o.DecayFactor >= 1 {
		o.DecayFactor = 0.5
	}
	if o.DecayBatch <= 0 {
		o.DecayBatch = 32
	}
	if o.MinCount <= 0 {
		o.MinCount = 1
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	if o.Normalize == nil {
		o.Normalize = Normalize
	}
	return &Completion{b: b, Name: name, base: "{" + name + "}:", o: o}
}

// Normalize folds case, strips accents and removes punctuation and
// symbols: letters, digits and single spaces remain ("  Ba'nána  Split!" →
// "banana split"). Decomposed accents (NFD, nonspacing marks removed, NFC
// again) cover every script: "Ünïcödé" → "unicode", "Ёлка" → "елка";
// Hangul syllables are recomposed intact.
func Normalize(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), cases.Fold(), norm.NFC)
	folded, _, err := transform.String(t, strings.ToValidUTF8(s, ""))
	if err != nil {
		folded = strings.ToLower(s)
	}
	var sb strings.Builder
	space := false
	for _, r := range folded {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			if space && sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			space = false
			sb.WriteRune(r)
		case unicode.IsSpace(r):
			space = true
		}
	}
	return sb.String()
}

// prefixKeys are the keys of the non-empty prefixes of term, cut at
// character boundaries (as the scripts cut them).
func (c *Completion) prefixKeys(term string) []string {
	var out []string
	for i := 1; i <= len(term); i++ {
		if i == len(term) || utf8.RuneStart(term[i]) {
			out = append(out, c.base+"p:"+term[:i])
		}
	}
	return out
}

// The decay step and forget, shared by the scripts. ARGV[1] is the key
// base "{name}:".
const completionLua = `
local base = ARGV[1]
local function prefixes(term)
  local out = {}
  for i = 1, #term do
    local nb = string.byte(term, i + 1)
    if nb == nil or nb < 128 or nb >= 192 then
      out[#out + 1] = base .. 'p:' .. string.sub(term, 1, i)
    end
  end
  return out
end
local function forget(term)
  local n = redis.call('ZREM', base .. 'p:', term)
  for _, k in ipairs(prefixes(term)) do redis.call('ZREM', k, term) end
  redis.call('DEL', base .. 'f:' .. term)
  redis.call('HDEL', base .. 'show', term)
  return n
end
local function decay(batch, factor, min)
  local ck = base .. 'decay'
  local cur = redis.call('GET', ck) or '0'
  local r = redis.call('ZSCAN', base .. 'p:', cur, 'COUNT', batch)
  local items, forgot = r[2], 0
  for i = 1, #items, 2 do
    local term = items[i]
    local n = math.floor(tonumber(items[i + 1]) * factor)
    if n < min then
      forgot = forgot + forget(term)
    else
      redis.call('ZADD', base .. 'p:', 'XX', n, term)
      for _, k in ipairs(prefixes(term)) do redis.call('ZADD', k, 'XX', n, term) end
    end
  end
  if r[1] == '0' then redis.call('DEL', ck) else redis.call('SET', ck, r[1]) end
  return {#items / 2, forgot, r[1] == '0' and 1 or 0}
end
`

// KEYS: {q}:p:, the prefix sets, {q}:f:<term>, {q}:show.
// ARGV: base, term, original, by, cap, maxforms, decaybatch, factor, min.
var completionAddScript = backend.NewScript(completionLua + `
local term, orig, by = ARGV[2], ARGV[3], ARGV[4]
local cap, maxforms = tonumber(ARGV[5]), tonumber(ARGV[6])
local batch, factor, min = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local total = tonumber(redis.call('ZINCRBY', KEYS[1], by, term))
for i = 2, #KEYS - 2 do
  redis.call('ZADD', KEYS[i], total, term)
  if cap > 0 then
    local c = redis.call('ZCARD', KEYS[i])
    if c > cap then redis.call('ZREMRANGEBYRANK', KEYS[i], 0, c - cap - 1) end
  end
end
local fk, sk = KEYS[#KEYS - 1], KEYS[#KEYS]
local c = tonumber(redis.call('HINCRBY', fk, orig, by))
local best = redis.call('HGET', sk, term)
if not best then
  redis.call('HSET', sk, term, orig)
  best = orig
elseif best ~= orig and c > tonumber(redis.call('HGET', fk, best) or '0') then
  redis.call('HSET', sk, term, orig)
  best = orig
end
if redis.call('HLEN', fk) > maxforms then
  local all = redis.call('HGETALL', fk)
  local minf, minc
  for i = 1, #all, 2 do
    if all[i] ~= best then
      local v = tonumber(all[i + 1])
      if minc == nil or v < minc then minf, minc = all[i], v end
    end
  end
  if minf then redis.call('HDEL', fk, minf) end
end
if batch > 0 then decay(batch, factor, min) end
return tostring(redis.call('ZSCORE', KEYS[1], term) or '0')
`)

// KEYS: {q}:p:, {q}:decay. ARGV: base, batch, factor, min.
var completionDecayScript = backend.NewScript(completionLua + `
return decay(tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
`)

// KEYS: {q}:p:. ARGV: base, term.
var completionForgetScript = backend.NewScript(completionLua + `
return forget(ARGV[2])
`)

// KEYS: {q}:p:<prefix>, {q}:show. ARGV: n.
var completionQueryScript = backend.NewScript(`
local r = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'REV', 'WITHSCORES')
local out = {}
for i = 1, #r, 2 do
  out[#out + 1] = r[i]
  out[#out + 1] = r[i + 1]
  out[#out + 1] = redis.call('HGET', KEYS[2], r[i]) or r[i]
end
return out
`)

// Add records that term was typed once, and returns its new count.
func (c *Completion) Add(ctx context.Context, term string) (int64, error) {
	return c.AddN(ctx, term, 1)
}

// AddN records that term was typed n times (n ≥ 1), atomically, and
// returns its new count. With DecayProbability set, it may also run one
// decay step (in the same script).
func (c *Completion) AddN(ctx context.Context, term string, n int64) (int64, error) {
	if n < 1 {
		return 0, fmt.Errorf("index: completion count %d must be at least 1", n)
	}
	norm := c.o.Normalize(term)
	if norm == "" {
		return 0, ErrEmptyTerm
	}
	keys := append([]string{c.base + "p:"}, c.prefixKeys(norm)...)
	keys = append(keys, c.base+"f:"+norm, c.base+"show")
	batch := 0
	if c.o.DecayProbability > 0 && c.o.Rand() < c.o.DecayProbability {
		batch = c.o.DecayBatch
	}
	v, err := c.b.Eval(ctx, completionAddScript, keys, c.base, norm, strings.TrimSpace(term), n,
		c.o.MaxPerPrefix, c.o.MaxForms, batch, formatScore(c.o.DecayFactor), c.o.MinCount)
	if err != nil {
		return 0, err
	}
	s, _ := asString(v)
	f, err := parseScore(s)
	return int64(f), err
}

// Suggestion is one completion.
type Suggestion struct {
	Term    string // normalized, as indexed
	Display string // the original form typed most often
	Count   int64
}

// Complete returns the n most frequent terms that start with prefix
// (normalized as terms are), most frequent first; an empty prefix returns
// the most frequent terms overall. Terms of equal count come in reverse
// lexicographic order (ZRANGE REV).
func (c *Completion) Complete(ctx context.Context, prefix string, n int) ([]Suggestion, error) {
	if n <= 0 {
		return nil, nil
	}
	key := c.base + "p:" + c.o.Normalize(prefix)
	v, err := c.b.Eval(ctx, completionQueryScript, []string{key, c.base + "show"}, n)
	if err != nil {
		return nil, err
	}
	ss, err := asStrings(v)
	if err != nil {
		return nil, err
	}
	if len(ss)%3 != 0 {
		return nil, fmt.Errorf("index: malformed completion reply")
	}
	out := make([]Suggestion, 0, len(ss)/3)
	for i := 0; i < len(ss); i += 3 {
		f, err := parseScore(ss[i+1])
		if err != nil {
			return nil, err
		}
		out = append(out, Suggestion{Term: ss[i], Count: int64(f), Display: ss[i+2]})
	}
	return out, nil
}

// Count returns how often term (normalized) has been typed, after decay.
func (c *Completion) Count(ctx context.Context, term string) (int64, error) {
	v, err := c.b.Do(ctx, "ZSCORE", c.base+"p:", c.o.Normalize(term))
	if err != nil || v == nil {
		return 0, err
	}
	f, err := asFloat(v)
	return int64(f), err
}

// Len is the number of distinct (normalized) terms.
func (c *Completion) Len(ctx context.Context) (int64, error) {
	v, err := c.b.Do(ctx, "ZCARD", c.base+"p:")
	if err != nil {
		return 0, err
	}
	return asInt(v)
}

// Remove forgets term and reports whether it was there.
func (c *Completion) Remove(ctx context.Context, term string) (bool, error) {
	v, err := c.b.Eval(ctx, completionForgetScript, []string{c.base + "p:"}, c.base, c.o.Normalize(term))
	if err != nil {
		return false, err
	}
	n, err := asInt(v)
	return n > 0, err
}

// DecayStep is what one decay step did.
type DecayStep struct {
	Visited, Forgotten int64
	Done               bool // the sweep reached the end of the terms (the next step starts over)
}

// Decay runs one decay step: the next DecayBatch terms (about) have their
// counts multiplied by DecayFactor, and those under MinCount are forgotten.
func (c *Completion) Decay(ctx context.Context) (DecayStep, error) {
	v, err := c.b.Eval(ctx, completionDecayScript, []string{c.base + "p:", c.base + "decay"},
		c.base, c.o.DecayBatch, formatScore(c.o.DecayFactor), c.o.MinCount)
	if err != nil {
		return DecayStep{}, err
	}
	arr, ok := v.([]any)
	if !ok || len(arr) != 3 {
		return DecayStep{}, fmt.Errorf("index: malformed decay reply %v", v)
	}
	var st DecayStep
	if st.Visited, err = asInt(arr[0]); err != nil {
		return st, err
	}
	if st.Forgotten, err = asInt(arr[1]); err != nil {
		return st, err
	}
	done, err := asInt(arr[2])
	st.Done = done == 1
	return st, err
}

// DecayAll runs decay steps until one sweep over all the terms is complete
// (at most maxSteps steps; ≤ 0: no limit) and returns the totals. A sweep
// already under way is finished first, so a term may decay twice if the
// set is rehashed in between (SCAN may return an element twice).
func (c *Completion) DecayAll(ctx context.Context, maxSteps int) (DecayStep, error) {
	var tot DecayStep
	for i := 0; maxSteps <= 0 || i < maxSteps; i++ {
		st, err := c.Decay(ctx)
		if err != nil {
			return tot, err
		}
		tot.Visited += st.Visited
		tot.Forgotten += st.Forgotten
		if st.Done {
			tot.Done = true
			break
		}
	}
	return tot, nil
}
