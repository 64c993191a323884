package model

import "strconv"

// Count says n of a thing in words, the noun agreeing with the number and
// the number grouped by thousands: "1 queue", "5,000 queues".
func Count(n int64, one, many string) string {
	if n == 1 || n == -1 {
		return Commas(n) + " " + one
	}
	return Commas(n) + " " + many
}

// Commas writes n with its thousands grouped: 5000 → "5,000".
func Commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
