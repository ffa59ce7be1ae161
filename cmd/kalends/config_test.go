package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestEnvNameIsPrefixedUpperCaseWithUnderscores(t *testing.T) {
	for name, want := range map[string]string{
		"addr":             "KALENDS_ADDR",
		"default-language": "KALENDS_DEFAULT_LANGUAGE",
		"max-per-page":     "KALENDS_MAX_PER_PAGE",
		"base-url":         "KALENDS_BASE_URL",
	} {
		if got := envName(name); got != want {
			t.Errorf("envName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestConfigLayersDefaultsEnvAndFlags(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(secret, []byte("from-a-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(t *testing.T, c *command)
	}{
		{"defaults of SPEC §1", nil, nil, func(t *testing.T, c *command) {
			want := Config{Addr: "127.0.0.1:8080", DB: "sqlite:kalends.db", BaseURL: "http://127.0.0.1:8080",
				Timezone: "UTC", DefaultLanguage: "en", MaxPerPage: 500, CurrencySymbol: "$", CurrencyCode: "USD", CurrencyPosition: "prefix", LogFormat: "text", CacheSize: 64 << 20, CacheCheck: 250 * time.Millisecond, MaxWait: 3 * time.Second, PublishInterval: time.Minute, WebhookConcurrency: 4, WebhookLease: 30 * time.Second, ChangesKeep: 30 * 24 * time.Hour, ImportMaxBytes: 50 << 20,
				MediaStore: "dir", MediaDir: "media", MediaMaxBytes: 10 << 20, Limits: models.DefaultLimits(),
				ReadTimeout: time.Minute, WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute, RevisionsKeep: 25, SeriesHorizonDays: 761,
				SessionMaxAge: 30 * 24 * time.Hour}
			got := *c.cfg
			got.Location = nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("config = %+v, want %+v", got, want)
			}
			if c.name != "serve" || c.cfg.Location.String() != "UTC" {
				t.Errorf("command %q, location %v", c.name, c.cfg.Location)
			}
		}},
		{"environment overrides defaults", nil,
			map[string]string{"KALENDS_ADDR": "127.0.0.1:9000", "KALENDS_MAX_PER_PAGE": "50", "KALENDS_DEFAULT_LANGUAGE": "ja",
				"KALENDS_CORS_ORIGINS": " https://a.example , https://b.example ,", "KALENDS_TIMEZONE": "Asia/Tokyo"},
			func(t *testing.T, c *command) {
				if c.cfg.Addr != "127.0.0.1:9000" || c.cfg.MaxPerPage != 50 || c.cfg.DefaultLanguage != "ja" {
					t.Errorf("config = %+v", c.cfg)
				}
				if c.cfg.BaseURL != "http://127.0.0.1:9000" {
					t.Errorf("base URL %q does not follow addr", c.cfg.BaseURL)
				}
				if want := []string{"https://a.example", "https://b.example"}; !reflect.DeepEqual(c.cfg.CORSOrigins, want) {
					t.Errorf("cors origins %q, want %q", c.cfg.CORSOrigins, want)
				}
				if c.cfg.Location.String() != "Asia/Tokyo" {
					t.Errorf("location %v", c.cfg.Location)
				}
			}},
		{"a true/false option followed by its value, after the command too", []string{"--cache-answers", "false", "serve", "--webhook-allow-private", "true"},
			nil,
			func(t *testing.T, c *command) {
				if !c.cfg.WebhookAllowPrivate || !c.cfg.CacheAnswersOff || c.name != "serve" {
					t.Errorf("allow private %v, answers off %v, command %q", c.cfg.WebhookAllowPrivate, c.cfg.CacheAnswersOff, c.name)
				}
			}},
		{"a true/false option written alone is true, and the next argument stays the command", []string{"--webhook-allow-private", "--cache-answers", "serve"},
			map[string]string{"KALENDS_CACHE_ANSWERS": "false"},
			func(t *testing.T, c *command) {
				if !c.cfg.WebhookAllowPrivate || c.cfg.CacheAnswersOff || c.name != "serve" {
					t.Errorf("allow private %v, answers off %v, command %q", c.cfg.WebhookAllowPrivate, c.cfg.CacheAnswersOff, c.name)
				}
			}},
		{"options after a command's argument, and arguments after --", []string{"webhook", "add", "https://hooks.example.org/カレンダー", "--events", "event.created", "--description=東京"},
			nil,
			func(t *testing.T, c *command) {
				if c.name != "webhook add" || c.webhookArg != "https://hooks.example.org/カレンダー" || c.events != "event.created" || c.description != "東京" {
					t.Errorf("command %q, argument %q, events %q, description %q", c.name, c.webhookArg, c.events, c.description)
				}
				d, err := parseCommand([]string{"import", "--login", "chef", "--", "--odd-name.ics"}, envOf(nil), io.Discard)
				if err != nil || d.file != "--odd-name.ics" || d.login != "chef" {
					t.Errorf("import -- --odd-name.ics: %+v %v", d, err)
				}
			}},
		{"flags win over the environment", []string{"--addr", "127.0.0.1:7000", "serve", "--max-per-page=20"},
			map[string]string{"KALENDS_ADDR": "127.0.0.1:9000", "KALENDS_MAX_PER_PAGE": "50"},
			func(t *testing.T, c *command) {
				if c.cfg.Addr != "127.0.0.1:7000" || c.cfg.MaxPerPage != 20 {
					t.Errorf("config = %+v", c.cfg)
				}
			}},
		{"session lifetime in days or as a duration", []string{"--session-max-age", "36h"}, nil,
			func(t *testing.T, c *command) {
				if c.cfg.SessionMaxAge != 36*time.Hour || siteOf(c.cfg).SessionLifetime() != 36*time.Hour {
					t.Errorf("session max age %v", c.cfg.SessionMaxAge)
				}
			}},
		{"whole answers kept out of the cache", []string{"--cache-answers=false"}, nil,
			func(t *testing.T, c *command) {
				if !c.cfg.CacheAnswersOff || c.cfg.CacheSize != 64<<20 {
					t.Errorf("cache answers off %v, size %d", c.cfg.CacheAnswersOff, c.cfg.CacheSize)
				}
			}},
		{"session lifetime from the environment", nil, map[string]string{"KALENDS_SESSION_MAX_AGE": " 90d "},
			func(t *testing.T, c *command) {
				if c.cfg.SessionMaxAge != 90*24*time.Hour {
					t.Errorf("session max age %v", c.cfg.SessionMaxAge)
				}
			}},
		{"explicit base URL loses its trailing slash", []string{"--base-url", "https://cal.example.org/site/"}, nil,
			func(t *testing.T, c *command) {
				if c.cfg.BaseURL != "https://cal.example.org/site" {
					t.Errorf("base URL %q", c.cfg.BaseURL)
				}
			}},
		{"secret from a _FILE variable", nil,
			map[string]string{"KALENDS_ADMIN_LOGIN": "root", "KALENDS_ADMIN_PASSWORD_FILE": secret},
			func(t *testing.T, c *command) {
				if c.cfg.AdminLogin != "root" || c.cfg.AdminPassword != "from-a-file" {
					t.Errorf("admin %q / %q", c.cfg.AdminLogin, c.cfg.AdminPassword)
				}
			}},
		{"a flag wins over a _FILE variable", []string{"--admin-password", "from-flag"},
			map[string]string{"KALENDS_ADMIN_LOGIN": "root", "KALENDS_ADMIN_PASSWORD_FILE": "/nonexistent"},
			func(t *testing.T, c *command) {
				if c.cfg.AdminPassword != "from-flag" {
					t.Errorf("admin password %q", c.cfg.AdminPassword)
				}
			}},
		{"user create takes options after the command words",
			[]string{"user", "create", "--db", "sqlite:x.db", "--login", "ann", "--password", "p", "--role", "editor", "--email", "a@b.c"}, nil,
			func(t *testing.T, c *command) {
				if c.name != "user create" || c.cfg.DB != "sqlite:x.db" || c.login != "ann" || c.role != "editor" || c.email != "a@b.c" {
					t.Errorf("command = %+v", c)
				}
			}},
		{"app-password create has a default name", []string{"app-password", "create", "--login", "ann"}, nil,
			func(t *testing.T, c *command) {
				if c.name != "app-password create" || c.appName != "API" {
					t.Errorf("command = %+v", c)
				}
			}},
		{"version needs no valid environment", []string{"version"}, map[string]string{"KALENDS_TIMEZONE": "Nowhere/Atlantis"},
			func(t *testing.T, c *command) {
				if c.name != "version" {
					t.Errorf("command %q", c.name)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseCommand(tt.args, envOf(tt.env), io.Discard)
			if err != nil {
				t.Fatalf("parseCommand: %v", err)
			}
			tt.check(t, c)
		})
	}
}

func TestConfigRejectsBadValuesWithTheOptionName(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string // substring of the error
	}{
		{"unknown time zone", []string{"--timezone", "Mars/Olympus_Mons"}, nil, "--timezone"},
		{"Local is not an IANA name", []string{"--timezone", "Local"}, nil, "--timezone"},
		{"unknown language", []string{"--default-language", "fr"}, nil, "--default-language"},
		{"page size zero", []string{"--max-per-page", "0"}, nil, "--max-per-page must be at least 1"},
		{"page size not a number", nil, map[string]string{"KALENDS_MAX_PER_PAGE": "many"}, "env KALENDS_MAX_PER_PAGE"},
		{"log format", []string{"--log-format", "xml"}, nil, "--log-format"},
		{"cache answers neither true nor false", nil, map[string]string{"KALENDS_CACHE_ANSWERS": "sometimes"}, "env KALENDS_CACHE_ANSWERS"},
		{"trusted proxy not an address", []string{"--trusted-proxies", "10.0.0.0/8,proxy.local"}, nil, "--trusted-proxies"},
		{"relative base URL", []string{"--base-url", "/cal"}, nil, "--base-url"},
		{"base URL of another scheme", []string{"--base-url", "ftp://example.org"}, nil, "--base-url"},
		{"address without port", []string{"--addr", "localhost"}, nil, "--addr"},
		{"unsupported database", []string{"--db", "postgres://x/y"}, nil, "--db must be"},
		{"empty SQLite path", []string{"--db", "sqlite:"}, nil, "--db must be"},
		{"admin login without password", []string{"--admin-login", "root"}, nil, "go together"},
		{"CORS origin with a path", []string{"--cors-origins", "https://a.example/app"}, nil, "--cors-origins"},
		{"secret set twice", nil, map[string]string{"KALENDS_ADMIN_PASSWORD": "a", "KALENDS_ADMIN_PASSWORD_FILE": "/x"}, "use one"},
		{"unreadable secret file", nil, map[string]string{"KALENDS_ADMIN_PASSWORD_FILE": "/nonexistent/pw"}, "KALENDS_ADMIN_PASSWORD_FILE"},
		{"unknown flag", []string{"--nope"}, nil, "-nope"},
		{"unknown command", []string{"frobnicate"}, nil, `unknown command "frobnicate"`},
		{"user without create", []string{"user", "delete"}, nil, "user create"},
		{"user create without required flags", []string{"user", "create", "--login", "x"}, nil, "missing --password, --role"},
		{"stray argument", []string{"migrate", "now"}, nil, `unexpected argument "now"`},
		{"sign-in window under a second", []string{"--signin-window", "10ms"}, nil, "--signin-window must be from 1s to 24h"},
		{"no failed sign-in allowed", []string{"--signin-max-per-login", "0"}, nil, "--signin-max-per-login and --signin-max-per-address must be at least 1"},
		{"no account-wide sign-in limit", nil, map[string]string{"KALENDS_SIGNIN_MAX_PER_ACCOUNT": "0"}, "--signin-max-per-account must be at least 1, not 0"},
		{"negative write limit", []string{"--write-limit", "-5"}, nil, "--write-limit must be 0 (no limit) or more"},
		{"write limit not a number", nil, map[string]string{"KALENDS_WRITE_LIMIT": "lots"}, "env KALENDS_WRITE_LIMIT"},
		{"read timeout of a day", []string{"--read-timeout", "24h"}, nil, "--read-timeout must be from 100ms to 1h"},
		{"idle timeout not a duration", []string{"--idle-timeout", "forever"}, nil, "--idle-timeout"},
		{"negative revisions", []string{"--revisions-keep", "-1"}, nil, "--revisions-keep must be from 0 to 10000"},
		{"session lifetime of zero", []string{"--session-max-age", "0d"}, nil, "--session-max-age must be from 1m to 400d, not 0s"},
		{"negative session lifetime", nil, map[string]string{"KALENDS_SESSION_MAX_AGE": "-2h"}, "--session-max-age must be from 1m to 400d, not -2h0m0s"},
		{"session lifetime past browsers' cookies", []string{"--session-max-age", "401d"}, nil, "not 401d"},
		{"session lifetime not a duration", []string{"--session-max-age", "a month"}, nil, "--session-max-age (from flag --session-max-age): not a number of days"},
		{"session lifetime of negative days", []string{"--session-max-age", "-3d"}, nil, "not a number of days such as 30d"},
		{"all problems at once", []string{"--log-format", "xml", "--max-per-page", "-1"}, nil, "--max-per-page must be at least 1, not -1\n--log-format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseCommand(tt.args, envOf(tt.env), io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestRedactedHidesSecrets(t *testing.T) {
	c, err := parseCommand([]string{"--db", "mysql://kal:hunter2@db:3306/kal", "--admin-login", "a", "--admin-password", "s3cret-pw"},
		envOf(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(toStrings(c.set.redacted()), " ")
	if strings.Contains(got, "hunter2") || strings.Contains(got, "s3cret-pw") {
		t.Errorf("secrets leaked: %s", got)
	}
	if !strings.Contains(got, "kal:xxxxx@db:3306") {
		t.Errorf("database host hidden too: %s", got)
	}
}

func toStrings(kv []any) []string {
	out := make([]string, len(kv))
	for i, v := range kv {
		out[i] = v.(string)
	}
	return out
}

// The media store follows the database: in the database on MySQL (several
// instances share it), in media/ beside the SQLite file otherwise.
func TestMediaStoreDefaults(t *testing.T) {
	for _, c := range []struct{ db, store, dir string }{
		{"sqlite:/var/lib/kalends/k.db", "dir", "/var/lib/kalends/media"},
		{"mysql://u:p@db:3306/k", "db", ""},
	} {
		cfg := Config{DB: c.db, MediaMaxBytes: 10 << 20}
		var errs []string
		cfg.validateMedia(func(f string, a ...any) { errs = append(errs, fmt.Sprintf(f, a...)) })
		if len(errs) > 0 || cfg.MediaStore != c.store || cfg.MediaDir != c.dir {
			t.Errorf("%s: %s %q %v", c.db, cfg.MediaStore, cfg.MediaDir, errs)
		}
	}
	cfg := Config{DB: "sqlite:k.db", MediaStore: "s3", MediaMaxBytes: 1}
	var errs []string
	cfg.validateMedia(func(f string, a ...any) { errs = append(errs, fmt.Sprintf(f, a...)) })
	if len(errs) != 2 {
		t.Errorf("bad media options: %v", errs)
	}
}

func TestActiveLimitFollowsTheCoresAndTheDatabase(t *testing.T) {
	cores := max(runtime.GOMAXPROCS(0), 2)
	for _, c := range []struct {
		set           int
		d             models.Dialect
		reads, writes int
	}{
		{0, models.SQLite, cores, 1},
		{0, models.MySQL, 4 * cores, 4 * cores},
		{5, models.SQLite, 5, 1},
		{5, models.MySQL, 5, 5},
	} {
		cfg := &Config{MaxActive: c.set}
		if r, w := cfg.activeLimit(c.d); r != c.reads || w != c.writes {
			t.Errorf("--max-active %d on %s: %d reads, %d writes; want %d, %d", c.set, c.d, r, w, c.reads, c.writes)
		}
	}
}
