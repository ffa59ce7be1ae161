// Package webhook signs webhook deliveries as the Standard Webhooks
// specification says (https://www.standardwebhooks.com): the signature is
// "v1," plus the base64 HMAC-SHA256 of "id.timestamp.body", keyed with the
// base64-decoded part of a "whsec_" secret.
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// SecretPrefix starts every secret.
const SecretPrefix = "whsec_"

// ErrSecret is a secret that is not "whsec_" and base64.
var ErrSecret = errors.New("webhook: not a whsec_ secret")

// NewSecret returns a fresh secret of 24 random bytes.
func NewSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// Sign returns the "v1,…" signature of one message.
func Sign(secret, msgID string, timestamp int64, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || !strings.HasPrefix(secret, SecretPrefix) {
		return "", ErrSecret
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msgID + "." + strconv.FormatInt(timestamp, 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Signatures is the webhook-signature header for the secrets in use: each
// signature, space-separated (the old secret's too while it is valid).
func Signatures(secrets []string, msgID string, timestamp int64, body []byte) (string, error) {
	var out []string
	for _, s := range secrets {
		sig, err := Sign(s, msgID, timestamp, body)
		if err != nil {
			return "", err
		}
		out = append(out, sig)
	}
	return strings.Join(out, " "), nil
}

// NewMessageID returns a fresh webhook-id.
func NewMessageID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "msg_" + base64.RawURLEncoding.EncodeToString(b)
}
