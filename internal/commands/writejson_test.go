package commands

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

// --once --json written a queue at a time is, byte for byte, the document
// marshalled whole and gated: no queue, one, many, a queue in detail with
// jobs, names and errors a terminal would act on, notes and foreign keys.
func TestWriteJSONIsTheWholeDocument(t *testing.T) {
	topo := model.NewTopology(true, []model.Node{{Addr: "127.0.0.1:7000", ID: "a", Role: model.RolePrimary, Slots: []model.Range{{Lo: 0, Hi: 16383}}}})
	for _, n := range []int{0, 1, 3, 200} {
		s := &model.Snapshot{Topology: topo, Cluster: true, ServerTimeMs: 1_700_000_000_000, Version: "valkey 8.0.1",
			Notes: []string{"a note \x1b]0;title\x07"}, ForeignKeys: []model.ForeignKey{{Key: "emq:x\u202e", Reason: "odd"}}, ForeignCount: 1,
			Poll: model.PollStats{Duration: 12 * time.Millisecond, Scripts: n}}
		for _, nd := range topo.Nodes {
			s.Nodes = append(s.Nodes, model.NodeStatus{Node: nd, Queues: n})
		}
		var b model.QueueListBuilder
		for i := 0; i < n; i++ {
			q := &model.Queue{Name: fmt.Sprintf("q-%03d\u009b31m\U000E0041", i), Node: model.RefOf("127.0.0.1:7000"), Pending: int64(i), Active: 1,
				OldestPendingAgeMs: int64(i%3) - 1, Err: map[bool]string{true: "WRONGTYPE \x1b[2J <&>", false: ""}[i%7 == 3], Stale: i%5 == 2}
			if i == 4 {
				q.Name = "bad \xff utf-8 \u2028"
			}
			if i == 1 {
				q.Detail = true
				q.Jobs = &model.Jobs{Pending: []model.Job{{ID: "emq_1", Valid: true, Score: 5}},
					Active: []model.Job{{ID: "x\x1b[31m", AttemptsWhy: model.AttemptsInvalidID}, {ID: "emq_2", Valid: true, Attempts: 2, AttemptsOK: true}}}
			}
			b.Add(q)
		}
		s.Queues = b.List()
		whole, err := json.MarshalIndent(toJSON(s, nil), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		want := append(textgate.JSON(whole), '\n')
		var got bytes.Buffer
		if err := writeJSON(&got, s); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("%d queues: written a queue at a time\n%s\nmarshalled whole\n%s", n, got.Bytes(), want)
		}
	}
}

// appendJSONString writes a string as json.Marshal does, byte for byte:
// every single byte, and strings drawn from an alphabet of what needs an
// escape (quotes, controls, HTML specials, bytes that are not UTF-8, U+2028,
// C1 controls, runes above U+FFFF) and what does not.
func TestAppendJSONStringIsJSONMarshal(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want, _ := json.Marshal(s)
		if got := appendJSONString([]byte("x"), s); !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Fatalf("%q: %s, json.Marshal %s", s, got[1:], want)
		}
	}
	for c := 0; c < 256; c++ {
		check(string([]byte{byte(c)}))
		check("a" + string([]byte{byte(c)}) + "b")
	}
	alphabet := []string{"a", "Z", " ", "\"", "\\", "/", "<", ">", "&", "\x00", "\x1b", "\x7f", "\b", "\f", "\n", "\r", "\t",
		"\xff", "\xc3", "\xe2\x80", "é", "\u2028", "\u2029", "\u009b", "\u202e", "\U0001F600", "\U000E0041", "\ufffd"}
	r := rand.New(rand.NewPCG(7, 11))
	for range 20000 {
		var sb strings.Builder
		for range r.IntN(10) {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		check(sb.String())
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "orders", "a\"b\\c", "\x1b]0;t\x07", "\xff\xfe", "\u2028<&>", "q\u009b31m\U000E0041"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: %s, json.Marshal %s", s, got, want)
		}
	})
}

// A --watch line written a queue at a time is, byte for byte, the line
// marshalled whole and gated: the first (every queue) and the next (those
// that changed, and the gone), with names and errors a terminal would act
// on, a queue in detail and one not UTF-8.
func TestWriteWatchIsTheWholeLine(t *testing.T) {
	topo := model.NewTopology(true, []model.Node{{Addr: "127.0.0.1:7000", ID: "a", Role: model.RolePrimary, Slots: []model.Range{{Lo: 0, Hi: 16383}}}})
	snap := func(n, bump int) *model.Snapshot {
		s := &model.Snapshot{Topology: topo, Cluster: true, ServerTimeMs: 1_700_000_000_000, ByName: true,
			Notes: []string{"a note \x1b]0;title\x07"}, Poll: model.PollStats{Read: "changes", Scripts: n}}
		s.Nodes = append(s.Nodes, model.NodeStatus{Node: topo.Nodes[0], Queues: n})
		var b model.QueueListBuilder
		for i := 0; i < n; i++ {
			q := &model.Queue{Name: fmt.Sprintf("q-%03d\u009b31m", i), Node: model.RefOf("127.0.0.1:7000"), Pending: int64(i + bump*(i%3)),
				Err: map[bool]string{true: "WRONGTYPE \x1b[2J <&>", false: ""}[i%7 == 3], OldestPendingAgeMs: -1}
			if i == 4 {
				q.Name = "r\xff \u2028"
			}
			if i == 1 {
				q.Detail = true
				q.Jobs = &model.Jobs{Pending: []model.Job{{ID: "emq_1", Valid: true, Score: 5}}}
			}
			b.Add(q)
		}
		s.Queues = b.List()
		return s
	}
	streamed, whole := &deltas{}, &deltas{}
	for seq, s := range []*model.Snapshot{snap(40, 0), snap(40, 1), snap(30, 1)} {
		var got bytes.Buffer
		if err := writeWatch(&got, seq+1, s, streamed, nil); err != nil {
			t.Fatal(err)
		}
		idx, gone, are := whole.pick(s)
		l := watchLine{jsonSnapshot: toJSON(s, idx), Seq: seq + 1, Read: s.Poll.Read, ReadWhy: map[string]int{},
			TotalsTrend: trendJSON(s.TotalTrend), QueuesAre: are}
		if gone != nil {
			l.Gone = &gone
		}
		for k, i := range idx {
			l.Queues[k].Trend = trendJSON(s.Trend(s.Queues.At(i)))
		}
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		if want := append(textgate.JSON(b), '\n'); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("line %d: written a queue at a time\n%s\nmarshalled whole\n%s", seq+1, got.Bytes(), want)
		}
		if seq > 0 && !bytes.Contains(got.Bytes(), []byte(`"queues_are":"changed"`)) {
			t.Fatalf("line %d carries no changes: %s", seq+1, got.Bytes())
		}
	}
}
