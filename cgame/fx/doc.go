// Package fx decides what the Tremor client shows and plays besides the
// world itself, from the plain data of a cgame frame: which sound an event
// makes and how loud it is where the player stands (Quake III's
// CG_EntityEvent sound choices), the feedback of hits given and taken and
// of pickups (CG_CheckLocalSounds, CG_DamageFeedback, the pickup line of
// CG_DrawPickupItem), where items wait to respawn, and a fixed pool of
// particles.
//
// It imports no graphics or audio library, so every decision is tested
// without a window or a sound card; ui/draw draws what it says and
// ui/sound plays its Sound numbers.
package fx
