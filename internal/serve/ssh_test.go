package serve

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/echomq/emqtop/internal/vtest"
)

func keyLine(t *testing.T, opts string) (gossh.Signer, string) { return vtest.SSHKey(t, opts, "test") }

// authorized_keys options: from= and expiry-time= are honoured, a
// cert-authority line is refused at start with its file and line, and the
// options not honoured are said. (A key marked from="10.9.9.9" got a
// session from 127.0.0.1, and a CA key logged in as an operator.)
func TestAuthorizedKeysOptions(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, lines ...string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(strings.Join(lines, "")), 0o600)
		return p
	}
	_, ca := keyLine(t, "cert-authority")
	if _, err := LoadKeys("", write("ca", "# a CA\n", ca)); err == nil || !strings.Contains(err.Error(), "ca, line 2: a cert-authority key") {
		t.Errorf("a cert-authority line: %v", err)
	}
	far, farLine := keyLine(t, `from="10.9.9.9",restrict,command="/bin/false"`)
	old, oldLine := keyLine(t, `expiry-time="20000101"`)
	near, nearLine := keyLine(t, `from="127.0.0.*,!127.0.0.2"`)
	cidr, cidrLine := keyLine(t, `from="127.0.0.0/8",expiry-time="29991231Z"`)
	k, err := LoadKeys("", write("ops", farLine, oldLine, nearLine, cidrLine))
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(k.Notes, "\n")
	if !strings.Contains(notes, "ops, line 1: option restrict ignored") || !strings.Contains(notes, "option command ignored") {
		t.Errorf("the ignored options are not said: %q", k.Notes)
	}
	here := &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 5000}
	for _, tc := range []struct {
		s      gossh.Signer
		remote net.Addr
		want   string // "" allowed
	}{
		{far, here, "may not connect from 127.0.0.1 (from=)"},
		{old, here, "expired at 2000-01-01"},
		{near, here, ""},
		{near, &net.TCPAddr{IP: net.ParseIP("127.0.0.2"), Port: 1}, "may not connect from 127.0.0.2"},
		{cidr, here, ""},
		{cidr, &net.TCPAddr{IP: net.ParseIP("10.0.0.1"), Port: 1}, "may not connect from 10.0.0.1"},
	} {
		who, ok := k.Lookup(tc.s.PublicKey())
		err := who.Allowed(tc.remote, time.Now())
		if !ok || (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s from %v: %v, want %q", who.Comment, tc.remote, err, tc.want)
		}
	}
}

// A connection that opens no session is closed after the login timeout,
// and past MaxLogins connections logging in at once the next is closed at
// once (300 that sent only a banner stayed open for minutes).
func TestLoginTimeoutAndCap(t *testing.T) {
	dir := t.TempDir()
	_, line := keyLine(t, "")
	os.WriteFile(filepath.Join(dir, "r"), []byte(line), 0o600)
	keys, err := LoadKeys(filepath.Join(dir, "r"), "")
	if err != nil {
		t.Fatal(err)
	}
	pem, _, err := HostKey(filepath.Join(dir, "hk"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(nil, Config{HostKeyPEM: pem, Keys: keys, LoginTimeout: 300 * time.Millisecond, MaxLogins: 2})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	defer srv.srv.Close()
	banner := func() net.Conn {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("SSH-2.0-stalling\r\n"))
		return c
	}
	closedWithin := func(c net.Conn, d time.Duration) bool {
		c.SetReadDeadline(time.Now().Add(d))
		_, err := io.Copy(io.Discard, c) // the server's banner and kex, then EOF (or a reset) when it closes
		var ne net.Error
		return err == nil || !(errors.As(err, &ne) && ne.Timeout())
	}
	a, b := banner(), banner()
	// the two are counted as logging in once the server has their banner:
	// wait for that through the server's own count
	vtest.Until(t, 30*time.Second, "two logins counted", func() bool { return srv.logins.Load() >= 2 })
	third := banner()
	if !closedWithin(third, 5*time.Second) {
		t.Error("a third connection logging in was not closed at once")
	}
	for i, c := range []net.Conn{a, b} {
		if !closedWithin(c, 10*time.Second) {
			t.Errorf("connection %d, a banner and nothing else, still open after the login timeout", i)
		}
	}
	if n := srv.logins.Load(); n != 0 {
		t.Errorf("%d connections still counted as logging in", n)
	}
}
