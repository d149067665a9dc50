package load

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// pythonCSV is the reference: Python's csv module reading each file as
// the documentation says to (newline=”, and utf-8-sig so that a byte
// order mark is skipped), blank lines dropped.
const pythonCSV = `
import csv, json, sys
out = []
for name in sys.argv[2:]:
    with open(name, newline='', encoding='utf-8-sig') as f:
        out.append([r for r in csv.reader(f, delimiter=sys.argv[1]) if r != []])
json.dump(out, sys.stdout)
`

// requirePython finds python3: CI must have it (scripts/test installs
// python3-redis, which brings it); elsewhere the test is skipped.
func requirePython(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 is not installed; scripts/test must install it")
		}
		t.Skip("python3 not installed: CSV reference test skipped")
	}
	return p
}

// randomCSV writes a file of well-formed CSV whose fields mix separators,
// quotes, CR, LF, CRLF, emoji and spaces, inside and outside quotes, with
// LF, CRLF or lone CR line ends, blank lines, an optional BOM and an
// optional missing final line end.
func randomCSV(rng *rand.Rand, sep byte) []byte {
	var b bytes.Buffer
	if rng.IntN(4) == 0 {
		b.WriteString("\ufeff")
	}
	pieces := []string{"a", "b", "42", "-1.5", " ", "é", "😀", "日本", "\t", string(sep), "\"", "\r", "\n", "\r\n", "x y"}
	ends := []string{"\n", "\r\n", "\r"}
	rows := 1 + rng.IntN(8)
	for r := 0; r < rows; r++ {
		cols := 1 + rng.IntN(5)
		for c := 0; c < cols; c++ {
			if c > 0 {
				b.WriteByte(sep)
			}
			var f strings.Builder
			for k := rng.IntN(5); k > 0; k-- {
				f.WriteString(pieces[rng.IntN(len(pieces))])
			}
			v := f.String()
			quoted := rng.IntN(2) == 0 || strings.ContainsAny(v, "\r\n\""+string(sep))
			switch {
			case quoted:
				b.WriteString(`"` + strings.ReplaceAll(v, `"`, `""`) + `"`)
				if rng.IntN(10) == 0 {
					b.WriteString("tail") // loose quoting: Python appends it
				}
			case v == "" && cols == 1:
				b.WriteString(`""`) // a lone empty unquoted field is a blank line
			default:
				b.WriteString(v)
			}
		}
		if r < rows-1 || rng.IntN(3) > 0 {
			b.WriteString(ends[rng.IntN(len(ends))])
			if rng.IntN(6) == 0 {
				b.WriteString(ends[rng.IntN(len(ends))]) // a blank line
			}
		}
	}
	return b.Bytes()
}

func readAllCSV(data []byte, sep byte) ([][]string, error) {
	r := &csvReader{br: bufio.NewReader(bytes.NewReader(data)), comma: sep, line: 1}
	out := [][]string{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
}

// TestCSVMatchesPython compares the reader with Python's csv module on
// random files with CR, LF, quotes, separators and emoji inside fields.
func TestCSVMatchesPython(t *testing.T) {
	py := requirePython(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(4180, 1))
	for _, sep := range []byte{',', ';', '\t'} {
		var names []string
		var files [][]byte
		for i := 0; i < 150; i++ {
			data := randomCSV(rng, sep)
			name := filepath.Join(dir, fmt.Sprintf("%d-%d.csv", sep, i))
			if err := os.WriteFile(name, data, 0o600); err != nil {
				t.Fatal(err)
			}
			names, files = append(names, name), append(files, data)
		}
		// Hand-written cases: the ones reported (a CR at the end of a quoted
		// last field, PowerShell's BOM before a quoted header).
		for _, data := range []string{"1,\"a\r\"\r\n", "\ufeff\"id\",\"name\"\r\n\"1\",\"x\"\r\n", "a\rb,c\n", "\"ab\"c,d\n", "x,\"\"\"\"\n"} {
			data = strings.ReplaceAll(data, ",", string(sep))
			name := filepath.Join(dir, fmt.Sprintf("%d-h%d.csv", sep, len(files)))
			if err := os.WriteFile(name, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			names, files = append(names, name), append(files, []byte(data))
		}
		cmd := exec.Command(py, append([]string{"-c", pythonCSV, string(sep)}, names...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("python3: %v: %s", err, stderr.String())
		}
		var want [][][]string
		if err := json.Unmarshal(out, &want); err != nil {
			t.Fatal(err)
		}
		for i, data := range files {
			got, err := readAllCSV(data, sep)
			if err != nil {
				t.Errorf("file %q: %v", data, err)
				continue
			}
			if !reflect.DeepEqual(got, want[i]) {
				t.Errorf("file %q:\n got %q\nwant %q", data, got, want[i])
			}
		}
	}
}

// FuzzCSVReader: no input makes the reader panic or loop, and every
// record it returns was produced from the input's bytes.
func FuzzCSVReader(f *testing.F) {
	for _, s := range []string{"a,b\n", "\"a\r\"\r\n", "\ufeff\"id\"\n1", "\"open", "\r\r\n\n", "\"\"\"\",x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := readAllCSV(data, ',')
		if err != nil && !strings.Contains(err.Error(), "unterminated quoted field") {
			t.Fatalf("unexpected error %v", err)
		}
		n := 0
		for _, r := range recs {
			for _, f := range r {
				n += len(f)
			}
		}
		if n > len(data) {
			t.Fatalf("%d field bytes from %d input bytes", n, len(data))
		}
	})
}
