// Package eventcsv reads and writes the spreadsheets people keep their
// events, venues and organizers in: the encodings Excel writes (UTF-8 with
// or without a BOM, UTF-16 with a BOM, and the legacy code pages of
// Japan, mainland China, Taiwan and Korea), the separators it uses, The
// Events Calendar's column names and ours, the dates and times people
// type in four languages, and the escape that keeps a cell from being run
// as a formula. It knows nothing of the store: the importer and the
// exporter (issue 33) build on it.
package eventcsv

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	xunicode "golang.org/x/text/encoding/unicode"
)

// Encoding names (the --encoding values).
const (
	UTF8     = "utf-8"
	UTF8BOM  = "utf-8-bom" // writing only: UTF-8 with a BOM, which Excel needs to read UTF-8
	UTF16LE  = "utf-16le"
	UTF16BE  = "utf-16be"
	ShiftJIS = "shift_jis" // Windows code page 932, what Japanese Excel writes
	GB18030  = "gb18030"   // mainland China (a superset of GBK, code page 936)
	Big5     = "big5"      // Taiwan and Hong Kong (code page 950, with HKSCS)
	EUCKR    = "euc-kr"    // Korea (code page 949, Unified Hangul Code)
)

// legacy are the code pages tried on a file that is not UTF-8, in the
// order a tie is listed. x/text implements each as the WHATWG Encoding
// Standard defines it, which is the Windows code page Excel uses.
var legacy = []struct {
	name string
	enc  encoding.Encoding
}{
	{ShiftJIS, japanese.ShiftJIS},
	{EUCKR, korean.EUCKR},
	{Big5, traditionalchinese.Big5},
	{GB18030, simplifiedchinese.GB18030},
}

// Names are the encodings Decode and Encode accept.
var Names = []string{UTF8, UTF8BOM, UTF16LE, UTF16BE, ShiftJIS, GB18030, Big5, EUCKR}

// ErrAmbiguous is returned by Decode when the bytes decode cleanly in more
// than one legacy encoding: the caller asks (the admin, with a preview in
// each) or refuses and names --encoding (the command line).
var ErrAmbiguous = errors.New("eventcsv: the file decodes in more than one encoding")

// ErrUndecodable is returned when no encoding decodes the bytes cleanly.
var ErrUndecodable = errors.New("eventcsv: the file is in no encoding known here")

// Candidate is one encoding a file decodes in, with its text.
type Candidate struct {
	Encoding string
	Text     string
}

// Decode returns the text of data and the encoding it was read in. With
// name set, that encoding is used (a BOM of another Unicode form is an
// error). Otherwise a BOM decides, then valid UTF-8; a file that is
// neither is tried in each legacy code page, and must decode cleanly (no
// invalid sequence, no private-use or control character) in exactly one:
// GB18030 decodes almost any bytes, so more than one is ErrAmbiguous,
// with every clean candidate, the likeliest first.
func Decode(data []byte, name string) (text, used string, candidates []Candidate, err error) {
	bom := bomOf(data)
	if name != "" {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == UTF8BOM {
			name = UTF8
		}
		if bom != "" && bom != name {
			return "", "", nil, fmt.Errorf("eventcsv: the file starts with a %s byte order mark, not %s", bom, name)
		}
		t, err := decodeAs(data, name)
		return t, name, nil, err
	}
	if bom != "" {
		t, err := decodeAs(data, bom)
		return t, bom, nil, err
	}
	if utf8.Valid(data) {
		return string(data), UTF8, nil, nil
	}
	for _, l := range legacy {
		t, err := l.enc.NewDecoder().Bytes(data)
		if err == nil && clean(string(t)) {
			candidates = append(candidates, Candidate{Encoding: l.name, Text: string(t)})
		}
	}
	switch len(candidates) {
	case 0:
		return "", "", nil, ErrUndecodable
	case 1:
		return candidates[0].Text, candidates[0].Encoding, candidates, nil
	}
	slices.SortStableFunc(candidates, func(a, b Candidate) int { return likeness(b) - likeness(a) })
	return "", "", candidates, fmt.Errorf("%w: %s", ErrAmbiguous, candidateNames(candidates))
}

func candidateNames(cs []Candidate) string {
	var names []string
	for _, c := range cs {
		names = append(names, c.Encoding)
	}
	return strings.Join(names, ", ")
}

// bomOf names the Unicode form data's byte order mark announces, or "".
func bomOf(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return UTF8
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return UTF16LE
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return UTF16BE
	}
	return ""
}

// decodeAs decodes data in the encoding name, dropping a BOM.
func decodeAs(data []byte, name string) (string, error) {
	var d *encoding.Decoder
	switch name {
	case UTF8:
		data = bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})
		if !utf8.Valid(data) {
			return "", fmt.Errorf("eventcsv: the file is not valid UTF-8")
		}
		return string(data), nil
	case UTF16LE:
		d = xunicode.UTF16(xunicode.LittleEndian, xunicode.ExpectBOM).NewDecoder()
	case UTF16BE:
		d = xunicode.UTF16(xunicode.BigEndian, xunicode.ExpectBOM).NewDecoder()
	default:
		for _, l := range legacy {
			if l.name == name {
				d = l.enc.NewDecoder()
			}
		}
	}
	if d == nil {
		return "", fmt.Errorf("eventcsv: unknown encoding %q (known: %s)", name, strings.Join(Names, ", "))
	}
	t, err := d.Bytes(data)
	if err != nil {
		return "", fmt.Errorf("eventcsv: the file is not valid %s: %w", name, err)
	}
	if strings.ContainsRune(string(t), utf8.RuneError) && !bytes.Contains(data, []byte("\uFFFD")) {
		return "", fmt.Errorf("eventcsv: the file is not valid %s", name)
	}
	return string(t), nil
}

// clean reports whether a decoded text holds nothing a spreadsheet of
// events would not: no replacement character (an invalid sequence), no
// private-use character (what a wrong code page often maps to) and no
// control character but tab and line ends.
func clean(t string) bool {
	for _, r := range t {
		switch {
		case r == utf8.RuneError, unicode.Is(unicode.Co, r):
			return false
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r >= 0x7F && r < 0xA0:
			return false
		}
	}
	return true
}

// likeness scores how much a decoded text looks like its encoding's
// language: kana for Shift_JIS, Hangul for EUC-KR, Han for the Chinese
// code pages (a Shift_JIS file read as GB18030 gives Han and symbols, not
// kana). Only the order of candidates depends on it.
func likeness(c Candidate) int {
	score := 0
	for _, r := range c.Text {
		switch {
		case r < 0x80:
		case unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r):
			if c.Encoding == ShiftJIS {
				score += 2
			}
		case unicode.Is(unicode.Hangul, r):
			if c.Encoding == EUCKR {
				score += 2
			}
		case unicode.Is(unicode.Han, r):
			score++
		default:
			score-- // symbols, box drawing, letters of other scripts
		}
	}
	return score
}

// Encode writes text in the encoding name (UTF8BOM: UTF-8 with a BOM;
// UTF-16 with its BOM). A character the code page lacks is an error
// naming it, not a silent "?".
func Encode(text, name string) ([]byte, error) {
	var e *encoding.Encoder
	switch strings.ToLower(name) {
	case UTF8:
		return []byte(text), nil
	case UTF8BOM:
		return append([]byte{0xEF, 0xBB, 0xBF}, text...), nil
	case UTF16LE:
		e = xunicode.UTF16(xunicode.LittleEndian, xunicode.UseBOM).NewEncoder()
	case UTF16BE:
		e = xunicode.UTF16(xunicode.BigEndian, xunicode.UseBOM).NewEncoder()
	default:
		for _, l := range legacy {
			if l.name == strings.ToLower(name) {
				e = l.enc.NewEncoder()
			}
		}
	}
	if e == nil {
		return nil, fmt.Errorf("eventcsv: unknown encoding %q (known: %s)", name, strings.Join(Names, ", "))
	}
	if strings.EqualFold(name, ShiftJIS) {
		// The WHATWG encoder's rule, which x/text lacks: the yen sign and
		// the overline are bytes 0x5C and 0x7E, which Japanese fonts draw
		// as ¥ and ‾ (so a price in yen stays writable; it reads back as
		// a backslash).
		text = strings.NewReplacer("\u00A5", "\\", "\u203E", "~").Replace(text)
	}
	out, err := e.Bytes([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("eventcsv: a character has no %s form: %w", name, err)
	}
	return out, nil
}
