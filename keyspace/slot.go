// Package keyspace is the one builder of EchoMQ keys: the braced grammar
// emq:{q}:<type>, the cluster hashtag and slot, the parser that reads a key
// back, and the gate on queue names and job ids. It imports nothing of the
// project; every other package builds its keys here.
package keyspace

import "strconv"

// SlotCount is the number of hash slots of a Valkey Cluster.
const SlotCount = 16384

// crcTable is CRC16-XMODEM (polynomial 0x1021, initial value 0), one entry
// per byte value, computed once.
var crcTable = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

// crc16 is CRC16-XMODEM of s.
func crc16(s string) uint16 {
	var c uint16
	for i := 0; i < len(s); i++ {
		c = c<<8 ^ crcTable[byte(c>>8)^s[i]]
	}
	return c
}

// Hashtag is the part of key that the cluster hashes: the bytes between the
// first '{' and the first '}' after it when they are not empty, otherwise the
// whole key.
func Hashtag(key string) string {
	for i := 0; i < len(key); i++ {
		if key[i] != '{' {
			continue
		}
		for j := i + 1; j < len(key); j++ {
			if key[j] == '}' {
				if j == i+1 {
					return key
				}
				return key[i+1 : j]
			}
		}
		return key
	}
	return key
}

// Slot is the cluster slot of key: CRC16-XMODEM of its hashtag mod 16384.
func Slot(key string) uint16 {
	return crc16(Hashtag(key)) % SlotCount
}

// QueueSlot is the slot every key of queue lands on. For a name that
// ValidateQueue refuses it is still the slot emq:{queue}:pending would hash to.
func QueueSlot(queue string) uint16 {
	if ValidateQueue(queue) == nil {
		return crc16(queue) % SlotCount
	}
	return Slot(prefix + queue + "}:" + TypePending)
}

// SlotMates finds the first two names prefix0, prefix1, ... that land on
// one slot: queues that share a slot share its scripts, and tests and
// operators want such a pair at hand.
func SlotMates(prefix string) (string, string) {
	seen := map[uint16]string{}
	for i := 0; ; i++ {
		q := prefix + strconv.Itoa(i)
		s := QueueSlot(q)
		if p, ok := seen[s]; ok {
			return p, q
		}
		seen[s] = q
	}
}
