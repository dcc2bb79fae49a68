//go:build linux && !android

package main

import "os/exec"

// warnNoGLXInfo tells the player when glxinfo is missing. Ebitengine
// (v2.8, on Linux) runs glxinfo to decide between GLX and EGL for its
// OpenGL ES context and takes EGL when it cannot. Under Mesa's software
// renderer (Xvfb, a machine without a GPU driver) EGL copies every
// finished frame to the X server through its socket, where GLX shares it
// through MIT-SHM: on a 2-core machine the 16-player match ran at about 30
// frames a second instead of 90 (docs/PERFORMANCE.md).
func warnNoGLXInfo(printf func(format string, args ...any)) {
	if _, err := exec.LookPath("glxinfo"); err != nil {
		printf("client: glxinfo not found (Debian and Ubuntu: apt install mesa-utils): Ebitengine will draw through EGL, which under software OpenGL runs at about a third of the frame rate\n")
	}
}
