package main

// addProfileCommand adds no cpuprofile command: the browser build writes
// no files (profile.go has it).
func (g *game) addProfileCommand() { g.profileStop = func() {} }
