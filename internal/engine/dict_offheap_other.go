//go:build !unix

package engine

func dictOSMap(size int) []byte { return nil }

func dictOSUnmap(b []byte) {}
