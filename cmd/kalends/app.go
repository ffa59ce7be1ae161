package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/api"
	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/admission"
	"github.com/kalends/kalends/internal/cachegen"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/web"
	"github.com/kalends/kalends/web/ui"
)

// newApp assembles the whole HTTP surface on one fiber app: the shared
// middleware (request id, access log, panic recovery, security headers; the
// body limit is in the config), /healthz, then the API and the admin side
// by side. The API and the admin do not know each other; the error handler
// sends each request's errors to the surface that owns its path (JSON under
// the API, HTML elsewhere).
func newApp(db *models.DB, site *models.Site, cfg *Config, logger *slog.Logger) (*fiber.App, error) {
	bundle, err := i18n.New(logger)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	db.UseMedia(cfg.mediaStorage())
	// One response cache (one byte budget) for the API and the public
	// pages and feeds; it, the parts cache and the site's identity read the
	// cache generation through one Watch (caches).
	watch := cachegen.New(db, cfg.CacheCheck)
	cache, parts := caches(watch, db, site, cfg)
	// One gate for both surfaces: the cores are shared.
	reads, writes := cfg.activeLimit(db.Dialect())
	gate := admission.New(reads, writes, cmp.Or(cfg.MaxWait, 3*time.Second))
	apiDeps := &api.Deps{DB: db, MediaMaxBytes: cfg.mediaMax(), I18n: bundle, Site: site, CORSOrigins: cfg.CORSOrigins, Logger: logger,
		Cache: cache, Parts: parts, Gate: gate}
	webDeps := &web.Deps{DB: db, I18n: bundle, Site: site, Logger: logger, APIPath: "/" + api.Namespace + "/", Cache: cache, Parts: parts, Gate: gate,
		ImportMaxBytes: cfg.importMax(), Ident: ui.NewIdentity(db, watch), EmbedOrigins: cfg.EmbedOrigins}
	apiErrors, webErrors := api.ErrorHandler(apiDeps), web.ErrorHandler(webDeps)
	fcfg := fiber.Config{
		ReadTimeout:  cfg.ReadTimeout,
		WriteTimeout: cfg.WriteTimeout,
		IdleTimeout:  cfg.IdleTimeout,
		BodyLimit:    cfg.readLimit(), // api.BodyLimit (or the upload limit) is enforced below, once the body is read

		ReadBufferSize: api.ReadBufferSize,
		// Fiber reuses request buffers; Immutable copies every string it
		// hands out so nothing kept after a handler can change under us.
		Immutable:             true,
		DisableStartupMessage: true,
		// Parse multipart bodies in the API's pipeline (where a broken one
		// just carries no parameters), not while reading the request, where
		// fasthttp would fail the whole connection.
		DisablePreParseMultipartForm: true,
		ErrorHandler: func(c *fiber.Ctx, err error) error {
			// A request the database failed under (a node lost, a
			// failover under way) may be sent again: 503 with
			// Retry-After on every surface, never a 500.
			if models.IsFailover(err) {
				if !errors.Is(err, models.ErrUnavailable) {
					err = errors.Join(models.ErrUnavailable, err)
				}
				c.Set(fiber.HeaderRetryAfter, failoverRetryAfter)
			}
			// A request fasthttp could not parse (a request line over the
			// read buffer, a negative Content-Length) has no path to go by:
			// it gets the documented JSON shape, which API clients read.
			if api.Owns(c.Path()) || len(c.Request().Header.RawHeaders()) == 0 {
				return apiErrors(c, err)
			}
			return webErrors(c, err)
		},
	}
	proxyConfig(&fcfg, cfg.TrustedProxies)
	app := fiber.New(fcfg)
	// refuseEncodedBodies first: nothing may read a compressed body.
	app.Use(refuseEncodedBodies(logger), clientAddress(cfg.TrustedNets), requestID(), cachingHeaders, accessLog(logger), recoverPanics(logger), securityHeaders, bodyLimit(cfg), partsWrote(parts))
	app.Get("/healthz", healthz(db))
	api.Mount(app, apiDeps)
	web.Mount(app, webDeps)
	api.RejectUnknownMethods(app, apiDeps)
	return app, nil
}

// activeLimit is how many reads and how many writes are worked on at once.
// Reads: --max-active, by default as many as the process may run on cores:
// on SQLite a read works on those cores from start to end, and more at once
// only make each one later. Writes: one on SQLite, which lets one writer
// at a time in anyway (queued here, writers take the lock in arrival order
// instead of SQLite's busy-wait lottery); on MySQL a request also waits for
// the database server, so reads and writes both get four times the cores.
func (c *Config) activeLimit(d models.Dialect) (reads, writes int) {
	reads = c.MaxActive
	if reads <= 0 {
		reads = max(runtime.GOMAXPROCS(0), 2)
		if d == models.MySQL {
			reads *= 4
		}
	}
	if d == models.SQLite {
		return reads, 1
	}
	return reads, reads
}

// siteOf is the site settings of the configuration, shared by the store
// and both surfaces.
func siteOf(cfg *Config) *models.Site {
	return &models.Site{
		BaseURL:          cfg.BaseURL,
		Location:         cfg.Location,
		DefaultLanguage:  cfg.DefaultLanguage,
		MaxPerPage:       cfg.MaxPerPage,
		CurrencySymbol:   cfg.CurrencySymbol,
		CurrencyPosition: cfg.CurrencyPosition,
		CurrencyCode:     cfg.CurrencyCode,
		Limits:           limitsOf(cfg),
		RevisionsKeep:    revisionsKeepOf(cfg),
		SeriesHorizon:    time.Duration(cfg.SeriesHorizonDays) * 24 * time.Hour,
		SessionMaxAge:    cfg.SessionMaxAge,
	}
}

// revisionsKeepOf is the configured retention; a configuration built by
// hand (tests) that sets no limits either gets the default.
func revisionsKeepOf(cfg *Config) *int {
	if cfg.RevisionsKeep == 0 && cfg.Limits == (models.Limits{}) {
		return nil
	}
	n := cfg.RevisionsKeep
	return &n
}

// limitsOf is the configured abuse limits; a configuration built by hand
// (tests) that sets none gets the defaults.
func limitsOf(cfg *Config) *models.Limits {
	if cfg.Limits == (models.Limits{}) {
		return nil
	}
	l := cfg.Limits
	return &l
}

// healthz answers 200 when the database answers within 2 seconds.
func healthz(db *models.DB) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
		defer cancel()
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
		c.Set(fiber.HeaderCacheControl, "no-store")
		if db == nil || db.Ping(ctx) != nil {
			return c.Status(http.StatusServiceUnavailable).SendString(`{"status":"unavailable"}`)
		}
		return c.SendString(`{"status":"ok"}`)
	}
}

// requestID gives every request an id: the client's X-Request-Id when it is
// short and plain (so ids can be followed across a proxy), else a random
// one. The id is echoed in the X-Request-Id response header, where the
// surfaces read it for their logs.
func requestID() fiber.Handler {
	return func(c *fiber.Ctx) error {
		id := c.Get(fiber.HeaderXRequestID)
		if !plainID(id) {
			var b [8]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		} else {
			id = string([]byte(id)) // the header buffer is reused after the request
		}
		c.Set(fiber.HeaderXRequestID, id)
		return c.Next()
	}
}

// plainID accepts ids of 1 to 64 letters, digits, '-', '_' and '.', so a
// client cannot inject text into the logs through the header.
func plainID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if (ch < 'a' || ch > 'z') && (ch < 'A' || ch > 'Z') && (ch < '0' || ch > '9') && ch != '-' && ch != '_' && ch != '.' {
			return false
		}
	}
	return true
}

// accessLog writes one log line per request: method, path, status,
// duration and request id. An error returned down the chain is handed to
// the app's error handler here, so the line shows the status the client
// gets.
func accessLog(l *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := time.Now()
		if err := c.Next(); err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				l.Error("http: error handler failed", "err", herr, "request_id", c.GetRespHeader(fiber.HeaderXRequestID))
				_ = c.SendStatus(fiber.StatusInternalServerError)
			}
		}
		l.Info("http request",
			"method", c.Method(),
			"path", c.Path(),
			"status", c.Response().StatusCode(),
			"duration", time.Since(start),
			"request_id", c.GetRespHeader(fiber.HeaderXRequestID))
		return nil
	}
}

// errPanic is the cause of the 500 a recovered panic becomes.
var errPanic = errors.New("kalends: panic")

// recoverPanics turns a panic into a 500 (rendered by the error handler
// without detail) and logs its value and stack.
func recoverPanics(l *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) (err error) {
		defer func() {
			if v := recover(); v != nil {
				l.Error("http: panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()),
					"request_id", c.GetRespHeader(fiber.HeaderXRequestID))
				err = fmt.Errorf("%w: %v", errPanic, v)
			}
		}()
		return c.Next()
	}
}

// securityHeaders is set on every response: no content-type guessing, no
// framing by other sites, no admin or API URLs leaked as referrers.
func securityHeaders(c *fiber.Ctx) error {
	setSecurityHeaders(c)
	return c.Next()
}

// setSecurityHeaders sets the headers of securityHeaders.
func setSecurityHeaders(c *fiber.Ctx) {
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderXFrameOptions, "DENY")
	c.Set(fiber.HeaderReferrerPolicy, "same-origin")
}

// bodyLimit refuses a body over api.BodyLimit with 413 (each surface in its
// shape); an image upload may be as large as --media-max-bytes allows, a
// spreadsheet uploaded to the admin's CSV import as --import-max-bytes.
// fasthttp has read it whole (up to the read limit), so the answer
// reaches clients that write the body before they read.
func bodyLimit(cfg *Config) fiber.Handler {
	upload := int(cfg.mediaMax()) + uploadOverhead
	spreadsheet := int(cfg.importMax()) + uploadOverhead
	return func(c *fiber.Ctx) error {
		limit := api.BodyLimit
		switch {
		case isUpload(c):
			limit = upload
		case isSpreadsheet(c):
			limit = spreadsheet
		}
		if len(c.Request().Body()) > limit {
			return fiber.ErrRequestEntityTooLarge
		}
		return c.Next()
	}
}

// failoverRetryAfter is the Retry-After of a request the database failed
// under: about the time HAProxy takes to move to another node
// (scripts/cluster.sh).
const failoverRetryAfter = "2"
