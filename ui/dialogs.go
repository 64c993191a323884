package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/progress"

	"github.com/echomq/emqtop/internal/safe"
)

// actionView is the confirmation or progress dialog.
func (m *Model) actionView() string {
	a := m.act
	th := m.th
	w := min(m.width-4, 76)
	var lines []string
	style := th.Dialog
	switch a.kind {
	case actRequeue:
		lines = []string{
			th.Title.Render("Requeue this job?"), "",
			fmt.Sprintf("queue     %s", safe.Bounded(a.queue, 50)),
			fmt.Sprintf("job       %s", safe.Text(a.job.ID)),
			fmt.Sprintf("attempts  %d  (the fence: refused if a worker claimed it since)", a.job.Attempts),
		}
		if a.expired >= 0 {
			lines = append(lines, th.Warn.Render(fmt.Sprintf("lease     ran out %s ago", ago(a.expired))))
		} else {
			lines = append(lines, th.Warn.Render(fmt.Sprintf("lease     still %s left: its worker may be alive", ago(-a.expired))))
		}
		lines = append(lines, "", th.Dim.Render("y or enter: requeue · n or esc: cancel"))
	case actRequeueAll:
		lines = []string{
			th.Title.Render("Requeue every expired job?"), "",
			fmt.Sprintf("queue     %s", safe.Bounded(a.queue, 50)),
			fmt.Sprintf("expired   %d at the last poll (the server decides at run time)", a.total),
			"", th.Dim.Render(fmt.Sprintf("runs in batches of %d · y or enter: requeue · n or esc: cancel", expiredBatch)),
		}
	case actDrain:
		style = th.Danger
		lines = []string{
			th.Bad.Render("Drain this queue?"), "",
			fmt.Sprintf("queue     %s", safe.Bounded(a.queue, 50)),
			fmt.Sprintf("removes   its pending jobs and their rows: %d at the last poll", a.total),
			"keeps     its active jobs, untouched",
		}
		for i, id := range a.preview {
			label := "first     "
			if i > 0 {
				label = "          "
			}
			lines = append(lines, label+safe.Text(id))
		}
		lines = append(lines, "", a.typed.View())
		if a.wrong {
			lines = append(lines, th.Bad.Render("that is not the queue's name: nothing was drained"))
		}
		lines = append(lines, th.Dim.Render("enter: drain · esc: cancel"))
	}
	if a.running {
		lines = append(lines, "")
		switch a.kind {
		case actDrain:
			total := a.done + a.left
			frac := 0.0
			if total > 0 {
				frac = float64(a.done) / float64(total)
			}
			bar := progress.New(progress.WithWidth(w-12), progress.WithoutPercentage(), progress.WithSolidFill(string(th.Expired)))
			lines = append(lines, bar.ViewAs(frac)+fmt.Sprintf(" %d/%d", a.done, total))
		default:
			lines = append(lines, fmt.Sprintf("working… %d so far (%s)", a.done, ago(time.Since(a.started))))
		}
		if a.cancel {
			lines = append(lines, th.Warn.Render("cancelling after this batch…"))
		} else {
			lines = append(lines, th.Dim.Render("esc: cancel between batches"))
		}
	}
	for i := range lines {
		lines[i] = fit(lines[i], w-4)
	}
	return style.Width(w - 2).Render(strings.Join(lines, "\n"))
}
