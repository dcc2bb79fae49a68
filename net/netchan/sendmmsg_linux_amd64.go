//go:build linux && amd64

package netchan

// sysSENDMMSG is sendmmsg(2)'s number; package syscall lacks it here.
const sysSENDMMSG = 307
