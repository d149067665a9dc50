//go:build !linux

package aof

import "os"

func fdatasync(f *os.File) error { return f.Sync() }
