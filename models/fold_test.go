package models

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// foldEachRune is FoldSearch written plainly, composed first, then one
// character at a time: what the fast version must equal.
func foldEachRune(s string) string {
	var b strings.Builder
	for _, r := range norm.NFC.String(s) {
		f, _ := foldRune(r)
		b.WriteString(f)
	}
	return b.String()
}

// foldSamples mixes the scripts the calendar holds with the characters
// that fold: capitals, full and half width, katakana, accents, combining
// marks, Hangul, characters beyond the BMP and bytes that are not UTF-8.
var foldSamples = []string{
	"", "a", "Z", "jazz night", "Jazz Night", "夏日音乐节", "한여름 음악회", "カタカナ祭り", "ｶﾀｶﾅ半角ナイト",
	"ＦＵＬＬ Width", "Fête de l'Été", "e\u0301", "Straße", "ひらがな", "パン", "😀 emoji", "\xff", "a\xffB",
	"<p>音乐会工作坊舞蹈茶咖啡钢琴</p>", "ÀÉÎÕÜ", "Ωμέγα", "İstanbul", "\u00a0nbsp", "ｱｲｳｴｵ", "ㄱㄴㄷ",
	// Decomposed: Hangul in conjoining jamo (as macOS writes it), kana and
	// Latin with combining marks, a lone mark, characters NFC replaces
	// (Ångström and Kelvin signs, a compatibility ideograph) and one
	// beyond the BMP (𝅗𝅥, U+1D15E, decomposes).
	"\u1112\u1161\u11ab\u1100\u116e\u11a8", "\u304b\u3099\u3063\u3053\u3046", "\u30cf\u309a\u30f3", "E\u0301te\u0301",
	"\u0301", "\u212b\u212a", "\uf900", "\U0001d15e", "가\u11a8", "\u1100", "\u1161",
}

func TestFoldSearchEqualsTheCharacterByCharacterFold(t *testing.T) {
	t.Parallel()
	check := func(s string) {
		t.Helper()
		if got, want := FoldSearch(s), foldEachRune(s); got != want {
			t.Errorf("FoldSearch(%q) = %q, want %q", s, got, want)
		}
	}
	for _, s := range foldSamples {
		check(s)
	}
	// Random concatenations of the samples' characters and bytes, so the
	// runs that fold to themselves start and end everywhere.
	var pieces []string
	for _, s := range foldSamples {
		for i := 0; i < len(s); {
			_, n := utf8.DecodeRuneInString(s[i:])
			pieces = append(pieces, s[i:i+n])
			i += n
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		check(b.String())
	}
}

// Issue 29 item 2: a word typed decomposed folds as the composed one.
func TestFoldSearchComposesFirst(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{norm.NFD.String("한국"), "한국"},
		{norm.NFD.String("음악회 Été"), "음악회 ete"},
		{norm.NFD.String("が"), "か"},
		{norm.NFD.String("パン"), "はん"},
		{"\u212b", "a"},       // Ångström sign
		{"가\u11a8", "각"},      // syllable + final jamo
		{"\u1100\u1161", "가"}, // conjoining jamo
	} {
		if got := FoldSearch(tt.in); got != tt.want {
			t.Errorf("FoldSearch(%+q) = %+q, want %+q", tt.in, got, tt.want)
		}
	}
}

func TestFoldSearchReturnsFoldedTextItself(t *testing.T) { //nolint:paralleltest // AllocsPerRun refuses parallel tests
	for _, s := range []string{"jazz night", "夏日音乐节", "한여름 음악회", "こんにちは"} {
		if FoldSearch(s) != s {
			t.Fatalf("%q is already folded", s)
		}
		if n := testing.AllocsPerRun(100, func() { _ = FoldSearch(s) }); n != 0 {
			t.Errorf("FoldSearch(%q): %v allocations, want none for text already folded", s, n)
		}
	}
}

// BenchmarkFoldSearch folds a seeded event's description: Chinese, Japanese
// (katakana folds) and English (capitals fold).
func BenchmarkFoldSearch(b *testing.B) {
	for _, s := range []struct{ name, text string }{
		{"zh", strings.Repeat("<p>音乐会工作坊舞蹈茶咖啡钢琴手工街头美食读书港口戏剧市集展览电影节。</p>", 8)},
		{"ja", strings.Repeat("<p>ジャズの夕べとワークショップ、カフェで読書会。</p>", 8)},
		{"en", strings.Repeat("<p>Lecture film Night quartet concert garden evening.</p>", 8)},
		{"ko", strings.Repeat("<p>한여름 밤의 재즈 음악회와 서울 공방, 카페에서 독서 모임.</p>", 8)},
		{"ko-nfd", norm.NFD.String(strings.Repeat("<p>한여름 밤의 재즈 음악회와 서울 공방, 카페에서 독서 모임.</p>", 8))},
	} {
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(s.text)))
			for b.Loop() {
				_ = FoldSearch(s.text)
			}
		})
	}
}
