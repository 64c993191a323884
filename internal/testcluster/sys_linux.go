package testcluster

import "syscall"

// childAttr asks the kernel to kill the server when the process that started
// it dies, so a killed test binary leaves no server behind.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}
