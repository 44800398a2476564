package servertest

import "syscall"

// ChildAttr makes a process a test or a bench starts get SIGTERM when the
// starter dies, so that one killed outright, or ended by go test's timeout
// (which runs no cleanup), leaves no server, redis-server or nginx behind.
func ChildAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
