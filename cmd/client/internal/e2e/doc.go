// Package e2e holds the end-to-end test of the Tremor client window: it
// builds cmd/client and runs a scripted match under xvfb-run. It is a
// package of its own because a test binary that links Ebitengine cannot
// start without a display (Ebitengine initialises its window system in an
// init function), and the window test must run, and skip, anywhere.
package e2e
