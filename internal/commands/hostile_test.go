package commands

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/valkey-io/valkey-go"

	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/poller"
	"github.com/echomq/emqtop/theme"
	"github.com/echomq/emqtop/ui"
)

// corpusWord reads a Go-quoted string or a bare word.
func corpusWords(line string) ([]string, error) {
	var out []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				return nil, err
			}
			s, _ := strconv.Unquote(q)
			out = append(out, s)
			line = line[len(q):]
			continue
		}
		w, rest, _ := strings.Cut(line, " ")
		out = append(out, w)
		line = rest
	}
	return out, nil
}

func loadCorpus(t *testing.T, c valkey.Client) {
	f, err := os.Open("../../testdata/hostile.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	now := time.Now().UnixMilli()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l == "" || l[0] == '#' {
			continue
		}
		w, err := corpusWords(sc.Text())
		if err != nil || len(w) != 4 {
			t.Fatalf("corpus line %q: %v", sc.Text(), err)
		}
		typ, key, member, value := w[0], w[1], w[2], w[3]
		if key == "@10KB-name" {
			key = "emq:{" + strings.Repeat("n", 10240) + "}:pending"
		}
		if value == "@16MiB" {
			value = strings.Repeat("\x1b[31m16 MiB of it", 16<<20/16) // 16 bytes × 1Mi
		}
		var cmd valkey.Completed
		switch typ {
		case "zset":
			score := float64(now)
			if n, ok := strings.CutPrefix(value, "now-"); ok {
				d, _ := strconv.ParseInt(n, 10, 64)
				score = float64(now - d)
			}
			cmd = c.B().Zadd().Key(key).ScoreMember().ScoreMember(score, member).Build()
		case "hash":
			cmd = c.B().Hset().Key(key).FieldValue().FieldValue(member, value).Build()
		case "string":
			cmd = c.B().Set().Key(key).Value(value).Build()
		case "list":
			cmd = c.B().Rpush().Key(key).Element(value).Build()
		default:
			t.Fatalf("corpus type %q", typ)
		}
		if err := c.Do(bg, cmd).Error(); err != nil {
			t.Fatalf("load %q: %v", sc.Text(), err)
		}
	}
}

// rawBytes are what must never reach a terminal.
var rawBytes = []string{"\x1b]", "\x07", "\x1b[2J", "\x1b[H", "\x1b[31m", "\x00", "\u009b", "\u202e", "\xff"}

func noRaw(t *testing.T, where, s string) {
	t.Helper()
	for _, b := range rawBytes {
		if strings.Contains(s, b) {
			t.Errorf("%s: %q reached the output raw", where, b)
		}
	}
}

// TestHostileCorpus: no crash, a visible flag where the operator needs
// one, nothing written, nothing raw on the terminal.
func TestHostileCorpus(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	loadCorpus(t, c)
	before := commandCalls(t, cl)
	addr := cl.Nodes[0].Addr()

	var out, errb bytes.Buffer
	if rc := Main([]string{"--once", "--addr", addr}, &out, &errb); rc != 0 {
		t.Fatalf("--once: rc %d %s", rc, errb.String())
	}
	table := out.String()
	noRaw(t, "--once table", table+errb.String())
	for _, want := range []string{"wt-pending", "WRONGTYPE emq:{wt-pending}:pending", "WRONGTYPE emq:{wt-active}:active",
		"WRONGTYPE emq:{wt-schedule}:schedule", "foreign keys", "hostile"} {
		if !strings.Contains(table, want) {
			t.Errorf("--once table lacks %q", want)
		}
	}
	out.Reset()
	if rc := Main([]string{"--once", "--json", "--jobs", "20", "--addr", addr}, &out, &errb); rc != 0 {
		t.Fatalf("--once --json: rc %d %s", rc, errb.String())
	}
	noRaw(t, "--once --json", out.String())
	if !strings.Contains(out.String(), `"attempts_unreadable": "not an integer"`) || !strings.Contains(out.String(), `"attempts_raw": "NaN"`) ||
		!strings.Contains(out.String(), `"valid": false`) {
		t.Error("JSON does not flag the unreadable attempts and the invalid ids")
	}

	// the dashboard, on the hostile queue, with the 16 MiB payload opened
	pc, _ := poller.Connect(poller.Config{Addrs: []string{addr}})
	defer pc.Close()
	p := poller.New(pc, poller.Options{})
	defer p.Close()
	if err := p.DiscoverAll(bg); err != nil {
		t.Fatal(err)
	}
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	th, _ := theme.New(r, "dark")
	var m tea.Model = ui.New(p, th, ui.Options{})
	m, _ = m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	// keys are sent without running their commands (timers); the job read
	// that enter starts is run, since the detail view waits for it
	step := func(msg tea.Msg, run bool) {
		var cmd tea.Cmd
		m, cmd = m.Update(msg)
		if run && cmd != nil {
			m, _ = m.Update(cmd())
		}
	}
	keyRunes := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
	snap, _ := p.Poll(bg)
	m, _ = m.Update(ui.SnapshotMsg(snap))
	for _, k := range "/hostile" {
		step(keyRunes(string(k)), false)
	}
	step(tea.KeyMsg{Type: tea.KeyEnter}, false)
	snap, _ = p.Poll(bg) // SetDetail("hostile") came from the selection
	m, _ = m.Update(ui.SnapshotMsg(snap))
	noRaw(t, "dashboard", m.View())
	view := m.View()
	for _, want := range []string{"⚠ invalid id", "NaN", "stuck for"} {
		if !strings.Contains(view, want) {
			t.Errorf("dashboard lacks the flag %q:\n%s", want, view)
		}
	}
	// open every active job, the 16 MiB one included
	step(tea.KeyMsg{Type: tea.KeyShiftTab}, false)
	sawBig := false
	for i := 0; i < 6; i++ {
		step(tea.KeyMsg{Type: tea.KeyEnter}, true)
		v := m.View()
		noRaw(t, "job detail", v)
		sawBig = sawBig || strings.Contains(ansi.Strip(v), "MiB (showing the first 64.0 KiB)")
		step(tea.KeyMsg{Type: tea.KeyEsc}, false)
		step(tea.KeyMsg{Type: tea.KeyDown}, false)
	}
	if !sawBig {
		t.Error("the 16 MiB payload never showed its size")
	}
	after := commandCalls(t, cl)
	for _, cmd := range []string{"evalsha", "eval", "zadd", "hset", "del", "zrem", "set", "hincrby", "rpush"} {
		if after[cmd] != before[cmd] {
			t.Errorf("%s was sent by a read: %d → %d", cmd, before[cmd], after[cmd])
		}
	}
}

// A node that announces a hostile address (cluster-announce-ip is any text
// its operator sets) is shown escaped in the --once table, its JSON, the
// stderr lines, emqtop slot, and the dashboard.
func TestHostileNodeAddress(t *testing.T) {
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3})
	evil := "127.0.0.1\x1b[2J\x1b[31mRED\u202e\u009b"
	conn, err := testcluster.Dial(cl.Nodes[2].Addr())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Do("CONFIG", "SET", "cluster-announce-ip", evil); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	// every node must have heard it: the topology is taken from whichever
	// node answers first
	for i := range cl.Nodes {
		seen, err := testcluster.Dial(cl.Nodes[i].Addr())
		if err != nil {
			t.Fatal(err)
		}
		vtest.Until(t, 30*time.Second, fmt.Sprintf("the announced address to reach node %d", i), func() bool {
			s, _ := seen.String("CLUSTER", "NODES")
			return strings.Contains(s, "RED")
		})
		seen.Close()
	}
	addr := cl.Nodes[0].Addr()
	for _, args := range [][]string{{"--once"}, {"--once", "--json"}, {"slot", "orders", "fills", "emails", "a", "b", "c"}} {
		var out, errb bytes.Buffer
		Main(append(args, "--addr", addr), &out, &errb)
		noRaw(t, strings.Join(args, " "), out.String()+errb.String())
		if !strings.Contains(out.String()+errb.String(), "RED") {
			t.Errorf("%q: the hostile node is not shown at all:\n%s%s", args, out.String(), errb.String())
		}
	}
	pc, _ := poller.Connect(poller.Config{Addrs: []string{addr}})
	defer pc.Close()
	p := poller.New(pc, poller.Options{})
	defer p.Close()
	snap, err := p.Poll(bg)
	if err != nil {
		t.Fatal(err)
	}
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	th, _ := theme.New(r, "dark")
	var m tea.Model = ui.New(p, th, ui.Options{})
	for _, size := range [][2]int{{200, 60}, {120, 40}, {80, 24}} {
		m, _ = m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		m, _ = m.Update(ui.SnapshotMsg(snap))
		for _, k := range []tea.KeyMsg{{}, {Type: tea.KeyTab}, {Type: tea.KeyRight}, {Type: tea.KeyRunes, Runes: []rune("G")}} {
			m, _ = m.Update(k)
			noRaw(t, fmt.Sprintf("dashboard %dx%d", size[0], size[1]), m.View())
		}
	}
}

// Argv passes the gate like any other text: an unknown flag holding an
// OSC 52 clipboard write was echoed raw to stderr.
func TestArgvIsGated(t *testing.T) {
	for _, args := range [][]string{{"--\x1b]52;c;eA==\a"}, {"slot", "--\x1b[2J"}, {"requeue", "--queue", "q", "--limit", "\x1b[31m"},
		{"serve", "--\x9b31m"}, {"demo", "--\x1b]0;title\a"}} {
		var out, errb bytes.Buffer
		if rc := Main(args, &out, &errb); rc != exitUsage {
			t.Errorf("%q: rc %d, want %d", args, rc, exitUsage)
		}
		if all := out.String() + errb.String(); strings.ContainsAny(all, "\x1b\a\x9b") || strings.Contains(all, "\u009b") {
			t.Errorf("%q: raw control bytes in the output: %q", args, all)
		}
	}
}
