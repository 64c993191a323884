package testcluster

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ErrNoServer is returned when no server binary can be found.
var ErrNoServer = errors.New("no valkey-server or redis-server found on PATH: install one " +
	"(your distribution's valkey package; or build the release CI builds: export PATH=\"$(.ci/valkey):$PATH\"; " +
	"or Debian/Ubuntu's Redis 7: sudo apt-get install redis-server) or name the binary in EMQTOP_TEST_SERVER")

// ServerVersion says which server the tests run on: "valkey" or "redis",
// and its major version, from the binary's --version.
func ServerVersion() (name string, major int, err error) {
	bin, err := FindServer()
	if err != nil {
		return "", 0, err
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "", 0, fmt.Errorf("%s --version: %w", bin, err)
	}
	s := string(out) // "Valkey server v=8.0.1 …", "Redis server v=7.0.15 …"
	name = "redis"
	if strings.HasPrefix(s, "Valkey") {
		name = "valkey"
	}
	if _, v, ok := strings.Cut(s, "v="); ok {
		fmt.Sscanf(v, "%d", &major)
	}
	return name, major, nil
}

// FindServer names the server binary: $EMQTOP_TEST_SERVER, else
// valkey-server, else redis-server on PATH.
func FindServer() (string, error) {
	if b := os.Getenv("EMQTOP_TEST_SERVER"); b != "" {
		p, err := exec.LookPath(b)
		if err != nil {
			return "", fmt.Errorf("EMQTOP_TEST_SERVER=%q: %w", b, err)
		}
		return p, nil
	}
	for _, b := range []string{"valkey-server", "redis-server"} {
		if p, err := exec.LookPath(b); err == nil {
			return p, nil
		}
	}
	return "", ErrNoServer
}
