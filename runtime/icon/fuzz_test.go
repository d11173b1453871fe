package icon

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// FuzzCheck feeds arbitrary metadata to Check, Select and Fetch. The
// policy has no origin, so Fetch resolves only data: sources and never
// reaches a network.
func FuzzCheck(f *testing.F) {
	for _, seed := range []struct{ src, mimeType, size string }{
		{dataURL("image/png", pngOf(f, 2, 2)), "image/png", "2x2"},
		{dataURL("image/jpeg", jpegOf(f, 2, 2)), "image/jpg", "any"},
		{"data:image/svg+xml," + url.PathEscape(okSVG), "", "16X16"},
		{dataURL("image/webp", webpExtended(3, 3, false)), "image/webp", "x"},
		{"data:;base64,", "", ""},
		{"data:image/png;base64", "", ""},
		{"DATA:%zz;base64,AAAA", "text/html", "0x0"},
		{"data:image/svg+xml;charset=utf-8,%3Csvg%3E#", "image/svg+xml", "-1x-1"},
		{"https://user@mcp.example.com:99999/a.png", "image/png", "1x1"},
		{"javascript:alert(1)", "", ""},
		{"java\tscript:", "", ""},
		{"//host/path", "", ""},
		{"é:", "image/\x00", "1x"},
	} {
		f.Add(seed.src, seed.mimeType, seed.size)
	}
	p := &Policy{AllowSVG: true, AllowWebP: true, MaxBytes: 1 << 16, MaxWidth: 64, MaxHeight: 64}
	f.Fuzz(func(t *testing.T, src, mimeType, size string) {
		ic := mcp.Icon{Src: src, MIMEType: mimeType, Sizes: []string{size}}
		checkErr := p.Check(ic)
		if checkErr != nil {
			wantRefusal(t, "Check", checkErr)
		}
		if _, ok := p.Select([]mcp.Icon{ic}, 32, mcp.IconThemeDark); ok != (checkErr == nil) {
			t.Fatalf("Select chose %v while Check said %v", ok, checkErr)
		}
		img, err := p.Fetch(context.Background(), ic)
		switch {
		case checkErr != nil && err == nil:
			t.Fatalf("Fetch accepted what Check refused: %v", checkErr)
		case err != nil:
			wantRefusal(t, "Fetch", err)
		default:
			checkImage(t, p, img)
		}
	})
}

// FuzzContent feeds arbitrary bytes to the content checks.
func FuzzContent(f *testing.F) {
	for _, b := range [][]byte{
		pngOf(f, 3, 2), apngOf(f), jpegOf(f, 2, 3), gifOf(f), []byte(okSVG),
		webpLossless(5, 7), webpExtended(9, 9, true), webpExtended(9, 9, false, webpChunk("ANMF", []byte{1})),
		pngMagic, []byte("RIFF\xff\xff\xff\xffWEBPVP8 "), []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="x"/>`),
	} {
		f.Add(b, "")
	}
	f.Add(pngOf(f, 1, 1), "image/jpeg")
	p := &Policy{AllowSVG: true, AllowWebP: true, MaxWidth: 64, MaxHeight: 64}
	f.Fuzz(func(t *testing.T, b []byte, declared string) {
		img, err := p.verify(mcp.Icon{Src: "data:,fuzz"}, b, declared)
		if err != nil {
			wantRefusal(t, "verify", err)
			return
		}
		checkImage(t, p, img)
	})
}

// wantRefusal fails unless err is an *Error with a known reason.
func wantRefusal(t *testing.T, op string, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s = %v (%T), want an *Error", op, err, err)
	}
	for _, reason := range []error{
		ErrSource, ErrScheme, ErrCredentials, ErrOrigin, ErrRedirect, ErrStatus, ErrTooLarge,
		ErrType, ErrMismatch, ErrImage, ErrDimensions, ErrAnimated, ErrUnsafeSVG, ErrPolicy,
	} {
		if e.Reason == reason {
			return
		}
	}
	t.Fatalf("%s = %v, with an unknown reason %v", op, err, e.Reason)
}

// checkImage fails unless img keeps within p.
func checkImage(t *testing.T, p *Policy, img *Image) {
	t.Helper()
	if !p.allows(img.MIMEType) || sniff(img.Data) != img.MIMEType {
		t.Fatalf("accepted an image of type %q whose bytes sniff as %q", img.MIMEType, sniff(img.Data))
	}
	if img.MIMEType != MIMESVG && (img.Width <= 0 || img.Height <= 0 || img.Width > p.MaxWidth || img.Height > p.MaxHeight) {
		t.Fatalf("accepted a %dx%d image, limit %dx%d", img.Width, img.Height, p.MaxWidth, p.MaxHeight)
	}
	if int64(len(img.Data)) > p.maxBytes() {
		t.Fatalf("accepted %d bytes, limit %d", len(img.Data), p.maxBytes())
	}
}
