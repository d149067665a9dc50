package index

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo/internal/resp"
)

// Verify and repair (the "index inconsistency" section of the redis.io
// secondary-indexing page): an index can drift from the objects it
// indexes (a writer that crashed between two non-atomic writes, a bug, a
// restore of one key but not the other). A Repairer walks the objects with
// SCAN and the index with ZSCAN, a bounded batch per Step and resumable
// from a cursor, and reports and fixes three kinds of problems:
//
//   - missing: an object has a value but no index entry;
//   - dangling: an index entry whose object (or indexed field) is gone;
//   - stale: an entry whose value differs from the object's.
//
// Writers may keep writing during a repair. Every fix is one Lua script
// that re-reads the object and applies the fix only if the object still
// holds the value the repairer saw (compare-and-set); if a writer changed
// it in between, the fix is skipped and counted as Raced, since the
// writer's own atomic update left that id consistent. One full pass
// (objects, then index) fixes every problem present before it started
// and not touched by writers: SCAN returns every key that exists for the
// whole scan, ZSCAN every member.
//
// On Redis Cluster the objects and the index must share a hash tag
// (objects "{users}:user:ID", index "{users}:age"): atomic writes need it
// anyway, the fix script touches both keys, and the object SCAN then runs
// on the one master that holds that slot.

// Problem is what a check found for one id.
type Problem int

// Problems.
const (
	OK       Problem = iota // consistent
	Missing                 // object without index entry
	Dangling                // index entry without object (or without the indexed field)
	Stale                   // entry value differs from the object's
	Raced                   // a writer changed the object while it was being fixed: left to the writer
)

var problemNames = [...]string{"ok", "missing", "dangling", "stale", "raced"}

func (p Problem) String() string {
	if int(p) < len(problemNames) {
		return problemNames[p]
	}
	return "Problem(" + strconv.Itoa(int(p)) + ")"
}

// RepairTarget is an index together with the objects it indexes: what a
// Repairer needs to walk both and reconcile one id. NumericObjects
// implements it; other indexes (composite, collections) implement it the
// same way: the checks read in one pipelined round trip, Fix is one
// compare-and-set script.
type RepairTarget interface {
	// ObjectScan returns the SCAN MATCH pattern of the objects' keys and a
	// key in their hash slot ("" if they are not confined to one slot).
	ObjectScan() (pattern, slotKey string)
	// ObjectID returns the id of an object key (false: not an object).
	ObjectID(key string) (string, bool)
	// IndexKey is the sorted set ZSCANned in the second phase.
	IndexKey() string
	// EntryID returns the id an index member refers to.
	EntryID(member string) (string, bool)
	// CheckObjects returns which of the ids of objects found by SCAN look
	// inconsistent (one round trip, no writes, not atomic: a candidate
	// may turn out consistent when fixed).
	CheckObjects(ctx context.Context, ids []string) ([]string, error)
	// CheckEntries does the same for ids found in the index, looking only
	// for what the object walk cannot see: entries whose object is gone.
	CheckEntries(ctx context.Context, ids []string) ([]string, error)
	// Fix reconciles id atomically with the object as it is now and
	// reports what was wrong; with dryRun it only classifies.
	Fix(ctx context.Context, id string, dryRun bool) (Problem, error)
}

// RepairCursor is where a repair stands: phase 0 walks the objects, phase
// 1 the index, phase 2 is done. The zero value starts a pass.
type RepairCursor struct {
	Phase  int
	Cursor string
}

// Done reports whether the pass is complete.
func (c RepairCursor) Done() bool { return c.Phase >= 2 }

// Report counts what a repair (or one step of it) saw and did.
type Report struct {
	Objects, Entries                int64 // keys and members examined
	Missing, Dangling, Stale, Raced int64
	Fixed                           int64    // problems fixed (0 in dry run)
	Samples                         []string // up to 20 "problem id" strings
}

// Add accumulates o into r.
func (r *Report) Add(o *Report) {
	r.Objects += o.Objects
	r.Entries += o.Entries
	r.Missing += o.Missing
	r.Dangling += o.Dangling
	r.Stale += o.Stale
	r.Raced += o.Raced
	r.Fixed += o.Fixed
	for _, s := range o.Samples {
		if len(r.Samples) < 20 {
			r.Samples = append(r.Samples, s)
		}
	}
}

// Problems is Missing + Dangling + Stale.
func (r *Report) Problems() int64 { return r.Missing + r.Dangling + r.Stale }

func (r *Report) String() string {
	return fmt.Sprintf("objects=%d entries=%d missing=%d dangling=%d stale=%d raced=%d fixed=%d",
		r.Objects, r.Entries, r.Missing, r.Dangling, r.Stale, r.Raced, r.Fixed)
}

func (r *Report) record(p Problem, id string, fixed bool) {
	switch p {
	case OK:
		return
	case Missing:
		r.Missing++
	case Dangling:
		r.Dangling++
	case Stale:
		r.Stale++
	case Raced:
		r.Raced++
		return
	}
	if fixed {
		r.Fixed++
	}
	if len(r.Samples) < 20 {
		r.Samples = append(r.Samples, p.String()+" "+id)
	}
}

// Repairer verifies and repairs one RepairTarget incrementally.
type Repairer struct {
	B      Backend
	T      RepairTarget
	Batch  int  // COUNT hint of each SCAN/ZSCAN (default 100)
	DryRun bool // report only, fix nothing
}

// NewRepairer returns a repairer of t on b.
func NewRepairer(b Backend, t RepairTarget) *Repairer { return &Repairer{B: b, T: t, Batch: 100} }

// ErrNeedsHashTag is returned on Redis Cluster when the objects of a
// repair are not confined to one hash slot.
var ErrNeedsHashTag = errors.New("index: on Redis Cluster the objects' key prefix must carry the index's hash tag")

// Step examines one batch (one SCAN or ZSCAN call), fixes what it found
// and returns the cursor to resume from.
func (r *Repairer) Step(ctx context.Context, cur RepairCursor) (RepairCursor, *Report, error) {
	rep := &Report{}
	if cur.Done() {
		return cur, rep, nil
	}
	if cur.Cursor == "" {
		cur.Cursor = "0"
	}
	batch := r.Batch
	if batch <= 0 {
		batch = 100
	}
	var ids []string
	var next string
	if cur.Phase == 0 {
		pattern, slotKey := r.T.ObjectScan()
		v, err := doAt(ctx, r.B, slotKey, "SCAN", cur.Cursor, "MATCH", pattern, "COUNT", batch)
		if err != nil {
			return cur, rep, err
		}
		c, keys, err := scanReply(v)
		if err != nil {
			return cur, rep, err
		}
		next = c
		for _, k := range keys {
			if id, ok := r.T.ObjectID(k); ok {
				ids = append(ids, id)
			}
		}
		rep.Objects += int64(len(ids))
	} else {
		v, err := r.B.Do(ctx, "ZSCAN", r.T.IndexKey(), cur.Cursor, "COUNT", batch)
		if err != nil {
			return cur, rep, err
		}
		c, items, err := scanReply(v)
		if err != nil {
			return cur, rep, err
		}
		next = c
		for i := 0; i+1 < len(items); i += 2 {
			if id, ok := r.T.EntryID(items[i]); ok {
				ids = append(ids, id)
			}
		}
		rep.Entries += int64(len(items) / 2)
	}
	if len(ids) > 0 {
		check := r.T.CheckObjects
		if cur.Phase == 1 {
			check = r.T.CheckEntries
		}
		bad, err := check(ctx, ids)
		if err != nil {
			return cur, rep, err
		}
		for _, id := range bad {
			p, err := r.T.Fix(ctx, id, r.DryRun)
			if err != nil {
				return cur, rep, err
			}
			rep.record(p, id, !r.DryRun)
		}
	}
	if next == "0" {
		return RepairCursor{Phase: cur.Phase + 1, Cursor: "0"}, rep, nil
	}
	return RepairCursor{Phase: cur.Phase, Cursor: next}, rep, nil
}

// Run makes one full pass (objects, then index) and returns its report.
// It stops early, with what it has, when ctx is done.
func (r *Repairer) Run(ctx context.Context) (*Report, error) {
	total := &Report{}
	var cur RepairCursor
	for !cur.Done() {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		next, rep, err := r.Step(ctx, cur)
		total.Add(rep)
		if err != nil {
			return total, err
		}
		cur = next
	}
	return total, nil
}

func scanReply(v any) (string, []string, error) {
	arr, ok := v.([]any)
	if !ok || len(arr) != 2 {
		return "", nil, fmt.Errorf("index: unexpected SCAN reply %T", v)
	}
	c, ok := asString(arr[0])
	if !ok {
		return "", nil, fmt.Errorf("index: unexpected SCAN cursor %T", arr[0])
	}
	items, err := asStrings(arr[1])
	if err != nil {
		// Pairs nested as [[member score] ...]: flatten them.
		nested, _ := arr[1].([]any)
		items, err = nil, nil
		for _, p := range nested {
			pp, ok := p.([]any)
			if !ok {
				return "", nil, fmt.Errorf("index: unexpected SCAN reply element %T", p)
			}
			for _, x := range pp {
				s, _ := asString(x)
				items = append(items, s)
			}
		}
	}
	return c, items, err
}

// doAt runs a keyless command (SCAN) where the keys of slotKey's slot
// live: on Redis Cluster the master that owns the slot (an error if
// slotKey is ""), elsewhere the one server.
func doAt(ctx context.Context, b Backend, slotKey string, args ...any) (any, error) {
	if rb, ok := b.(*Redis); ok {
		if cc, ok := rb.C.(*redis.ClusterClient); ok {
			if slotKey == "" {
				return nil, ErrNeedsHashTag
			}
			node, err := cc.MasterForKey(ctx, slotKey)
			if err != nil {
				return nil, err
			}
			return goredisResult(node.Do(ctx, args...).Result())
		}
	}
	return b.Do(ctx, args...)
}

// hashTagKey returns prefix if every key starting with it hashes to one
// slot (it contains a complete, non-empty {tag}), else "".
func hashTagKey(prefix string) string {
	i := strings.IndexByte(prefix, '{')
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(prefix[i+1:], '}')
	if j <= 0 {
		return ""
	}
	return prefix
}

// globEscape quotes the glob metacharacters of s for SCAN MATCH.
func globEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ---- numeric index over hash objects ----

// NumericObjects ties a Numeric index to the hashes it indexes: object id
// is stored at Prefix+id and indexed under the number in its field Field
// (the page's "user:1 age 38" with an "age" index). An object without the
// field, or whose field is not a number, must have no entry.
type NumericObjects struct {
	Index  *Numeric
	Prefix string
	Field  string
	// Parse turns a field into the indexed number (false: not indexed).
	// Default: strconv.ParseFloat, NaN rejected.
	Parse func(string) (float64, bool)
}

func (o *NumericObjects) parse(s string) (float64, bool) {
	if o.Parse != nil {
		return o.Parse(s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// ObjectScan implements RepairTarget.
func (o *NumericObjects) ObjectScan() (string, string) {
	return globEscape(o.Prefix) + "*", hashTagKey(o.Prefix)
}

// ObjectID implements RepairTarget.
func (o *NumericObjects) ObjectID(key string) (string, bool) {
	if !strings.HasPrefix(key, o.Prefix) {
		return "", false
	}
	return key[len(o.Prefix):], true
}

// IndexKey implements RepairTarget.
func (o *NumericObjects) IndexKey() string { return o.Index.Key }

// EntryID implements RepairTarget.
func (o *NumericObjects) EntryID(member string) (string, bool) { return member, true }

// consistent says whether a field (present or not) and an entry agree.
func (o *NumericObjects) consistent(field any, score any) bool {
	fs, hasField := asString(field)
	want, indexed := 0.0, false
	if hasField {
		want, indexed = o.parse(fs)
	}
	if score == nil {
		return !indexed
	}
	got, err := asFloat(score)
	return err == nil && indexed && got == want
}

// CheckEntries implements RepairTarget: EXISTS of every id's object,
// pipelined (an existing object was checked, entry included, by the
// object walk).
func (o *NumericObjects) CheckEntries(ctx context.Context, ids []string) ([]string, error) {
	cmds := make([]Cmd, len(ids))
	for i, id := range ids {
		cmds[i] = Cmd{"EXISTS", o.Prefix + id}
	}
	res, err := o.Index.b.Pipeline(ctx, cmds)
	if err != nil {
		return nil, err
	}
	var bad []string
	for i, id := range ids {
		if res[i].Err != nil {
			return nil, res[i].Err
		}
		if n, _ := asInt(res[i].Val); n == 0 {
			bad = append(bad, id)
		}
	}
	return bad, nil
}

// CheckObjects implements RepairTarget: HGET and ZSCORE of every id, pipelined.
func (o *NumericObjects) CheckObjects(ctx context.Context, ids []string) ([]string, error) {
	cmds := make([]Cmd, 0, 2*len(ids))
	for _, id := range ids {
		cmds = append(cmds, Cmd{"HGET", o.Prefix + id, o.Field}, Cmd{"ZSCORE", o.Index.Key, id})
	}
	res, err := o.Index.b.Pipeline(ctx, cmds)
	if err != nil {
		return nil, err
	}
	var bad []string
	for i, id := range ids {
		f, s := res[2*i], res[2*i+1]
		if f.Err != nil && !isWrongType(f.Err) {
			return nil, f.Err
		}
		if s.Err != nil {
			return nil, s.Err
		}
		if f.Err != nil { // the key is not a hash: not an object
			f.Val = nil
		}
		if !o.consistent(f.Val, s.Val) {
			bad = append(bad, id)
		}
	}
	return bad, nil
}

func isWrongType(err error) bool {
	var e *Error
	return errors.As(err, &e) && strings.HasPrefix(e.Msg, "WRONGTYPE")
}

// numericFixScript reconciles one id if the object's field still holds
// what the caller saw.
// KEYS: object, index. ARGV: id, field, seen ("1" present / "0" absent),
// seen value, action ("add"/"rem"), score, score as ZSCORE prints it,
// dry ("1"/"0"). Returns the problem name ("ok", "missing", ...).
var numericFixScript = NewScript(`
local ok, v = pcall(redis.call, 'HGET', KEYS[1], ARGV[2])
if not ok then v = false end
if (ARGV[3] == '1') ~= (v ~= false) or (v and v ~= ARGV[4]) then return 'raced' end
local cur = redis.call('ZSCORE', KEYS[2], ARGV[1])
if ARGV[5] == 'rem' then
  if not cur then return 'ok' end
  if ARGV[8] == '0' then redis.call('ZREM', KEYS[2], ARGV[1]) end
  return 'dangling'
end
if cur then
  if cur == ARGV[7] or (tonumber(cur) ~= nil and tonumber(cur) == tonumber(ARGV[7])) then return 'ok' end
end
if ARGV[8] == '0' then redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1]) end
if cur then return 'stale' end
return 'missing'
`)

// Fix implements RepairTarget: it reads the object's field, then runs a
// compare-and-set script that makes the entry match it (ZADD or ZREM)
// unless a writer changed the field in between (retried twice, then
// reported as Raced).
func (o *NumericObjects) Fix(ctx context.Context, id string, dryRun bool) (Problem, error) {
	b := o.Index.b
	for attempt := 0; attempt < 3; attempt++ {
		v, err := b.Do(ctx, "HGET", o.Prefix+id, o.Field)
		if err != nil && !isWrongType(err) {
			return OK, err
		}
		seen, val := "0", ""
		if s, ok := asString(v); ok && err == nil {
			seen, val = "1", s
		}
		action, score, printed := "rem", "", ""
		if seen == "1" {
			if f, ok := o.parse(val); ok {
				action, score, printed = "add", formatScore(f), string(resp.AppendDouble(nil, f))
			}
		}
		dry := "0"
		if dryRun {
			dry = "1"
		}
		r, err := b.Eval(ctx, numericFixScript, []string{o.Prefix + id, o.Index.Key},
			id, o.Field, seen, val, action, score, printed, dry)
		if err != nil {
			return OK, err
		}
		name, _ := asString(r)
		switch name {
		case "ok":
			return OK, nil
		case "missing":
			return Missing, nil
		case "dangling":
			return Dangling, nil
		case "stale":
			return Stale, nil
		case "raced":
			continue
		default:
			return OK, fmt.Errorf("index: unexpected repair script reply %q", name)
		}
	}
	return Raced, nil
}

// Range is Index.Range with read repair: hits whose object is gone or
// whose field no longer matches are dropped from the result and fixed
// (unless dryRun). When hits were dropped from a limited page, the query
// is run again (at most 3 times) so the page is as full as the index
// allows once fixed. Read repair cannot see missing entries (an object
// never indexed does not come up in a query): a Repairer pass finds those.
func (o *NumericObjects) Range(ctx context.Context, dryRun bool, opts ...QueryOption) ([]Hit, *Report, error) {
	rep := &Report{}
	q := buildQuery(opts)
	for round := 0; ; round++ {
		hits, err := o.Index.Range(ctx, opts...)
		if err != nil {
			return nil, rep, err
		}
		if len(hits) == 0 {
			return hits, rep, nil
		}
		cmds := make([]Cmd, len(hits))
		for i, h := range hits {
			cmds[i] = Cmd{"HGET", o.Prefix + h.ID, o.Field}
		}
		res, err := o.Index.b.Pipeline(ctx, cmds)
		if err != nil {
			return nil, rep, err
		}
		kept := hits[:0:0]
		dropped := 0
		for i, h := range hits {
			f := res[i]
			if f.Err != nil && !isWrongType(f.Err) {
				return nil, rep, f.Err
			}
			if f.Err != nil {
				f.Val = nil
			}
			if o.consistent(f.Val, h.Score) {
				kept = append(kept, h)
				continue
			}
			dropped++
			p, err := o.Fix(ctx, h.ID, dryRun)
			if err != nil {
				return nil, rep, err
			}
			rep.record(p, h.ID, !dryRun)
		}
		rep.Entries += int64(len(hits))
		if dropped == 0 || !q.limit || dryRun || round == 2 {
			return kept, rep, nil
		}
	}
}
