package icon

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// Image is an icon whose bytes passed every check of the Policy that
// fetched them.
type Image struct {
	// Data is the icon's content, exactly as checked. Render these bytes,
	// not the icon's Src, or the checks are for nothing.
	Data []byte
	// MIMEType is the type the bytes show: MIMEPNG, MIMEJPEG, MIMEWebP or
	// MIMESVG, never the type the server declared.
	MIMEType string
	// Width and Height are the pixel dimensions from the image header;
	// both are zero for SVG, which is scalable.
	Width, Height int
}

// Fetch returns icon's bytes once they pass the policy. It runs Check
// first, then decodes a data: source or downloads an HTTPS one, and then:
// identifies the type from the magic bytes and refuses it if it is not
// allowed or if any declared type (the icon's mimeType, the Content-Type
// or data: media type, unless missing or generic) disagrees; reads the
// dimensions from the header and refuses them over MaxWidth×MaxHeight;
// refuses animated PNG and WebP; and scans SVG for active content.
//
// An HTTPS download sends a GET request that carries no credentials, by
// construction rather than by filtering: the request is built here with no
// header but Accept (net/http adds only Host, User-Agent and
// Accept-Encoding); it is sent by a new http.Client with no cookie jar
// and with the policy's redirect rule; that client uses a clone of the
// caller's *http.Transport whose TLS configuration presents no client
// certificate and has no session cache (a resumed TLS session would carry
// the identity of an earlier, authenticated one). A Transport that is not
// an *http.Transport is refused with ErrPolicy, since a wrapping
// RoundTripper can add headers below the request where they cannot be
// seen; so is one with a custom DialTLSContext or DialTLS, which would
// bypass the TLS configuration. The clone's idle connections are closed
// when Fetch returns, so each Fetch makes its own connection: icons are
// few, and a host should cache the Images it shows.
//
// Redirects are followed up to MaxRedirects times, only to https URLs of
// the same origin as the icon; any other is refused with ErrRedirect
// before the request is made. A body longer than MaxBytes is refused with
// ErrTooLarge whether or not the server declared its length, and no more
// than MaxBytes+1 bytes are read; they are counted after any gzip
// decoding, so a compressed body cannot expand past the limit.
//
// Refusals are [*Error] values. The ctx bounds the download (a data: icon
// needs none); when it ends or Timeout expires, the error wraps ctx's
// error, such as context.DeadlineExceeded, and other transport failures
// wrap the transport's error.
func (p *Policy) Fetch(ctx context.Context, icon mcp.Icon) (*Image, error) {
	src, err := p.check(icon)
	if err != nil {
		return nil, err
	}
	if src.data != nil {
		return p.verify(icon, src.data.data, src.data.mediaType)
	}
	body, contentType, err := p.download(ctx, icon.Src, src.url)
	if err != nil {
		return nil, err
	}
	return p.verify(icon, body, contentType)
}

// verify applies the content checks of Fetch to b; declared is the
// Content-Type or data: media type the bytes came with.
func (p *Policy) verify(icon mcp.Icon, b []byte, declared string) (*Image, error) {
	t := sniff(b)
	switch {
	case t == "":
		return nil, refuse(icon.Src, ErrType, "content is not PNG, JPEG, WebP or SVG")
	case !p.allows(t):
		return nil, refuse(icon.Src, ErrType, "content is %s", t)
	}
	for _, d := range [...]string{icon.MIMEType, declared} {
		if !isGeneric(d) && normalizeMIME(d) != t {
			return nil, refuse(icon.Src, ErrMismatch, "declared %q, content is %s", d, t)
		}
	}
	img := &Image{Data: b, MIMEType: t}
	var err error
	switch t {
	case MIMEPNG:
		img.Width, img.Height, err = pngSize(b)
	case MIMEJPEG:
		img.Width, img.Height, err = jpegSize(b)
	case MIMEWebP:
		img.Width, img.Height, err = webpSize(b)
	case MIMESVG:
		err = checkSVG(b)
	}
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Src, e.Detail = icon.Src, t+": "+e.Detail
		}
		return nil, err
	}
	if t == MIMESVG {
		return img, nil
	}
	if img.Width <= 0 || img.Height <= 0 {
		return nil, refuse(icon.Src, ErrImage, "%s of %dx%d pixels", t, img.Width, img.Height)
	}
	if mw, mh := p.maxWidth(), p.maxHeight(); img.Width > mw || img.Height > mh {
		return nil, refuse(icon.Src, ErrDimensions, "%dx%d, limit %dx%d", img.Width, img.Height, mw, mh)
	}
	return img, nil
}

// download GETs u, which passed check for the icon source src, and
// returns at most MaxBytes of body with the response's Content-Type.
func (p *Policy) download(ctx context.Context, src string, u *url.URL) ([]byte, string, error) {
	client, closeIdle, err := p.client(src, originOf(u))
	if err != nil {
		return nil, "", err
	}
	defer closeIdle()
	if d := p.timeout(); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", refuse(src, ErrSource, "%v", err)
	}
	req.Header.Set("Accept", p.accept())
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, ErrRedirect) || errors.Is(err, ErrCredentials) {
			return nil, "", err // already names the icon and the target
		}
		return nil, "", fmt.Errorf("icon %s: GET: %w", describe(src), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", refuse(src, ErrStatus, "%s", resp.Status)
	}
	limit := p.maxBytes()
	if resp.ContentLength > limit {
		return nil, "", refuse(src, ErrTooLarge, "Content-Length %d, limit %d", resp.ContentLength, limit)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, "", fmt.Errorf("icon %s: read body: %w", describe(src), err)
	}
	// A request ended while the server was answering can still come back
	// with the answer: closing a TLS connection tells the server first,
	// which may answer before the socket closes. The caller who ended it
	// learns that, not what the answer was.
	if err := ctx.Err(); err != nil {
		return nil, "", fmt.Errorf("icon %s: GET: %w", describe(src), err)
	}
	if int64(len(body)) > limit {
		return nil, "", refuse(src, ErrTooLarge, "body over %d bytes", limit)
	}
	return body, resp.Header.Get("Content-Type"), nil
}

// client returns the credential-free client that Fetch documents, for a
// download starting at origin start, and the function that releases its
// connections.
func (p *Policy) client(src string, start origin) (*http.Client, func(), error) {
	var base http.RoundTripper = http.DefaultTransport
	if p.HTTPClient != nil && p.HTTPClient.Transport != nil {
		base = p.HTTPClient.Transport
	}
	t, ok := base.(*http.Transport)
	if !ok {
		return nil, nil, refuse(src, ErrPolicy, "HTTPClient.Transport is a %T, not an *http.Transport; a wrapping RoundTripper could add credentials", base)
	}
	// DialTLS is deprecated but net/http still uses it when set.
	if t.DialTLSContext != nil || t.DialTLS != nil {
		return nil, nil, refuse(src, ErrPolicy, "HTTPClient.Transport has a custom TLS dialer, which could present a client certificate")
	}
	t = t.Clone() // also clones TLSClientConfig
	if t.TLSClientConfig == nil {
		t.TLSClientConfig = new(tls.Config)
	}
	t.TLSClientConfig.Certificates = nil
	t.TLSClientConfig.GetClientCertificate = noClientCertificate
	t.TLSClientConfig.ClientSessionCache = nil
	c := &http.Client{
		Transport:     t,
		CheckRedirect: p.redirectRule(src, start),
	}
	return c, t.CloseIdleConnections, nil
}

// noClientCertificate answers a server's certificate request with an
// empty certificate, which crypto/tls sends as "no certificate".
func noClientCertificate(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	return new(tls.Certificate), nil
}

// redirectRule allows a redirect only to an https URL without user
// information on origin start, and only maxRedirects times.
func (p *Policy) redirectRule(src string, start origin) func(*http.Request, []*http.Request) error {
	limit := p.maxRedirects()
	return func(req *http.Request, via []*http.Request) error {
		to := req.URL.Redacted()
		switch o := originOf(req.URL); {
		case len(via) > limit:
			return refuse(src, ErrRedirect, "to %s: more than %d redirects", to, limit)
		case req.URL.User != nil:
			return refuse(src, ErrCredentials, "redirect to %s", to)
		case o.scheme != "https":
			return refuse(src, ErrRedirect, "to %s: scheme change", to)
		case o != start:
			return refuse(src, ErrRedirect, "to %s: other origin than %s", to, start)
		}
		return nil
	}
}
