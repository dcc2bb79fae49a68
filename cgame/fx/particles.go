package fx

// MaxParticles is the size of a Particles pool; a new particle beyond it
// replaces the oldest.
const MaxParticles = 768

// ParticleKind says how a particle is drawn.
type ParticleKind uint8

// Particle kinds.
const (
	ParticleSmoke  ParticleKind = iota // grey puff that grows and fades
	ParticleSpark                      // bright streak along its velocity
	ParticleEmber                      // glowing dot that cools from yellow to red
	ParticleBlood                      // dark red drop, falls
	ParticleDebris                     // small grey chip, falls
	ParticleRail                       // blue glow of a rail trail, drifts
	ParticleFlash                      // a short additive glow
)

// Particle is one particle, in world pixels and seconds.
type Particle struct {
	X, Y, VX, VY float32
	Size, Grow   float32 // radius, px; px per second
	Gravity      float32 // px/s²; negative rises
	Drag         float32 // fraction of velocity lost per second, in [0, 1)
	Age, Life    float32 // seconds
	Kind         ParticleKind
	Tint         uint8 // a kind-specific variation (weapon, client colour)
}

// Particles is a fixed pool of particles. The zero value is empty and
// ready; it never allocates.
type Particles struct {
	p    [MaxParticles]Particle
	n    int // live particles in p[:n]
	next int // where the next one goes when full
}

// Len returns the number of live particles.
func (ps *Particles) Len() int { return ps.n }

// Live returns the live particles; valid until the next Add or Step.
func (ps *Particles) Live() []Particle { return ps.p[:ps.n] }

// Add adds a particle; when the pool is full it replaces one, oldest
// first.
func (ps *Particles) Add(p Particle) {
	if p.Life <= 0 {
		return
	}
	if ps.n < MaxParticles {
		ps.p[ps.n] = p
		ps.n++
		return
	}
	ps.p[ps.next] = p
	ps.next = (ps.next + 1) % MaxParticles
}

// Clear removes every particle.
func (ps *Particles) Clear() { ps.n, ps.next = 0, 0 }

// Step advances every particle by dt seconds and removes the dead ones.
// A negative, NaN or huge dt (a stall) is clamped to a tenth of a second.
func (ps *Particles) Step(dt float32) {
	if !(dt > 0) {
		return
	}
	dt = min(dt, 0.1)
	for i := 0; i < ps.n; {
		p := &ps.p[i]
		p.Age += dt
		if p.Age >= p.Life {
			ps.n--
			ps.p[i] = ps.p[ps.n]
			continue
		}
		k := 1 - p.Drag*dt
		p.VX *= k
		p.VY = p.VY*k + p.Gravity*dt
		p.X += p.VX * dt
		p.Y += p.VY * dt
		p.Size = max(p.Size+p.Grow*dt, 0)
		i++
	}
	if ps.next >= ps.n {
		ps.next = 0
	}
}

// Rand is a small xorshift generator for effects: deterministic, no
// allocation, not for anything that matters. The zero Rand is seeded.
type Rand struct{ s uint32 }

// Uint32 returns the next number.
func (r *Rand) Uint32() uint32 {
	if r.s == 0 {
		r.s = 0x9e3779b9
	}
	r.s ^= r.s << 13
	r.s ^= r.s >> 17
	r.s ^= r.s << 5
	return r.s
}

// Float returns a number in [0, 1).
func (r *Rand) Float() float32 { return float32(r.Uint32()>>8) / (1 << 24) }

// Range returns a number in [lo, hi).
func (r *Rand) Range(lo, hi float32) float32 { return lo + (hi-lo)*r.Float() }
