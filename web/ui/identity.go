package ui

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	"github.com/kalends/kalends/internal/cachegen"
	"github.com/kalends/kalends/models"
)

// The site's identity (models.Settings) as the pages use it: read once and
// kept in memory until the cache generation moves (a save on any instance
// moves it, and each instance reads it at most every --cache-check), with
// the generated stylesheet made from it.

// SiteIdentity is the settings as pages show them.
type SiteIdentity struct {
	Settings *models.Settings
	// Logo is the logo's address ("" for none) and its size.
	Logo                  string
	LogoWidth, LogoHeight int
	// Stylesheet is the generated stylesheet (the accents, then the custom
	// CSS); StylesheetHash names its content (its URL carries it); both
	// empty when there is nothing to add to public.css.
	Stylesheet     []byte
	StylesheetHash string
}

// Name is the site's name in lang, falling back to the default language's
// and then to def (the built-in name in lang).
func (si *SiteIdentity) Name(lang, defaultLang, def string) string {
	if n := si.Settings.Name(lang, defaultLang); n != "" {
		return n
	}
	return def
}

// StylesheetPath is the generated stylesheet's path ("" when there is
// none).
func (si *SiteIdentity) StylesheetPath() string {
	if si.StylesheetHash == "" {
		return ""
	}
	return StylesheetPrefix + si.StylesheetHash + ".css"
}

// StylesheetPrefix is where the generated stylesheet is served: the hash of
// its content follows, so it may be cached for good.
const StylesheetPrefix = "/theme/site-"

// Identity keeps the site's identity of one instance.
type Identity struct {
	db    *models.DB
	watch *cachegen.Watch

	mu  sync.Mutex
	gen int64
	cur *SiteIdentity
}

// NewIdentity returns the identity read from db, checked against the cache
// generation through w (the instance's one Watch, which its response cache
// reads too: a page stored under a generation shows the identity of that
// generation or a newer one).
func NewIdentity(db *models.DB, w *cachegen.Watch) *Identity {
	return &Identity{db: db, watch: w}
}

// Get returns the current identity; on a read error the last one read (or
// an empty one), so a page still renders.
func (id *Identity) Get(ctx context.Context) *SiteIdentity {
	gen, ok := id.watch.Current(ctx, time.Now())
	id.mu.Lock()
	cur, same := id.cur, id.cur != nil && ok && gen == id.gen
	id.mu.Unlock()
	if same {
		return cur
	}
	si, err := LoadIdentity(ctx, id.db)
	if err != nil {
		if cur != nil {
			return cur
		}
		return emptyIdentity()
	}
	id.mu.Lock()
	id.cur, id.gen = si, gen
	if !ok {
		id.cur = nil // read again next time
	}
	id.mu.Unlock()
	return si
}

// Wrote makes the next Get read the generation (this instance just saved
// the settings).
func (id *Identity) Wrote() { id.watch.Wrote() }

func emptyIdentity() *SiteIdentity {
	return &SiteIdentity{Settings: &models.Settings{Names: map[string]string{}, Taglines: map[string]string{}}}
}

// LoadIdentity reads the settings and what they show from db.
func LoadIdentity(ctx context.Context, db *models.DB) (*SiteIdentity, error) {
	st, err := db.Settings(ctx)
	if err != nil {
		return nil, err
	}
	si := &SiteIdentity{Settings: st}
	if st.LogoID != 0 {
		if m, err := db.Media(ctx, st.LogoID); err == nil {
			si.Logo, si.LogoWidth, si.LogoHeight = m.Path("full"), m.Width, m.Height
		}
	}
	si.Stylesheet = stylesheet(st)
	if len(si.Stylesheet) > 0 {
		sum := sha256.Sum256(si.Stylesheet)
		si.StylesheetHash = hex.EncodeToString(sum[:8])
	}
	return si, nil
}

// stylesheet is the generated stylesheet of st: the accent of each scheme
// (public.css's --accent), then the custom CSS, last so that it wins.
func stylesheet(st *models.Settings) []byte {
	var b strings.Builder
	if st.AccentLight != "" {
		b.WriteString(":root { --accent: " + st.AccentLight + "; }\n")
	}
	if st.AccentDark != "" {
		b.WriteString("@media (prefers-color-scheme: dark) {\n  :root { --accent: " + st.AccentDark + "; }\n}\n")
	}
	if css := strings.TrimSpace(st.CustomCSS); css != "" {
		b.WriteString("/* custom CSS (/admin/settings) */\n" + css + "\n")
	}
	return []byte(b.String())
}

// Identity returns the site's identity for a request. Without an Identity
// in d (tests that build Deps by hand) it is read from the database each
// time.
func (d *Deps) Identity(ctx context.Context) *SiteIdentity {
	if d.Ident != nil {
		return d.Ident.Get(ctx)
	}
	if d.DB == nil {
		return emptyIdentity()
	}
	si, err := LoadIdentity(ctx, d.DB)
	if err != nil {
		return emptyIdentity()
	}
	return si
}

// SiteName is the site's name in lang: the settings' (with its fallbacks)
// or the message public.site_name.
func (d *Deps) SiteName(ctx context.Context, lang string) string {
	return d.Identity(ctx).Name(lang, d.SiteLang(), d.I18n.T(lang, "public.site_name", nil))
}
