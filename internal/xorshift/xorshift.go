// Package xorshift is the one small pseudo-random generator of the tools
// around the game (the lab, the headless players, history's tests): seeded,
// reproducible, and cheap. Never for anything secret.
package xorshift

// Rand is Marsaglia's 64-bit xorshift (13, 7, 17). The zero value is stuck
// at zero: make one with New.
type Rand struct{ s uint64 }

// New returns a generator whose sequence depends on seed alone; every seed,
// zero included, gives a working (non-zero) state.
func New(seed uint64) Rand {
	s := seed*0x9e3779b97f4a7c15 + 0x6a09e667f3bcc909
	if s == 0 {
		s = 1
	}
	return Rand{s}
}

// Uint64 returns the next number of the sequence.
func (r *Rand) Uint64() uint64 {
	r.s ^= r.s << 13
	r.s ^= r.s >> 7
	r.s ^= r.s << 17
	return r.s
}

// N returns a number in [0, n); 0 when n is 0. The modulo's bias is below
// n / 2^64, nothing a test or a timing could see.
func (r *Rand) N(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	return r.Uint64() % n
}
