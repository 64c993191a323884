package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"sync"
	"time"

	"github.com/valkey-io/valkey-go"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/serve"
	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/poller"
)

// auditLog appends one JSON line per attempted action. It never holds the
// password: the configuration it sees is the target's name only.
type auditLog struct {
	mu   sync.Mutex
	f    *os.File
	user string
	ssh  string
}

// defaultAuditPath is $XDG_STATE_HOME/emqtop/audit.log, else
// ~/.local/state/emqtop/audit.log.
func defaultAuditPath() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "emqtop", "audit.log"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory for the audit log (give --audit-log FILE): %w", err)
	}
	return filepath.Join(home, ".local", "state", "emqtop", "audit.log"), nil
}

func openAudit(path string) (*auditLog, error) {
	if path == "" {
		var err error
		if path, err = defaultAuditPath(); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit log: %w (give --audit-log FILE, or run with --read-only)", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w (give --audit-log FILE, or run with --read-only)", err)
	}
	// a log that already existed keeps no looser mode: it names servers,
	// queues, users and where they came from
	if st, err := f.Stat(); err == nil && st.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, fmt.Errorf("audit log: %s is readable by others and cannot be made private: %w", path, err)
		}
	}
	a := &auditLog{f: f, ssh: os.Getenv("SSH_CONNECTION")}
	if u, err := user.Current(); err == nil {
		a.user = u.Username
	}
	return a, nil
}

// auditLine is one attempted action.
type auditLine struct {
	Time          string `json:"time"`
	User          string `json:"user"`
	SSHConnection string `json:"ssh_connection,omitempty"`
	// under emqtop serve: the key the session authenticated with, its
	// comment, and the client's address
	Key        string `json:"key,omitempty"`
	KeyComment string `json:"key_comment,omitempty"`
	Client     string `json:"client,omitempty"`
	Server     string `json:"server"`
	Action     string `json:"action"`
	Queue      string `json:"queue"`
	Job        string `json:"job,omitempty"`
	Fence      *int64 `json:"fence,omitempty"`
	Limit      int    `json:"limit,omitempty"`
	Count      *int   `json:"count,omitempty"`
	Outcome    string `json:"outcome"` // done, fenced, not-active, read-only, unknown (no answer in time), error
	Error      string `json:"error,omitempty"`
}

func (a *auditLog) write(l auditLine) error {
	l.Time = time.Now().UTC().Format(time.RFC3339Nano)
	l.User, l.SSHConnection = a.user, a.ssh
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	// queue names and errors come from servers: C1 controls, bidi
	// overrides and other format runes are escaped like every server text
	b = textgate.JSON(b)
	a.mu.Lock()
	defer a.mu.Unlock()
	_, err = a.f.Write(append(b, '\n'))
	return err
}

func (a *auditLog) Close() error { return a.f.Close() }

// actions are the writes: the echomq scripts, every attempt audited, the
// refusals worded for the operator.
type actions struct {
	c      valkey.Client
	audit  *auditLog
	server string
	who    *serve.Who // the SSH session's key holder, under emqtop serve
}

func newActions(c valkey.Client, cfg poller.Config, auditPath string) (*actions, error) {
	a, err := openAudit(auditPath)
	if err != nil {
		return nil, err
	}
	return &actions{c: c, audit: a, server: cfg.Target()}, nil
}

func (a *actions) Close() error { return a.audit.Close() }

// asWho is a's writes done for an SSH session's key holder: the same
// client and log, each line naming the key, its comment and the client.
func (a *actions) asWho(who serve.Who) *actions {
	return &actions{c: a.c, audit: a.audit, server: a.server, who: &who}
}

// errUnknown: the server gave no answer in time. The script may have run
// all the same (it was sent; a paused node runs it when it resumes), so the
// outcome is unknown, never "failed"; the dashboard says so too.
var errUnknown = model.ErrUnknownOutcome

// outcome classifies an action's error for the audit log and the operator.
func outcome(err error) (string, error) {
	var fe *echomq.FenceError
	switch {
	case err == nil:
		return "done", nil
	case echomq.TimedOut(err):
		return "unknown", fmt.Errorf("%w (%v)", errUnknown, err)
	case errors.As(err, &fe):
		return "fenced", &model.Refused{Reason: fe.Reason()}
	case errors.Is(err, echomq.ErrNotActive):
		return "not-active", &model.Refused{Reason: "it is no longer active (acked, requeued or drained since)"}
	case errors.Is(err, poller.ErrReadOnly):
		return "read-only", &model.Refused{Reason: err.Error()}
	case echomq.ServerCode(err) == "NOPERM":
		return "read-only", fmt.Errorf("%w: %v", model.ErrNoPerm, err)
	}
	return "error", err
}

func (a *actions) record(l auditLine, err error) error {
	l.Server = a.server
	if a.who != nil {
		l.Key, l.KeyComment, l.Client = a.who.Fingerprint, a.who.Comment, a.who.Client
	}
	o, uerr := outcome(err)
	l.Outcome = o
	if err != nil {
		l.Error = err.Error()
	}
	if o == "unknown" {
		l.Count, l.Error = nil, uerr.Error() // what the batch did is not known
	}
	if aerr := a.audit.write(l); aerr != nil && uerr == nil {
		return fmt.Errorf("done, but the audit log could not be written: %w", aerr)
	}
	return uerr
}

func (a *actions) Requeue(ctx context.Context, queue, id string, attempts int64) error {
	err := echomq.Requeue(ctx, a.c, queue, id, attempts)
	return a.record(auditLine{Action: "requeue", Queue: queue, Job: id, Fence: &attempts}, err)
}

func (a *actions) RequeueExpired(ctx context.Context, queue string, limit int) (int, error) {
	n, err := echomq.RequeueExpired(ctx, a.c, queue, limit)
	return n, a.record(auditLine{Action: "requeue-expired", Queue: queue, Limit: limit, Count: &n}, err)
}

func (a *actions) DrainStep(ctx context.Context, queue string, batch int) (int, int, error) {
	n, left, err := echomq.DrainStep(ctx, a.c, queue, batch)
	return n, left, a.record(auditLine{Action: "drain", Queue: queue, Limit: batch, Count: &n}, err)
}
