package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/kalends/kalends/models"
)

// commit and date are set at build time with version (make release):
// -X main.commit=<full hash> -X main.date=<RFC 3339, the commit's time>.
// A plain `go build` in a checkout falls back to the VCS stamp Go records.
var (
	commit = ""
	date   = ""
)

// buildInfo returns the commit and build date linked in, or those of Go's
// VCS stamp, or "unknown".
func buildInfo() (rev, built string) {
	rev, built = commit, date
	if bi, ok := debug.ReadBuildInfo(); ok {
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if rev == "" {
					rev = s.Value
				}
			case "vcs.time":
				if built == "" {
					built = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified && commit == "" && rev != "" {
			rev += " (modified)"
		}
	}
	if rev == "" {
		rev = "unknown"
	}
	if built == "" {
		built = "unknown"
	}
	return rev, built
}

// printVersion writes `kalends version`: the version alone on the first
// line (for scripts), then the commit, the build date, the Go version and
// platform, and the newest migration this binary has (its schema level).
func printVersion(w io.Writer) {
	rev, built := buildInfo()
	_, _ = fmt.Fprintf(w, "%s\ncommit: %s\nbuilt: %s\ngo: %s %s/%s\nschema: %s\n",
		version, rev, built, runtime.Version(), runtime.GOOS, runtime.GOARCH, models.SchemaLevel())
}
