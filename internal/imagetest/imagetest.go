// Package imagetest makes image files for tests of the media library: real
// encodings, a JPEG carrying EXIF (orientation and GPS) and a PNG whose
// header declares a picture far too large (a decompression bomb).
package imagetest

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
)

// Picture is a w x h gradient.
func Picture(w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 255 / max(w, 1)), uint8(y * 255 / max(h, 1)), 128, 255}) //nolint:gosec // G115: x < w, so the value is below 256
		}
	}
	return img
}

// PNG encodes a w x h picture as PNG.
func PNG(w, h int) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, Picture(w, h)); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// JPEG encodes a w x h picture as JPEG.
func JPEG(w, h int) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, Picture(w, h), nil); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// GPSMarker is a string inside the GPS EXIF of JPEGWithGPS.
const GPSMarker = "KALENDS-GPS-PROBE"

// JPEGWithGPS is a w x h JPEG with an EXIF segment that says "rotate 90°
// clockwise" (orientation 6) and holds a GPS directory with GPSMarker.
func JPEGWithGPS(w, h int) []byte {
	le := binary.LittleEndian
	var t bytes.Buffer
	t.WriteString("II*\x00")
	_ = binary.Write(&t, le, uint32(8))
	// IFD0 at 8: two entries, then the next-IFD offset.
	gpsIFD := uint32(8 + 2 + 2*12 + 4)
	_ = binary.Write(&t, le, uint16(2))
	entry := func(tag, typ uint16, count, value uint32) {
		_ = binary.Write(&t, le, tag)
		_ = binary.Write(&t, le, typ)
		_ = binary.Write(&t, le, count)
		_ = binary.Write(&t, le, value)
	}
	entry(0x0112, 3, 1, 6)      // Orientation = 6
	entry(0x8825, 4, 1, gpsIFD) // GPSInfo
	_ = binary.Write(&t, le, uint32(0))
	// GPS IFD: GPSLatitudeRef and a GPSAreaInformation-like ASCII value.
	str := GPSMarker + "\x00"
	strAt := gpsIFD + 2 + 2*12 + 4
	_ = binary.Write(&t, le, uint16(2))
	entry(0x0001, 2, 2, uint32('N'))
	entry(0x001c, 2, uint32(len(str)), strAt) //nolint:gosec // G115: a short constant
	_ = binary.Write(&t, le, uint32(0))
	t.WriteString(str)

	payload := append([]byte("Exif\x00\x00"), t.Bytes()...)
	seg := []byte{0xFF, 0xE1, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)} //nolint:gosec // G115: the segment length's two bytes, by design
	seg = append(seg, payload...)
	j := JPEG(w, h)
	out := append([]byte{}, j[:2]...) // SOI
	out = append(out, seg...)
	return append(out, j[2:]...)
}

// PNGBomb is a tiny PNG whose header declares w x h pixels (no real data).
func PNGBomb(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data))) //nolint:gosec // G115: chunks of a few bytes
		c := append([]byte(typ), data...)
		b.Write(c)
		_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(c))
	}
	chunk("IHDR", ihdr)
	chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})
	chunk("IEND", nil)
	return b.Bytes()
}
