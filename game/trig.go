package game

import "math/bits"

//go:generate go run gen_trig.go

// Integer trigonometry. Angles are aim angles: 1/65536 turns, 0 pointing
// right, growing clockwise on a screen whose y axis points down, so 16384
// points down and 49152 up. Results are 16.16 fixed point (One = 1.0).
// Everything is integer arithmetic on a generated table, so every machine
// computes the same shots.

// One is 1.0 in the 16.16 fixed point of Sin and Cos.
const One = 1 << 16

// sinTableLen is the number of table steps in a quarter turn.
const sinTableLen = 256

// quarterSin returns sin(a) for 0 <= a <= 16384 (a quarter turn),
// interpolating linearly between table entries 64 angle steps apart.
func quarterSin(a int32) int32 {
	i, f := a>>6, a&63
	if f == 0 {
		return sinTable[i]
	}
	return sinTable[i] + (sinTable[i+1]-sinTable[i])*f/64
}

// Sin returns the sine of aim angle a in 16.16 fixed point.
func Sin(a int32) int32 {
	a &= 0xffff
	switch a >> 14 {
	case 0:
		return quarterSin(a)
	case 1:
		return quarterSin(32768 - a)
	case 2:
		return -quarterSin(a - 32768)
	default:
		return -quarterSin(65536 - a)
	}
}

// Cos returns the cosine of aim angle a in 16.16 fixed point.
func Cos(a int32) int32 { return Sin(a + 16384) }

// Angle returns the aim angle of the vector (x, y), y down: the inverse of
// (Cos, Sin), to within a step of the table. Angle(0, 0) is 0.
func Angle(x, y int64) int32 {
	if x == 0 && y == 0 {
		return 0
	}
	ax, ay := x, y
	if ax < 0 {
		ax = -ax
	}
	if ay < 0 {
		ay = -ay
	}
	// Binary search the first quarter for tan θ = ay/ax, comparing
	// ay·cos θ with ax·sin θ (both sides scaled by the same One).
	lo, hi := int32(0), int32(16384)
	for lo < hi {
		mid := (lo + hi) / 2
		if ay*int64(quarterSin(16384-mid)) > ax*int64(quarterSin(mid)) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	switch {
	case x >= 0 && y >= 0:
		return lo
	case x < 0 && y >= 0:
		return 32768 - lo
	case x < 0:
		return 32768 + lo
	default:
		return (65536 - lo) & 0xffff
	}
}

// Dir returns the unit vector of aim angle a scaled to length n (units
// or units/s), rounded to the nearest integer.
func Dir(a, n int32) (x, y int32) {
	return mulOne(n, Cos(a)), mulOne(n, Sin(a))
}

// mulOne returns n·f/One rounded to nearest, halves away from zero.
func mulOne(n, f int32) int32 {
	p := int64(n) * int64(f)
	if p >= 0 {
		return int32((p + One/2) >> 16)
	}
	return -int32((-p + One/2) >> 16)
}

// isqrt returns the integer square root of n >= 0 (the largest r with
// r·r <= n).
func isqrt(n int64) int64 {
	if n <= 0 {
		return 0
	}
	// Newton's iteration from a power of two at or above the root
	// decreases monotonically to it.
	r := int64(1) << ((bits.Len64(uint64(n)) + 1) / 2)
	for {
		s := (r + n/r) / 2
		if s >= r {
			break
		}
		r = s
	}
	return r
}

// scaleTo returns the vector (x, y) scaled to length n, rounded toward
// zero; the zero vector stays zero.
func scaleTo(x, y int64, n int64) (int32, int32) {
	l := isqrt(x*x + y*y)
	if l == 0 {
		return 0, 0
	}
	return int32(x * n / l), int32(y * n / l)
}
