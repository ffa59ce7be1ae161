package i18n

import "testing"

func TestMatchAcceptLanguage(t *testing.T) {
	for _, c := range []struct{ header, want string }{
		{"zh-CN,zh;q=0.9", "zh-hans"},
		{"zh", "zh-hans"},
		{"zh-Hans", "zh-hans"},
		{"zh-TW,zh;q=0.9", "zh-hans"},
		{"ja-JP,ja;q=0.9,en;q=0.8", "ja"},
		{"ko-KR", "ko"},
		{"en-GB,en;q=0.9", "en"},
		{"fr-FR,fr;q=0.9", "en"},
		{"de, ja;q=0.5", "ja"},
		{"", "en"},
		{"*", "en"},
		{";;;===garbage", "en"},
	} {
		if got := Match(c.header, "en"); got != c.want {
			t.Errorf("Match(%q) = %q, want %q", c.header, got, c.want)
		}
	}
	if got := Match("fr", "ja"); got != "ja" {
		t.Errorf("unknown language must fall back to the given default, got %q", got)
	}
}

func TestNormalize(t *testing.T) {
	//nolint:gocritic // mapKey: the spaces around " ja " are input under test (Normalize trims them).
	for in, want := range map[string]string{"zh-Hans": "zh-hans", "ZH_HANS": "zh-hans", " ja ": "ja", "en": "en", "fr": "", "": ""} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}
