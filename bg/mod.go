package bg

// Means of death (Quake III's meansOfDeath_t): the parm of EvObituary and
// EvDeath, here next to the events so that cgame can name them.
const (
	MODUnknown = iota
	MODGauntlet
	MODMachinegun
	MODGrenade
	MODGrenadeSplash
	MODRocket
	MODRocketSplash
	MODRailgun
	MODLava
	MODTelefrag
	MODSuicide
	NumMODs
)

// MODNames are the means of death as the obituary names them.
var MODNames = [NumMODs]string{
	MODUnknown:       "MOD_UNKNOWN",
	MODGauntlet:      "MOD_GAUNTLET",
	MODMachinegun:    "MOD_MACHINEGUN",
	MODGrenade:       "MOD_GRENADE",
	MODGrenadeSplash: "MOD_GRENADE_SPLASH",
	MODRocket:        "MOD_ROCKET",
	MODRocketSplash:  "MOD_ROCKET_SPLASH",
	MODRailgun:       "MOD_RAILGUN",
	MODLava:          "MOD_LAVA",
	MODTelefrag:      "MOD_TELEFRAG",
	MODSuicide:       "MOD_SUICIDE",
}
