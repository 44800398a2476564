//go:build !linux

package servertest

import "syscall"

// ChildAttr is nil where a child cannot be told its starter died: the
// starter still stops what it started, on every way out but being killed
// outright.
func ChildAttr() *syscall.SysProcAttr { return nil }
