package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/safehttp"
	"github.com/kalends/kalends/internal/tecimport"
)

// tecFlags are the flags of kalends import tec URL.
type tecFlags struct {
	url, namespace, auth, authEnv, authFile string
	overwrite, allowPrivate, insecureHTTP   bool
	concurrency                             int
}

// tecImportBackoff is the first wait before a 429 or 5xx answer is asked
// again (0: tecimport's default, a second); the tests make it tiny.
var tecImportBackoff time.Duration

func addTecFlags(fs *flag.FlagSet, cmd *command) {
	f := &cmd.tec
	fs.StringVar(&cmd.login, "login", "", "user the records are written as, and who owns those whose author has no account here (default: the first administrator)")
	fs.StringVar(&f.namespace, "namespace", tecimport.NamespaceTEC, "REST namespace: tribe/events/v1 (The Events Calendar) or cal/events/v1 (another Kalends)")
	fs.StringVar(&f.auth, "auth", "", "login:application-password of an account there, to bring drafts, pending, private and future records too (or KALENDS_IMPORT_AUTH, or a file named by KALENDS_IMPORT_AUTH_FILE, to keep it out of the process list)")
	fs.BoolVar(&cmd.dryRun, "dry-run", false, "read everything and say what an import would do, write nothing")
	fs.BoolVar(&f.overwrite, "overwrite", false, "replace the records edited here since the last import (default: keep them and list them)")
	fs.IntVar(&f.concurrency, "concurrency", 2, "requests in flight at once (1 to 16)")
	fs.BoolVar(&f.allowPrivate, "allow-private-addresses", false, "let the import reach loopback and private addresses (a site on your own network)")
	fs.BoolVar(&f.insecureHTTP, "insecure-http", false, "send the credentials over plain http")
}

// tecEnv reads the credentials' environment variables at parse time.
func tecEnv(cmd *command, getenv func(string) string) {
	cmd.tec.authEnv, cmd.tec.authFile = getenv("KALENDS_IMPORT_AUTH"), getenv("KALENDS_IMPORT_AUTH_FILE")
}

// tecCredentials is the login and password: --auth, else
// KALENDS_IMPORT_AUTH, else the first line of KALENDS_IMPORT_AUTH_FILE.
func tecCredentials(f *tecFlags) (login, password string, ok bool, err error) {
	v := f.auth
	if v == "" {
		v = f.authEnv
	}
	if v == "" && f.authFile != "" {
		b, err := readLimited(f.authFile, 4096)
		if err != nil {
			return "", "", false, fmt.Errorf("KALENDS_IMPORT_AUTH_FILE: %w", err)
		}
		v, _, _ = strings.Cut(string(b), "\n")
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return "", "", false, nil
	}
	login, password, ok = strings.Cut(v, ":")
	if !ok || login == "" || password == "" {
		return "", "", false, &usageError{"the credentials must read login:application-password"}
	}
	return login, password, true, nil
}

// runImportTec copies a calendar from a TEC site (or another Kalends)
// through its REST API, prints the summary, and fails when a record
// failed.
func runImportTec(ctx context.Context, cmd *command, stdout, stderr io.Writer, logger *slog.Logger) error {
	f := &cmd.tec
	if f.concurrency < 1 || f.concurrency > 16 {
		return &usageError{fmt.Sprintf("--concurrency must be from 1 to 16, not %d", f.concurrency)}
	}
	if f.namespace != tecimport.NamespaceTEC && f.namespace != tecimport.NamespaceKalends {
		return &usageError{fmt.Sprintf("--namespace %q: use %s or %s", f.namespace, tecimport.NamespaceTEC, tecimport.NamespaceKalends)}
	}
	root, err := url.Parse(strings.TrimRight(f.url, "/"))
	if err != nil || (root.Scheme != "http" && root.Scheme != "https") || root.Host == "" || root.User != nil {
		return &usageError{fmt.Sprintf("%q is not the address of a site's REST root, like https://example.org/wp-json", f.url)}
	}
	login, password, authed, err := tecCredentials(f)
	if err != nil {
		return err
	}
	cfg := safehttp.Config{AllowPrivate: f.allowPrivate, InsecureHTTP: f.insecureHTTP, UserAgent: "Kalends import"}
	if authed {
		if root.Scheme != "https" && !f.insecureHTTP {
			return &usageError{"credentials go over https only: give an https URL, or --insecure-http"}
		}
		cfg.Auth = &safehttp.Auth{Host: root.Host, User: login, Password: password}
	}
	db, err := openMigrated(ctx, cmd.cfg, logger)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	db.UseMedia(cmd.cfg.mediaStorage())
	u, err := importUser(ctx, db, cmd.login)
	if err != nil {
		return err
	}
	var progress io.Writer
	if file, ok := stderr.(*os.File); ok {
		if st, err := file.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			progress = stderr
		}
	}
	opt := &tecimport.Options{Root: root.String(), Namespace: f.namespace, Client: safehttp.New(cfg), Authed: authed,
		User: u, Lang: i18n.OrSource(siteOf(cmd.cfg).Language()), Languages: i18n.Codes, DryRun: cmd.dryRun,
		Overwrite: f.overwrite, Concurrency: f.concurrency, Backoff: tecImportBackoff,
		MediaMaxBytes: cmd.cfg.mediaMax(), Progress: progress}
	if tecImportBackoff > 0 {
		opt.MaxWait = 20 * tecImportBackoff
	}
	rep, err := tecimport.Run(ctx, db, opt)
	if rep != nil {
		rep.Write(stdout, cmd.dryRun)
	}
	if err != nil {
		return err
	}
	if n := rep.Failures(); n > 0 {
		return fmt.Errorf("%d records failed (listed above); the others were imported", n)
	}
	return nil
}

// errNoURL: kalends import tec without its URL.
var errNoURL = errors.New("import tec: missing URL (the site's REST root, like https://example.org/wp-json)")
