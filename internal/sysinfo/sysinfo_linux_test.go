package sysinfo

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The OS line agrees with the kernel's own files.
func TestOSMatchesProc(t *testing.T) {
	rel, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Skip(err)
	}
	if f := strings.Fields(OS()); len(f) != 3 || f[1] != strings.TrimSpace(string(rel)) {
		t.Errorf("OS() = %q, want release %q", OS(), strings.TrimSpace(string(rel)))
	}
}

// The memory agrees with /proc/meminfo's MemTotal.
func TestTotalMemoryMatchesProc(t *testing.T) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Skip(err)
	}
	var kb int64
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			for _, c := range f[1] {
				kb = kb*10 + int64(c-'0')
			}
		}
	}
	if kb == 0 {
		t.Skip("no MemTotal in /proc/meminfo")
	}
	if m := TotalMemory(); m != kb*1024 {
		t.Errorf("TotalMemory() = %d, /proc/meminfo says %d", m, kb*1024)
	}
}

// A waited-for child's CPU time shows up in the children's totals.
func TestChildCPUTimes(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip(err)
	}
	before := CPUTimes()
	cmd := exec.Command(sh, "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	childCPU := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	after := CPUTimes()
	if childCPU > 0 && after.ChildUser+after.ChildSys <= before.ChildUser+before.ChildSys {
		t.Errorf("child used %v of CPU but children's totals did not grow: %+v -> %+v", childCPU, before, after)
	}
}
