package main

import "syscall"

// childAttr makes a started server get SIGTERM when this process dies, so
// that a run killed outright leaves no replica, redis-server or nginx behind.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
