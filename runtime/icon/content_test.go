package icon

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// TestFetchContent runs the content checks through data: icons, which
// Fetch resolves without a network.
func TestFetchContent(t *testing.T) {
	base := &Policy{}
	svg := &Policy{AllowSVG: true}
	webp := &Policy{AllowWebP: true}
	jpegBytes := jpegOf(t, 24, 12)
	// A polyglot: PNG magic, then a whole JPEG. Which one a viewer shows
	// depends on whether it trusts the label or the bytes.
	polyglot := append(append([]byte{}, pngMagic...), jpegBytes...)

	tests := []struct {
		name         string
		policy       *Policy
		icon         mcp.Icon
		want         error  // nil: accepted
		wantType     string // when accepted
		wantW, wantH int
	}{
		{"png", base, mcp.Icon{Src: dataURL("image/png", pngOf(t, 16, 8))}, nil, MIMEPNG, 16, 8},
		{"jpeg", base, mcp.Icon{Src: dataURL("image/jpeg", jpegBytes)}, nil, MIMEJPEG, 24, 12},
		{"jpeg labelled image/jpg", base, mcp.Icon{Src: dataURL("image/jpg", jpegBytes), MIMEType: "image/jpg"}, nil, MIMEJPEG, 24, 12},
		{"png without any declared type", base, mcp.Icon{Src: dataURL("", pngOf(t, 4, 4))}, nil, MIMEPNG, 4, 4},
		{"png as application/octet-stream", base, mcp.Icon{Src: dataURL("application/octet-stream", pngOf(t, 4, 4))}, nil, MIMEPNG, 4, 4},
		{"png labelled jpeg", base, mcp.Icon{Src: dataURL("image/jpeg", pngOf(t, 4, 4))}, ErrMismatch, "", 0, 0},
		{"jpeg with mimeType png, untyped data", base, mcp.Icon{Src: dataURL("", jpegBytes), MIMEType: "image/png"}, ErrMismatch, "", 0, 0},
		{"polyglot: PNG magic with a JPEG mimeType", base, mcp.Icon{Src: dataURL("image/jpeg", polyglot), MIMEType: "image/jpeg"}, ErrMismatch, "", 0, 0},
		{"polyglot declared as PNG is still no PNG", base, mcp.Icon{Src: dataURL("image/png", polyglot)}, ErrImage, "", 0, 0},
		{"png over the default dimensions", base, mcp.Icon{Src: dataURL("image/png", pngOf(t, 4096, 1))}, ErrDimensions, "", 0, 0},
		{"png over MaxHeight", &Policy{MaxHeight: 8}, mcp.Icon{Src: dataURL("image/png", pngOf(t, 8, 9))}, ErrDimensions, "", 0, 0},
		{"png at MaxWidth×MaxHeight", &Policy{MaxWidth: 8, MaxHeight: 9}, mcp.Icon{Src: dataURL("image/png", pngOf(t, 8, 9))}, nil, MIMEPNG, 8, 9},
		{"jpeg over MaxWidth", &Policy{MaxWidth: 23}, mcp.Icon{Src: dataURL("image/jpeg", jpegBytes)}, ErrDimensions, "", 0, 0},
		{"apng", base, mcp.Icon{Src: dataURL("image/png", apngOf(t))}, ErrAnimated, "", 0, 0},
		{"gif", base, mcp.Icon{Src: dataURL("", gifOf(t))}, ErrType, "", 0, 0},
		{"png magic only", base, mcp.Icon{Src: dataURL("image/png", pngMagic)}, ErrImage, "", 0, 0},
		{"text", base, mcp.Icon{Src: "data:,hello"}, ErrType, "", 0, 0},
		{"html", svg, mcp.Icon{Src: "data:,%3Chtml%3E%3Cscript%3E%3C/script%3E%3C/html%3E"}, ErrType, "", 0, 0},

		{"webp, not allowed", base, mcp.Icon{Src: dataURL("", webpLossless(32, 16))}, ErrType, "", 0, 0},
		{"webp lossless", webp, mcp.Icon{Src: dataURL("image/webp", webpLossless(32, 16))}, nil, MIMEWebP, 32, 16},
		{"webp extended", webp, mcp.Icon{Src: dataURL("image/webp", webpExtended(100, 50, false))}, nil, MIMEWebP, 100, 50},
		{"webp over the dimensions", webp, mcp.Icon{Src: dataURL("image/webp", webpExtended(5000, 50, false))}, ErrDimensions, "", 0, 0},
		{"webp animated (flag)", webp, mcp.Icon{Src: dataURL("image/webp", webpExtended(10, 10, true))}, ErrAnimated, "", 0, 0},
		{"webp animated (ANIM chunk, no flag)", webp, mcp.Icon{Src: dataURL("image/webp", webpExtended(10, 10, false, webpChunk("ANIM", make([]byte, 6))))}, ErrAnimated, "", 0, 0},
		{"webp truncated", webp, mcp.Icon{Src: dataURL("image/webp", webpLossless(1, 1)[:20])}, ErrImage, "", 0, 0},

		{"svg, not allowed", base, mcp.Icon{Src: "data:image/svg+xml," + url.PathEscape(okSVG)}, ErrType, "", 0, 0},
		{"svg, not allowed, undeclared", base, mcp.Icon{Src: "data:," + url.PathEscape(okSVG)}, ErrType, "", 0, 0},
		{"svg, allowed", svg, mcp.Icon{Src: "data:image/svg+xml," + url.PathEscape(okSVG)}, nil, MIMESVG, 0, 0},
		{"svg, allowed, base64", svg, mcp.Icon{Src: dataURL("image/svg+xml", []byte(okSVG))}, nil, MIMESVG, 0, 0},
		{"svg labelled png", svg, mcp.Icon{Src: dataURL("image/png", []byte(okSVG))}, ErrMismatch, "", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, err := tt.policy.Fetch(context.Background(), tt.icon)
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("Fetch = %v, want an error wrapping %v", err, tt.want)
				}
				if img != nil {
					t.Fatalf("Fetch returned an image with its error %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Fetch = %v, want nil", err)
			}
			if img.MIMEType != tt.wantType || img.Width != tt.wantW || img.Height != tt.wantH {
				t.Fatalf("Fetch = %s %dx%d, want %s %dx%d", img.MIMEType, img.Width, img.Height, tt.wantType, tt.wantW, tt.wantH)
			}
		})
	}
}

func TestCheckSVG(t *testing.T) {
	const open = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">`
	tests := []struct {
		name string
		svg  string
		want error // nil: accepted
	}{
		{"plain", okSVG, nil},
		{"empty svg", open + `</svg>`, nil},
		{"fragment href", open + `<use href="#a"/></svg>`, nil},
		{"script", open + `<script>alert(1)</script></svg>`, ErrUnsafeSVG},
		{"script in upper case", open + `<SCRIPT>alert(1)</SCRIPT></svg>`, ErrUnsafeSVG},
		{"script in another namespace", open + `<x:script xmlns:x="urn:x">alert(1)</x:script></svg>`, ErrUnsafeSVG},
		{"foreignObject", open + `<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">hi</div></foreignObject></svg>`, ErrUnsafeSVG},
		{"iframe", open + `<iframe src="https://example.com"/></svg>`, ErrUnsafeSVG},
		{"onload on the root", `<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`, ErrUnsafeSVG},
		{"onclick in upper case", open + `<rect ONCLICK="alert(1)"/></svg>`, ErrUnsafeSVG},
		{"animate", open + `<rect><animate attributeName="x" to="1"/></rect></svg>`, ErrUnsafeSVG},
		{"set href", open + `<a><set attributeName="href" to="javascript:alert(1)"/></a></svg>`, ErrUnsafeSVG},
		{"external image", open + `<image href="https://tracker.example/p.png"/></svg>`, ErrUnsafeSVG},
		{"external xlink:href", open + `<use xlink:href="https://example.com/s.svg#a"/></svg>`, ErrUnsafeSVG},
		{"javascript link", open + `<a href="javascript:alert(1)"><rect/></a></svg>`, ErrUnsafeSVG},
		{"javascript split by white space", open + `<a xlink:href=" java&#x9;script:alert(1)"/></svg>`, ErrUnsafeSVG},
		{"data: image reference", open + `<image href="data:image/svg+xml,%3Csvg/%3E"/></svg>`, ErrUnsafeSVG},
		{"external url() in fill", open + `<rect fill="url(https://example.com/p#g)"/></svg>`, ErrUnsafeSVG},
		{"quoted external url() in style", open + `<rect style="fill: url( 'https://example.com/p' )"/></svg>`, ErrUnsafeSVG},
		{"local url() in style", open + `<rect style="fill: url('#g')"/></svg>`, nil},
		{"@import", open + `<style>@import "https://example.com/x.css";</style></svg>`, ErrUnsafeSVG},
		{"external url() in <style>", open + `<style>rect { fill: url(https://example.com/p) }</style></svg>`, ErrUnsafeSVG},
		{"@import split by CDATA", open + `<style>@im<![CDATA[port "https://example.com/x.css";]]></style></svg>`, ErrUnsafeSVG},
		{"@import split by a comment", open + `<style>@im<!-- -->port "https://example.com/x.css";</style></svg>`, ErrUnsafeSVG},
		{"url( split by CDATA", open + `<style>rect { fill: ur<![CDATA[l(https://example.com/p) }]]></style></svg>`, ErrUnsafeSVG},
		{"image-set() in style", open + `<rect style="fill: image-set('https://example.com/p.png' 1x)"/></svg>`, ErrUnsafeSVG},
		{"element inside <style>", open + `<style>@im<x>port "https://example.com/x.css";</x></style></svg>`, ErrUnsafeSVG},
		{"CSS escape in <style>", open + `<style>rect { fill: \75 rl(https://example.com/p) }</style></svg>`, ErrUnsafeSVG},
		{"DOCTYPE with entities", `<!DOCTYPE svg [<!ENTITY a "aaaaaaaa">]>` + open + `</svg>`, ErrUnsafeSVG},
		{"xml-stylesheet", `<?xml-stylesheet href="https://example.com/x.css"?>` + open + `</svg>`, ErrUnsafeSVG},
		{"no SVG namespace", `<svg><rect/></svg>`, ErrImage},
		{"root not svg", `<html xmlns="http://www.w3.org/2000/svg"/>`, ErrImage},
		{"two roots", open + `</svg>` + open + `</svg>`, ErrImage},
		{"unclosed", open + `<rect>`, ErrImage},
		{"undeclared encoding", `<?xml version="1.0" encoding="ISO-8859-1"?>` + open + `</svg>`, ErrImage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkSVG([]byte(tt.svg))
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("checkSVG = %v, want nil", err)
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Fatalf("checkSVG = %v, want an error wrapping %v", err, tt.want)
			}
		})
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"png", pngOf(t, 1, 1), MIMEPNG},
		{"jpeg", jpegOf(t, 1, 1), MIMEJPEG},
		{"webp", webpLossless(1, 1), MIMEWebP},
		{"gif", gifOf(t), mimeGIF},
		{"svg after BOM, declaration, comment", []byte("\xEF\xBB\xBF <?xml version=\"1.0\"?><!-- c --><svg/>"), MIMESVG},
		{"svg with a prefix", []byte(`<s:svg xmlns:s="http://www.w3.org/2000/svg"/>`), MIMESVG},
		{"html", []byte("<html><svg/></html>"), ""},
		{"text before the element", []byte("x<svg/>"), ""},
		{"RIFF but not WebP", []byte("RIFF\x00\x00\x00\x00WAVEfmt "), ""},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		if got := sniff(tt.b); got != tt.want {
			t.Errorf("%s: sniff = %q, want %q", tt.name, got, tt.want)
		}
	}
}
