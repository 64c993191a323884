//go:build unix

package model

import "syscall"

// mapBlock is n bytes of anonymous memory, zeroed, owned by no Go heap: the
// collector neither scans it nor marks a pointer into it. Never unmapped.
func mapBlock(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		// out of address space or memory: the heap then, which works, and
		// is only dearer to collect
		return make([]byte, n)
	}
	return b
}
