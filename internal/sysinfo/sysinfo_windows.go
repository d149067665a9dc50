package sysinfo

import (
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

func osName() string {
	v := windows.RtlGetVersion()
	if v == nil || v.MajorVersion == 0 {
		return ""
	}
	return fmt.Sprintf("Windows %d.%d.%d %s", v.MajorVersion, v.MinorVersion, v.BuildNumber, runtime.GOARCH)
}

// cpuTimes reports the process's kernel and user time; Windows keeps no
// total for terminated children, so those stay zero.
func cpuTimes() CPU {
	var creation, exit, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user); err != nil {
		return CPU{}
	}
	return CPU{SelfSys: ft(kernel), SelfUser: ft(user)}
}

// ft converts a FILETIME holding a duration (100 ns units) to a Duration.
func ft(f windows.Filetime) time.Duration {
	return time.Duration(int64(f.HighDateTime)<<32|int64(f.LowDateTime)) * 100
}

// memoryStatusEx is Win32's MEMORYSTATUSEX.
type memoryStatusEx struct {
	length               uint32
	memoryLoad           uint32
	totalPhys            uint64
	availPhys            uint64
	totalPageFile        uint64
	availPageFile        uint64
	totalVirtual         uint64
	availVirtual         uint64
	availExtendedVirtual uint64
}

var procGlobalMemoryStatusEx = windows.NewLazySystemDLL("kernel32.dll").NewProc("GlobalMemoryStatusEx")

func totalMemory() int64 {
	if procGlobalMemoryStatusEx.Find() != nil {
		return 0
	}
	m := memoryStatusEx{length: uint32(unsafe.Sizeof(memoryStatusEx{}))}
	if r, _, _ := procGlobalMemoryStatusEx.Call(uintptr(unsafe.Pointer(&m))); r == 0 {
		return 0
	}
	return int64(m.totalPhys)
}
