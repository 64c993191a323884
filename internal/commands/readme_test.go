package commands

import (
	"os"
	"strings"
	"testing"

	"github.com/echomq/emqtop/ui"
)

// TestReadmeKeyTable holds the README's key table to the key map.
func TestReadmeKeyTable(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	start := strings.Index(s, "<!-- keys -->\n")
	end := strings.Index(s, "<!-- /keys -->")
	if start < 0 || end < start {
		t.Fatal("README has no <!-- keys --> table")
	}
	got := s[start+len("<!-- keys -->\n") : end]
	if want := ui.KeyTable(); got != want {
		t.Errorf("the README's key table is stale; paste `go run . keys` between the markers:\n%s", want)
	}
}
