package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

// Finder is a source that can find a job's row by its id over every
// primary, a bounded step at a time.
type Finder interface {
	StartFind(ctx context.Context, id string) (model.FindSearch, error)
}

// findPace is the pause between two steps of a find: each step is a page
// per primary, so a find costs the servers little, whatever their size.
const findPace = 20 * time.Millisecond

type findKeys struct{ Find, Cancel key.Binding }

func newFindKeys() findKeys {
	return findKeys{
		Find:   bind([]string{"enter"}, "enter", "find the job (type or paste its id)"),
		Cancel: bind([]string{"esc"}, "esc", "cancel the find"),
	}
}

func (k findKeys) ShortHelp() []key.Binding  { return []key.Binding{k.Find, k.Cancel} }
func (k findKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// messages of a find; each carries the find it answers
type (
	findStartedMsg struct {
		seq    int
		search model.FindSearch
		err    error
	}
	findStepMsg struct {
		seq int
		p   model.FindProgress
	}
	findNextMsg struct{ seq int }
	// foundMsg: the find is over with a row: the root opens it.
	foundMsg struct{ queue, id string }
)

// findView is the find overlay: a prompt for the id, then the search's
// progress, and what it found or why not.
type findView struct {
	c       *common
	src     Finder
	keys    findKeys
	in      textinput.Model
	w, h    int
	seq     int // the find under way; answers of another are dropped
	search  model.FindSearch
	id      string
	p       model.FindProgress
	running bool
	err     error
}

func newFindView(c *common, src Finder) *findView {
	in := newInput()
	in.Prompt = "job id: "
	in.Placeholder = "JOB and 26 characters (its ULID)"
	in.CharLimit = 64
	in.Focus()
	return &findView{c: c, src: src, keys: newFindKeys(), in: in}
}

func (f *findView) SetSize(w, h int)          { f.w, f.h = w, h; f.in.Width = max(10, w-16) }
func (f *findView) ShortHelp() []key.Binding  { return f.keys.ShortHelp() }
func (f *findView) FullHelp() [][]key.Binding { return f.keys.FullHelp() }

func (f *findView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case findStartedMsg:
		if msg.seq != f.seq {
			return nil
		}
		if msg.err != nil {
			f.running, f.err = false, msg.err
			return nil
		}
		f.search = msg.search
		return f.step()
	case findNextMsg:
		if msg.seq == f.seq && f.running {
			return f.step()
		}
	case findStepMsg:
		if msg.seq != f.seq {
			return nil
		}
		f.p = msg.p
		switch {
		case msg.p.Queue != "":
			f.running = false
			return f.c.emit(foundMsg{queue: msg.p.Queue, id: f.id})
		case msg.p.Done:
			f.running = false
			return nil
		}
		seq := f.seq
		return f.c.tick(findPace, func(time.Time) tea.Msg { return findNextMsg{seq} })
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, f.keys.Cancel):
			f.seq = f.c.nextSeq() // whatever is in flight is dropped when it answers
			return f.c.emit(closeMsg{})
		case key.Matches(msg, f.keys.Find):
			return f.start()
		}
		var cmd tea.Cmd
		f.in, cmd = f.in.Update(msg)
		return cmd
	}
	return nil
}

// start begins the find of the typed id (spaces and quotes a paste brings
// are dropped); the source refuses an id that is not one.
func (f *findView) start() tea.Cmd {
	f.id = strings.Trim(strings.TrimSpace(f.in.Value()), `"'`)
	if f.id == "" {
		return nil
	}
	f.seq = f.c.nextSeq() // the session's: a find of an earlier overlay can never match it
	f.running, f.err, f.p, f.search = true, nil, model.FindProgress{}, nil
	seq, src, id := f.seq, f.src, f.id
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s, err := src.StartFind(ctx, id)
		return findStartedMsg{seq: seq, search: s, err: err}
	}
}

func (f *findView) step() tea.Cmd {
	seq, s := f.seq, f.search
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return findStepMsg{seq: seq, p: s.Step(ctx)}
	}
}

func (f *findView) View() string {
	th := f.c.th
	lines := []string{"", " " + f.in.View(), ""}
	switch {
	case f.err != nil:
		lines = append(lines, " "+th.Bad.Render(textgate.Bounded(f.err.Error(), 300)))
	case f.running && f.search == nil:
		lines = append(lines, th.Dim.Render(" asking each primary its size…"))
	case f.running || f.p.Done:
		pct := 100
		if f.p.Total > 0 {
			pct = int(100 * f.p.Walked / f.p.Total)
		}
		lines = append(lines, fmt.Sprintf(" searched %d%% of %s keys on %d primaries", pct, commas(f.p.Total), f.p.Nodes))
		if f.p.Done && f.p.Queue == "" {
			lines = append(lines, th.Warn.Render(" no row of that id on any primary searched: acked, drained, or never written"))
		}
		for _, e := range f.p.Failed {
			lines = append(lines, th.Bad.Render(" not searched: "+textgate.Bounded(e, 200)))
		}
	default:
		lines = append(lines, th.Dim.Render(" a SCAN of a page per primary per step, paced; esc cancels at any time"))
	}
	return box(th.BorderFocus, "Find a job by its id", lines, f.w, f.h)
}

// found ends a find with its row: the queue is selected when the list has
// it, and the job's detail opens (its state comes from the row read).
func (m *Model) found(msg foundMsg) tea.Cmd {
	m.find = nil
	q := model.Queue{Name: msg.queue, OldestPendingAgeMs: -1}
	if m.queues.selectName(msg.queue) {
		m.setFocus(paneQueues)
		if sel := m.queues.selected(); sel != nil {
			q = *sel
		}
	}
	cmd := tea.Batch(m.selectionChanged(), m.openJob(openJobMsg{q: q, job: model.Job{ID: msg.id, Valid: true}, found: true}))
	m.say("found "+textgate.Text(msg.id)+" in "+textgate.Bounded(msg.queue, 60), false)
	return cmd
}
