package quicklist

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// check compares l with the model: Len, every element forwards and
// backwards (the chunk cursor walks both ways) and a few at random.
func check(t *testing.T, step int, op string, l *List, model []string, rng *rand.Rand) {
	t.Helper()
	if l.Len() != len(model) {
		t.Fatalf("step %d (%s): Len %d, want %d", step, op, l.Len(), len(model))
	}
	var big int64
	if l.dir != nil {
		for i := l.lo; i < l.hi; i++ {
			big += l.dir[i].memory()
			if l.dir[i].packed > 0 {
				packedSeen++
			}
		}
	}
	if big != l.big {
		t.Fatalf("step %d (%s): counted chunk memory %d, chunks hold %d", step, op, l.big, big)
	}
	for i, want := range model {
		if got := string(l.BytesAt(i)); got != want {
			t.Fatalf("step %d (%s): BytesAt(%d) = %q, want %q", step, op, i, got, want)
		}
	}
	for i := len(model) - 1; i >= 0; i-- {
		if got := l.At(i); got != model[i] {
			t.Fatalf("step %d (%s): backwards At(%d) = %q, want %q", step, op, i, got, model[i])
		}
	}
	for k := 0; k < 8 && len(model) > 0; k++ {
		i := rng.IntN(len(model))
		if got := l.At(i); got != model[i] {
			t.Fatalf("step %d (%s): random At(%d) = %q, want %q", step, op, i, got, model[i])
		}
	}
}

// packedSeen counts the packed chunks check found, so that TestModel
// can tell that packing was exercised.
var packedSeen int

// value returns a value of a length drawn to cover 1-, 2- and 3-byte
// length prefixes (and the empty string).
func value(rng *rand.Rand, tag string) string {
	switch rng.IntN(40) {
	case 0:
		return ""
	case 1:
		return tag + strings.Repeat("w", 128+rng.IntN(300))
	case 2:
		return tag + strings.Repeat("z", 16384+rng.IntN(100))
	}
	// A common prefix, as list elements often have ("job:", "user:"),
	// lets interior chunks be packed (pack.go).
	return "element:" + tag + strings.Repeat("v", rng.IntN(20))
}

// smallValue is value without the elements of 16 KiB (one in 40 would
// leave almost no chunk worth packing).
func smallValue(rng *rand.Rand, tag string) string {
	switch rng.IntN(40) {
	case 0:
		return ""
	case 1:
		return tag + strings.Repeat("w", 128+rng.IntN(300))
	}
	return "element:" + tag + strings.Repeat("v", rng.IntN(20))
}

// TestModel runs random operations at both ends and in the middle
// against a slice, checking the whole list after every step. Growth and
// shrink phases keep the list crossing the small/chunked threshold (128
// elements) and the shrink threshold (32) in both directions. Seed 3
// starts from 3,000 elements, so that interior chunks are packed and
// unpacked (pack.go) as the ends move and elements in the middle change.
func TestModel(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		steps := 20000
		if testing.Short() {
			steps = 3000
		}
		rng := rand.New(rand.NewPCG(seed, 99))
		l := New()
		var model []string
		val := value
		if seed == 3 {
			val = smallValue
			steps /= 4
			for i := 0; i < 3000; i++ {
				v := val(rng, strconv.Itoa(i))
				l.PushBack(v)
				model = append(model, v)
			}
		}
		maxLen := 0
		for step := 0; step < steps; step++ {
			s := strconv.Itoa(step)
			grow := (step/1500)%2 == 0
			r := rng.IntN(100)
			kmax := len(model)/8 + 1 // truncation sizes: a few when growing
			if grow {
				kmax = 3
			}
			var op string
			switch {
			case r < 20 || (grow && r < 40):
				op = "PushFront"
				v := val(rng, s)
				l.PushFront(v)
				model = slices.Insert(model, 0, v)
			case r < 40 || (grow && r < 60):
				op = "PushBack"
				v := val(rng, s)
				l.PushBack(v)
				model = append(model, v)
			case r < 55:
				op = "PopFront"
				if len(model) > 0 {
					if got := l.PopFront(); got != model[0] {
						t.Fatalf("step %d: PopFront %q, want %q", step, got, model[0])
					}
					model = model[1:]
				}
			case r < 70:
				op = "PopBack"
				if len(model) > 0 {
					if got := l.Pop(false); got != model[len(model)-1] {
						t.Fatalf("step %d: PopBack %q, want %q", step, got, model[len(model)-1])
					}
					model = model[:len(model)-1]
				}
			case r < 78:
				op = "SetAt"
				if len(model) > 0 {
					i := rng.IntN(len(model))
					v := val(rng, "set"+s)
					l.SetAt(i, v)
					model[i] = v
				}
			case r < 86:
				op = "Insert"
				i := rng.IntN(len(model) + 1)
				v := val(rng, "ins"+s)
				l.Insert(i, v)
				model = slices.Insert(model, i, v)
			case r < 90:
				op = "Push"
				left := rng.IntN(2) == 0
				l.Push(s, left)
				if left {
					model = slices.Insert(model, 0, s)
				} else {
					model = append(model, s)
				}
			case r < 94:
				op = "TruncateFront"
				if len(model) > 0 {
					k := rng.IntN(min(len(model), kmax) + 1)
					if rng.IntN(50) == 0 {
						k = rng.IntN(len(model) + 1)
					}
					l.TruncateFront(k)
					model = model[k:]
				}
			case r < 97:
				op = "TruncateBack"
				if len(model) > 0 {
					k := rng.IntN(min(len(model), kmax) + 1)
					if rng.IntN(50) == 0 {
						k = rng.IntN(len(model) + 1)
					}
					l.TruncateBack(k)
					model = model[:len(model)-k]
				}
			default:
				// remove every element whose index is divisible by d,
				// compacting with Move as LREM does, from either end
				op = "Remove"
				n := len(model)
				if n == 0 {
					break
				}
				d := 20 + rng.IntN(50)
				if grow {
					d = 400
				}
				var tmp []byte
				var kept []string
				if rng.IntN(2) == 0 {
					w := 0
					for r := 0; r < n; r++ {
						if r%d == 0 {
							continue
						}
						if w != r {
							l.Move(w, r, &tmp)
						}
						kept = append(kept, model[r])
						w++
					}
					l.TruncateBack(n - w)
				} else {
					w := n - 1
					for r := n - 1; r >= 0; r-- {
						if r%d == 0 {
							continue
						}
						if w != r {
							l.Move(w, r, &tmp)
						}
						kept = append(kept, model[r])
						w--
					}
					slices.Reverse(kept)
					l.TruncateFront(w + 1)
				}
				model = kept
			}
			check(t, step, op, l, model, rng)
			maxLen = max(maxLen, len(model))
			if step%501 == 0 {
				cp := l.Copy()
				check(t, step, "Copy", cp, model, rng)
				if cp.Len() > 0 {
					cp.SetAt(0, "changed")
					cp.PushBack("more")
					check(t, step, "original after changing the copy", l, model, rng)
				}
			}
		}
		if maxLen < 500 && !testing.Short() {
			t.Errorf("seed %d: the list reached only %d elements", seed, maxLen)
		}
		if packedSeen == 0 && seed == 3 {
			t.Errorf("seed %d: no chunk was ever packed", seed)
		}
		t.Logf("seed %d: up to %d elements, %d packed chunks seen", seed, maxLen, packedSeen)
		packedSeen = 0
	}
}

// TestBytesAtView checks that a value handed in is copied and that a
// view of one element may be used to set another (as LSET and Move do
// through a scratch copy) without aliasing.
func TestBytesAtView(t *testing.T) {
	l := New()
	buf := []byte("hello")
	for i := 0; i < 300; i++ {
		l.PushBack(view(buf))
	}
	buf[0] = 'j'
	for i := 0; i < l.Len(); i++ {
		if l.At(i) != "hello" {
			t.Fatalf("At(%d) = %q after the caller's buffer changed", i, l.At(i))
		}
	}
	var tmp []byte
	l.SetAt(5, "x")
	l.Move(6, 5, &tmp)
	l.Move(150, 6, &tmp)
	if l.At(6) != "x" || l.At(150) != "x" || l.At(7) != "hello" {
		t.Fatalf("Move: %q %q %q", l.At(6), l.At(150), l.At(7))
	}
}

func TestZeroAndMemory(t *testing.T) {
	var l List
	if l.Len() != 0 || l.Copy().Len() != 0 {
		t.Fatal("zero list not empty")
	}
	empty := l.MemoryUsage()
	for i := 0; i < 10000; i++ {
		l.PushBack("element:" + strconv.Itoa(i))
	}
	full := l.MemoryUsage()
	// "element:N" packs to about 2.3 bytes (pack.go) in the interior chunks.
	if full < empty+10000*2 || full > empty+10000*40 {
		t.Fatalf("MemoryUsage %d for 10000 short elements (empty %d)", full, empty)
	}
	for l.Len() > 0 {
		l.PopFront()
	}
	if got := l.MemoryUsage(); got > empty+64 {
		t.Fatalf("MemoryUsage %d after popping everything, want about %d", got, empty)
	}
}

// TestPackedSize checks what a long list of elements that differ from
// their neighbour in the last bytes costs: at most 3.2 bytes each in all
// (pack.go's one-byte headers, its restarts, the chunk headers).
func TestPackedSize(t *testing.T) {
	l := New()
	const n = 100000
	for i := 0; i < n; i++ {
		l.PushBack("element:" + strconv.Itoa(i))
	}
	if per := float64(l.MemoryUsage()) / n; per > 3 {
		t.Errorf("MemoryUsage %d: %.2f bytes per \"element:N\", want at most 3", l.MemoryUsage(), per)
	}
}

// TestPackForms packs chunks of elements of every header form of
// pack.go (one byte; a long rest, with and without the uvarint after the
// first byte; a long shared prefix; empty and repeated elements) and of
// packed chunks of 64 KiB and more (4-byte restart offsets), and reads
// them back in place (forwards, backwards, at random) and unpacked.
func TestPackForms(t *testing.T) {
	long := strings.Repeat("p", 600)
	forms := map[string]func(i int) string{
		"short":    func(i int) string { return "element:" + strconv.Itoa(i) },
		"rest 100": func(i int) string { return long + strings.Repeat(strconv.Itoa(i%10), 100) },
		"rest 400": func(i int) string { return long + strconv.Itoa(i) + strings.Repeat(strconv.Itoa(i%7), 400) },
		"prefix":   func(i int) string { return long + strconv.Itoa(i) },
		"repeated": func(i int) string { return []string{"", "a", "a", "ab", "ab", "a", ""}[i%7] + "xxxxx" },
	}
	for name, f := range forms {
		rng := rand.New(rand.NewPCG(1, 2))
		l := New()
		var model []string
		for i := 0; i < 12*chunkSize+17; i++ {
			model = append(model, f(i))
			l.PushBack(model[i])
		}
		packed, wide := 0, 0
		for i := l.lo; i < l.hi; i++ {
			if ch := l.dir[i]; ch.packed > 0 {
				packed++
				if tabWidth(len(ch.b)) == 4 {
					wide++
				}
			}
		}
		if packed == 0 {
			t.Fatalf("%s: no chunk packed", name)
		}
		if name == "rest 400" && wide == 0 {
			t.Errorf("%s: no packed chunk of 64 KiB or more", name)
		}
		check(t, 0, name, l, model, rng)
		// Change an element in every chunk: each is unpacked, and the
		// two most recent stay so (the others are packed again).
		for i := chunkSize / 2; i < len(model); i += chunkSize {
			model[i] = "changed:" + strconv.Itoa(i)
			l.SetAt(i, model[i])
		}
		check(t, 1, name, l, model, rng)
	}
}
