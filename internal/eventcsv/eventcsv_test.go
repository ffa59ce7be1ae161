package eventcsv

import (
	"encoding/csv"
	"errors"
	"slices"
	"strings"
	"testing"
)

// rows are short spreadsheets in each language, as people type them.
var rows = map[string]string{
	"ja": "イベント名,開始日,開始時刻,会場\n" +
		"京都・祇園祭の宵山,2026年7月16日,午後6時,四条烏丸\n" +
		"東京ジャズ・フェスティバル,2026/9/5,19:00,渋谷 NHKホール\n" +
		"「能」と狂言の夕べ,2026-10-03,午後7時30分,国立能楽堂\n",
	"zh-hans": "活动名称,开始日期,开始时间,场地\n" +
		"上海国际电影节开幕式,2026年6月13日,下午7点,上海大剧院\n" +
		"北京798艺术区周末市集,2026/5/3,上午10点半,798艺术区\n",
	"zh-hant": "活動名稱,開始日期,開始時間,場地\n" +
		"臺北燈節開幕,2026年2月28日,下午6點,臺北車站廣場\n" +
		"高雄港都音樂會,2026/3/14,19:30,駁二藝術特區\n",
	"ko": "행사명,시작일,시작 시간,장소\n" +
		"서울 재즈 페스티벌,2026년 5월 23일,오후 7시,올림픽공원\n" +
		"부산 국제 영화제 개막식,2026/10/1,오후 6시 30분,영화의전당\n",
}

// TestDecodesWhatExcelWrites: each file saved in UTF-8 (with and without
// a BOM), UTF-16 with a BOM and its language's legacy code page decodes
// to the same text, detected or with the encoding named; several clean
// candidates are ErrAmbiguous (the likeliest first), never a silent
// guess; and a wrong --encoding is refused rather than read as mojibake.
func TestDecodesWhatExcelWrites(t *testing.T) {
	t.Parallel()
	legacyOf := map[string]string{"ja": ShiftJIS, "zh-hans": GB18030, "zh-hant": Big5, "ko": EUCKR}
	for lang, text := range rows {
		for _, enc := range []string{UTF8, UTF8BOM, UTF16LE, UTF16BE, legacyOf[lang]} {
			data, err := Encode(text, enc)
			if err != nil {
				t.Fatalf("%s in %s: %v", lang, enc, err)
			}
			got, used, cands, err := Decode(data, "")
			switch {
			case errors.Is(err, ErrAmbiguous):
				if enc != legacyOf[lang] {
					t.Errorf("%s in %s: ambiguous", lang, enc)
				}
				if len(cands) < 2 || cands[0].Encoding != enc || cands[0].Text != text {
					t.Errorf("%s in %s: the right reading is not the first of the candidates %s", lang, enc, candidateNames(cands))
				}
			case err != nil:
				t.Errorf("%s in %s: %v", lang, enc, err)
			case got != text:
				t.Errorf("%s in %s: detected as %s, read %q", lang, enc, used, got)
			}
			named, _, _, err := Decode(data, enc)
			if err != nil || named != text {
				t.Errorf("%s in %s, named: %q, %v", lang, enc, named, err)
			}
		}
	}
	// Read with the wrong code page, the bytes are refused or come out
	// different: a test that guarded nothing would pass here too, so the
	// right one must differ from at least one wrong one.
	sjis, _ := Encode(rows["ja"], ShiftJIS)
	if _, _, _, err := Decode(sjis, UTF8); err == nil {
		t.Error("Shift_JIS bytes read as UTF-8")
	}
	if bad, _, _, err := Decode(sjis, EUCKR); err == nil && bad == rows["ja"] {
		t.Error("Shift_JIS bytes read as EUC-KR give the same text")
	}
	if _, err := Encode(rows["ko"], ShiftJIS); err == nil {
		t.Error("Hangul encoded in Shift_JIS without an error")
	}
	if _, _, _, err := Decode([]byte{0xFF, 0xFE, 'a', 0}, UTF8); err == nil {
		t.Error("a UTF-16 BOM read as UTF-8")
	}
}

// TestSeparatorsAndHeaders: comma, semicolon and tab are found from the
// header line (not from quoted cells), and TEC's headers, their variants
// and ours map to the same fields, whatever their case and spacing.
func TestSeparatorsAndHeaders(t *testing.T) {
	t.Parallel()
	for sep, text := range map[rune]string{
		',':  "Event Name,\"Event Description; with; semicolons\",Event Start Date\n",
		';':  "Event Name;Event Start Date;\"Venue, Hall\"\n",
		'\t': "Event Name\tEvent Start Date\t\"a,b,c\"\n",
	} {
		if got := DetectSeparator(text); got != sep {
			t.Errorf("%q: separator %q, want %q", text, got, sep)
		}
	}
	header := []string{"EVENT NAME", "event_start_date", "Event  Start Time", "Timezone", "All Day Event",
		"Event Venue Name", "ｅｖｅｎｔ ｔａｇｓ", "Event Category", "Event Currency Symbol", "Unrelated", "title"}
	want := Mapping{FieldTitle, FieldStartDate, FieldStartTime, FieldTimezone, FieldAllDay,
		FieldVenue, FieldTags, FieldCategories, FieldCurrencySymbol, "", ""}
	if got := GuessMapping(KindEvents, header); !slices.Equal(got, want) {
		t.Errorf("mapping %q, want %q", got, want)
	}
	ours := []string{"title", "start_date", "end_date", "event time zone", "event all day"}
	if got := GuessMapping(KindEvents, ours); !slices.Equal(got, Mapping{FieldTitle, FieldStartDate, FieldEndDate, FieldTimezone, FieldAllDay}) {
		t.Errorf("our names: %q", got)
	}
	venue := GuessMapping(KindVenues, []string{"Venue Name", "Venue Address", "Venue City", "Venue Country", "Venue State/Province", "Venue Zip", "Venue Phone"})
	if !slices.Equal(venue, Mapping{FieldTitle, FieldAddress, FieldCity, FieldCountry, FieldProvince, FieldZip, FieldPhone}) {
		t.Errorf("venue mapping %q", venue)
	}
	org := GuessMapping(KindOrganizers, []string{"Organizer Name", "Organizer Email", "Organizer Phone", "Organizer Website"})
	if !slices.Equal(org, Mapping{FieldTitle, FieldEmail, FieldPhone, FieldWebsite}) {
		t.Errorf("organizer mapping %q", org)
	}
	if !slices.Contains(Fields(KindEvents), FieldCost) || slices.Contains(Fields(KindOrganizers), FieldCost) {
		t.Error("Fields lists the wrong fields")
	}
}

func TestParseDate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cell  string
		order DateOrder
		want  string
		code  string
	}{
		{"2026-05-03", MDY, "2026-05-03", ""},
		{"2026/5/3", MDY, "2026-05-03", ""},
		{"2026.05.03", DMY, "2026-05-03", ""},
		{"２０２６年５月３日", MDY, "2026-05-03", ""},
		{"2026年12月31日", DMY, "2026-12-31", ""},
		{"2026년 5월 3일", MDY, "2026-05-03", ""},
		{"05/03/2026", MDY, "2026-05-03", ""},
		{"05/03/2026", DMY, "2026-03-05", ""},
		{"25-12-2026", DMY, "2026-12-25", ""},
		{"25/12/2026", MDY, "", ProblemDateInvalid},
		{"2026-02-29", MDY, "", ProblemDateInvalid},
		{"2028-02-29", MDY, "2028-02-29", ""},
		{"2026-13-01", MDY, "", ProblemDateInvalid},
		{"05/03/26", MDY, "", ProblemDateAmbiguous},
		{"3 May 2026", MDY, "", ProblemDateFormat},
		{"", MDY, "", ProblemDateFormat},
	} {
		d, p := ParseDate(c.cell, c.order)
		switch {
		case c.code != "" && (p == nil || p.Code != c.code):
			t.Errorf("%q (%s): %v %v, want %s", c.cell, c.order, d, p, c.code)
		case c.code == "" && (p != nil || d.String() != c.want):
			t.Errorf("%q (%s): %v %v, want %s", c.cell, c.order, d, p, c.want)
		}
	}
}

func TestParseTime(t *testing.T) {
	t.Parallel()
	for cell, want := range map[string]string{
		"19:00": "19:00", "7:05": "07:05", "19:00:30": "19:00", "７：３０": "07:30",
		"7:00 PM": "19:00", "7pm": "19:00", "12:15 a.m.": "00:15", "12 PM": "12:00",
		"午後7時": "19:00", "午後7時30分": "19:30", "午前10時半": "10:30", "19時": "19:00", "午後１時": "13:00",
		"下午7点": "19:00", "上午10点半": "10:30", "中午12点": "12:00", "晚上8点15分": "20:15", "下午7:30": "19:30",
		"오후 7시": "19:00", "오후 6시 30분": "18:30", "오전 9시반": "09:30", "18시": "18:00",
		"午後13時": "13:00",
		"25:00": ProblemTimeInvalid, "7:75": ProblemTimeInvalid, "午前13時": ProblemTimeInvalid,
		"evening": ProblemTimeFormat, "": ProblemTimeFormat, "7::00": ProblemTimeFormat,
	} {
		c, p := ParseTime(cell)
		switch {
		case strings.Contains(want, ":"):
			if p != nil || c.String() != want {
				t.Errorf("%q: %v %v, want %s", cell, c, p, want)
			}
		case p == nil || p.Code != want:
			t.Errorf("%q: %v %v, want %s", cell, c, p, want)
		}
	}
}

// TestFormulaCells: a cell that a spreadsheet would run as a formula is
// written escaped, survives a CSV round trip, and is restored exactly;
// other cells, apostrophes of the author's included, are untouched.
func TestFormulaCells(t *testing.T) {
	t.Parallel()
	cells := []string{`=HYPERLINK("http://evil.example","クリック")`, "+81 3-1234-5678", "-5", "@SUM(A1)", "\tindent", "\rcr",
		"'quoted by the author", "'=already escaped once", "東京", "", "a=b"}
	var b strings.Builder
	w := csv.NewWriter(&b)
	var row []string
	for _, c := range cells {
		row = append(row, EscapeCell(c))
	}
	if err := w.Write(row); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	for _, c := range row[:6] {
		if !strings.HasPrefix(c, "'") {
			t.Errorf("%q is not escaped", c)
		}
	}
	back, err := csv.NewReader(strings.NewReader(b.String())).Read()
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range back {
		if got := UnescapeCell(c); got != cells[i] {
			t.Errorf("cell %d: %q came back as %q", i, cells[i], got)
		}
	}
}
