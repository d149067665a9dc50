package aof

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// manifest names the files that make up the data, in replay order.
type manifest struct {
	base    string // "" if none yet
	baseSeq int
	incrs   []string
	seqs    []int
}

func (m manifest) maxSeq() int {
	s := m.baseSeq
	for _, x := range m.seqs {
		s = max(s, x)
	}
	return s
}

const manifestHeader = "ordo-aof-manifest 1\n"

func (a *AOF) manifestPath() string { return filepath.Join(a.dir, a.name+".ordo-manifest") }

func (m manifest) encode() []byte {
	var b bytes.Buffer
	b.WriteString(manifestHeader)
	if m.base != "" {
		fmt.Fprintf(&b, "base %d %s\n", m.baseSeq, m.base)
	}
	for i, n := range m.incrs {
		fmt.Fprintf(&b, "incr %d %s\n", m.seqs[i], n)
	}
	fmt.Fprintf(&b, "crc %08x\n", crc32.Checksum(b.Bytes(), castagnoli))
	return b.Bytes()
}

func parseManifest(data []byte) (manifest, error) {
	var m manifest
	i := bytes.LastIndex(data, []byte("crc "))
	if !bytes.HasPrefix(data, []byte(manifestHeader)) || i < 0 {
		return m, errors.New("not an Ordo manifest")
	}
	want := strings.TrimSpace(string(data[i+4:]))
	if fmt.Sprintf("%08x", crc32.Checksum(data[:i], castagnoli)) != want {
		return m, errors.New("manifest checksum mismatch")
	}
	for _, line := range strings.Split(string(data[len(manifestHeader):i]), "\n") {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 || strings.ContainsAny(f[2], "/\\") {
			return m, fmt.Errorf("bad manifest line %q", line)
		}
		seq, err := strconv.Atoi(f[1])
		if err != nil {
			return m, fmt.Errorf("bad manifest line %q", line)
		}
		switch f[0] {
		case "base":
			m.base, m.baseSeq = f[2], seq
		case "incr":
			m.incrs = append(m.incrs, f[2])
			m.seqs = append(m.seqs, seq)
		default:
			return m, fmt.Errorf("bad manifest line %q", line)
		}
	}
	return m, nil
}

// writeManifest installs m atomically: temp file, fsync, rename, fsync dir.
func (a *AOF) writeManifest(m manifest) error {
	tmp, err := a.prepareManifest(m)
	if err == nil {
		err = os.Rename(tmp, a.manifestPath())
	}
	if err == nil {
		err = syncDir(a.dir)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("aof: manifest: %w", err)
	}
	return nil
}

// prepareManifest writes m to a temporary file and fsyncs it: renaming
// it over the manifest installs it.
func (a *AOF) prepareManifest(m manifest) (string, error) {
	tmp := a.manifestPath() + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return "", fmt.Errorf("aof: manifest: %w", err)
	}
	_, err = f.Write(m.encode())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("aof: manifest: %w", err)
	}
	return tmp, nil
}

// load reads the manifest and replays its files into the engine.
func (a *AOF) load() error {
	data, err := os.ReadFile(a.manifestPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("aof: %w", err)
	}
	m, err := parseManifest(data)
	if err != nil {
		return fmt.Errorf("aof: %s: %v", a.manifestPath(), err)
	}
	a.man = m
	a.loading.Store(true)
	defer a.loading.Store(false)
	start := time.Now()
	a.e.Lock()
	defer a.e.Unlock()
	prop := a.e.Propagate
	a.e.Propagate = nil
	defer func() { a.e.Propagate = prop }()
	files := m.incrs
	if m.base != "" {
		files = append([]string{m.base}, files...)
	}
	var cmds int64
	for i, name := range files {
		last := i == len(files)-1
		n, cut, err := a.replayFile(name, last)
		cmds += n
		if err != nil {
			return err
		}
		if cut && !last {
			// aof-load-corrupt-tail: the valid prefix is loaded, the
			// following files cannot apply on top of a cut one.
			a.logf("aof: ignoring %d later file(s) after the corrupt one: %s",
				len(files)-i-1, strings.Join(files[i+1:], ", "))
			nm := manifest{base: m.base, baseSeq: m.baseSeq}
			if i > 0 || m.base == "" {
				k := i
				if m.base != "" {
					k = i - 1
				}
				nm.incrs, nm.seqs = m.incrs[:k+1], m.seqs[:k+1]
			}
			if err := a.writeManifest(nm); err != nil {
				return err
			}
			a.man = nm
			break
		}
	}
	a.e.ResetDirty()
	var keys int64
	for _, db := range a.e.DBs() {
		keys += int64(db.Len())
	}
	a.loadedKeys.Store(keys)
	a.logf("DB loaded from append only file: %.3f seconds (%d commands, %d keys)",
		time.Since(start).Seconds(), cmds, keys)
	return nil
}

// reserve applies a reserveDirective for database db. The counts are
// only believed up to what a file of size bytes could hold (a key takes
// more than 16 bytes of commands), so that a damaged hint never makes
// the loader allocate more than the file's size in tables.
func (a *AOF) reserve(db int, args [][]byte, size int64) {
	keys, err1 := strconv.ParseInt(string(args[1]), 10, 64)
	expires, err2 := strconv.ParseInt(string(args[2]), 10, 64)
	limit := size / 16
	if err1 != nil || err2 != nil || keys < 0 || expires < 0 || db < 0 || db >= len(a.e.DBs()) {
		return
	}
	a.e.DBs()[db].Reserve(int(min(keys, limit)), int(min(expires, keys, limit)))
}

// replayFile applies one file. It reports the commands applied and
// whether the file was cut at a damaged record.
func (a *AOF) replayFile(name string, last bool) (int64, bool, error) {
	path := filepath.Join(a.dir, name)
	f, err := os.Open(path)
	if err != nil {
		return 0, false, fmt.Errorf("aof: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, false, fmt.Errorf("aof: %w", err)
	}
	cl := a.e.NewClient("aof")
	cl.Authenticated = true
	c := &engine.Ctx{E: a.e, Client: cl}
	var w resp.Writer
	var n, errs int64
	sc := newScanner(f, path, st.Size())
	err = sc.header()
	for err == nil {
		var p []byte
		p, err = sc.next()
		if err != nil {
			break
		}
		// Like Redis while loading, nothing expires during replay: a key
		// given a short TTL and then a longer one must not vanish in
		// between. The log holds absolute times only, so a clock at the
		// epoch does that; expired keys go once the server runs.
		c.Now = 1
		err = parseCommands(p, func(args [][]byte) error {
			if len(args) == 3 && string(args[0]) == reserveDirective {
				a.reserve(cl.DB, args, st.Size())
				return nil
			}
			w.Reset()
			a.e.Exec(c, args, &w)
			n++
			if len(w.Buf) > 0 && w.Buf[0] == '-' {
				errs++
				if errs <= 10 {
					a.logf("aof: %s: command %q returned %s", path, args[0], strings.TrimSpace(string(w.Buf)))
				}
			}
			return nil
		})
		if err != nil {
			err = &Corruption{File: path, Offset: sc.off, Size: sc.size, Reason: err.Error()}
		}
	}
	if errs > 10 {
		a.logf("aof: %s: %d commands returned errors", path, errs)
	}
	if err == io.EOF {
		return n, false, nil
	}
	var ce *Corruption
	if !errors.As(err, &ce) {
		return n, false, fmt.Errorf("aof: reading %s: %w", path, err)
	}
	cfg := a.e.Config
	dropped := ce.Size - ce.Offset
	switch {
	case ce.Torn && last && cfg.Bool("aof-load-truncated"):
		a.logf("!!! Warning: short read while loading the AOF file %s!!! %s. "+
			"Truncating the AOF at offset %d, dropping %d bytes.", path, ce.Reason, ce.Offset, dropped)
	case cfg.Bool("aof-load-corrupt-tail"):
		a.logf("!!! Warning: %v. aof-load-corrupt-tail is yes: loading the valid prefix, "+
			"truncating %s at offset %d, dropping %d bytes.", ce, path, ce.Offset, dropped)
	default:
		hint := "start with --aof-load-corrupt-tail yes to load the valid prefix and drop the rest"
		if ce.Torn && last {
			hint = "aof-load-truncated is no; " + hint
		}
		return n, false, fmt.Errorf("aof: bad file format reading the append only file %s: %s at offset %d (%d bytes after it); %s",
			path, ce.Reason, ce.Offset, dropped, hint)
	}
	if err := os.Truncate(path, ce.Offset); err != nil {
		return n, true, fmt.Errorf("aof: truncating %s: %w", path, err)
	}
	return n, true, nil
}
