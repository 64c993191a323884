package vtest

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// SSHKey is a fresh ed25519 client key and its authorized_keys line,
// options (from="…", …) first when given.
func SSHKey(t testing.TB, options, comment string) (gossh.Signer, string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(s.PublicKey())))
	if options != "" {
		line = options + " " + line
	}
	return s, line + " " + comment + "\n"
}
