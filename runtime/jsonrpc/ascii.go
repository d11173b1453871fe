package jsonrpc

import "math/bits"

// Strings are mostly plain ASCII, so the string readers and writers look
// for the bytes that need attention eight at a time, treating eight bytes
// as one uint64, first byte lowest. Each test below sets the high bit of
// every byte of x that has the property. It may also set the high bit of a
// byte above a true hit (a borrow carries into it), but never of a byte
// below the first true hit, so firstHit finds exactly the first byte with
// the property.

const (
	ones  = 0x0101010101010101 // 0x01 in every byte
	highs = 0x8080808080808080 // 0x80 in every byte
)

// nonASCII flags bytes of 0x80 and above.
func nonASCII(x uint64) uint64 { return x & highs }

// below flags bytes less than n, for n <= 0x80. Subtracting n leaves a
// byte's high bit set, where it was clear, only if the byte was below n or
// a borrow came from a lower byte, which must itself have been below n.
func below(x uint64, n byte) uint64 { return (x - ones*uint64(n)) & ^x & highs }

// equal flags bytes equal to c.
func equal(x uint64, c byte) uint64 { return below(x^(ones*uint64(c)), 1) }

// firstHit returns the index of the first flagged byte in a non-zero word
// of flags.
func firstHit(flags uint64) int { return bits.TrailingZeros64(flags) / 8 }

// load8 reads the eight bytes of s at i, the first in the low byte. The
// compiler turns the shifts into one load.
func load8[S string | []byte](s S, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
