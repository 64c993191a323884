//go:build !linux

package testcluster

import "syscall"

func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
