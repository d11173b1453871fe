package icon

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"image/jpeg"
	"image/png"
)

var (
	pngMagic  = []byte("\x89PNG\r\n\x1a\n")
	jpegMagic = []byte{0xFF, 0xD8, 0xFF}
	utf8BOM   = []byte{0xEF, 0xBB, 0xBF}
)

// sniff names the type of b from its leading bytes, or returns "" when it
// is none of the types the package knows. Unlike http.DetectContentType it
// recognizes SVG, and it never answers with a text type.
func sniff(b []byte) string {
	switch {
	case bytes.HasPrefix(b, pngMagic):
		return MIMEPNG
	case bytes.HasPrefix(b, jpegMagic):
		return MIMEJPEG
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return MIMEWebP
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return mimeGIF
	case looksLikeSVG(b):
		return MIMESVG
	}
	return ""
}

// looksLikeSVG reports whether the first element of b, after any XML
// declaration, comments and doctype, is named svg. Whether it is a safe
// SVG is checkSVG's question.
func looksLikeSVG(b []byte) bool {
	b = bytes.TrimLeft(bytes.TrimPrefix(b, utf8BOM), " \t\r\n")
	if len(b) == 0 || b[0] != '<' {
		return false
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.RawToken()
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return t.Name.Local == "svg"
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return false
			}
		}
	}
}

// pngSize reads a PNG's dimensions from its IHDR chunk and refuses APNG,
// whose acTL chunk must come before the first IDAT.
func pngSize(b []byte) (w, h int, err error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return 0, 0, fault(ErrImage, "%v", err)
	}
	for i := len(pngMagic); i+8 <= len(b); {
		n := int64(binary.BigEndian.Uint32(b[i:]))
		switch string(b[i+4 : i+8]) {
		case "acTL":
			return 0, 0, fault(ErrAnimated, "acTL chunk (APNG)")
		case "IDAT", "IEND":
			return cfg.Width, cfg.Height, nil
		}
		next := int64(i) + 12 + n // length, type, data, CRC
		if next > int64(len(b)) {
			break
		}
		i = int(next)
	}
	return cfg.Width, cfg.Height, nil
}

func jpegSize(b []byte) (w, h int, err error) {
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return 0, 0, fault(ErrImage, "%v", err)
	}
	return cfg.Width, cfg.Height, nil
}

// webpSize reads a WebP's dimensions from its first chunk (VP8, VP8L or
// VP8X, as the WebP container specification lays them out) and refuses
// animation, whether flagged in VP8X or present as ANIM/ANMF chunks. It is
// written by hand because the standard library has no WebP decoder and
// golang.org/x/image is not worth a dependency for a few header bytes.
func webpSize(b []byte) (w, h int, err error) {
	if len(b) < 30 {
		return 0, 0, errWebPHeader()
	}
	for i := 12; i+8 <= len(b); {
		switch string(b[i : i+4]) {
		case "ANIM", "ANMF":
			return 0, 0, fault(ErrAnimated, "%s chunk", b[i:i+4])
		}
		next := int64(i) + 8 + int64(binary.LittleEndian.Uint32(b[i+4:]))
		next += next & 1 // chunks are padded to an even length
		if next > int64(len(b)) {
			break
		}
		i = int(next)
	}
	switch string(b[12:16]) {
	case "VP8 ":
		// A key frame: 3-byte frame tag, start code, 14-bit sizes.
		if b[23] != 0x9D || b[24] != 0x01 || b[25] != 0x2A {
			return 0, 0, errWebPHeader()
		}
		w = int(binary.LittleEndian.Uint16(b[26:]) & 0x3FFF)
		h = int(binary.LittleEndian.Uint16(b[28:]) & 0x3FFF)
	case "VP8L":
		if b[20] != 0x2F {
			return 0, 0, errWebPHeader()
		}
		bits := binary.LittleEndian.Uint32(b[21:])
		w = int(bits&0x3FFF) + 1
		h = int(bits>>14&0x3FFF) + 1
	case "VP8X":
		const animationFlag = 0x02
		if b[20]&animationFlag != 0 {
			return 0, 0, fault(ErrAnimated, "VP8X animation flag")
		}
		w = int(uint32(b[24])|uint32(b[25])<<8|uint32(b[26])<<16) + 1
		h = int(uint32(b[27])|uint32(b[28])<<8|uint32(b[29])<<16) + 1
	default:
		return 0, 0, errWebPHeader()
	}
	if w == 0 || h == 0 {
		return 0, 0, errWebPHeader()
	}
	return w, h, nil
}

func errWebPHeader() error {
	return fault(ErrImage, "no VP8, VP8L or VP8X header where the WebP container puts it")
}
