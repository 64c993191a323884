package poller

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// URL is a server URL that passed CheckURL: a known scheme, a host, and no
// password. It is the one parser of --url for the dashboard and every
// command.
type URL struct {
	u *url.URL
}

// CheckURL parses a --url value once, with net/url, and refuses what must
// not be used: a scheme other than valkey, valkeys, redis or rediss; a URL
// that names no host (it would silently mean 127.0.0.1:6379); a port that is
// not a number; and any user info with a password in it, whatever follows
// it in the URL, since argv is visible to every user of the machine. Its
// errors never repeat the URL's user info.
func CheckURL(raw string) (URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its text repeats the URL, password and all
		}
		return URL{}, fmt.Errorf("--url is not a URL: %s", plainURLErr(err))
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return URL{}, errors.New("--url carries a password, which would show in the process list: " +
				"put it in $EMQTOP_PASSWORD or --password-file instead")
		}
	}
	switch u.Scheme {
	case "valkey", "valkeys", "redis", "rediss":
	case "":
		return URL{}, errors.New("--url needs a scheme: valkey://, valkeys://, redis:// or rediss://")
	default:
		return URL{}, fmt.Errorf("--url scheme %s: want valkey, valkeys, redis or rediss", strconv.Quote(u.Scheme))
	}
	if u.Hostname() == "" {
		return URL{}, fmt.Errorf("--url %s names no host: give one, as in %s://host:6379", strconv.Quote(redacted(u)), u.Scheme)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return URL{}, fmt.Errorf("--url: the port %s is not a number from 1 to 65535", strconv.Quote(p))
		}
	}
	return URL{u: u}, nil
}

// String is the URL as given (it holds no password).
func (u URL) String() string { return u.u.String() }

// Label names the server for the operator: scheme, user, host and port,
// never a query or fragment.
func (u URL) Label() string { return redacted(u.u) }

func redacted(u *url.URL) string {
	s := u.Scheme + "://"
	if u.User != nil {
		s += u.User.Username() + "@"
	}
	return s + u.Host
}

// plainURLErr words net/url's errors without Go's jargon.
func plainURLErr(err error) string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "invalid port "); ok {
		port := strings.TrimSuffix(rest, " after host")
		if p, err := strconv.Unquote(port); err == nil {
			port = strconv.Quote(strings.TrimPrefix(p, ":"))
		}
		return "the port " + port + " is not a number"
	}
	return strings.TrimPrefix(msg, "net/url: ")
}

// CheckAddr refuses an --addr entry that is not host:port with a numeric
// port.
func CheckAddr(a string) error {
	host, port, err := net.SplitHostPort(a)
	if err != nil || host == "" {
		return fmt.Errorf("--addr %s: want host:port", strconv.Quote(a))
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("--addr %s: the port %s is not a number from 1 to 65535", strconv.Quote(a), strconv.Quote(port))
	}
	return nil
}
