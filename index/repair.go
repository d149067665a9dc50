package index

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/backend"
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
// Repairer needs to walk both and reconcile one id. NumericObjects and
// CompositeObjects implement it (and so cover a Collection's indexes):
// the checks read in one pipelined round trip, Fix is one
// compare-and-set script.
type RepairTarget interface {
	// ObjectScan returns the SCAN MATCH pattern of the objects' keys and a
	// key in their hash slot ("" if they are not confined to one slot).
	ObjectScan() (pattern, slotKey string)
	// ObjectID returns the id of an object key (false: not an object).
	ObjectID(key string) (string, bool)
	// Walks are the index's own keys, walked after the objects, in order.
	Walks() []Walk
	// CheckObjects returns which of the ids of objects found by SCAN look
	// inconsistent (no writes, not atomic: a candidate may turn out
	// consistent when fixed).
	CheckObjects(ctx context.Context, ids []string) ([]Candidate, error)
	// CheckEntries does the same for the items of one batch of walk w
	// (flat pairs as ZSCAN/HSCAN return them), looking for what the
	// object walk cannot see: entries whose object is gone, or entries
	// that are not the object's current one.
	CheckEntries(ctx context.Context, w int, items []string) ([]Candidate, error)
	// Fix reconciles c.ID atomically with its object as it is now (and
	// drops c.Entry if it is not the id's current entry) and reports what
	// was wrong; with dryRun it only classifies.
	Fix(ctx context.Context, c Candidate, dryRun bool) (Problem, error)
}

// Walk is one key of an index walked incrementally with Scan ("ZSCAN" or
// "HSCAN").
type Walk struct {
	Key, Scan string
}

// Candidate is an id that looks inconsistent, with the index entry that
// was seen for it ("" when found by the object walk).
type Candidate struct {
	ID, Entry string
}

// RepairCursor is where a repair stands: phase 0 walks the objects, phase
// i+1 the target's i-th Walk. The zero value starts a pass.
type RepairCursor struct {
	Phase    int
	Cursor   string
	Finished bool
}

// Done reports whether the pass is complete.
func (c RepairCursor) Done() bool { return c.Finished }

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
	B      backend.Backend
	T      RepairTarget
	Batch  int  // COUNT hint of each SCAN/ZSCAN (default 100)
	DryRun bool // report only, fix nothing

	// In a dry run nothing is fixed, so the later walks see again what
	// the earlier ones found: ids already reported in this pass (by this
	// Repairer) are not reported twice.
	reported map[string]bool
}

// NewRepairer returns a repairer of t on b.
func NewRepairer(b backend.Backend, t RepairTarget) *Repairer {
	return &Repairer{B: b, T: t, Batch: 100}
}

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
	if cur.Phase == 0 && cur.Cursor == "0" || r.reported == nil {
		r.reported = map[string]bool{}
	}
	batch := r.Batch
	if batch <= 0 {
		batch = 100
	}
	walks := r.T.Walks()
	var next string
	var bad []Candidate
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
		var ids []string
		for _, k := range keys {
			if id, ok := r.T.ObjectID(k); ok {
				ids = append(ids, id)
			}
		}
		rep.Objects += int64(len(ids))
		if len(ids) > 0 {
			if bad, err = r.T.CheckObjects(ctx, ids); err != nil {
				return cur, rep, err
			}
		}
	} else if w := cur.Phase - 1; w < len(walks) {
		v, err := r.B.Do(ctx, walks[w].Scan, walks[w].Key, cur.Cursor, "COUNT", batch)
		if err != nil {
			return cur, rep, err
		}
		c, items, err := scanReply(v)
		if err != nil {
			return cur, rep, err
		}
		next = c
		rep.Entries += int64(len(items) / 2)
		if len(items) > 0 {
			if bad, err = r.T.CheckEntries(ctx, w, items); err != nil {
				return cur, rep, err
			}
		}
	} else {
		next = "0"
	}
	for _, c := range bad {
		if r.DryRun && r.reported[c.ID] {
			continue
		}
		p, err := r.T.Fix(ctx, c, r.DryRun)
		if err != nil {
			return cur, rep, err
		}
		rep.record(p, c.ID, !r.DryRun)
		if r.DryRun && p != OK && p != Raced {
			r.reported[c.ID] = true
		}
	}
	if next == "0" {
		phase := cur.Phase + 1
		return RepairCursor{Phase: phase, Cursor: "0", Finished: phase > len(walks)}, rep, nil
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
// live: on Redis Cluster (a backend.Router) the master that owns the slot
// (an error if slotKey is ""), elsewhere the one server.
func doAt(ctx context.Context, b backend.Backend, slotKey string, args ...any) (any, error) {
	if r, ok := b.(backend.Router); ok {
		if slotKey == "" {
			return nil, ErrNeedsHashTag
		}
		return r.DoAt(ctx, slotKey, args...)
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
	// Default: strconv.ParseFloat (overflow to ±Inf allowed), NaN
	// rejected, as Collection does.
	Parse func(string) (float64, bool)
}

func (o *NumericObjects) parse(s string) (float64, bool) {
	if o.Parse != nil {
		return o.Parse(s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(f) {
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

// Walks implements RepairTarget: the sorted set.
func (o *NumericObjects) Walks() []Walk { return []Walk{{Key: o.Index.Key, Scan: "ZSCAN"}} }

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

// CheckEntries implements RepairTarget: EXISTS of every member's object,
// pipelined (an existing object was checked, entry included, by the
// object walk).
func (o *NumericObjects) CheckEntries(ctx context.Context, _ int, items []string) ([]Candidate, error) {
	var ids []string
	for i := 0; i+1 < len(items); i += 2 {
		ids = append(ids, items[i])
	}
	return missingObjects(ctx, o.Index.b, o.Prefix, ids, nil)
}

// missingObjects returns, as candidates, the ids whose object Prefix+id
// does not exist (entries[i] is the entry seen for ids[i], if any).
func missingObjects(ctx context.Context, b backend.Backend, prefix string, ids, entries []string) ([]Candidate, error) {
	cmds := make([]backend.Cmd, len(ids))
	for i, id := range ids {
		cmds[i] = backend.Cmd{"EXISTS", prefix + id}
	}
	res, err := b.Pipeline(ctx, cmds)
	if err != nil {
		return nil, err
	}
	var bad []Candidate
	for i, id := range ids {
		if res[i].Err != nil {
			return nil, res[i].Err
		}
		if n, _ := asInt(res[i].Val); n == 0 {
			c := Candidate{ID: id}
			if entries != nil {
				c.Entry = entries[i]
			}
			bad = append(bad, c)
		}
	}
	return bad, nil
}

// CheckObjects implements RepairTarget: HGET and ZSCORE of every id, pipelined.
func (o *NumericObjects) CheckObjects(ctx context.Context, ids []string) ([]Candidate, error) {
	cmds := make([]backend.Cmd, 0, 2*len(ids))
	for _, id := range ids {
		cmds = append(cmds, backend.Cmd{"HGET", o.Prefix + id, o.Field}, backend.Cmd{"ZSCORE", o.Index.Key, id})
	}
	res, err := o.Index.b.Pipeline(ctx, cmds)
	if err != nil {
		return nil, err
	}
	var bad []Candidate
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
			bad = append(bad, Candidate{ID: id})
		}
	}
	return bad, nil
}

func isWrongType(err error) bool { return backend.HasCode(err, "WRONGTYPE") }

// numericFixScript reconciles one id if the object's field still holds
// what the caller saw.
// KEYS: object, index. ARGV: id, field, seen ("1" present / "0" absent),
// seen value, action ("add"/"rem"), score, score as ZSCORE prints it,
// dry ("1"/"0"). Returns the problem name ("ok", "missing", ...).
var numericFixScript = backend.NewScript(`
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
func (o *NumericObjects) Fix(ctx context.Context, c Candidate, dryRun bool) (Problem, error) {
	b, id := o.Index.b, c.ID
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
		if p, raced, err := problemOf(r); !raced {
			return p, err
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
		cmds := make([]backend.Cmd, len(hits))
		for i, h := range hits {
			cmds[i] = backend.Cmd{"HGET", o.Prefix + h.ID, o.Field}
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
			p, err := o.Fix(ctx, Candidate{ID: h.ID}, dryRun)
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

// ---- composite index over hash objects ----

// CompositeObjects ties a Composite index to the hashes it indexes:
// object id is stored at Prefix+id and indexed under the values of its
// fields named as the index's Fields, in order (what a Collection does:
// Prefix is coll.ObjectKey("")). An object that lacks one of the fields,
// or whose field does not convert to its type, must have no entry. The
// index walks are the sorted set (members that are not the id's current
// entry, or whose object is gone) and the id → member hash (entries whose
// object is gone or whose member is not in the sorted set).
type CompositeObjects struct {
	Index  *Composite
	Prefix string
}

// ObjectScan implements RepairTarget.
func (o *CompositeObjects) ObjectScan() (string, string) {
	return globEscape(o.Prefix) + "*", hashTagKey(o.Prefix)
}

// ObjectID implements RepairTarget.
func (o *CompositeObjects) ObjectID(key string) (string, bool) {
	if !strings.HasPrefix(key, o.Prefix) {
		return "", false
	}
	return key[len(o.Prefix):], true
}

// Walks implements RepairTarget.
func (o *CompositeObjects) Walks() []Walk {
	return []Walk{{Key: o.Index.zkey, Scan: "ZSCAN"}, {Key: o.Index.hkey, Scan: "HSCAN"}}
}

func (o *CompositeObjects) fieldsCmd(id string) backend.Cmd {
	cmd := backend.Cmd{"HMGET", o.Prefix + id}
	for _, f := range o.Index.Fields {
		cmd = append(cmd, f.Name)
	}
	return cmd
}

// want returns the member id should have given an HMGET reply (err: the
// key is not a hash), "" for none; and what was seen, for the CAS.
func (o *CompositeObjects) want(id string, v any, err error) (member string, seen []any) {
	arr, _ := v.([]any)
	if err != nil || len(arr) != len(o.Index.Fields) {
		arr = make([]any, len(o.Index.Fields))
	}
	vals := make([]any, len(arr))
	complete := true
	for i, x := range arr {
		s, ok := asString(x)
		if ok {
			seen = append(seen, "1", s)
			vals[i] = s
		} else {
			seen = append(seen, "0", "")
			complete = false
		}
	}
	if complete {
		if m, err := o.Index.Member(id, vals...); err == nil {
			member = m
		}
	}
	return member, seen
}

// CheckObjects implements RepairTarget: HMGET of the fields and HGET of
// the current member, pipelined; then ZSCORE of the members that agree.
func (o *CompositeObjects) CheckObjects(ctx context.Context, ids []string) ([]Candidate, error) {
	b := o.Index.b
	cmds := make([]backend.Cmd, 0, 2*len(ids))
	for _, id := range ids {
		cmds = append(cmds, o.fieldsCmd(id), backend.Cmd{"HGET", o.Index.hkey, id})
	}
	res, err := b.Pipeline(ctx, cmds)
	if err != nil {
		return nil, err
	}
	var bad []Candidate
	var agree []string
	var zs []backend.Cmd
	for i, id := range ids {
		f, h := res[2*i], res[2*i+1]
		if f.Err != nil && !isWrongType(f.Err) {
			return nil, f.Err
		}
		if h.Err != nil {
			return nil, h.Err
		}
		want, _ := o.want(id, f.Val, f.Err)
		cur, _ := asString(h.Val)
		switch {
		case want != cur:
			bad = append(bad, Candidate{ID: id})
		case want != "":
			agree = append(agree, id)
			zs = append(zs, backend.Cmd{"ZSCORE", o.Index.zkey, want})
		}
	}
	if len(zs) > 0 {
		res, err := b.Pipeline(ctx, zs)
		if err != nil {
			return nil, err
		}
		for i, r := range res {
			if r.Err != nil {
				return nil, r.Err
			}
			if r.Val == nil {
				bad = append(bad, Candidate{ID: agree[i]})
			}
		}
	}
	return bad, nil
}

// CheckEntries implements RepairTarget.
func (o *CompositeObjects) CheckEntries(ctx context.Context, w int, items []string) ([]Candidate, error) {
	var ids, entries []string
	var cmds []backend.Cmd
	for i := 0; i+1 < len(items); i += 2 {
		if w == 0 { // sorted set: member, score
			id, ok := o.Index.memberID(items[i])
			if !ok {
				continue // not an entry of this index: left alone
			}
			ids, entries = append(ids, id), append(entries, items[i])
			cmds = append(cmds, backend.Cmd{"EXISTS", o.Prefix + id}, backend.Cmd{"HGET", o.Index.hkey, id})
		} else { // id hash: id, member
			ids, entries = append(ids, items[i]), append(entries, items[i+1])
			cmds = append(cmds, backend.Cmd{"EXISTS", o.Prefix + items[i]}, backend.Cmd{"ZSCORE", o.Index.zkey, items[i+1]})
		}
	}
	if len(cmds) == 0 {
		return nil, nil
	}
	res, err := o.Index.b.Pipeline(ctx, cmds)
	if err != nil {
		return nil, err
	}
	var bad []Candidate
	for i, id := range ids {
		e, x := res[2*i], res[2*i+1]
		if e.Err != nil {
			return nil, e.Err
		}
		if x.Err != nil {
			return nil, x.Err
		}
		n, _ := asInt(e.Val)
		var wrong bool
		if w == 0 {
			cur, _ := asString(x.Val)
			wrong = n == 0 || cur != entries[i]
		} else {
			wrong = n == 0 || x.Val == nil
		}
		if wrong {
			c := Candidate{ID: id}
			if w == 0 {
				c.Entry = entries[i]
			}
			bad = append(bad, c)
		}
	}
	return bad, nil
}

// memberID returns the id (last element) of a member of the index.
func (c *Composite) memberID(m string) (string, bool) {
	e, err := c.decodeMember(m)
	if err != nil {
		return "", false
	}
	return e.ID, true
}

// compositeFixScript reconciles one id of a composite index if the
// object's fields still hold what the caller saw.
// KEYS: object, sorted set, id hash. ARGV: id, dry ("1"/"0"), wanted
// member ("" none), orphan member to drop ("" none), n, n field names,
// then n pairs (seen "1"/"0", value).
var compositeFixScript = backend.NewScript(`
local id, dry, want, orphan, n = ARGV[1], ARGV[2] == '1', ARGV[3], ARGV[4], tonumber(ARGV[5])
local fields = {}
for i = 1, n do fields[i] = ARGV[5 + i] end
local ok, vals = pcall(redis.call, 'HMGET', KEYS[1], unpack(fields))
if not ok then
  vals = {}
  for i = 1, n do vals[i] = false end
end
for i = 1, n do
  local flag, seen = ARGV[5 + n + 2*i - 1], ARGV[5 + n + 2*i]
  local v = vals[i]
  if (flag == '1') ~= (v ~= false) or (v and v ~= seen) then return 'raced' end
end
local cur = redis.call('HGET', KEYS[3], id)
local result = 'ok'
if want == '' then
  if cur then
    result = 'dangling'
    if not dry then
      redis.call('ZREM', KEYS[2], cur)
      redis.call('HDEL', KEYS[3], id)
    end
  end
elseif cur ~= want or not redis.call('ZSCORE', KEYS[2], want) then
  if cur and cur ~= want then result = 'stale' else result = 'missing' end
  if not dry then
    if cur and cur ~= want then redis.call('ZREM', KEYS[2], cur) end
    redis.call('ZADD', KEYS[2], 0, want)
    redis.call('HSET', KEYS[3], id, want)
  end
end
if orphan ~= '' and orphan ~= want and orphan ~= cur and redis.call('ZSCORE', KEYS[2], orphan) then
  if result == 'ok' then result = 'dangling' end
  if not dry then redis.call('ZREM', KEYS[2], orphan) end
end
return result
`)

// Fix implements RepairTarget (compare-and-set on the object's fields,
// retried twice, then reported as Raced).
func (o *CompositeObjects) Fix(ctx context.Context, c Candidate, dryRun bool) (Problem, error) {
	b := o.Index.b
	for attempt := 0; attempt < 3; attempt++ {
		v, err := b.Do(ctx, o.fieldsCmd(c.ID)...)
		if err != nil && !isWrongType(err) {
			return OK, err
		}
		want, seen := o.want(c.ID, v, err)
		dry := "0"
		if dryRun {
			dry = "1"
		}
		args := []any{c.ID, dry, want, c.Entry, len(o.Index.Fields)}
		for _, f := range o.Index.Fields {
			args = append(args, f.Name)
		}
		args = append(args, seen...)
		r, err := b.Eval(ctx, compositeFixScript, []string{o.Prefix + c.ID, o.Index.zkey, o.Index.hkey}, args...)
		if err != nil {
			return OK, err
		}
		if p, raced, err := problemOf(r); !raced {
			return p, err
		}
	}
	return Raced, nil
}

func problemOf(r any) (Problem, bool, error) {
	name, _ := asString(r)
	switch name {
	case "ok":
		return OK, false, nil
	case "missing":
		return Missing, false, nil
	case "dangling":
		return Dangling, false, nil
	case "stale":
		return Stale, false, nil
	case "raced":
		return OK, true, nil
	}
	return OK, false, fmt.Errorf("index: unexpected repair script reply %q", name)
}
