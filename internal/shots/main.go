// Command shots makes the README's screenshots from the real program: it
// builds emqtop, runs `emqtop demo` in a tmux window of 120×40, drives it
// with send-keys, captures each scene with capture-pane and renders it to
// SVG, and to PNG when rsvg-convert (librsvg2-bin) is there.
//
//	go run ./internal/shots [-out screenshots]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

const (
	width  = 120
	height = 40
)

type scene struct {
	name, title string
	keys        [][]string // each a send-keys call, with a pause after
	after       [][]string // keys that put the screen back
	before      func(screen string) error
	settle      time.Duration // wait after the keys before the capture [1.2s]
}

var scenes = []scene{
	{name: "overview", title: "emqtop: the overview"},
	{name: "heatmap", title: "The heatmap with the cursor on a slot",
		keys:  [][]string{{"Tab"}, {"Right", "Right", "Right", "Right", "Right", "Right", "Down"}},
		after: [][]string{{"BTab"}}},
	{name: "stuck", title: "The active pane and the lease timeline with stuck jobs",
		keys:  [][]string{{"/"}, {"o", "r", "d", "e", "r", "s"}, {"Enter"}, {"BTab"}},
		after: [][]string{}},
	{name: "requeue", title: "The requeue confirmation, fenced by attempts",
		keys:  [][]string{{"r"}},
		after: [][]string{{"n"}, {"Escape"}}},
	{name: "drain", title: "The drain confirmation asks for the queue's name",
		keys:  [][]string{{"D"}, {"o", "r", "d"}},
		after: [][]string{{"Escape"}, {"Escape"}}},
	{name: "help", title: "The help",
		keys:  [][]string{{"?"}},
		after: [][]string{{"Escape"}}},
	{name: "foreign", title: "The foreign keys (tab to them, in the nodes pane's place): keys that look like EchoMQ's but are outside its grammar, each with why",
		keys:  [][]string{{"Tab", "Tab", "Tab", "Tab"}},
		after: [][]string{{"BTab", "BTab", "BTab", "BTab"}}},
	{name: "detail", title: "A job's detail: attempts that are not a number, a payload of terminal escapes made visible",
		keys:  [][]string{{"Escape"}, {"Tab"}, {"/"}, {"l", "e", "g", "a", "c", "y"}, {"Enter"}, {"BTab"}, {"j"}, {"Enter"}},
		after: [][]string{{"Escape"}}},
	{name: "trend", title: "Sorted by growth: the trend column, and the trend pane of the fastest-growing queue",
		keys:  [][]string{{"Escape"}, {"Escape"}, {"Tab"}, {"s", "s", "s", "s"}, {"g"}},
		after: [][]string{{"s"}}},
	{name: "spread", title: "The spread: each primary's share of slots, queues, jobs and expired; the heatmap by queues per cell",
		keys:  [][]string{{"%"}, {"m"}},
		after: [][]string{{"m", "m", "m", "m", "m"}}},
	{name: "plan", title: "A rebalancing plan previewed on the spread (b): the shares now and after, the moves, the moved slots in their target's hue; nothing is sent",
		keys:  [][]string{{"b"}},
		after: [][]string{{"b"}}},
	{name: "slotstats", title: "The servers' own load (CLUSTER SLOT-STATS): network bytes per cell, each primary's share of keys and CPU, the hottest slot",
		keys:  [][]string{{"m", "m", "m", "m", "m"}},
		after: [][]string{{"m"}}, settle: 7 * time.Second},
	// last: it kills a node of the demo
	{name: "down", title: "A primary killed: DEGRADED, its row in words, its slots hatched, its queues flagged",
		before: killPrimary, settle: 4 * time.Second},
}

// killPrimary kills the demo's last primary, found by the port the nodes
// pane shows, as an operator's outage would.
func killPrimary(screen string) error {
	ports := regexp.MustCompile(`│● :(\d+) `).FindAllStringSubmatch(screen, -1)
	if len(ports) < 2 {
		return fmt.Errorf("no primaries found on screen")
	}
	port := ports[len(ports)-1][1]
	pids, err := run("pgrep", "-f", "127.0.0.1:"+port)
	if err != nil {
		return fmt.Errorf("the node on %s: %v", port, err)
	}
	for _, pid := range strings.Fields(pids) {
		if _, err := run("kill", "-KILL", pid); err != nil {
			return err
		}
	}
	return nil
}

func run(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

func main() {
	out := flag.String("out", "screenshots", "directory for the images")
	only := flag.String("only", "", "make only this: serve (two SSH sessions of emqtop demo --serve side by side)")
	warm := flag.Duration("warm", 45*time.Second, "let the demo run this long first (stuck jobs need a lease to run out, trends a minute of polls)")
	flag.Parse()
	do := shoot
	if *only == "serve" {
		do = shootServe
	} else if *only != "" {
		fmt.Fprintln(os.Stderr, "shots: -only takes serve")
		os.Exit(2)
	}
	if err := do(*out, *warm); err != nil {
		fmt.Fprintln(os.Stderr, "shots:", err)
		os.Exit(1)
	}
}

func shoot(out string, warm time.Duration) error {
	if _, err := exec.LookPath("tmux"); err != nil {
		return fmt.Errorf("tmux is needed: apt-get install tmux")
	}
	tmp, err := os.MkdirTemp("", "emqtop-shots-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "emqtop")
	if o, err := run("go", "build", "-o", bin, "."); err != nil {
		return fmt.Errorf("build: %v %s", err, o)
	}
	session := fmt.Sprintf("emqtop-shots-%d", os.Getpid())
	cmd := fmt.Sprintf("TERM=xterm-256color %s demo --audit-log %s", bin, filepath.Join(tmp, "audit.log"))
	if _, err := run("tmux", "new-session", "-d", "-s", session, "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), cmd); err != nil {
		return err
	}
	defer run("tmux", "kill-session", "-t", session)
	fmt.Printf("demo running; waiting %v for stuck jobs…\n", warm)
	time.Sleep(warm)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, sc := range scenes {
		if sc.before != nil {
			screen, err := run("tmux", "capture-pane", "-p", "-t", session)
			if err != nil {
				return err
			}
			if err := sc.before(screen); err != nil {
				return fmt.Errorf("%s: %w", sc.name, err)
			}
		}
		for _, k := range sc.keys {
			if _, err := run("tmux", append([]string{"send-keys", "-t", session}, k...)...); err != nil {
				return err
			}
			time.Sleep(400 * time.Millisecond)
		}
		settle := sc.settle
		if settle == 0 {
			settle = 1200 * time.Millisecond // a poll lands
		}
		time.Sleep(settle)
		raw, err := run("tmux", "capture-pane", "-p", "-e", "-t", session)
		if err != nil {
			return err
		}
		if err := write(out, sc.name, svg(parse(raw, width, height), sc.title)); err != nil {
			return err
		}
		for _, k := range sc.after {
			run("tmux", append([]string{"send-keys", "-t", session}, k...)...)
			time.Sleep(300 * time.Millisecond)
		}
	}
	return nil
}

// write puts an SVG in out, and its PNG when rsvg-convert is there.
func write(out, name, image string) error {
	path := filepath.Join(out, name+".svg")
	if err := os.WriteFile(path, []byte(image), 0o644); err != nil {
		return err
	}
	fmt.Println("wrote", path)
	if _, err := exec.LookPath("rsvg-convert"); err == nil {
		png := strings.TrimSuffix(path, ".svg") + ".png"
		if o, err := run("rsvg-convert", "-o", png, path); err != nil {
			fmt.Println("no PNG:", o)
		} else {
			fmt.Println("wrote", png)
		}
	}
	return nil
}

// shootServe runs `emqtop demo --serve` with a key of its own (HOME is a
// temporary directory), joins it with the system's ssh twice, 80×24 each,
// drives each session its own way and draws the two side by side.
func shootServe(out string, warm time.Duration) error {
	for _, tool := range []string{"tmux", "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s is needed", tool)
		}
	}
	tmp, err := os.MkdirTemp("", "emqtop-shots-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin, home := filepath.Join(tmp, "emqtop"), filepath.Join(tmp, "home")
	if o, err := run("go", "build", "-o", bin, "."); err != nil {
		return fmt.Errorf("build: %v %s", err, o)
	}
	key := filepath.Join(home, ".ssh", "id_ed25519")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		return err
	}
	if _, err := run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "shots", "-f", key); err != nil {
		return err
	}
	srv := fmt.Sprintf("emqtop-serve-%d", os.Getpid())
	if _, err := run("tmux", "new-session", "-d", "-s", srv, "-x", "120", "-y", "10",
		fmt.Sprintf("HOME=%s %s demo --serve", home, bin)); err != nil {
		return err
	}
	defer run("tmux", "kill-session", "-t", srv)
	var port string
	for i := 0; i < 100 && port == ""; i++ {
		time.Sleep(200 * time.Millisecond)
		screen, _ := run("tmux", "capture-pane", "-p", "-t", srv)
		if m := regexp.MustCompile(`ssh -p (\d+) 127\.0\.0\.1`).FindStringSubmatch(screen); m != nil {
			port = m[1]
		}
	}
	if port == "" {
		return fmt.Errorf("emqtop demo --serve printed no ssh line")
	}
	const w, h = 80, 24
	sessions := []string{srv + "-a", srv + "-b"}
	for _, s := range sessions {
		cmd := fmt.Sprintf("TERM=xterm-256color ssh -i %s -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -t -p %s 127.0.0.1", key, port)
		if _, err := run("tmux", "new-session", "-d", "-s", s, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), cmd); err != nil {
			return err
		}
		defer run("tmux", "kill-session", "-t", s)
	}
	fmt.Printf("two sessions joined on port %s; waiting %v…\n", port, warm)
	time.Sleep(warm)
	for _, k := range []string{"/", "o", "r", "d", "e", "r", "s", "Enter", "BTab"} {
		run("tmux", "send-keys", "-t", sessions[0], k)
		time.Sleep(150 * time.Millisecond)
	}
	for _, k := range []string{"%", "m", "z"} {
		run("tmux", "send-keys", "-t", sessions[1], k)
		time.Sleep(150 * time.Millisecond)
	}
	time.Sleep(2 * time.Second)
	var grids [][][]cell
	for _, s := range sessions {
		raw, err := run("tmux", "capture-pane", "-p", "-e", "-t", s)
		if err != nil {
			return err
		}
		grids = append(grids, parse(raw, w, h))
	}
	return write(out, "serve", svg(beside(grids[0], grids[1], 2), "emqtop serve: two SSH sessions on one poller, each with its own selection, focus and view"))
}

// beside lays two screens side by side with gap blank columns between.
func beside(a, b [][]cell, gap int) [][]cell {
	out := make([][]cell, max(len(a), len(b)))
	for i := range out {
		var row []cell
		row = append(row, rowOr(a, i)...)
		for j := 0; j < gap; j++ {
			row = append(row, cell{r: ' '})
		}
		out[i] = append(row, rowOr(b, i)...)
	}
	return out
}

func rowOr(g [][]cell, i int) []cell {
	if i < len(g) {
		return g[i]
	}
	blank := make([]cell, len(g[0]))
	for j := range blank {
		blank[j].r = ' '
	}
	return blank
}
