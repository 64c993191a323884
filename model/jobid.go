package model

import "time"

// crockford maps a Crockford base32 digit (upper case, as the ids are
// written) to its value, -1 for any other byte.
var crockford = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i, c := range "0123456789ABCDEFGHJKMNPQRSTVWXYZ" {
		t[c] = int8(i)
	}
	return t
}()

// IDTime is the time a job id was minted: the id is JOB and a ULID, whose
// first ten characters are its 48-bit time in ms. ok is false for an id
// that is not of that form.
func IDTime(id string) (time.Time, bool) {
	const brand, digits = "JOB", 10
	if len(id) != len(brand)+26 || id[:len(brand)] != brand {
		return time.Time{}, false
	}
	var ms int64
	for i := 0; i < digits; i++ {
		v := crockford[id[len(brand)+i]]
		if v < 0 {
			return time.Time{}, false
		}
		ms = ms<<5 | int64(v)
	}
	if ms >= 1<<48 {
		return time.Time{}, false
	}
	return time.UnixMilli(ms), true
}
