package serve

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/echomq/emqtop/internal/textgate"
)

// Role is what a key may do: read the dashboard, or act too.
type Role int

const (
	Reader Role = iota
	Operator
)

func (r Role) String() string {
	if r == Operator {
		return "operator"
	}
	return "reader"
}

// Who is the holder of a key that authenticated: for the audit log.
type Who struct {
	Role        Role
	Fingerprint string // SHA256:…
	Comment     string // the authorized_keys comment, through the text gate
	Client      string // the client's address
	// from the authorized_keys options: the client addresses the key may
	// come from (from="…", OpenSSH's patterns and CIDRs; none: any), and
	// the time after which it may not log in (expiry-time="…"; zero: never)
	from    []string
	expires time.Time
}

// Allowed says why the key may not log in from remote now, or nil.
func (w Who) Allowed(remote net.Addr, now time.Time) error {
	if !w.expires.IsZero() && now.After(w.expires) {
		return fmt.Errorf("this key expired at %s (expiry-time)", w.expires.UTC().Format(time.RFC3339))
	}
	if len(w.from) == 0 {
		return nil
	}
	host := remote.String()
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if fromMatches(w.from, host) {
		return nil
	}
	return fmt.Errorf("this key may not connect from %s (from=)", host)
}

// fromMatches applies an OpenSSH from= pattern list to a client address:
// patterns with * and ?, CIDRs, and !negations (a negated match refuses).
func fromMatches(patterns []string, host string) bool {
	ip := net.ParseIP(host)
	ok := false
	for _, p := range patterns {
		neg := strings.HasPrefix(p, "!")
		p = strings.TrimPrefix(p, "!")
		m := false
		if _, n, err := net.ParseCIDR(p); err == nil {
			m = ip != nil && n.Contains(ip)
		} else {
			m, _ = path.Match(p, host)
		}
		if m && neg {
			return false
		}
		ok = ok || m
	}
	return ok
}

// Keys are the authorized keys by fingerprint.
type Keys struct {
	byFP map[string]Who
	// Notes say, for the start, the options of the files that are not
	// honoured (only from= and expiry-time= are).
	Notes []string
}

// LoadKeys reads the readers' and the operators' files, in OpenSSH
// authorized_keys format; a key in both is an operator. A line that is not
// a key is an error that names the file and the line: a typo must not
// lock an operator out silently, nor let anyone in.
func LoadKeys(readers, operators string) (*Keys, error) {
	k := &Keys{byFP: map[string]Who{}}
	for _, f := range []struct {
		path string
		role Role
	}{{readers, Reader}, {operators, Operator}} {
		if f.path == "" {
			continue
		}
		b, err := os.ReadFile(f.path)
		if err != nil {
			return nil, fmt.Errorf("%s keys: %w", f.role, err)
		}
		if err := k.add(f.path, b, f.role); err != nil {
			return nil, err
		}
	}
	if len(k.byFP) == 0 {
		return nil, errors.New("no key may connect: give --readers FILE and/or --operators FILE (OpenSSH authorized_keys format)")
	}
	return k, nil
}

func (k *Keys) add(path string, b []byte, role Role) error {
	for n, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		pk, comment, opts, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			return fmt.Errorf("%s, line %d: not an authorized_keys line: %v", path, n+1, err)
		}
		who := Who{Role: role, Fingerprint: gossh.FingerprintSHA256(pk), Comment: textgate.Bounded(comment, 80)}
		for _, o := range opts {
			name, val, hasVal := strings.Cut(o, "=")
			val = strings.Trim(val, `"`)
			switch name = strings.ToLower(name); {
			case name == "cert-authority":
				// a CA's key signs login keys; it is no login key itself
				return fmt.Errorf("%s, line %d: a cert-authority key: emqtop serve takes login keys only, not certificates", path, n+1)
			case name == "from" && hasVal:
				who.from = append(who.from, strings.Split(val, ",")...)
			case name == "expiry-time" && hasVal:
				t, err := expiry(val)
				if err != nil {
					return fmt.Errorf("%s, line %d: expiry-time=%q: %v", path, n+1, textgate.Bounded(val, 20), err)
				}
				who.expires = t
			default:
				k.Notes = append(k.Notes, fmt.Sprintf("%s, line %d: option %s ignored (emqtop serve honours from= and expiry-time= only; every session is the dashboard)",
					path, n+1, textgate.Bounded(name, 30)))
			}
		}
		if old, ok := k.byFP[who.Fingerprint]; ok && old.Role > role {
			continue
		}
		k.byFP[who.Fingerprint] = who
	}
	return nil
}

// Lookup finds the key's holder.
func (k *Keys) Lookup(pk gossh.PublicKey) (Who, bool) {
	if pk == nil {
		return Who{}, false
	}
	w, ok := k.byFP[gossh.FingerprintSHA256(pk)]
	return w, ok
}

// Count is how many keys are readers and operators.
func (k *Keys) Count() (readers, operators int) {
	for _, w := range k.byFP {
		if w.Role == Operator {
			operators++
		} else {
			readers++
		}
	}
	return
}

// HostKey loads the server's key from path, or makes an ed25519 one there
// (mode 0600, its directory 0700) on the first start; it returns the key
// in PEM and its fingerprint, for the operators to check at first connect.
func HostKey(path string) ([]byte, string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		b, err = newHostKey(path)
	}
	if err != nil {
		return nil, "", fmt.Errorf("host key %s: %w", path, err)
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		return nil, "", fmt.Errorf("host key %s is readable by others (mode %v): chmod 600 it", path, st.Mode().Perm())
	}
	signer, err := gossh.ParsePrivateKey(b)
	if err != nil {
		return nil, "", fmt.Errorf("host key %s: %w", path, err)
	}
	return b, gossh.FingerprintSHA256(signer.PublicKey()), nil
}

func newHostKey(path string) ([]byte, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	blk, err := gossh.MarshalPrivateKey(priv, "emqtop serve host key")
	if err != nil {
		return nil, err
	}
	b := pem.EncodeToMemory(blk)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	return b, f.Close()
}

// DefaultHostKeyPath is $XDG_STATE_HOME/emqtop/ssh_host_ed25519_key, else
// under ~/.local/state.
func DefaultHostKeyPath() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "emqtop", "ssh_host_ed25519_key"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory for the host key (give --host-key FILE): %w", err)
	}
	return filepath.Join(home, ".local", "state", "emqtop", "ssh_host_ed25519_key"), nil
}

// expiry reads OpenSSH's expiry-time: YYYYMMDD[HHMM[SS]], local time, or
// UTC with a Z.
func expiry(v string) (time.Time, error) {
	loc := time.Local
	if strings.HasSuffix(v, "Z") {
		v, loc = strings.TrimSuffix(v, "Z"), time.UTC
	}
	for _, layout := range []string{"20060102", "200601021504", "20060102150405"} {
		if len(v) == len(layout) {
			return time.ParseInLocation(layout, v, loc)
		}
	}
	return time.Time{}, errors.New("not YYYYMMDD[HHMM[SS]][Z]")
}
