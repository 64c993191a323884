//go:build !unix

package model

// mapBlock is n bytes from the heap where no anonymous mapping is at hand:
// kept by the arena for ever, like a mapped block, only dearer to collect.
func mapBlock(n int) []byte { return make([]byte, n) }
