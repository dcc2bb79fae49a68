package bg

// Weapon timing (PM_BeginWeaponChange / PM_FinishWeaponChange), ms.
const (
	WeaponDropTime  = 200
	WeaponRaiseTime = 250
)

// WeaponInfo describes a weapon: what both sides need to time it, and what
// the game needs to fire it. Damage values are the game's; they live here
// so that the client can show them and tests can read them.
type WeaponInfo struct {
	Name     string
	FireTime int32 // ms between shots
	Damage   int32 // per hit (per pellet/bullet)
	Splash   int32 // splash damage at the centre, 0 for none
	Radius   int32 // splash radius, units
	Speed    int32 // projectile speed, units/s (0 for hitscan or melee)
	Range    int32 // hitscan or melee reach, units
	Ammo     int32 // ammo given with the weapon; -1 unlimited
	MaxAmmo  int32
}

// Weapons is the weapon table, indexed by WP constant.
var Weapons = [NumWeapons]WeaponInfo{
	WPNone:            {Name: "none"},
	WPGauntlet:        {Name: "Gauntlet", FireTime: 400, Damage: 50, Range: Px(40), Ammo: -1, MaxAmmo: -1},
	WPMachinegun:      {Name: "Machinegun", FireTime: 100, Damage: 7, Range: Px(2000), Ammo: 100, MaxAmmo: 200},
	WPGrenadeLauncher: {Name: "Grenade Launcher", FireTime: 800, Damage: 100, Splash: 100, Radius: Px(150), Speed: Px(700), Ammo: 10, MaxAmmo: 50},
	WPRocketLauncher:  {Name: "Rocket Launcher", FireTime: 800, Damage: 100, Splash: 100, Radius: Px(120), Speed: Px(900), Ammo: 10, MaxAmmo: 50},
	WPRailgun:         {Name: "Railgun", FireTime: 1500, Damage: 100, Range: Px(4000), Ammo: 10, MaxAmmo: 50},
}

// Item types (Quake III's itemType_t).
const (
	ITBad = iota
	ITWeapon
	ITAmmo
	ITArmor
	ITHealth
	ITPowerup
)

// Item is one entry of the item table (Quake III's gitem_t).
type Item struct {
	Class    string // map classname
	Name     string // pickup name
	Type     int32
	Tag      int32 // weapon or powerup number
	Quantity int32 // ammo, health, armor points, or powerup seconds
	Respawn  int32 // seconds until it comes back
}

// Items is the item table; an item's number is its index (ModelIndex on
// the wire). Index 0 is no item.
var Items = []Item{
	{},
	{Class: "item_health", Name: "25 Health", Type: ITHealth, Quantity: 25, Respawn: 30},
	{Class: "item_health_mega", Name: "Mega Health", Type: ITHealth, Quantity: 100, Respawn: 35},
	{Class: "item_armor_shard", Name: "Armor Shard", Type: ITArmor, Quantity: 5, Respawn: 25},
	{Class: "item_armor_body", Name: "Heavy Armor", Type: ITArmor, Quantity: 100, Respawn: 25},
	{Class: "weapon_machinegun", Name: "Machinegun", Type: ITWeapon, Tag: WPMachinegun, Quantity: 40, Respawn: 5},
	{Class: "weapon_grenadelauncher", Name: "Grenade Launcher", Type: ITWeapon, Tag: WPGrenadeLauncher, Quantity: 10, Respawn: 5},
	{Class: "weapon_rocketlauncher", Name: "Rocket Launcher", Type: ITWeapon, Tag: WPRocketLauncher, Quantity: 10, Respawn: 5},
	{Class: "weapon_railgun", Name: "Railgun", Type: ITWeapon, Tag: WPRailgun, Quantity: 10, Respawn: 5},
	{Class: "ammo_bullets", Name: "Bullets", Type: ITAmmo, Tag: WPMachinegun, Quantity: 50, Respawn: 20},
	{Class: "ammo_grenades", Name: "Grenades", Type: ITAmmo, Tag: WPGrenadeLauncher, Quantity: 5, Respawn: 20},
	{Class: "ammo_rockets", Name: "Rockets", Type: ITAmmo, Tag: WPRocketLauncher, Quantity: 5, Respawn: 20},
	{Class: "ammo_slugs", Name: "Slugs", Type: ITAmmo, Tag: WPRailgun, Quantity: 10, Respawn: 20},
	{Class: "item_quad", Name: "Quad Damage", Type: ITPowerup, Tag: PWQuad, Quantity: 30, Respawn: 120},
}

// ItemByClass returns the number of the item with classname class, or 0.
func ItemByClass(class string) int32 {
	for i := 1; i < len(Items); i++ {
		if Items[i].Class == class {
			return int32(i)
		}
	}
	return 0
}

// CanItemBeGrabbed reports whether a player in state ps would take item
// number item (BG_CanItemBeGrabbed): full health, armor or ammo refuse.
func CanItemBeGrabbed(item int32, ps *PlayerState) bool {
	if item <= 0 || int(item) >= len(Items) || ps.PmType != PMNormal {
		return false
	}
	it := &Items[item]
	switch it.Type {
	case ITWeapon:
		return true
	case ITAmmo:
		max := Weapons[it.Tag].MaxAmmo
		return max < 0 || ps.Ammo[it.Tag] < max
	case ITArmor:
		return ps.Stats[StatArmor] < 2*ps.Stats[StatMaxHealth]
	case ITHealth:
		if it.Quantity >= 100 { // mega health stacks to twice the maximum
			return ps.Stats[StatHealth] < 2*ps.Stats[StatMaxHealth]
		}
		return ps.Stats[StatHealth] < ps.Stats[StatMaxHealth]
	case ITPowerup:
		return true
	}
	return false
}

// ItemBox is the half-size of an item's pickup box, units.
const ItemBox = 16 * UnitsPerPixel

// PlayerTouchesItem reports whether a player at origin touches an item
// whose trajectory puts it at itemPos (BG_PlayerTouchesItem).
func PlayerTouchesItem(origin, itemPos Vec, p *Params) bool {
	if p == nil {
		p = &DefaultParams
	}
	return origin.X+p.Maxs.X > itemPos.X-ItemBox && origin.X+p.Mins.X < itemPos.X+ItemBox &&
		origin.Y+p.Maxs.Y > itemPos.Y-ItemBox && origin.Y+p.Mins.Y < itemPos.Y+ItemBox
}

// PlayerStateToEntityState fills es with what other clients see of the
// player in ps (BG_PlayerStateToEntityState). The player's latest
// predictable or external event is copied when it is newer than what es
// last showed; lastEvent tracks that (the game keeps one per client).
func PlayerStateToEntityState(ps *PlayerState, es *EntityState, lastEvent *int32) {
	es.Number = ps.ClientNum
	es.ClientNum = ps.ClientNum
	es.EType = ETPlayer
	if ps.PmType == PMSpectator || ps.PmType == PMIntermission {
		es.EType = ETGeneral // invisible
	}
	es.Pos = Trajectory{Type: TrInterpolate, Base: ps.Origin, Delta: ps.Velocity}
	es.Aim = EntityAim(ps.Aim)
	es.EFlags = ps.EFlags
	if ps.PmType == PMDead {
		es.EFlags |= EFDead
	}
	es.Weapon = ps.Weapon
	es.Powerups = 0
	for i := int32(1); i < NumPowerups; i++ {
		if ps.Powerups[i] != 0 {
			es.Powerups |= 1 << i
		}
	}
	if ps.ExternalEvent != 0 {
		es.Event = ps.ExternalEvent
		es.EventParm = ps.ExternalEventParm
	} else if *lastEvent != ps.EventSequence {
		seq := (ps.EventSequence - 1) & (MaxPSEvents - 1)
		es.Event = ps.Events[seq] | (ps.EventSequence&3)<<EventBitsShift
		es.EventParm = ps.EventParms[seq]
		*lastEvent = ps.EventSequence
	}
}
