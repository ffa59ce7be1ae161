package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// SessionCookie is the name of the admin's session cookie (SPEC §10).
const SessionCookie = "kalends_session"

// ErrNoSession is the error of a session token that names no session, or
// one that expired.
// It matches ErrBadCredentials.
var ErrNoSession = fmt.Errorf("%w: no such session", ErrBadCredentials)

// SessionSeenResolution is how precisely the last use of a session is
// kept: a signed-in request writes its session (last seen, address and
// sliding expiry, in one update) at most this often, so a busy editor does
// not cost a write per page.
const SessionSeenResolution = 5 * time.Minute

// maxUserAgent is how many characters of a User-Agent a session keeps:
// enough for every browser's product tokens, bounded so that a client
// cannot fill the table.
const maxUserAgent = 255

// SessionClient is what is known of the browser a session starts in: its
// User-Agent header and its address as the server sees it (behind trusted
// proxies, the client's).
type SessionClient struct {
	UserAgent, IP string
}

// CreateSession is StartSession for a client nothing is known of (tools
// and tests).
func (s *Store) CreateSession(ctx context.Context, userID int64, ttl time.Duration) (string, *Session, error) {
	return s.StartSession(ctx, userID, ttl, SessionClient{})
}

// StartSession signs userID in on client for ttl (sliding, see
// TouchSession), and never longer than the site's SessionLifetime after
// now: it returns the cookie token (32 random bytes, base64url) and the
// stored session. Only the SHA-256 of the token is stored, so a copy of the
// database opens no session. The CSRF token and the API nonce are random
// too. Sessions of everyone that are over are deleted on the way (sessions
// are only ever created at sign-in, so the table stays small without a
// background job).
func (s *Store) StartSession(ctx context.Context, userID int64, ttl time.Duration, client SessionClient) (string, *Session, error) {
	if ttl < time.Second {
		return "", nil, fmt.Errorf("%w: a session lasts at least a second", ErrInvalid)
	}
	token := randomToken()
	now, maxAge := s.site.Now(), s.site.SessionLifetime()
	sess := &Session{ID: sessionID(token), UserID: userID, CSRFToken: randomToken(), Nonce: randomToken(),
		CreatedAt: now, ExpiresAt: now.Add(min(ttl, maxAge)), UserAgent: cleanUserAgent(client.UserAgent),
		IP: boundIP(client.IP), LastSeenAt: now}
	err := s.RunInTx(ctx, func(tx *Store) error {
		if _, err := tx.db.NewDelete().Model((*Session)(nil)).
			WhereOr("expires_at <= ?", now).WhereOr("created_at <= ?", now.Add(-maxAge)).Exec(ctx); err != nil {
			return fmt.Errorf("models: delete expired sessions: %w", mapErr(err))
		}
		ok, err := tx.UserExists(ctx, userID)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("models: session for user %d: %w", userID, ErrNotFound)
		}
		if _, err := tx.db.NewInsert().Model(sess).Exec(ctx); err != nil {
			return fmt.Errorf("models: create session: %w", mapErr(err))
		}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	return token, sess, nil
}

// sessionWithUser reads a session and its user in one query.
type sessionWithUser struct {
	bun.BaseModel `bun:"table:sessions,alias:s"`
	Session
	User *User `bun:"rel:belongs-to,join:user_id=id"`
}

// live limits q (on sessions, alias s) to the sessions not over at now:
// before their sliding expiry, and younger than the site's
// SessionLifetime. The second test is not redundant with the first: a
// lifetime shortened in the configuration ends the older sessions at once.
func (s *Store) live(q *bun.SelectQuery, now time.Time) *bun.SelectQuery {
	return q.Where("s.expires_at > ?", now).Where("s.created_at > ?", now.Add(-s.site.SessionLifetime()))
}

// SessionByToken returns the live session of a cookie token and its user,
// or ErrNoSession when the token is unknown or the session is over (its
// sliding expiry passed, or it was signed in longer than the site's
// SessionLifetime ago). The admin and the API's cookie + nonce both come
// here, so both end with the session.
func (s *Store) SessionByToken(ctx context.Context, token string) (*Session, *User, error) {
	if token == "" || len(token) > 256 {
		return nil, nil, ErrNoSession
	}
	var row sessionWithUser
	q := s.db.NewSelect().Model(&row).Relation("User").Where("s.id = ?", sessionID(token))
	err := s.live(q, s.site.Now()).Scan(ctx)
	if err != nil {
		err = mapErr(err)
		if errors.Is(err, ErrNotFound) {
			return nil, nil, ErrNoSession
		}
		return nil, nil, fmt.Errorf("models: read session: %w", err)
	}
	if row.User == nil || row.User.ID == 0 {
		return nil, nil, ErrNoSession
	}
	sess := row.Session
	return &sess, row.User, nil
}

// TouchSession records a use of live session sess from address ip: once
// SessionSeenResolution has passed since it was last seen, one update
// sets its last-seen time and address and slides its expiry to ttl from
// now, but never past sign-in plus the site's SessionLifetime. It reports
// whether it wrote, and then updates sess. An update another request made
// first, or a session that ended meanwhile, is no write and no error. This
// is the one write a GET may cause, and it stays in the sessions table.
func (s *Store) TouchSession(ctx context.Context, sess *Session, ttl time.Duration, ip string) (bool, error) {
	if ttl < time.Second {
		return false, fmt.Errorf("%w: a session lasts at least a second", ErrInvalid)
	}
	now := s.site.Now()
	if now.Sub(sess.SeenAt()) < SessionSeenResolution {
		return false, nil
	}
	expires, ip := now.Add(ttl), boundIP(ip)
	if end := sess.CreatedAt.Add(s.site.SessionLifetime()); end.Before(expires) {
		expires = end
	}
	res, err := s.db.NewUpdate().Model((*Session)(nil)).
		Set("expires_at = ?", expires).Set("last_seen_at = ?", now).Set("ip = ?", ip).
		Where("id = ?", sess.ID).Where("expires_at > ?", now).
		WhereGroup(" AND ", func(q *bun.UpdateQuery) *bun.UpdateQuery {
			return q.Where("last_seen_at IS NULL").WhereOr("last_seen_at <= ?", now.Add(-SessionSeenResolution))
		}).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("models: touch session: %w", mapErr(err))
	}
	// The update changes last_seen_at by at least the resolution, so
	// MySQL's count of changed rows is the count of matched ones.
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, nil //nolint:nilerr // a driver without a count: the write is done or was not needed
	}
	sess.ExpiresAt, sess.LastSeenAt, sess.IP = expires, now, ip
	return true, nil
}

// SeenAt is when the session was last used (its sign-in for a row from
// before last uses were kept).
func (sess *Session) SeenAt() time.Time {
	if sess.LastSeenAt.IsZero() {
		return sess.CreatedAt
	}
	return sess.LastSeenAt
}

// EndSession signs the session of a cookie token out. Ending a session that
// does not exist is not an error (signing out twice is harmless).
func (s *Store) EndSession(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	if _, err := s.db.NewDelete().Model((*Session)(nil)).Where("id = ?", sessionID(token)).Exec(ctx); err != nil {
		return fmt.Errorf("models: end session: %w", mapErr(err))
	}
	return nil
}

// EndUserSessions signs userID out everywhere (on a password change, when
// an administrator locks the account out).
func (s *Store) EndUserSessions(ctx context.Context, userID int64) error {
	if _, err := s.db.NewDelete().Model((*Session)(nil)).Where("user_id = ?", userID).Exec(ctx); err != nil {
		return fmt.Errorf("models: end sessions of user %d: %w", userID, mapErr(err))
	}
	return nil
}

// maxListedSessions bounds the sessions ListSessions returns: the most
// recently used; "end all others" reaches the rest.
const maxListedSessions = 100

// ListSessions returns the live sessions of userID, the most recently used
// first (at most maxListedSessions). The admin lists the signed-in user's
// own: nobody else's sessions are shown to anyone.
func (s *Store) ListSessions(ctx context.Context, userID int64) ([]Session, error) {
	var rows []sessionWithUser // (its user is not read)
	q := s.db.NewSelect().Model(&rows).Where("s.user_id = ?", userID)
	err := s.live(q, s.site.Now()).OrderExpr("s.last_seen_at DESC, s.created_at DESC, s.id").Limit(maxListedSessions).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: list sessions of user %d: %w", userID, mapErr(err))
	}
	out := make([]Session, len(rows))
	for i := range rows {
		out[i] = rows[i].Session
	}
	return out, nil
}

// EndUserSession ends the session id (the stored id) if it is one of
// userID's; anyone else's session, or one already over, is left alone and
// is no error, so ending twice is harmless and says nothing of other
// users' sessions.
func (s *Store) EndUserSession(ctx context.Context, userID int64, id string) error {
	if _, err := s.db.NewDelete().Model((*Session)(nil)).Where("id = ?", id).Where("user_id = ?", userID).Exec(ctx); err != nil {
		return fmt.Errorf("models: end session of user %d: %w", userID, mapErr(err))
	}
	return nil
}

// EndOtherSessions ends every session of userID but keepID (the one the
// request came with) and returns how many it ended.
func (s *Store) EndOtherSessions(ctx context.Context, userID int64, keepID string) (int64, error) {
	res, err := s.db.NewDelete().Model((*Session)(nil)).Where("user_id = ?", userID).Where("id <> ?", keepID).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("models: end other sessions of user %d: %w", userID, mapErr(err))
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// randomToken returns 32 random bytes as unpadded base64url (43 characters).
func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// sessionID is the stored id of a session token: its SHA-256 in hex.
func sessionID(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// cleanUserAgent is a User-Agent fit to keep: valid UTF-8 without control
// characters, trimmed, at most maxUserAgent characters.
func cleanUserAgent(ua string) string {
	ua = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(ua, "\uFFFD"))
	ua = strings.TrimSpace(ua)
	if utf8.RuneCountInString(ua) > maxUserAgent {
		ua = string([]rune(ua)[:maxUserAgent])
	}
	return ua
}

// boundIP cuts an address to the 64 characters its columns hold (an IPv6
// address with a zone is the longest there is).
func boundIP(ip string) string {
	if len(ip) > 64 {
		return ip[:64]
	}
	return ip
}
