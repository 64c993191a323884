package commands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditLogMadePrivate: a log file that already exists with a looser
// mode is made 0600 before anything is appended; a new one is created 0600
// in a 0700 directory.
func TestAuditLogMadePrivate(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.log")
	if err := os.WriteFile(old, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(old, 0o644); err != nil { // past the umask
		t.Fatal(err)
	}
	a, err := openAudit(old)
	if err != nil {
		t.Fatal(err)
	}
	a.f.Close()
	if st, _ := os.Stat(old); st.Mode().Perm() != 0o600 {
		t.Errorf("an existing 0644 log is left %v", st.Mode().Perm())
	}
	fresh := filepath.Join(dir, "state", "emqtop", "audit.log")
	if a, err = openAudit(fresh); err != nil {
		t.Fatal(err)
	}
	a.f.Close()
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o600 {
		t.Errorf("a new log is %v", st.Mode().Perm())
	}
	if st, _ := os.Stat(filepath.Dir(fresh)); st.Mode().Perm() != 0o700 {
		t.Errorf("its directory is %v", st.Mode().Perm())
	}
}

// A queue name from a server with C1 controls or a bidi override is escaped
// in the audit log, as everywhere else, and reads back as the same name.
func TestAuditLogEscapesServerText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	a, err := openAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	name := "pay\u202eslo\u009b31m\U000E0041"
	if err := a.write(auditLine{Action: "drain", Queue: name, Outcome: "done", Error: "\u009b2J"}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	b, _ := os.ReadFile(path)
	for _, r := range []rune{0x202e, 0x9b, 0xe0041} {
		if strings.ContainsRune(string(b), r) {
			t.Errorf("%U raw in the audit log: %q", r, b)
		}
	}
	var l auditLine
	if err := json.Unmarshal(b, &l); err != nil || l.Queue != name {
		t.Errorf("audit line reads back as %q (%v)", l.Queue, err)
	}
}
