// Command dist packs the release archives of `make dist` and checks the
// Windows binaries, with the standard library only, so that neither zip
// nor any other Debian package is needed to build a release.
//
// Usage:
//
//	dist archive [-mtime UNIX] OUT SRC
//	dist sums DIR
//	dist subsystem [-want gui|console] FILE.exe
//
// archive writes the files under the folder SRC into OUT, a .zip or a
// .tar.gz by its name, under one top folder named as OUT without its
// extension, so that unpacking gives one folder. Entries are in lexical
// order, with the time -mtime (seconds since 1970; default: now) and mode
// 0755 for files with an execute bit, else 0644: the same tree and time
// give the same archive.
//
// sums writes DIR/SHA256SUMS: one "HASH  NAME" line for each .zip and
// .tar.gz in DIR, as sha256sum prints them (check: cd DIR && sha256sum -c
// SHA256SUMS).
//
// subsystem prints the PE subsystem of a Windows executable (gui or
// console, else its number) and, with -want, fails unless it is that one:
// a client built without -H=windowsgui opens a console window beside the
// game.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "archive":
		fs := flag.NewFlagSet("archive", flag.ExitOnError)
		mtime := fs.Int64("mtime", time.Now().Unix(), "time of every entry, in seconds since 1970")
		_ = fs.Parse(args)
		if fs.NArg() != 2 {
			usage()
		}
		err = archive(fs.Arg(0), fs.Arg(1), time.Unix(*mtime, 0))
	case "sums":
		if len(args) != 1 {
			usage()
		}
		err = sums(args[0])
	case "subsystem":
		fs := flag.NewFlagSet("subsystem", flag.ExitOnError)
		want := fs.String("want", "", "fail unless the subsystem is this one (gui or console)")
		_ = fs.Parse(args)
		if fs.NArg() != 1 {
			usage()
		}
		var got string
		if got, err = subsystem(fs.Arg(0)); err == nil {
			fmt.Printf("%s: %s subsystem\n", fs.Arg(0), got)
			if *want != "" && got != *want {
				err = fmt.Errorf("%s: %s subsystem, want %s", fs.Arg(0), got, *want)
			}
		}
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprint(os.Stderr, `usage:
  dist archive [-mtime UNIX] OUT.zip|OUT.tar.gz SRCDIR
  dist sums DIR
  dist subsystem [-want gui|console] FILE.exe
`)
	os.Exit(2)
}
