//go:build !linux || android

package main

// warnNoGLXInfo is only needed where Ebitengine chooses GLX or EGL by
// running glxinfo (glx_linux.go).
func warnNoGLXInfo(func(format string, args ...any)) {}
