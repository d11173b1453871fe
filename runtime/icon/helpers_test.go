package icon

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"
)

// pngOf encodes a w×h PNG. A uniform image compresses to a few hundred
// bytes even when large, which is what the dimension tests need.
func pngOf(t testing.TB, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatalf("encode PNG: %v", err)
	}
	return buf.Bytes()
}

func jpegOf(t testing.TB, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h)), nil); err != nil {
		t.Fatalf("encode JPEG: %v", err)
	}
	return buf.Bytes()
}

func gifOf(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	img := image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{color.Black, color.White})
	if err := gif.Encode(&buf, img, nil); err != nil {
		t.Fatalf("encode GIF: %v", err)
	}
	return buf.Bytes()
}

// apngOf turns a PNG into an APNG by adding an acTL chunk after IHDR,
// where the APNG specification puts it.
func apngOf(t testing.TB) []byte {
	t.Helper()
	b := pngOf(t, 8, 8)
	const afterIHDR = 8 + 4 + 4 + 13 + 4
	actl := pngChunk("acTL", []byte{0, 0, 0, 2, 0, 0, 0, 0}) // 2 frames, loop forever
	return append(append(append([]byte{}, b[:afterIHDR]...), actl...), b[afterIHDR:]...)
}

func pngChunk(typ string, data []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	out = append(out, typ...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(typ), data...)))
}

// riff wraps WebP chunks in the RIFF container.
func riff(chunks ...[]byte) []byte {
	body := []byte("WEBP")
	for _, c := range chunks {
		body = append(body, c...)
	}
	out := append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...)
	return append(out, body...)
}

func webpChunk(fourcc string, data []byte) []byte {
	out := append([]byte(fourcc), binary.LittleEndian.AppendUint32(nil, uint32(len(data)))...)
	out = append(out, data...)
	if len(data)%2 == 1 {
		out = append(out, 0)
	}
	return out
}

// webpLossless is a VP8L header for a w×h image followed by filler: the
// package reads headers only, so no valid bitstream is needed.
func webpLossless(w, h int) []byte {
	data := []byte{0x2F}
	data = binary.LittleEndian.AppendUint32(data, uint32(w-1)|uint32(h-1)<<14)
	data = append(data, make([]byte, 11)...)
	return riff(webpChunk("VP8L", data))
}

// webpExtended is a VP8X header for a w×h canvas, with the animation flag
// when animated, followed by a lossless frame.
func webpExtended(w, h int, animated bool, extra ...[]byte) []byte {
	data := make([]byte, 10)
	if animated {
		data[0] = 0x02
	}
	putUint24(data[4:], uint32(w-1))
	putUint24(data[7:], uint32(h-1))
	chunks := append([][]byte{webpChunk("VP8X", data)}, extra...)
	frame := []byte{0x2F}
	frame = binary.LittleEndian.AppendUint32(frame, uint32(w-1)|uint32(h-1)<<14)
	return riff(append(chunks, webpChunk("VP8L", frame))...)
}

func putUint24(b []byte, v uint32) {
	b[0], b[1], b[2] = byte(v), byte(v>>8), byte(v>>16)
}

func dataURL(mimeType string, b []byte) string {
	return "data:" + mimeType + ";base64," + base64.StdEncoding.EncodeToString(b)
}

const okSVG = `<?xml version="1.0"?>
<!-- a gradient square -->
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 16 16">
  <defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs>
  <style>rect { stroke: url(#g) }</style>
  <rect id="r" width="16" height="16" fill="url(#g)" style="opacity: .5"/>
  <use xlink:href="#r"/>
</svg>`
