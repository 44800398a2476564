//go:build !linux

package main

import "syscall"

// childAttr is nil where a child cannot be told its parent died: the run
// still stops what it started, on every way out but being killed outright.
func childAttr() *syscall.SysProcAttr { return nil }
