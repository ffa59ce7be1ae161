package main

import (
	"github.com/kalends/kalends/models"

	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kalends/kalends/i18n"
)

// envPrefix starts the environment variable of every option.
const envPrefix = "KALENDS_"

// Config is the validated configuration of one run. It is built by
// loadConfig from the option table; nothing reads flags or the environment
// afterwards.
type Config struct {
	Addr            string
	DB              string
	BaseURL         string // without trailing slash
	Timezone        string
	Location        *time.Location // loaded from Timezone by Validate
	DefaultLanguage string
	MaxPerPage      int
	// The site's currency: for costs whose event and text name none.
	CurrencySymbol, CurrencyCode, CurrencyPosition string
	AdminLogin                                     string
	AdminPassword                                  string
	CORSOrigins                                    []string
	// EmbedOrigins may frame the embeds (exact origins, or "*").
	EmbedOrigins []string
	LogFormat    string
	// CacheSize is the byte bound of the API's response cache (0: none);
	// CacheCheck how often each instance reads the cache generation.
	CacheSize  int64
	CacheCheck time.Duration
	// CacheAnswersOff keeps whole answers out of the cache: only the parts
	// lists are assembled from are kept (--cache-answers=false).
	CacheAnswersOff bool
	// MaxActive bounds the requests worked on at once (0: chosen from the
	// cores and the database, see activeLimit); MaxWait is how long one
	// waits for its turn.
	MaxActive int
	MaxWait   time.Duration
	// PublishInterval is how often scheduled records are published (0: never).
	PublishInterval time.Duration
	// WebhookConcurrency bounds the webhook deliveries in flight;
	// WebhookAllowPrivate lets them reach private addresses.
	WebhookConcurrency  int
	WebhookAllowPrivate bool
	// WebhookLease is how long an instance's claim to send webhooks lasts
	// without renewal: after a crash, another instance (or the restarted
	// one) takes over after it.
	WebhookLease time.Duration
	// ChangesKeep is how long the change feed keeps a change (issue 34):
	// an older cursor answers 410.
	ChangesKeep time.Duration
	// DebugAddr, when set, is a loopback address serving /debug/pprof and
	// /debug/vars (request and SQL query counters) for benchmarks.
	DebugAddr string
	// TrustedProxies are the proxies (addresses or CIDRs) whose
	// X-Forwarded-For names the client; TrustedNets is the same list
	// parsed by Validate.
	TrustedProxies []string
	TrustedNets    []netip.Prefix
	// MediaStore is where uploaded images go: "db" (in the database) or
	// "dir" (files under MediaDir). Validate fills the defaults: db on
	// MySQL (instances share it), dir beside the SQLite file otherwise.
	MediaStore    string
	MediaDir      string
	MediaMaxBytes int64
	// ImportMaxBytes bounds a spreadsheet uploaded to the admin's CSV import.
	ImportMaxBytes int64
	// Limits are the abuse limits: failed sign-ins (admin and application
	// passwords) and writes per user per minute.
	Limits models.Limits
	// ReadTimeout bounds reading one whole request (headers and body: a
	// client that trickles them is cut off), WriteTimeout writing its
	// answer, IdleTimeout a kept-alive connection waiting for the next.
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// RevisionsKeep is how many revisions each event, venue and organizer
	// keeps (0: none).
	RevisionsKeep int
	// SeriesHorizonDays is how many days ahead the occurrences of
	// recurring events are materialized (0: the default).
	SeriesHorizonDays int
	// SessionMaxAge is how long an admin session lasts after sign-in,
	// however much it is used (0: the default).
	SessionMaxAge time.Duration
}

// option is one row of the option table: every option is a flag, an
// environment variable and a default, declared once.
type option struct {
	name   string // flag name; the variable is KALENDS_ + upper-case name with _ for -
	def    string // default as text ("" = none)
	usage  string // one line for --help and the README
	secret bool   // never logged; also read from KALENDS_<NAME>_FILE
	set    func(c *Config, v string) error
}

// envName returns the environment variable of an option name.
func envName(name string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// options is the option table (SPEC §1).
var options = []option{
	{name: "addr", def: "127.0.0.1:8080", usage: "listen address (host:port)",
		set: func(c *Config, v string) error { c.Addr = v; return nil }},
	{name: "db", def: "sqlite:kalends.db", secret: true,
		usage: "database: sqlite:PATH or mysql://USER:PASS@HOST:PORT/DBNAME",
		set:   func(c *Config, v string) error { c.DB = v; return nil }},
	{name: "base-url", usage: "public root used in every URL the API emits",
		set: func(c *Config, v string) error { c.BaseURL = strings.TrimRight(v, "/"); return nil }},
	{name: "timezone", def: "UTC", usage: "site time zone (IANA name, e.g. Europe/Oslo)",
		set: func(c *Config, v string) error { c.Timezone = v; return nil }},
	{name: "default-language", def: i18n.Source, usage: "language of content without a translation: " + strings.Join(i18n.Codes, ", "),
		set: func(c *Config, v string) error { c.DefaultLanguage = strings.ToLower(v); return nil }},
	{name: "currency-symbol", def: "$", usage: "currency symbol of costs that show none (¥, €, 원…)",
		set: func(c *Config, v string) error { c.CurrencySymbol = strings.TrimSpace(v); return nil }},
	{name: "currency-code", def: "USD", usage: "ISO 4217 code of that currency (JPY, EUR, KRW…), used in JSON-LD offers",
		set: func(c *Config, v string) error { c.CurrencyCode = strings.ToUpper(strings.TrimSpace(v)); return nil }},
	{name: "currency-position", def: "prefix", usage: "where that symbol goes: prefix (¥1,000) or postfix (1,000円)",
		set: func(c *Config, v string) error {
			c.CurrencyPosition = strings.ToLower(strings.TrimSpace(v))
			return nil
		}},
	{name: "max-per-page", def: "500", usage: "largest page size of a list (larger values are clamped)",
		set: func(c *Config, v string) error {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("not an integer: %q", v)
			}
			c.MaxPerPage = n
			return nil
		}},
	{name: "admin-login", usage: "on start, create this administrator if no user has that login",
		set: func(c *Config, v string) error { c.AdminLogin = strings.TrimSpace(v); return nil }},
	{name: "admin-password", secret: true, usage: "password of the administrator created from --admin-login",
		set: func(c *Config, v string) error { c.AdminPassword = v; return nil }},
	{name: "cors-origins", usage: "comma list of browser origins allowed to write through the API with credentials",
		set: func(c *Config, v string) error { c.CORSOrigins = splitList(v); return nil }},
	{name: "embed-origins", usage: "comma list of origins (https://example.org) whose pages may frame the calendar's embeds, or * for any; empty: no embeds, no oEmbed",
		set: func(c *Config, v string) error { c.EmbedOrigins = splitList(v); return nil }},
	{name: "log-format", def: "text", usage: "log format: text or json",
		set: func(c *Config, v string) error { c.LogFormat = strings.ToLower(v); return nil }},
	{name: "cache-size", def: "64", usage: "megabytes of anonymous API answers, rendered records and searched words' lists kept in memory (0 turns them off)",
		set: func(c *Config, v string) error {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return fmt.Errorf("not an integer: %q", v)
			}
			c.CacheSize = n << 20
			return nil
		}},
	{name: "cache-answers", def: "true", usage: "keep whole anonymous answers in the cache (false: keep only the rendered records lists are assembled from, within the same --cache-size)",
		set: func(c *Config, v string) error {
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("not true or false: %q", v)
			}
			c.CacheAnswersOff = !b
			return nil
		}},
	{name: "cache-check", def: "250ms", usage: "how often each instance checks whether another one wrote (the most a cached answer can lag behind)",
		set: func(c *Config, v string) error {
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("not a duration such as 250ms: %q", v)
			}
			c.CacheCheck = d
			return nil
		}},
	{name: "max-active", def: "0", usage: "reads (GET, HEAD) worked on at once; the others wait their turn in arrival order, for at most --max-wait (0: as many as CPU cores on SQLite, four times that on MySQL); writes queue apart, one at a time on SQLite",
		set: intOption(func(c *Config, n int) { c.MaxActive = n })},
	{name: "max-wait", def: "3s", usage: "how long a request waits for its turn before it is answered 503 with Retry-After",
		set: durationOption(func(c *Config, d time.Duration) { c.MaxWait = d })},
	{name: "publish-interval", def: "1m", usage: "how often records scheduled for a date that has passed are published (0 turns it off)",
		set: func(c *Config, v string) error {
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("not a duration such as 1m: %q", v)
			}
			c.PublishInterval = d
			return nil
		}},
	{name: "debug-addr", usage: "loopback host:port serving /debug/pprof and /debug/vars (profiling and query counts; off when empty)",
		set: func(c *Config, v string) error { c.DebugAddr = strings.TrimSpace(v); return nil }},
	{name: "media-store", usage: "where uploaded images go: db or dir (default: db on MySQL, dir on SQLite)",
		set: func(c *Config, v string) error { c.MediaStore = strings.ToLower(strings.TrimSpace(v)); return nil }},
	{name: "media-dir", usage: "directory of uploaded images with --media-store dir (default: media/ beside the SQLite file)",
		set: func(c *Config, v string) error { c.MediaDir = strings.TrimSpace(v); return nil }},
	{name: "media-max-bytes", def: "10485760", usage: "largest image an upload may send, in bytes",
		set: func(c *Config, v string) error {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return fmt.Errorf("not an integer: %q", v)
			}
			c.MediaMaxBytes = n
			return nil
		}},
	{name: "import-max-bytes", def: "52428800", usage: "largest spreadsheet the admin's CSV import takes, in bytes (only that upload may send so much)",
		set: func(c *Config, v string) error {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return fmt.Errorf("not an integer: %q", v)
			}
			c.ImportMaxBytes = n
			return nil
		}},
	{name: "signin-window", def: "15m", usage: "how long failed sign-ins (admin form and API application passwords) are counted",
		set: durationOption(func(c *Config, d time.Duration) { c.Limits.SignInWindow = d })},
	{name: "signin-max-per-login", def: "5", usage: "failed sign-ins on one login or e-mail address, as typed, from one address within --signin-window before further attempts get 429",
		set: intOption(func(c *Config, n int) { c.Limits.SignInPerLogin = n })},
	{name: "signin-max-per-address", def: "20", usage: "failed sign-ins from one address (an IPv6 /64) within --signin-window before further attempts get 429 (the sign-in form and application passwords counted apart)",
		set: intOption(func(c *Config, n int) { c.Limits.SignInPerAddress = n })},
	{name: "signin-max-per-account", def: "100", usage: "failed sign-ins on one login or e-mail address, as typed, from all addresses within --signin-window before browsers without a device cookie of the account get 429",
		set: intOption(func(c *Config, n int) { c.Limits.SignInPerAccount = n })},
	{name: "write-limit", def: "120", usage: "writes (API POST, PUT, PATCH, DELETE and admin form posts) one user may make in a minute (0: no limit)",
		set: intOption(func(c *Config, n int) { c.Limits.WritesPerMinute = n })},
	{name: "read-timeout", def: "60s", usage: "longest time to read one request, headers and body (a client that trickles them is cut off)",
		set: durationOption(func(c *Config, d time.Duration) { c.ReadTimeout = d })},
	{name: "write-timeout", def: "60s", usage: "longest time to write one answer",
		set: durationOption(func(c *Config, d time.Duration) { c.WriteTimeout = d })},
	{name: "idle-timeout", def: "120s", usage: "longest time a kept-alive connection may wait for its next request",
		set: durationOption(func(c *Config, d time.Duration) { c.IdleTimeout = d })},
	{name: "session-max-age", def: "30d", usage: "how long an admin session lasts after sign-in however much it is used: days (30d) or a duration (12h), 1m to 400d; sessions also end after 7 days without use, so below 7d it is every session's fixed life",
		set: daysOption(func(c *Config, d time.Duration) { c.SessionMaxAge = d })},
	{name: "changes-keep", def: "30d", usage: "how long the change feed (GET /cal/events/v1/changes) keeps a change: days (30d) or a duration (12h), 1h to 3650d; a client whose cursor is older copies the lists again",
		set: daysOption(func(c *Config, d time.Duration) { c.ChangesKeep = d })},
	{name: "webhook-concurrency", def: "4", usage: "webhook deliveries in flight at most (one instance sends at a time, under a lease)",
		set: intOption(func(c *Config, n int) { c.WebhookConcurrency = n })},
	{name: "webhook-lease", def: "30s", usage: "how long one instance's claim to send webhooks lasts without renewal (2s to 10m): after a crash, sending resumes on another instance, or the restarted one, after it",
		set: durationOption(func(c *Config, d time.Duration) { c.WebhookLease = d })},
	{name: "webhook-allow-private", def: "false", usage: "let webhooks reach private and loopback addresses (off: they are refused when dialled)",
		set: func(c *Config, v string) error {
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("not true or false: %q", v)
			}
			c.WebhookAllowPrivate = b
			return nil
		}},
	{name: "revisions-keep", def: "25", usage: "revisions kept per event, venue and organizer, the oldest dropped first (0 keeps none)",
		set: intOption(func(c *Config, n int) { c.RevisionsKeep = n })},
	{name: "series-horizon-days", def: "761", usage: "days ahead of today the occurrences of recurring events are kept in the database, by the scheduled job (a list past it shows what is there)",
		set: intOption(func(c *Config, n int) { c.SeriesHorizonDays = n })},
	{name: "trusted-proxies", usage: "comma list of proxy addresses or CIDRs whose X-Forwarded-For names the client",
		set: func(c *Config, v string) error { c.TrustedProxies = splitList(v); return nil }},
}

// durationOption is the setter of an option that takes a duration.
func durationOption(set func(*Config, time.Duration)) func(*Config, string) error {
	return func(c *Config, v string) error {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("not a duration such as 30s or 15m: %q", v)
		}
		set(c, d)
		return nil
	}
}

// intOption is the setter of an option that takes an integer.
func intOption(set func(*Config, int)) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("not an integer: %q", v)
		}
		set(c, n)
		return nil
	}
}

// daysOption is the setter of an option that takes a number of days
// ("30d") or a duration ("12h").
func daysOption(set func(*Config, time.Duration)) func(*Config, string) error {
	return func(c *Config, v string) error {
		v = strings.TrimSpace(v)
		if n, ok := strings.CutSuffix(v, "d"); ok {
			days, err := strconv.Atoi(n)
			if err != nil || days < 0 || days > 100000 {
				return fmt.Errorf("not a number of days such as 30d: %q", v)
			}
			set(c, time.Duration(days)*24*time.Hour)
			return nil
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("not a number of days such as 30d, or a duration such as 12h: %q", v)
		}
		set(c, d)
		return nil
	}
}

// days writes d as daysOption reads it: whole days as "30d".
func days(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	return d.String()
}

// splitList splits a comma list, dropping blanks.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// settings holds the raw text of every option while the sources are layered:
// defaults, then the environment, then flags (the last writer wins).
type settings struct {
	values map[string]string
	source map[string]string // "default", "env" or "flag", for error messages
}

func newSettings() *settings {
	s := &settings{values: map[string]string{}, source: map[string]string{}}
	for _, o := range options {
		s.values[o.name], s.source[o.name] = o.def, "default"
	}
	return s
}

// fromEnv applies the environment to every option not set by a flag (flags
// win; flags are parsed first so that -h and version need no valid
// environment). For a secret option, KALENDS_<NAME>_FILE
// names a file holding the value (trailing newline removed); setting both
// the variable and its _FILE form is an error.
func (s *settings) fromEnv(getenv func(string) string) error {
	for _, o := range options {
		if strings.HasPrefix(s.source[o.name], "flag") {
			continue
		}
		key := envName(o.name)
		v, hasV := getenv(key), getenv(key) != ""
		if o.secret {
			if f := getenv(key + "_FILE"); f != "" {
				if hasV {
					return fmt.Errorf("config: both %s and %s_FILE are set; use one", key, key)
				}
				b, err := os.ReadFile(f) //nolint:gosec // G304: reading the file the operator named in KALENDS_*_FILE is the point.
				if err != nil {
					return fmt.Errorf("config: %s_FILE: %w", key, err)
				}
				v, hasV = strings.TrimRight(string(b), "\r\n"), true
			}
		}
		if hasV {
			s.values[o.name], s.source[o.name] = v, "env "+key
		}
	}
	return nil
}

// flagValue writes a flag into settings.
type flagValue struct {
	s    *settings
	name string
}

func (f flagValue) String() string {
	if f.s == nil {
		return ""
	}
	return f.s.values[f.name]
}

func (f flagValue) Set(v string) error {
	f.s.values[f.name], f.s.source[f.name] = v, "flag --"+f.name
	return nil
}

// addFlags declares every option on fs, writing into s.
func (s *settings) addFlags(fs *flag.FlagSet) {
	for _, o := range options {
		usage := o.usage + " [" + envName(o.name) + "]"
		if o.secret {
			usage = o.usage + " [" + envName(o.name) + " or " + envName(o.name) + "_FILE]"
		}
		var v flag.Value = flagValue{s: s, name: o.name}
		if o.def == "true" || o.def == "false" {
			v = boolFlagValue{flagValue{s: s, name: o.name}}
		}
		fs.Var(v, o.name, usage)
	}
}

// boolFlagValue is the flag of a true/false option: written alone
// (--webhook-allow-private) it means true, as Go's boolean flags do,
// instead of taking the next argument as its value.
type boolFlagValue struct{ flagValue }

func (boolFlagValue) IsBoolFlag() bool { return true }

// config converts the layered text into a Config and validates it.
func (s *settings) config() (*Config, error) {
	c := &Config{}
	for _, o := range options {
		if err := o.set(c, s.values[o.name]); err != nil {
			return nil, fmt.Errorf("config: --%s (from %s): %w", o.name, s.source[o.name], err)
		}
	}
	if c.BaseURL == "" {
		c.BaseURL = "http://" + c.Addr
		s.values["base-url"] = c.BaseURL // so the start-up log shows the value in use
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// Validate checks each value and the rules between them, and loads the time
// zone. All problems are reported at once.
func (c *Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if _, _, err := net.SplitHostPort(c.Addr); err != nil || c.Addr == "" {
		bad("--addr %q is not host:port", c.Addr)
	}
	if !strings.HasPrefix(c.DB, "sqlite:") && !strings.HasPrefix(c.DB, "mysql://") || c.DB == "sqlite:" {
		bad("--db must be sqlite:PATH or mysql://USER:PASS@HOST:PORT/DBNAME")
	}
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.RawQuery != "" || u.Fragment != "" {
		bad("--base-url %q must be an absolute http:// or https:// URL without query or fragment", c.BaseURL)
	}
	loc, err := time.LoadLocation(c.Timezone)
	if err != nil || c.Timezone == "" || c.Timezone == "Local" {
		bad("--timezone %q is not an IANA time zone name (e.g. UTC, Europe/Oslo)", c.Timezone)
	} else {
		c.Location = loc
	}
	if !i18n.Valid(c.DefaultLanguage) {
		bad("--default-language %q must be one of %s", c.DefaultLanguage, strings.Join(i18n.Codes, ", "))
	}
	if c.MaxPerPage < 1 {
		bad("--max-per-page must be at least 1, not %d", c.MaxPerPage)
	}
	if len(c.CurrencyCode) != 3 || strings.Trim(c.CurrencyCode, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		bad("--currency-code %q must be a three-letter ISO 4217 code such as JPY", c.CurrencyCode)
	}
	if c.CurrencyPosition != "prefix" && c.CurrencyPosition != "postfix" {
		bad("--currency-position %q must be prefix or postfix", c.CurrencyPosition)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		bad("--log-format %q must be text or json", c.LogFormat)
	}
	if (c.AdminLogin == "") != (c.AdminPassword == "") {
		bad("--admin-login and --admin-password go together: set both or neither")
	}
	c.validateMedia(bad)
	c.validateImport(bad)
	if c.CacheSize < 0 || c.CacheSize > 64<<30 {
		bad("--cache-size must be from 0 to 65536 (megabytes)")
	}
	if c.MaxActive < 0 || c.MaxActive > 4096 {
		bad("--max-active must be from 0 to 4096")
	}
	if c.MaxWait < time.Millisecond || c.MaxWait > time.Minute {
		bad("--max-wait must be from 1ms to 1m, not %s", c.MaxWait)
	}
	if c.CacheCheck < time.Millisecond || c.CacheCheck > time.Minute {
		bad("--cache-check must be from 1ms to 1m, not %s", c.CacheCheck)
	}
	if c.Limits.SignInWindow < time.Second || c.Limits.SignInWindow > 24*time.Hour {
		bad("--signin-window must be from 1s to 24h, not %s", c.Limits.SignInWindow)
	}
	if c.Limits.SignInPerLogin < 1 || c.Limits.SignInPerAddress < 1 {
		bad("--signin-max-per-login and --signin-max-per-address must be at least 1")
	}
	if c.Limits.SignInPerAccount < 1 {
		bad("--signin-max-per-account must be at least 1, not %d", c.Limits.SignInPerAccount)
	}
	if c.SeriesHorizonDays < 1 || c.SeriesHorizonDays > 3660 {
		bad("--series-horizon-days must be from 1 to 3660, not %d", c.SeriesHorizonDays)
	}
	if c.RevisionsKeep < 0 || c.RevisionsKeep > 10000 {
		bad("--revisions-keep must be from 0 to 10000, not %d", c.RevisionsKeep)
	}
	if c.Limits.WritesPerMinute < 0 {
		bad("--write-limit must be 0 (no limit) or more, not %d", c.Limits.WritesPerMinute)
	}
	for _, t := range []struct {
		name string
		d    time.Duration
	}{{"read-timeout", c.ReadTimeout}, {"write-timeout", c.WriteTimeout}, {"idle-timeout", c.IdleTimeout}} {
		if t.d < 100*time.Millisecond || t.d > time.Hour {
			bad("--%s must be from 100ms to 1h, not %s", t.name, t.d)
		}
	}
	// Browsers keep a cookie 400 days at most (RFC 6265bis); a lifetime
	// below the 7 days without use is allowed and is then the whole life
	// of a session, however much it is used.
	if c.SessionMaxAge < time.Minute || c.SessionMaxAge > 400*24*time.Hour {
		bad("--session-max-age must be from 1m to 400d, not %s", days(c.SessionMaxAge))
	}
	if c.WebhookLease < 2*time.Second || c.WebhookLease > 10*time.Minute {
		bad("--webhook-lease must be from 2s to 10m, not %s", c.WebhookLease)
	}
	if c.WebhookConcurrency < 1 || c.WebhookConcurrency > 64 {
		bad("--webhook-concurrency must be from 1 to 64, not %d", c.WebhookConcurrency)
	}
	if c.ChangesKeep < time.Hour || c.ChangesKeep > 3650*24*time.Hour {
		bad("--changes-keep must be from 1h to 3650d, not %s", days(c.ChangesKeep))
	}
	if c.PublishInterval < 0 || (c.PublishInterval > 0 && c.PublishInterval < time.Second) {
		bad("--publish-interval must be 0 (off) or at least 1s, not %s", c.PublishInterval)
	}
	if c.DebugAddr != "" {
		host, _, err := net.SplitHostPort(c.DebugAddr)
		if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
			bad("--debug-addr %q must be a loopback host:port (e.g. 127.0.0.1:6060): it serves profiles", c.DebugAddr)
		}
	}
	for _, o := range c.CORSOrigins {
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			bad("--cors-origins: %q is not an origin like https://example.org", o)
		}
	}
	for i, o := range c.EmbedOrigins {
		if o == "*" {
			if len(c.EmbedOrigins) > 1 {
				bad("--embed-origins: * stands alone")
			}
			continue
		}
		origin, ok := exactOrigin(o)
		if !ok {
			bad("--embed-origins: %q is not an origin like https://example.org (scheme and host, a port if any, no path)", o)
		}
		c.EmbedOrigins[i] = origin
	}
	c.TrustedNets = nil
	for _, p := range c.TrustedProxies {
		n, err := parseProxy(p)
		if err != nil {
			bad("--trusted-proxies: %q is not an IP address or CIDR like 10.0.0.0/8", p)
			continue
		}
		c.TrustedNets = append(c.TrustedNets, n)
	}
	if len(errs) > 0 {
		return fmt.Errorf("config: %w", errors.Join(errs...))
	}
	return nil
}

// printOptions writes the option table (flags, variables, defaults) for
// --help.
func printOptions(w io.Writer) {
	_, _ = fmt.Fprintln(w, "Options (each also an environment variable; flags win over the environment):")
	for _, o := range options {
		n, def := o.name, o.def
		if n == "base-url" {
			def = "http:// + addr"
		}
		if def == "" {
			def = "none"
		}
		env := envName(n)
		if o.secret {
			env += " (or " + env + "_FILE)"
		}
		_, _ = fmt.Fprintf(w, "  --%-18s %s\n  %-20s %s; default: %s\n", n, env, "", o.usage, def)
	}
}

// redacted returns the options as log attributes, secrets hidden.
func (s *settings) redacted() []any {
	var out []any
	for _, o := range options {
		v := s.values[o.name]
		if o.secret && v != "" {
			v = redactSecret(o.name, v)
		}
		out = append(out, o.name, v)
	}
	return out
}

// redactSecret hides a secret value; for a database URL only the password
// is hidden, so logs still say which database is used.
func redactSecret(name, v string) string {
	if name == "db" {
		if u, err := url.Parse(v); err == nil && u.User != nil {
			if _, ok := u.User.Password(); ok {
				u.User = url.UserPassword(u.User.Username(), "xxxxx")
			}
			return u.String()
		}
		return v
	}
	return "xxxxx"
}

// parseProxy reads one --trusted-proxies entry: a CIDR, or a single
// address (a prefix of its full length).
func parseProxy(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		return p.Masked(), err
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// exactOrigin reads an origin (scheme://host[:port], an optional final
// slash) as a CSP source writes it: lower case, without the slash.
func exactOrigin(o string) (string, bool) {
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(u.Host, "*;, '") {
		return "", false
	}
	return u.Scheme + "://" + strings.ToLower(u.Host), true
}
