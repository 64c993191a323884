// Package poller is the read path: it connects, reads the topology,
// discovers queues, and takes one read-only Lua snapshot per occupied slot,
// assembled into a model.Snapshot.
package poller

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/valkey-io/valkey-go"
)

// Config says how to reach the servers. Password never comes from a flag.
type Config struct {
	Addrs       []string      // seed nodes, host:port
	URL         string        // valkey://, valkeys://, redis:// or rediss://; overrides Addrs
	User        string        // ACL user
	Password    string        // from EMQTOP_PASSWORD or --password-file
	TLS         bool          // dial with TLS
	TLSCA       string        // PEM file of the CA to trust
	TLSInsecure bool          // do not verify the server's certificate
	Timeout     time.Duration // per node, per call
	Replicas    bool          // read snapshots from replicas where that is safe
	ReadOnly    bool          // refuse every write command before it is sent
	Standalone  bool          // skip cluster detection (the embedded demo server)
	hold        *Hold         // the connections' reads under it (HeldDialer)
}

// ClientOption turns the configuration into valkey-go's options. The client
// needs no client-side cache (the embedded server and tight ACL users refuse
// CLIENT TRACKING), so it is off.
func (c Config) ClientOption() (valkey.ClientOption, error) {
	var opt valkey.ClientOption
	if c.URL != "" {
		u, err := CheckURL(c.URL)
		if err != nil {
			return opt, err
		}
		if opt, err = valkey.ParseURL(u.String()); err != nil {
			return opt, fmt.Errorf("--url %s: %v", u.Label(), err)
		}
	} else {
		if len(c.Addrs) == 0 {
			return opt, errors.New("no address: give --addr host:port or --url")
		}
		for _, a := range c.Addrs {
			if err := CheckAddr(a); err != nil {
				return opt, err
			}
		}
		opt.InitAddress = c.Addrs
	}
	if c.User != "" {
		opt.Username = c.User
	}
	if c.Password != "" {
		opt.Password = c.Password
	}
	if c.TLS || c.TLSCA != "" || c.TLSInsecure || opt.TLSConfig != nil {
		tc := opt.TLSConfig
		if tc == nil {
			tc = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		if c.TLSCA != "" {
			pem, err := os.ReadFile(c.TLSCA)
			if err != nil {
				return opt, fmt.Errorf("--tls-ca: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return opt, fmt.Errorf("--tls-ca %s: no PEM certificate in it", c.TLSCA)
			}
			tc.RootCAs = pool
		}
		tc.InsecureSkipVerify = c.TLSInsecure
		opt.TLSConfig = tc
	}
	timeout := c.timeout()
	opt.Dialer.Timeout = timeout
	// valkey-go pings a connection that read nothing for KeepAlive (1 s by
	// default): each connection's timer woke the process every second,
	// and a wake-up from idle costs the runtime a burst of its own (the
	// floor of a change-driven poll's CPU, issue 24). Every poll sends on
	// each connection it reads (the trackers a PING) under its deadline,
	// which finds a dead one within a poll; the ping is left for the
	// connections that idle (the actions'), and the kernel's keepalive
	// probes are as often
	opt.Dialer.KeepAlive = idlePing
	opt.ConnWriteTimeout = timeout
	opt.DisableCache = true
	// 64 KB buffers a connection, not valkey-go's 512 KB: a read or write
	// of 64 KB is as few system calls as needed, and the default's were
	// 11 MB of a 100,000-queue --once's 60
	opt.ReadBufferEachConn, opt.WriteBufferEachConn = 64<<10, 64<<10
	opt.DialCtxFn = dialGuarded // a reply over sane bounds fails its connection, never the process
	if c.hold != nil {
		opt.DialCtxFn = dialHeld(c.hold)
	}
	opt.ForceSingleClient = c.Standalone
	opt.ClientName = "emqtop"
	opt.ClusterOption.MaxMovedRedirections = echomq.MaxRedirects // never a redirection loop for ever
	if c.Replicas {
		opt.SendToReplicas = func(cmd valkey.Completed) bool { return cmd.IsReadOnly() }
	}
	return opt, nil
}

// idlePing is how long a connection may read nothing before valkey-go
// pings it.
const idlePing = 30 * time.Second

// Connect makes the client: cluster or standalone is detected by valkey-go.
func Connect(c Config) (valkey.Client, error) {
	opt, err := c.ClientOption()
	if err != nil {
		return nil, err
	}
	cl, err := valkey.NewClient(opt)
	if err != nil {
		msg := ErrText(redactErr(err, c.Password), c.timeout())
		if opt.TLSConfig != nil && strings.HasPrefix(msg, "no answer within") {
			// a plain server waits for a command, not a handshake: the
			// wait alone does not say why
			msg += " to the TLS handshake: is that port TLS? (a plain port waits for a command; try without --tls)"
		}
		return nil, fmt.Errorf("connect %s: %s", c.Target(), msg)
	}
	if c.ReadOnly {
		return ReadOnly(cl), nil
	}
	return cl, nil
}

// Dialer makes single-node clients with the same options (TLS, user,
// password, read-only guard), for nodes the cluster client leaves out.
func (c Config) Dialer() func(addr string) (valkey.Client, error) {
	return func(addr string) (valkey.Client, error) {
		one := c
		one.URL, one.Addrs, one.Standalone, one.Replicas = "", []string{addr}, true, false
		return Connect(one)
	}
}

// HeldDialer makes single-node clients as Dialer does, their connections'
// reads under a Hold: a tracker's own (Options.DialHeld).
func (c Config) HeldDialer() func(addr string, h *Hold) (valkey.Client, error) {
	return func(addr string, h *Hold) (valkey.Client, error) {
		one := c
		one.URL, one.Addrs, one.Standalone, one.Replicas, one.hold = "", []string{addr}, true, false, h
		return Connect(one)
	}
}

// Target names what the configuration connects to, with no secret in it.
func (c Config) Target() string {
	if c.URL != "" {
		if u, err := CheckURL(c.URL); err == nil {
			return u.Label()
		}
		return "an invalid --url"
	}
	return strings.Join(c.Addrs, ",")
}

// redactErr removes a secret from an error's text.
func redactErr(err error, secret string) error {
	if err == nil || secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), secret, "xxxxx"))
}

// timeout is the per-node timeout, 2s when none is set.
func (c Config) timeout() time.Duration {
	if c.Timeout <= 0 {
		return 2 * time.Second
	}
	return c.Timeout
}
