package model

import (
	"fmt"
	"sync"
	"testing"
	"unsafe"
)

// A NodeRef gives back the address it was made of, the same one for the
// same address, none for ""; read and made from many goroutines at once
// (go test -race), every ref reads back its own address.
func TestNodeRefGivesBackItsAddress(t *testing.T) {
	if r := RefOf(""); r != 0 || r.Addr() != "" {
		t.Fatalf(`RefOf("") is %d (%q), want the zero NodeRef`, r, r.Addr())
	}
	a, b := RefOf("10.0.0.1:7000"), RefOf("10.0.0.2:7000")
	if a == 0 || b == 0 || a == b || a != RefOf("10.0.0.1:7000") {
		t.Fatalf("refs %d, %d, again %d: want two distinct, the same again", a, b, RefOf("10.0.0.1:7000"))
	}
	if a.Addr() != "10.0.0.1:7000" || b.String() != "10.0.0.2:7000" {
		t.Fatalf("read back %q and %q", a.Addr(), b.String())
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				addr := fmt.Sprintf("10.1.%d.%d:7000", g%2, i)
				r := RefOf(addr)
				if got := r.Addr(); got != addr {
					errs <- fmt.Sprintf("%s read back as %q", addr, got)
					return
				}
				if a.Addr() != "10.0.0.1:7000" {
					errs <- "an earlier ref changed"
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if r := NodeRef(65535); r.Addr() != "" {
		t.Errorf("a ref never made reads %q, want none", r.Addr())
	}
}

// A queue holds no node address string (a pointer for the collector at
// every collection, a million times): 160 bytes, not 176.
func TestQueueHoldsItsNodeAsARef(t *testing.T) {
	if n := unsafe.Sizeof(Queue{}); n > 160 {
		t.Errorf("a Queue is %d bytes, want at most 160", n)
	}
}
