//go:build !unix

package zset

func osMap(size int) []byte { return nil }

func osUnmap(b []byte) {}
