package commands

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/echomq/emqtop/poller"
)

// connFlags are the flags every command that reaches a server shares.
type connFlags struct {
	addr, url, user, passwordFile, tlsCA string
	tls, tlsInsecure, replicas           bool
	timeout                              time.Duration
}

func (c *connFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.addr, "addr", "127.0.0.1:6379", "seed nodes, `host:port[,host:port...]`")
	fs.StringVar(&c.url, "url", "", "server `URL`: valkey://, valkeys://, redis:// or rediss:// (overrides --addr; a password in it is refused)")
	fs.StringVar(&c.user, "user", "", "ACL `user`name")
	fs.StringVar(&c.passwordFile, "password-file", "", "read the password from `FILE` (else $EMQTOP_PASSWORD)")
	fs.BoolVar(&c.tls, "tls", false, "connect with TLS")
	fs.StringVar(&c.tlsCA, "tls-ca", "", "trust the CA certificates in PEM `FILE`")
	fs.BoolVar(&c.tlsInsecure, "tls-insecure", false, "do not verify the server certificate")
	fs.BoolVar(&c.replicas, "replicas", false, "read snapshots from replicas (not for migrating slots, nor before Valkey 8)")
	fs.DurationVar(&c.timeout, "timeout", 2*time.Second, "per-node timeout")
}

// config builds the poller's configuration. The password comes from
// --password-file or $EMQTOP_PASSWORD, never from argv: a URL that carries
// one is refused, since argv is visible to every user of the machine.
func (c *connFlags) config() (poller.Config, error) {
	cfg := poller.Config{URL: c.url, User: c.user, TLS: c.tls, TLSCA: c.tlsCA,
		TLSInsecure: c.tlsInsecure, Timeout: c.timeout, Replicas: c.replicas}
	for _, a := range strings.Split(c.addr, ",") {
		if a = strings.TrimSpace(a); a != "" {
			cfg.Addrs = append(cfg.Addrs, a)
		}
	}
	if c.url != "" {
		if _, err := poller.CheckURL(c.url); err != nil {
			return cfg, err
		}
	} else {
		for _, a := range cfg.Addrs {
			if err := poller.CheckAddr(a); err != nil {
				return cfg, err
			}
		}
	}
	if c.passwordFile != "" {
		b, err := os.ReadFile(c.passwordFile)
		if err != nil {
			return cfg, fmt.Errorf("--password-file: %w", err)
		}
		cfg.Password = strings.TrimRight(string(b), "\r\n")
	} else {
		cfg.Password = os.Getenv("EMQTOP_PASSWORD")
	}
	if c.timeout <= 0 {
		return cfg, errors.New("--timeout must be positive")
	}
	return cfg, nil
}
