package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
)

// TestSignatureOfTheSpecification: the test vector of the Standard
// Webhooks specification.
func TestSignatureOfTheSpecification(t *testing.T) {
	got, err := Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	if err != nil || got != "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" {
		t.Fatalf("signature %q, %v", got, err)
	}
	if _, err := Sign("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "m", 1, nil); err == nil {
		t.Error("a secret without whsec_ was taken")
	}
}

// TestRotatedSecretsBothVerify: while an old secret is valid, the header
// carries both signatures, each verified by a receiver written apart from
// Sign (its own HMAC).
func TestRotatedSecretsBothVerify(t *testing.T) {
	oldS, newS := NewSecret(), NewSecret()
	body := []byte(`{"type":"event.updated","data":{"title":"夏祭り"}}`)
	h, err := Signatures([]string{newS, oldS}, "msg_1", 1700000000, body)
	if err != nil {
		t.Fatal(err)
	}
	verify := func(secret string) bool {
		key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		m := hmac.New(sha256.New, key)
		m.Write([]byte("msg_1.1700000000." + string(body)))
		want := "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
		for _, s := range strings.Fields(h) {
			if hmac.Equal([]byte(s), []byte(want)) {
				return true
			}
		}
		return false
	}
	if !verify(oldS) || !verify(newS) || verify(NewSecret()) {
		t.Errorf("header %q", h)
	}
}
