package serve

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
}

// Keys are the authorized keys by fingerprint.
type Keys struct{ byFP map[string]Who }

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
		pk, comment, _, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			return fmt.Errorf("%s, line %d: not an authorized_keys line: %v", path, n+1, err)
		}
		fp := gossh.FingerprintSHA256(pk)
		if old, ok := k.byFP[fp]; ok && old.Role > role {
			continue
		}
		k.byFP[fp] = Who{Role: role, Fingerprint: fp, Comment: textgate.Bounded(comment, 80)}
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
