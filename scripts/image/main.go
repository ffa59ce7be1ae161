// Command image writes Kalends' container image as an OCI archive, without
// a container daemon (package ociimage says what the image holds):
//
//	go run ./scripts/image -bin-amd64 dist/kalends-V-linux-amd64 \
//	  -bin-arm64 dist/kalends-V-linux-arm64 -version V -commit C \
//	  -date 2026-01-02T03:04:05Z -out dist/kalends-V-oci.tar
//
// scripts/release.sh runs it when it built both linux binaries.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/kalends/kalends/scripts/image/ociimage"
)

func main() {
	var o ociimage.Options
	var date string
	flag.StringVar(&o.AMD64, "bin-amd64", "", "static linux/amd64 binary")
	flag.StringVar(&o.ARM64, "bin-arm64", "", "static linux/arm64 binary")
	flag.StringVar(&o.CABundle, "ca", "/etc/ssl/certs/ca-certificates.crt", "CA bundle (PEM) copied into the image")
	flag.StringVar(&o.Version, "version", "", "version (label and reference name)")
	flag.StringVar(&o.Commit, "commit", "", "git commit (label)")
	flag.StringVar(&date, "date", "", "the commit's date, RFC 3339: every time in the archive")
	flag.StringVar(&o.Source, "source", "https://github.com/kalends/kalends", "repository URL (label; empty leaves it out)")
	flag.StringVar(&o.Out, "out", "", "OCI archive to write")
	flag.Parse()
	if flag.NArg() > 0 || o.Out == "" || date == "" {
		fmt.Fprintln(os.Stderr, "usage: image -bin-amd64 FILE -bin-arm64 FILE -version V -commit C -date RFC3339 -out FILE.tar [-ca FILE]")
		os.Exit(2)
	}
	t, err := time.Parse(time.RFC3339, date)
	if err != nil {
		fmt.Fprintf(os.Stderr, "image: -date %q is not RFC 3339 (2026-01-02T03:04:05Z): %v\n", date, err)
		os.Exit(2)
	}
	o.Created = t
	digest, err := ociimage.Build(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%s: index %s\n", o.Out, digest)
}
