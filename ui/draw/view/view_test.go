package view

import (
	"math"
	"testing"
)

func TestAimAngle(t *testing.T) {
	tests := []struct {
		name   string
		dx, dy float64
		want   int32
	}{
		{"right", 1, 0, 0},
		{"down", 0, 1, 16384},
		{"left", -1, 0, 32768},
		{"up", 0, -1, 49152},
		{"zero", 0, 0, 0},
		{"nan", math.NaN(), 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AimAngle(tt.dx, tt.dy); got != tt.want {
				t.Errorf("AimAngle(%v, %v) = %d, want %d", tt.dx, tt.dy, got, tt.want)
			}
			if tt.name == "zero" || tt.name == "nan" {
				return
			}
			x, y := AimVector(tt.want)
			if math.Abs(x-tt.dx) > 1e-9 || math.Abs(y-tt.dy) > 1e-9 {
				t.Errorf("AimVector(%d) = %v, %v", tt.want, x, y)
			}
		})
	}
}

func TestViewRoundTrip(t *testing.T) {
	v := View{CX: 500, CY: 300, Scale: 1.5, W: 1280, H: 720}
	if x, y := v.ToScreen(500, 300); x != 640 || y != 360 {
		t.Fatalf("camera centre at %v,%v, want the screen centre", x, y)
	}
	x, y := v.ToWorld(v.ToScreen(123, -45))
	if math.Abs(x-123) > 1e-9 || math.Abs(y+45) > 1e-9 {
		t.Fatalf("round trip gave %v,%v", x, y)
	}
}

func TestCameraFollow(t *testing.T) {
	var c Camera
	c.Follow(100, 100, 0.016)
	if c.X != 100 || c.Y != 100 {
		t.Fatalf("first follow must jump: %v,%v", c.X, c.Y)
	}
	c.Follow(200, 100, 0.016)
	if !(c.X > 100 && c.X < 200) {
		t.Fatalf("camera at %v, want between 100 and 200", c.X)
	}
	// Two half steps equal one whole step: independent of frame rate.
	a, b := Camera{X: 0, Valid: true}, Camera{X: 0, Valid: true}
	a.Follow(100, 0, 0.032)
	b.Follow(100, 0, 0.016)
	b.Follow(100, 0, 0.016)
	if math.Abs(a.X-b.X) > 1e-9 {
		t.Fatalf("frame-rate dependent: %v vs %v", a.X, b.X)
	}
	c.Follow(5000, 100, 0.016)
	if c.X != 5000 {
		t.Fatalf("far target must snap, camera at %v", c.X)
	}
}

func TestClockText(t *testing.T) {
	tests := []struct {
		ms   int32
		want string
	}{{0, "0:00"}, {-5, "0:00"}, {59999, "0:59"}, {600000, "10:00"}, {61000, "1:01"}}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := string(ClockText(nil, tt.ms)); got != tt.want {
				t.Errorf("ClockText(%d) = %q, want %q", tt.ms, got, tt.want)
			}
		})
	}
}
