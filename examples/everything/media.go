package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
)

// The media the tools, resources and prompts return: a 1x1 red PNG, raw
// for test://static-binary (whose generated reader encodes it) and base64
// encoded for content blocks, and a short silent WAV. They are made here
// rather than stored, so the source holds no opaque blobs.
var (
	redPixel    = onePixelPNG(color.RGBA{R: 0xff, A: 0xff})
	redPixelPNG = base64.StdEncoding.EncodeToString(redPixel)
	silenceWAV  = base64.StdEncoding.EncodeToString(silentWAV(8000, 800))
)

// onePixelPNG encodes a 1x1 image of colour c.
func onePixelPNG(c color.Color) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, c)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err) // encoding to memory cannot fail
	}
	return buf.Bytes()
}

// silentWAV encodes n samples of silence as 8-bit mono PCM at rate Hz: a
// RIFF header, a fmt chunk and a data chunk.
func silentWAV(rate, n uint32) []byte {
	const (
		channels      = 1
		bitsPerSample = 8
		silence       = 0x80 // the midpoint of unsigned 8-bit PCM
	)
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + n))
	b.WriteString("WAVE")
	b.WriteString("fmt ")
	le(uint32(16)) // fmt chunk size
	le(uint16(1))  // PCM
	le(uint16(channels))
	le(rate)
	le(rate * channels * bitsPerSample / 8)  // bytes per second
	le(uint16(channels * bitsPerSample / 8)) // block align
	le(uint16(bitsPerSample))
	b.WriteString("data")
	le(n)
	b.Write(bytes.Repeat([]byte{silence}, int(n)))
	return b.Bytes()
}
