package bg

import "testing"

// EntityAim rounds to the nearest of 1024 steps and wraps past a turn.
func TestEntityAim(t *testing.T) {
	for _, tc := range []struct{ in, want int32 }{
		{0, 0}, {31, 0}, {32, 64}, {64, 64}, {95, 64}, {96, 128},
		{0xffff, 0}, {0xffe0, 0}, {0xffdf, 0xffc0}, {0x8000, 0x8000},
	} {
		if got := EntityAim(tc.in); got != tc.want {
			t.Errorf("EntityAim(%#x) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}
