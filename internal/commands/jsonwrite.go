package commands

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

// --once --json's writer: the document a queue at a time, each queue
// without reflection and with nothing allocated, through the text gate.

// writeJSON writes s in the --once schema, indented, through the text
// gate: the same bytes as json.MarshalIndent(toJSON(s, nil), "", "  ")
// and a newline, a queue at a time (a million queues' document is 300
// MB: built whole, then gated, it was three copies of it in memory).
func writeJSON(w io.Writer, s *model.Snapshot) error {
	head, err := json.MarshalIndent(toJSON(s, []int{}), "", "  ")
	if err != nil {
		return err
	}
	head = textgate.JSON(head)
	const none = "\n  \"queues\": [],"
	at := bytes.Index(head, []byte(none))
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf, gated []byte
	if at < 0 || s.Queues.Len() == 0 {
		bw.Write(head)
	} else {
		bw.Write(head[:at])
		bw.WriteString("\n  \"queues\": [")
		for i, q := range s.Queues.All() {
			if i > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString("\n    ")
			jq := queueJSON(s, q)
			b := appendQueueJSON(buf[:0], &jq)
			if b == nil {
				if b, err = json.MarshalIndent(jq, "    ", "  "); err != nil {
					return err
				}
			}
			buf = b
			gated = textgate.AppendJSON(gated[:0], b)
			bw.Write(gated)
		}
		bw.WriteString("\n  ],")
		bw.Write(head[at+len(none):])
	}
	bw.WriteByte('\n')
	return bw.Flush()
}

// appendQueueJSON appends jq as json.MarshalIndent(jq, "    ", "  ")
// writes it, without reflection (a million queues: seconds of it), or
// returns nil for a queue with job lists or a trend, which it leaves to
// encoding/json. Strings are written as json.Marshal writes them.
func appendQueueJSON(b []byte, jq *jsonQueue) []byte {
	if jq.PendingJobs != nil || jq.ActiveJobs != nil || jq.Trend != nil {
		return nil
	}
	str := func(s string) { b = appendJSONString(b, s) }
	num := func(field string, n int64) {
		b = append(b, ",\n      \""...)
		b = append(b, field...)
		b = append(b, "\": "...)
		b = strconv.AppendInt(b, n, 10)
	}
	b = append(b, "{\n      \"name\": "...)
	str(jq.Name)
	num("slot", int64(jq.Slot))
	b = append(b, ",\n      \"node\": "...)
	str(jq.Node)
	num("pending", jq.Pending)
	num("active", jq.Active)
	num("scheduled", jq.Scheduled)
	num("expired", jq.Expired)
	num("oldest_pending_age_ms", jq.OldestPendingAgeMs)
	b = append(b, ",\n      \"error\": "...)
	str(jq.Error)
	if jq.Stale {
		b = append(b, ",\n      \"stale\": true"...)
	}
	return append(b, "\n    }"...)
}

// appendJSONString appends s quoted as json.Marshal quotes a string, with
// nothing allocated (json.Marshal made three strings a queue, half of the
// garbage of a million queues' --once): \" and \\; \b \f \n \r \t; other
// controls and the HTML specials < > & as \u00XX; a byte that is not UTF-8
// as \ufffd; U+2028 and U+2029 as \u2028 and \u2029; everything else as
// it is (the text gate comes after, on the whole document).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	from := 0 // s[from:i] is still to be copied as it is
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[from:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			from = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, s[from:i]...)
			b = append(b, `\ufffd`...)
			from = i + n
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[from:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			from = i + n
		}
		i += n
	}
	b = append(b, s[from:]...)
	return append(b, '"')
}
