package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

const packUsage = `Usage: murmur-eval pack ARTIFACT_DIR... --store DIR

Packs each artifact folder (its murmur.yaml and requires_files) into a
.mur.zip, as 'mur build' does, and puts it in a murmur artifact store
(<DIR>/<name>/<version>/<name>-<version>.mur.zip with its .sha256 and
.meta.json), as 'mur install' would. A capsule's project store is
<capsule>/.murmur/artifacts.
`

func runPack(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("murmur-eval pack", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, packUsage); fs.PrintDefaults() }
	store := fs.String("store", "", "artifact store to put the packed artifacts in (required)")
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if *store == "" || fs.NArg() == 0 {
		fmt.Fprintln(stderr, errcode.Format(errcode.New(errcode.Usage, "pack needs ARTIFACT_DIR and --store DIR").
			WithHint("murmur-eval pack tools/calc --store .murmur/artifacts")))
		return exitUsage
	}
	for _, dir := range fs.Args() {
		zip, m, err := capsule.Pack(dir)
		if err == nil {
			var path string
			if path, err = capsule.Publish(*store, zip, m); err == nil {
				fmt.Fprintf(stdout, "packed %s@%s -> %s\n", m.Name, m.Version, path)
				continue
			}
		}
		fmt.Fprintln(stderr, errcode.Format(err))
		return exitUsage
	}
	return exitOK
}
