package redistest

// Transcripts: files of redis-cli sessions, as documentation prints them,
// replayed against a server and checked reply by reply.
//
// A transcript file looks like an interactive redis-cli session:
//
//	# Comments start with '#' at the beginning of a line.
//	redis> HMSET user:1000 username antirez password P1pp0 age 34
//	OK
//	127.0.0.1:6379> HGETALL user:1000
//	1) "username"
//	2) "antirez"
//	# any-order
//	redis> SMEMBERS s
//	1) "b"
//	2) "a"
//
// A prompt is "redis>" or "host:port>" (with the "[db]" and "(TX)" that
// redis-cli adds after SELECT and MULTI); the text after it is the command,
// split into arguments as redis-cli splits them (quotes and escapes). The
// lines up to the next prompt are the expected output, exactly as
// interactive redis-cli renders the reply: (integer) 1, "quoted" strings
// with escapes, (nil), (error) ERR ..., numbered and indented nested
// arrays, (empty array). Blank lines are ignored; a prompt with no command
// is ignored (documents often end a session with one).
//
// Directives are comment lines that apply to the next command:
//
//	# any-order   the reply's elements may come in any order (SMEMBERS,
//	              HGETALL of a large hash): lines are compared as a multiset,
//	              ignoring their index numbers
//	# random      the reply is random (SRANDMEMBER, TTL): only its shape is
//	              compared (number of lines, and the kind of each line)
//
// and one applies to the whole file:
//
//	# ordo-only: <reason>   do not run the file against redis-server
//	                        (e.g. commands of a module Redis lacks)
//
// Transcripts are checked against real redis-server too: where a
// document's text disagrees with Redis, the transcript holds Redis's reply
// and a comment says what the document printed (MISSION §7).

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/resp"
)

// Step is one command of a transcript and the output expected from it.
type Step struct {
	Line    int      // 1-based line of the command in the file
	Command string   // the command as typed
	Args    []string // the command split as redis-cli splits it
	Want    []string // expected output lines
	Mode    string   // "", "any-order" or "random"
}

// Transcript is a parsed transcript file.
type Transcript struct {
	Name     string
	Steps    []Step
	OrdoOnly string // reason the file cannot run against redis-server, or ""
}

var promptRE = regexp.MustCompile(`^(?:redis|[A-Za-z0-9_.\-]+:\d+)(?:\[\d+\])?(?:\(TX\))?>(?: (.*))?$`)

// ParseTranscript parses the text of a transcript file.
func ParseTranscript(name string, text []byte) (*Transcript, error) {
	tr := &Transcript{Name: name}
	mode := ""
	var cur *Step
	for i, line := range strings.Split(string(text), "\n") {
		line = strings.TrimRight(line, " \t\r")
		lineNo := i + 1
		if m := promptRE.FindStringSubmatch(line); m != nil {
			cur = nil
			cmd := strings.TrimSpace(m[1])
			if cmd == "" {
				continue
			}
			args, ok := resp.SplitArgs([]byte(cmd), nil)
			if !ok {
				return nil, fmt.Errorf("%s:%d: unbalanced quotes in %q", name, lineNo, cmd)
			}
			st := Step{Line: lineNo, Command: cmd, Mode: mode}
			for _, a := range args {
				st.Args = append(st.Args, string(a))
			}
			mode = ""
			tr.Steps = append(tr.Steps, st)
			cur = &tr.Steps[len(tr.Steps)-1]
			continue
		}
		if strings.HasPrefix(line, "#") {
			d := strings.TrimSpace(strings.TrimPrefix(line, "#"))
			switch {
			case d == "any-order" || d == "random":
				mode = d
			case strings.HasPrefix(d, "ordo-only:"):
				tr.OrdoOnly = strings.TrimSpace(strings.TrimPrefix(d, "ordo-only:"))
			}
			continue
		}
		if line == "" {
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("%s:%d: output line before any command: %q", name, lineNo, line)
		}
		cur.Want = append(cur.Want, line)
	}
	if mode != "" {
		return nil, fmt.Errorf("%s: directive %q at the end applies to no command", name, mode)
	}
	return tr, nil
}

// LoadTranscript reads and parses a transcript file.
func LoadTranscript(path string) (*Transcript, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseTranscript(path, b)
}

// Run replays the transcript on a new connection to addr and reports
// every reply that differs from the expected output. The caller empties
// the server first if the transcript needs it.
func (tr *Transcript) Run(t testing.TB, addr string) {
	t.Helper()
	c := Dial(t, addr)
	defer c.Close()
	for _, st := range tr.Steps {
		v, _, err := resp.ParseReply(c.DoRaw(st.Args...))
		if err != nil {
			t.Fatalf("%s:%d: %s: %v", tr.Name, st.Line, st.Command, err)
		}
		got := strings.Split(strings.TrimSuffix(RenderCLI(v), "\n"), "\n")
		for i := range got { // as the file's lines are
			got[i] = strings.TrimRight(got[i], " \t\r")
		}
		if !MatchOutput(st.Mode, got, st.Want) {
			t.Errorf("%s:%d: %s\n got:\n\t%s\n want:\n\t%s", tr.Name, st.Line, st.Command,
				strings.Join(got, "\n\t"), strings.Join(st.Want, "\n\t"))
		}
	}
}

// RunTranscript loads the file at path and runs it against addr.
func RunTranscript(t testing.TB, addr, path string) {
	t.Helper()
	tr, err := LoadTranscript(path)
	if err != nil {
		t.Fatal(err)
	}
	tr.Run(t, addr)
}

// MatchOutput compares rendered output lines with expected ones under a
// transcript mode.
func MatchOutput(mode string, got, want []string) bool {
	switch mode {
	case "any-order":
		return strings.Join(sortedItems(got), "\n") == strings.Join(sortedItems(want), "\n")
	case "random":
		if len(got) != len(want) {
			return false
		}
		for i := range got {
			if lineShape(got[i]) != lineShape(want[i]) {
				return false
			}
		}
		return true
	}
	return strings.Join(got, "\n") == strings.Join(want, "\n")
}

var (
	indexRE  = regexp.MustCompile(`^\s*(\d+[)~#] )+`)
	quotedRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	numberRE = regexp.MustCompile(`-?\d+(\.\d+)?`)
)

func sortedItems(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = indexRE.ReplaceAllString(l, "")
	}
	sort.Strings(out)
	return out
}

// lineShape keeps what kind of reply a line shows, not its value.
func lineShape(l string) string {
	l = quotedRE.ReplaceAllString(l, `"…"`)
	return numberRE.ReplaceAllString(l, "N")
}

// RenderCLI renders a reply exactly as interactive redis-cli prints it
// (cliFormatReplyTTY, the format of `redis-cli --no-raw`), ending in a
// newline.
func RenderCLI(v resp.Value) string {
	var b bytes.Buffer
	renderTTY(&b, v, "")
	return b.String()
}

func renderTTY(b *bytes.Buffer, v resp.Value, prefix string) {
	switch v.Kind {
	case resp.KindError:
		b.WriteString("(error) " + v.Str + "\n")
	case resp.KindSimple:
		b.WriteString(v.Str + "\n")
	case resp.KindInt:
		b.WriteString("(integer) " + strconv.FormatInt(v.Int, 10) + "\n")
	case resp.KindDouble:
		b.WriteString("(double) " + v.Str + "\n")
	case resp.KindBigNum:
		b.WriteString("(big number) " + v.Str + "\n")
	case resp.KindVerbatim:
		b.WriteString(v.Str + "\n")
	case resp.KindNull:
		b.WriteString("(nil)\n")
	case resp.KindBool:
		if v.Int != 0 {
			b.WriteString("(true)\n")
		} else {
			b.WriteString("(false)\n")
		}
	case resp.KindArray, resp.KindMap, resp.KindSet, resp.KindPush:
		if len(v.Elems) == 0 {
			switch v.Kind {
			case resp.KindMap:
				b.WriteString("(empty hash)\n")
			case resp.KindSet:
				b.WriteString("(empty set)\n")
			case resp.KindPush:
				b.WriteString("(empty push)\n")
			default:
				b.WriteString("(empty array)\n")
			}
			return
		}
		n := len(v.Elems)
		sep := byte(')')
		switch v.Kind {
		case resp.KindMap:
			n /= 2
			sep = '#'
		case resp.KindSet:
			sep = '~'
		}
		width := len(strconv.Itoa(n))
		inner := prefix + strings.Repeat(" ", width+2)
		for i := 0; i < len(v.Elems); i++ {
			idx := i + 1
			if v.Kind == resp.KindMap {
				idx = i/2 + 1
			}
			if i > 0 {
				b.WriteString(prefix)
			}
			fmt.Fprintf(b, "%*d%c ", width, idx, sep)
			renderTTY(b, v.Elems[i], inner)
			if v.Kind == resp.KindMap {
				i++
				b.Truncate(b.Len() - 1) // the key's newline
				b.WriteString(" => ")
				renderTTY(b, v.Elems[i], inner)
			}
		}
	default: // bulk strings
		b.WriteString(Repr(v.Str) + "\n")
	}
}

// Repr quotes s as redis-cli does (sdscatrepr).
func Repr(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		default:
			if c >= 0x20 && c < 0x7f {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
