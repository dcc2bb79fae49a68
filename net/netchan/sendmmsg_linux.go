//go:build linux && !amd64 && !386

package netchan

import "syscall"

// sysSENDMMSG is sendmmsg(2)'s number.
const sysSENDMMSG = syscall.SYS_SENDMMSG
