// Command kalends is the Kalends server and its administration commands:
// serve (the default), migrate, recount, user create, app-password create, version.
// main only parses the command line; every dependency is built in run (serve)
// or in the command's own function and passed down.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	_ "time/tzdata" // --timezone must work on machines without zone files
)

// version is set at build time: go build -ldflags "-X main.version=1.2.3".
var version = "dev"

// Exit codes: 0 success, 1 the command failed, 2 bad command line or
// configuration.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	go func() {
		// After the first signal, restore the default handling so a second
		// one ends a shutdown that hangs.
		<-ctx.Done()
		stop()
	}()
	code := cli(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop() // os.Exit runs no deferred calls
	os.Exit(code)
}

// command is a parsed command line.
type command struct {
	name string // "serve", "migrate", "recount", "reindex", "user create", "app-password create", "version"
	cfg  *Config
	set  *settings
	// flags of user create and app-password create
	login, password, role, email, displayName, appName string
	// flags of seed
	seed seedFlags
	// flags and argument of export and import
	format, to, file string
	// flags of a CSV export or import: the kind of record, the encoding,
	// and (import) the order of dates with the year last and a dry run
	kind, encoding, dateOrder string
	dryRun                    bool
	// flags and argument of import tec
	tec tecFlags
	// flags and argument of webhook add, remove and rotate
	events, description, webhookArg string
}

const usageText = `Kalends: a self-hosted events calendar with a TEC-compatible JSON API.

Usage:
  kalends [options] [serve]      migrate the database, then serve the API, the admin and the assets
  kalends [options] migrate      apply pending migrations and exit
  kalends [options] seed [--events N] [--seed S] [...]
                                 write deterministic demo data (realistic links, translations, four
                                 languages); 'kalends seed -h' lists every option
  kalends [options] recount      recompute the event counts of categories and tags from the links, and
                                 the day counts behind list totals (X-WP-Total) from the events (they are
                                 kept by every write; this repairs changes made outside Kalends), and
                                 says whether the search index of events is in step
  kalends [options] reindex      rebuild the search index of events from their text
  kalends [options] user create --login L --password P --role R [--email E] [--display-name N]
                                 create a user and print its id
  kalends [options] app-password create --login L [--name N]
                                 create an application password and print it alone on stdout
  kalends [options] export [--format ics|json|csv] [--kind K] [--encoding E] [--to FILE]
                                 ics: the published events as iCalendar; json: the whole site (every
                                 record, translation, user and image) to move it to another database;
                                 csv: the events (or --kind venues|organizers) but the trashed, for a
                                 spreadsheet, UTF-8 with a BOM unless --encoding shift_jis, gb18030,
                                 big5, euc-kr, utf-8 or utf-16le (stdout by default; the format
                                 follows the file name's extension)
  kalends [options] import [--format ics|json|csv] [--login L] FILE
                                 ics: create or update events (matched by UID), venues, organizers and
                                 categories, in one transaction, as user L (default: the first
                                 administrator); json: load a site export into a new, empty database
                                 (ids kept); csv: events (or --kind venues|organizers) from a spreadsheet
                                 (TEC's columns or ours), each row on its own, matched by title, start
                                 and venue (by name) ([--encoding E] [--date-order mdy|dmy] [--dry-run]);
                                 prints what it did
  kalends [options] import tec [--namespace NS] [--auth LOGIN:APP-PASSWORD] [--login L] [--dry-run]
                                 [--overwrite] [--concurrency N] [--allow-private-addresses]
                                 [--insecure-http] URL
                                 copy a whole calendar from a running The Events Calendar site (URL is
                                 its REST root, https://example.org/wp-json), or from another Kalends
                                 with --namespace cal/events/v1; a second run updates what the first
                                 brought ('kalends import tec -h' lists every option)
  kalends [options] backup --to FILE
                                 copy the SQLite database, consistent and checked, while it serves
  kalends [options] webhook add URL [--events event.created,…] [--description D]
                                 register a webhook endpoint (every type when --events is not given:
                                 event, venue, organizer, category, tag or media, then .created,
                                 .updated or .removed) and print its secret, once
  kalends [options] webhook list list the webhook endpoints
  kalends [options] webhook remove ID
                                 delete a webhook endpoint and its deliveries
  kalends [options] webhook rotate ID
                                 give a webhook endpoint a new secret and print it once (the old
                                 one keeps signing deliveries for 24 hours)
  kalends [options] restore FILE
                                 check a backup and make it the SQLite database of --db (a database
                                 there is kept beside it; refused while a server runs on it)
  kalends version                print the version, commit, build date, Go version and schema level

Roles: subscriber, contributor, author, editor, administrator.

`

// cli runs one command line and returns the process exit code.
func cli(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cmd, err := parseCommand(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "kalends: %v\n", err)
		_, _ = fmt.Fprintln(stderr, "Run 'kalends -h' for usage.")
		return exitUsage
	}
	if cmd.name == "version" {
		printVersion(stdout)
		return exitOK
	}
	logger := newLogger(cmd.cfg.LogFormat, stderr)
	switch cmd.name {
	case "serve":
		logger.Info("kalends: starting", append([]any{"version", version}, cmd.set.redacted()...)...)
		err = run(ctx, cmd.cfg, logger)
	case "migrate":
		err = runMigrate(ctx, cmd.cfg, logger)
	case "recount":
		err = runRecount(ctx, cmd.cfg, stdout, logger)
	case "reindex":
		err = runReindex(ctx, cmd.cfg, stdout, logger)
	case "seed":
		err = runSeed(ctx, cmd, stdout, logger)
	case "user create":
		err = runUserCreate(ctx, cmd, stdout, logger)
	case "app-password create":
		err = runAppPasswordCreate(ctx, cmd, stdout, logger)
	case "export":
		err = runExport(ctx, cmd, stdout, logger)
	case "import":
		err = runImport(ctx, cmd, stdout, logger)
	case "import tec":
		err = runImportTec(ctx, cmd, stdout, stderr, logger)
	case "backup":
		err = runBackup(ctx, cmd, stdout, logger)
	case "restore":
		err = runRestore(ctx, cmd, stdout, logger)
	case "webhook add", "webhook list", "webhook remove", "webhook rotate":
		err = runWebhook(ctx, cmd, stdout, logger)
	}
	if err != nil {
		msg := cliMessage(err)
		if cmd.cfg.LogFormat == "json" {
			logger.Error("kalends: "+cmd.name+" failed", "err", msg)
		} else {
			_, _ = fmt.Fprintf(stderr, "kalends: %s: %s\n", cmd.name, msg)
		}
		// A value the command refused (a role that does not exist, a short
		// password) is a usage error: exit 2 and say where help is.
		var ue *usageError
		if errors.As(err, &ue) {
			if cmd.cfg.LogFormat != "json" {
				_, _ = fmt.Fprintf(stderr, "Run 'kalends %s -h' for usage.\n", cmd.name)
			}
			return exitUsage
		}
		return exitFail
	}
	return exitOK
}

// usageError is a command-line value a command refused; cli exits 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// packagePrefix matches the "models: " and like prefixes Go errors carry
// from the packages they passed through.
var packagePrefix = regexp.MustCompile(`\b(models|api|web|migrations|kalends|sql|bun): `)

// cliMessage is an error as the command line shows it: the sentence, not
// the packages it came through.
func cliMessage(err error) string {
	return packagePrefix.ReplaceAllString(err.Error(), "")
}

// newLogger builds the one logger of the process.
func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// parseCommand reads the command line: options may come before the command
// word or after it; each command has its own flags besides the options.
func parseCommand(args []string, getenv func(string) string, stderr io.Writer) (*command, error) {
	s := newSettings()
	args = joinBoolValues(args)
	usage := func(fs *flag.FlagSet) func() {
		return func() {
			_, _ = fmt.Fprint(stderr, usageText)
			printOptions(stderr)
			if fs.Name() != "kalends" {
				_, _ = fmt.Fprintf(stderr, "\nFlags of %s:\n", fs.Name())
				fs.VisitAll(func(f *flag.Flag) {
					switch f.Value.(type) {
					case flagValue, boolFlagValue: // an option, listed above
					default:
						_, _ = fmt.Fprintf(stderr, "  --%-18s %s\n", f.Name, f.Usage)
					}
				})
			}
		}
	}
	global := flag.NewFlagSet("kalends", flag.ContinueOnError)
	global.SetOutput(io.Discard)
	global.Usage = usage(global)
	s.addFlags(global)
	// On -h the flag package prints the usage itself (once).
	if err := global.Parse(args); err != nil {
		return nil, err
	}
	rest := global.Args()
	cmd := &command{name: "serve", set: s}
	if len(rest) > 0 {
		cmd.name, rest = rest[0], rest[1:]
		if cmd.name == "import" && len(rest) > 0 && rest[0] == "tec" {
			cmd.name, rest = "import tec", rest[1:]
		}
		if cmd.name == "webhook" {
			if len(rest) == 0 || (rest[0] != "add" && rest[0] != "list" && rest[0] != "remove" && rest[0] != "rotate") {
				return nil, fmt.Errorf("unknown command %q: did you mean 'webhook add', 'webhook list', 'webhook remove' or 'webhook rotate'?", strings.Join(append([]string{"webhook"}, rest[:min(len(rest), 1)]...), " "))
			}
			cmd.name, rest = "webhook "+rest[0], rest[1:]
		}
		if cmd.name == "user" || cmd.name == "app-password" {
			if len(rest) == 0 || rest[0] != "create" {
				got := cmd.name
				if len(rest) > 0 {
					got += " " + rest[0]
				}
				return nil, fmt.Errorf("unknown command %q: did you mean '%s create'?", got, cmd.name)
			}
			cmd.name, rest = cmd.name+" create", rest[1:]
		}
	}
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = usage(fs)
	switch cmd.name {
	case "serve", "migrate", "recount", "reindex", "version":
	case "user create":
		s.addFlags(fs)
		fs.StringVar(&cmd.login, "login", "", "login of the new user (required)")
		fs.StringVar(&cmd.password, "password", "", "account password, at least 8 characters (required)")
		fs.StringVar(&cmd.role, "role", "", "subscriber, contributor, author, editor or administrator (required)")
		fs.StringVar(&cmd.email, "email", "", "e-mail address")
		fs.StringVar(&cmd.displayName, "display-name", "", "name shown to others (default: the login)")
	case "seed":
		s.addFlags(fs)
		addSeedFlags(fs, &cmd.seed)
	case "app-password create":
		s.addFlags(fs)
		fs.StringVar(&cmd.login, "login", "", "login of the user (required)")
		fs.StringVar(&cmd.appName, "name", "API", "what the password is for, e.g. the client's name")
	case "export", "import":
		s.addFlags(fs)
		fs.StringVar(&cmd.format, "format", "", "ics or json, or csv to export (default: from the file name's extension, else ics)")
		if cmd.name == "export" {
			fs.StringVar(&cmd.to, "to", "", "file to write (default: stdout)")
			fs.StringVar(&cmd.kind, "kind", "", "csv: events, venues or organizers (default: events)")
			fs.StringVar(&cmd.encoding, "encoding", "", "csv: utf-8-bom (default), utf-8, utf-16le, utf-16be, shift_jis, gb18030, big5 or euc-kr")
		} else {
			fs.StringVar(&cmd.login, "login", "", "user the records are written as (default: the first administrator)")
			fs.StringVar(&cmd.kind, "kind", "", "csv: events (default), venues or organizers")
			fs.StringVar(&cmd.encoding, "encoding", "", "csv: the file's encoding when it cannot be told (utf-8, utf-16le, utf-16be, shift_jis, gb18030, big5, euc-kr)")
			fs.StringVar(&cmd.dateOrder, "date-order", "", "csv: mdy (default: 05/03/2026 is May 3) or dmy (5 March)")
			fs.BoolVar(&cmd.dryRun, "dry-run", false, "csv: read and check every row, write nothing")
		}
	case "import tec":
		s.addFlags(fs)
		addTecFlags(fs, cmd)
	case "backup":
		s.addFlags(fs)
		fs.StringVar(&cmd.to, "to", "", "file to write the copy to (required)")
	case "restore", "webhook list", "webhook remove", "webhook rotate":
		s.addFlags(fs)
	case "webhook add":
		s.addFlags(fs)
		fs.StringVar(&cmd.events, "events", "", "the types sent, comma separated, e.g. event.created,event.updated (default: every type)")
		fs.StringVar(&cmd.description, "description", "", "what the endpoint is for")
	default:
		return nil, fmt.Errorf("unknown command %q", cmd.name)
	}
	if cmd.name == "serve" || cmd.name == "migrate" || cmd.name == "recount" || cmd.name == "reindex" {
		s.addFlags(fs)
	}
	args, err := parseInterspersed(fs, rest)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", cmd.name, err)
	}
	switch {
	case (cmd.name == "import" || cmd.name == "restore") && len(args) == 1:
		cmd.file = args[0]
	case cmd.name == "import tec" && len(args) == 1:
		cmd.tec.url = args[0]
	case (cmd.name == "webhook add" || cmd.name == "webhook remove" || cmd.name == "webhook rotate") && len(args) == 1:
		cmd.webhookArg = args[0]
	case len(args) > 0:
		return nil, fmt.Errorf("%s: unexpected argument %q", cmd.name, args[len(args)-1])
	}
	if cmd.name == "version" {
		return cmd, nil
	}
	var missing []string
	switch cmd.name {
	case "user create":
		for _, f := range []struct{ name, v string }{{"login", cmd.login}, {"password", cmd.password}, {"role", cmd.role}} {
			if f.v == "" {
				missing = append(missing, "--"+f.name)
			}
		}
	case "app-password create":
		if cmd.login == "" {
			missing = append(missing, "--login")
		}
	case "import", "restore":
		if cmd.file == "" {
			missing = append(missing, "FILE")
		}
	case "import tec":
		if cmd.tec.url == "" {
			return nil, errNoURL
		}
		tecEnv(cmd, getenv)
	case "webhook add", "webhook remove", "webhook rotate":
		if cmd.webhookArg == "" {
			missing = append(missing, map[bool]string{true: "URL", false: "ID"}[cmd.name == "webhook add"])
		}
	case "backup":
		if cmd.to == "" {
			missing = append(missing, "--to FILE")
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: missing %s", cmd.name, strings.Join(missing, ", "))
	}
	if err := s.fromEnv(getenv); err != nil {
		return nil, err
	}
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	cmd.cfg = cfg
	return cmd, nil
}

// parseInterspersed parses the options of args wherever they stand, before
// or after the command's arguments (kalends webhook add URL --events …, as
// the usage writes it), and returns the arguments. After "--" everything is
// an argument.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var out []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return out, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(out, rest...), nil
		}
		out = append(out, rest[0])
		args = rest[1:]
	}
}

// joinBoolValues writes a true/false option followed by its value as one
// argument (--webhook-allow-private true becomes
// --webhook-allow-private=true): such options may be written alone
// (boolFlagValue), which Go's flag package would otherwise take as the
// whole option and leave the value as an argument. Nothing after "--"
// changes.
func joinBoolValues(args []string) []string {
	bools := map[string]bool{}
	for _, o := range options {
		if o.def == "true" || o.def == "false" {
			bools[o.name] = true
		}
	}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name := strings.TrimLeft(a, "-")
		if strings.HasPrefix(a, "-") && bools[name] && i+1 < len(args) {
			if _, err := strconv.ParseBool(args[i+1]); err == nil {
				out = append(out, a+"="+args[i+1])
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}
