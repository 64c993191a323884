package cli

import (
	"os"
	"path/filepath"
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
