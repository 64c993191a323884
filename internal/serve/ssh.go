package serve

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	"github.com/charmbracelet/wish/activeterm"
	bm "github.com/charmbracelet/wish/bubbletea"
	"github.com/charmbracelet/wish/recover"
	"github.com/muesli/termenv"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/theme"
	"github.com/echomq/emqtop/ui"
)

// Config is what the SSH server needs besides the hub.
type Config struct {
	HostKeyPEM  []byte
	Keys        *Keys
	IdleTimeout time.Duration // [30m]
	MaxSessions int           // [32]
	Target      string        // what the dashboards say they are connected to
	Demo        string        // the demo's label, always on the status bar; "" for a real server
	Interval    time.Duration
	// Actions makes an operator's actions, audited under who; readers are
	// never given any (the write client is not theirs to reach).
	Actions func(who Who) (model.Actions, error)
	Log     io.Writer // one line per session start and end
	// LoginTimeout ends a connection that has not opened a session this
	// long after it connected [10s]; MaxLogins is how many connections may
	// be logging in at once [64], more are closed at once: 300 connections
	// that sent only a banner held serve's files for minutes.
	LoginTimeout time.Duration
	MaxLogins    int
}

// Server serves the dashboard over SSH, one program per session on the
// shared hub.
type Server struct {
	hub  *Hub
	cfg  Config
	srv  *ssh.Server
	mu   sync.Mutex
	live map[ssh.Session]*live
	down atomic.Bool // shutting down: new sessions are turned away
	// logins is how many connections have not yet opened a session
	logins atomic.Int64
}

// live is a running session: its program, when it last had input, and why
// it ended when the server ended it.
type live struct {
	prog   *tea.Program
	model  *ui.Model    // closed once its program has ended (next returned)
	input  atomic.Int64 // unix nanoseconds of the last key or mouse event
	reason atomic.Value // string
}

type ctxKey int

const (
	keyWho ctxKey = iota
	keyLive
	keyLogin
)

// MaxWidth and MaxHeight are the largest terminal a session is drawn for:
// the size a client asks (at the start and at every change) is capped to
// them, so one client cannot make the server draw, and hold, a screen of
// billions of cells.
const (
	MaxWidth  = 500
	MaxHeight = 300
)

// NewServer makes the SSH server: public-key authentication only, against
// the authorized keys; every session a dashboard.
func NewServer(hub *Hub, cfg Config) (*Server, error) {
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 30 * time.Minute
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = 32
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.LoginTimeout <= 0 {
		cfg.LoginTimeout = 10 * time.Second
	}
	if cfg.MaxLogins <= 0 {
		cfg.MaxLogins = 64
	}
	cfg.Log = &lockedWriter{w: cfg.Log} // sessions log from their own goroutines
	s := &Server{hub: hub, cfg: cfg, live: map[ssh.Session]*live{}}
	srv, err := wish.NewServer(
		wish.WithHostKeyPEM(cfg.HostKeyPEM),
		// the key offered here is not proof that the client holds it
		// (CVE-2024-45337): the session checks s.PublicKey() again
		wish.WithPublicKeyAuth(func(ctx ssh.Context, key ssh.PublicKey) bool {
			who, ok := cfg.Keys.Lookup(key)
			return ok && who.Allowed(ctx.RemoteAddr(), time.Now()) == nil
		}),
		func(srv *ssh.Server) error { srv.ConnCallback = s.login; return nil },
		wish.WithMiddleware(
			recover.Middleware(
				bm.MiddlewareWithProgramHandler(s.program, termenv.Ascii),
				s.gate,
				activeterm.Middleware(),
			),
			s.logging,
		),
	)
	if err != nil {
		return nil, err
	}
	s.srv = srv
	return s, nil
}

// Serve accepts sessions on l until Shutdown.
func (s *Server) Serve(l net.Listener) error {
	err := s.srv.Serve(l)
	if err == ssh.ErrServerClosed {
		return nil
	}
	return err
}

// Sessions is how many dashboards are served now.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.live)
}

// logging writes one line per session start and end: who, from where,
// what key; client text (the user name) passes the gate.
func (s *Server) logging(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		start := time.Now()
		who, _ := s.cfg.Keys.Lookup(sess.PublicKey())
		fmt.Fprintf(s.cfg.Log, "emqtop serve: session of %s (%s %s, %s) from %s\n", textgate.Bounded(sess.User(), 40),
			who.Role, who.Fingerprint, who.Comment, sess.RemoteAddr())
		next(sess)
		fmt.Fprintf(s.cfg.Log, "emqtop serve: session from %s ended after %v\n", sess.RemoteAddr(), time.Since(start).Round(time.Second))
	}
}

// gate admits a session: its key checked again, the cap, the shutdown;
// after the dashboard ends it tells the client why, when the server ended it.
func (s *Server) gate(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if lc, ok := sess.Context().Value(keyLogin).(*loginConn); ok {
			lc.loggedIn()
		}
		who, ok := s.cfg.Keys.Lookup(sess.PublicKey())
		if !ok {
			wish.Fatalln(sess, "emqtop serve: this key is not authorized")
			return
		}
		if err := who.Allowed(sess.RemoteAddr(), time.Now()); err != nil {
			wish.Fatalln(sess, "emqtop serve: "+err.Error())
			return
		}
		if s.down.Load() {
			wish.Fatalln(sess, "emqtop serve is shutting down")
			return
		}
		lv := &live{}
		lv.input.Store(time.Now().UnixNano())
		s.mu.Lock()
		if len(s.live) >= s.cfg.MaxSessions {
			s.mu.Unlock()
			wish.Fatalln(sess, fmt.Sprintf("emqtop serve: %d sessions already, the most it serves (--max-sessions); try again later", s.cfg.MaxSessions))
			return
		}
		s.live[sess] = lv
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.live, sess)
			s.mu.Unlock()
		}()
		who.Client = sess.RemoteAddr().String()
		sess.Context().SetValue(keyWho, who)
		sess.Context().SetValue(keyLive, lv)
		next(sess) // the program runs here, to its end
		s.mu.Lock()
		m := lv.model
		s.mu.Unlock()
		if m != nil { // its last frame is drawn: the zone worker may end
			m.Close()
		}
		if r, _ := lv.reason.Load().(string); r != "" {
			wish.Println(sess, r)
		}
	}
}

// program builds a session's dashboard: its own renderer (colour follows
// the client's terminal), its own Source on the hub, actions for an
// operator only.
func (s *Server) program(sess ssh.Session) *tea.Program {
	who, _ := sess.Context().Value(keyWho).(Who)
	lv, _ := sess.Context().Value(keyLive).(*live)
	if lv == nil {
		return nil
	}
	r := bm.MakeRenderer(sess)
	name := "dark"
	switch {
	case r.ColorProfile() == termenv.Ascii:
		name = "mono"
	case !r.HasDarkBackground():
		name = "light"
	}
	th, err := theme.New(r, name)
	if err != nil {
		wish.Fatalln(sess, err)
		return nil
	}
	src := s.hub.Attach()
	go func() { <-sess.Context().Done(); src.Detach() }()
	opt := ui.Options{Target: s.cfg.Target, Demo: s.cfg.Demo, Interval: s.cfg.Interval, ReadOnly: who.Role != Operator, Shared: true,
		ReadOnlyWhy: "you are a reader here (your key is in --readers): an operator's key writes",
		Copy:        Clipboard(sess, envOf(sess)), MaxWidth: MaxWidth, MaxHeight: MaxHeight}
	if who.Role == Operator && s.cfg.Actions != nil {
		acts, err := s.cfg.Actions(who)
		if err != nil {
			wish.Fatalln(sess, "emqtop serve: ", err)
			return nil
		}
		opt.Actions = acts
	}
	m := ui.New(src, th, opt)
	// WithoutSignalHandler: the process's signals are serve's, which ends
	// every session through Shutdown. A program that catches SIGTERM
	// itself sends a QuitMsg its ended loop never takes, and its shutdown
	// then waits on that handler for good: the operator's terminal was
	// never restored.
	opts := append(bm.MakeOptions(sess), tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithoutSignalHandler(),
		tea.WithFilter(func(_ tea.Model, msg tea.Msg) tea.Msg {
			switch msg.(type) {
			case tea.KeyMsg, tea.MouseMsg:
				lv.input.Store(time.Now().UnixNano())
			}
			return msg
		}))
	prog := tea.NewProgram(m, opts...)
	s.mu.Lock()
	lv.prog = prog // Shutdown reads it under the lock
	lv.model = m   // gate closes it when the program has ended
	s.mu.Unlock()
	go s.watchIdle(sess, lv, prog)
	// the session's output is no terminal the program could ask its size:
	// the pty request said it (the middleware sends the changes)
	if pty, _, ok := sess.Pty(); ok {
		go prog.Send(tea.WindowSizeMsg{Width: pty.Window.Width, Height: pty.Window.Height})
	}
	return prog
}

// watchIdle ends a session that had no key for IdleTimeout.
func (s *Server) watchIdle(sess ssh.Session, lv *live, prog *tea.Program) {
	for {
		left := s.cfg.IdleTimeout - time.Since(time.Unix(0, lv.input.Load()))
		if left <= 0 {
			lv.reason.Store(fmt.Sprintf("emqtop serve: no key for %v: session ended (--idle-timeout)", s.cfg.IdleTimeout))
			prog.Quit()
			return
		}
		select {
		case <-sess.Context().Done():
			return
		case <-time.After(left):
		}
	}
}

func envOf(sess ssh.Session) func(string) string {
	env := sess.Environ()
	return func(k string) string {
		for _, e := range env {
			if len(e) > len(k) && e[:len(k)] == k && e[len(k)] == '=' {
				return e[len(k)+1:]
			}
		}
		return ""
	}
}

// Shutdown ends every session with a message, stops accepting, and
// closes within ctx.
//
// Each dashboard is quit as q quits it, so it restores its operator's
// terminal (the main screen, the mouse, the cursor) and says why it
// ended. The programs are told outside the lock and each on its own: a
// program busy drawing (its View may ask Sessions, which takes the lock)
// or writing to a client that does not read must neither hold up the
// others nor the shutdown, which ctx bounds.
func (s *Server) Shutdown(ctx context.Context) error {
	s.down.Store(true)
	s.mu.Lock()
	progs := make([]*tea.Program, 0, len(s.live))
	for _, lv := range s.live {
		lv.reason.Store("emqtop serve is shutting down: session ended")
		if lv.prog != nil {
			progs = append(progs, lv.prog)
		}
	}
	s.mu.Unlock()
	for _, p := range progs {
		go p.Quit()
	}
	if err := s.srv.Shutdown(ctx); err != nil {
		return s.srv.Close()
	}
	return nil
}

// lockedWriter serialises the writes of many sessions.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// login admits a new connection while fewer than MaxLogins are logging in,
// and closes it if it has opened no session within LoginTimeout.
func (s *Server) login(ctx ssh.Context, c net.Conn) net.Conn {
	if s.logins.Add(1) > int64(s.cfg.MaxLogins) {
		s.logins.Add(-1)
		fmt.Fprintf(s.cfg.Log, "emqtop serve: %s turned away: %d connections already logging in (the most at once)\n", c.RemoteAddr(), s.cfg.MaxLogins)
		return nil // the server closes it
	}
	lc := &loginConn{Conn: c, s: s}
	lc.timer = time.AfterFunc(s.cfg.LoginTimeout, func() {
		if lc.done.CompareAndSwap(false, true) {
			s.logins.Add(-1)
			fmt.Fprintf(s.cfg.Log, "emqtop serve: %s closed: no session within %v of connecting\n", c.RemoteAddr(), s.cfg.LoginTimeout)
			c.Close()
		}
	})
	ctx.SetValue(keyLogin, lc)
	return lc
}

// loginConn is a connection until it opens a session (or closes).
type loginConn struct {
	net.Conn
	s     *Server
	timer *time.Timer
	done  atomic.Bool // logged in, closed or timed out: counted out once
}

func (c *loginConn) loggedIn() {
	if c.done.CompareAndSwap(false, true) {
		c.timer.Stop()
		c.s.logins.Add(-1)
	}
}

func (c *loginConn) Close() error {
	c.loggedIn()
	return c.Conn.Close()
}
