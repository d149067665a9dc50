package sysinfo

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// Portable checks: whatever the platform, the answers are well formed.
func TestWellFormed(t *testing.T) {
	if s := OS(); len(strings.Fields(s)) < 2 {
		t.Errorf("OS() = %q, want at least a name and a machine", s)
	}
	c := CPUTimes()
	for name, d := range map[string]int64{
		"SelfSys": int64(c.SelfSys), "SelfUser": int64(c.SelfUser),
		"ChildSys": int64(c.ChildSys), "ChildUser": int64(c.ChildUser),
	} {
		if d < 0 {
			t.Errorf("CPUTimes().%s = %d, want >= 0", name, d)
		}
	}
	if m := TotalMemory(); m < 0 {
		t.Errorf("TotalMemory() = %d, want >= 0", m)
	}
}

func TestCString(t *testing.T) {
	for in, want := range map[string]string{"": "", "abc": "abc", "abc\x00def": "abc", "\x00": ""} {
		if got := cString([]byte(in)); got != want {
			t.Errorf("cString(%q) = %q, want %q", in, got, want)
		}
	}
}

// On platforms with a probe, the OS line is not the GOOS fallback.
func TestOSProbe(t *testing.T) {
	prefix := map[string]string{"linux": "Linux ", "darwin": "Darwin ", "freebsd": "FreeBSD ", "windows": "Windows "}[runtime.GOOS]
	if prefix == "" {
		t.Skipf("no OS probe on %s", runtime.GOOS)
	}
	s := OS()
	if !strings.HasPrefix(s, prefix) || len(strings.Fields(s)) != 3 {
		t.Errorf("OS() = %q, want %q followed by a release and a machine", s, prefix)
	}
}

func TestTotalMemoryProbe(t *testing.T) {
	switch runtime.GOOS {
	case "linux", "darwin", "freebsd", "windows":
	default:
		t.Skipf("no memory probe on %s", runtime.GOOS)
	}
	// Anything that runs Go tests has more than 64 MiB and less than 1 PiB.
	if m := TotalMemory(); m < 64<<20 || m > 1<<50 {
		t.Errorf("TotalMemory() = %d, implausible", m)
	}
}

// spin burns CPU in this process until its own CPU time grows by at
// least d (or 10 s of wall-clock time pass).
func spin(d time.Duration) {
	start := CPUTimes()
	deadline := time.Now().Add(10 * time.Second)
	x := uint64(1)
	for time.Now().Before(deadline) {
		for i := 0; i < 1<<16; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
		if c := CPUTimes(); c.SelfUser+c.SelfSys-start.SelfUser-start.SelfSys >= d {
			break
		}
	}
	sink = x
}

var sink uint64

func TestCPUTimesIncrease(t *testing.T) {
	switch runtime.GOOS {
	case "linux", "darwin", "freebsd", "windows":
	default:
		t.Skipf("no CPU probe on %s", runtime.GOOS)
	}
	before := CPUTimes()
	spin(50 * time.Millisecond)
	after := CPUTimes()
	if after.SelfUser <= before.SelfUser {
		t.Errorf("user CPU time did not increase after busy work: %v -> %v", before.SelfUser, after.SelfUser)
	}
	if after.SelfSys < before.SelfSys || after.ChildSys < before.ChildSys || after.ChildUser < before.ChildUser {
		t.Errorf("CPU times went backwards: %+v -> %+v", before, after)
	}
}
