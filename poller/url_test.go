package poller

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

func TestCheckURL(t *testing.T) {
	refused := []struct{ url, want string }{
		// the password refusal cannot be bypassed by an '@' further on
		{"redis://default:Pw@127.0.0.1:23121/?x=@", "password"},
		{"redis://default:Pw@127.0.0.1:23121#/@", "password"},
		{"redis://default:Pw@127.0.0.1:23121/0?x=@#y", "password"},
		{"valkeys://:Pw@h:6380", "password"},
		{"redis://", "names no host"},
		{"redis:///0", "names no host"},
		{"redis://ops@", "names no host"},
		{"http://h:80", `scheme "http"`},
		{"h:6379", "scheme"},
		{"redis://h:notaport", `the port "notaport" is not a number`},
		{"redis://h:0", `the port "0"`},
		{"redis://u:Pw@h:notaport", "not a"},
	}
	for _, c := range refused {
		_, err := CheckURL(c.url)
		if err == nil {
			t.Errorf("%s accepted", c.url)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %q, want it to say %q", c.url, err, c.want)
		}
		if strings.Contains(err.Error(), "Pw") {
			t.Errorf("%s: the error repeats the password: %q", c.url, err)
		}
		if strings.Contains(err.Error(), "parse ") || strings.Contains(err.Error(), "invalid port") {
			t.Errorf("%s: Go's jargon in %q", c.url, err)
		}
	}
	ok := []struct{ url, label string }{
		{"redis://127.0.0.1:7000", "redis://127.0.0.1:7000"},
		{"valkeys://ops@valkey.internal:6380/0?x=1#f", "valkeys://ops@valkey.internal:6380"},
		{"rediss://[::1]:6380", "rediss://[::1]:6380"},
	}
	for _, c := range ok {
		u, err := CheckURL(c.url)
		if err != nil {
			t.Errorf("%s refused: %v", c.url, err)
			continue
		}
		if u.Label() != c.label {
			t.Errorf("%s: label %q, want %q", c.url, u.Label(), c.label)
		}
		if got := (Config{URL: c.url}).Target(); got != c.label {
			t.Errorf("%s: target %q, want %q", c.url, got, c.label)
		}
	}
}

func TestCheckAddr(t *testing.T) {
	for _, a := range []string{"h", ":6379", "h:notaport", "h:70000", "h:"} {
		if err := CheckAddr(a); err == nil {
			t.Errorf("--addr %q accepted", a)
		}
	}
	for _, a := range []string{"127.0.0.1:6379", "[::1]:7000", "valkey.internal:6380"} {
		if err := CheckAddr(a); err != nil {
			t.Errorf("--addr %q refused: %v", a, err)
		}
	}
}

func TestErrTextPlainWords(t *testing.T) {
	// real error values, classified by value, never by their text
	_, refused := net.Dial("tcp", "127.0.0.1:1")
	cases := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("poll: %w", context.DeadlineExceeded), "no answer within 2s"},
		{&net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}, "no answer within 2s"},
		{errors.New("received unknown message type: 72"), "not as Valkey or Redis"},
		{refused, "nothing listens there"},
	}
	for _, c := range cases {
		if got := ErrText(c.err, 2e9); !strings.Contains(got, c.want) {
			t.Errorf("%v: %q, want %q", c.err, got, c.want)
		}
	}
}

// The connections are not pinged each second: valkey-go's ping of a
// connection that read nothing for Dialer.KeepAlive woke the process once
// a second a connection (six or more), and every poll sends on each
// connection it reads under its own deadline anyway.
func TestConnectionsNotPingedEachSecond(t *testing.T) {
	for _, c := range []Config{{Addrs: []string{"127.0.0.1:1"}}, {Addrs: []string{"127.0.0.1:1"}, Standalone: true, TLS: true}} {
		opt, err := c.ClientOption()
		if err != nil {
			t.Fatal(err)
		}
		if ka := opt.Dialer.KeepAlive; ka < 10*time.Second {
			t.Errorf("%+v: idle connections pinged every %v", c, ka)
		}
	}
}
