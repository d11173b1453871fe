package icon

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// servers are the three origins of the HTTPS tests: the MCP server's own,
// another HTTPS origin, and a plain HTTP one. other and plain count the
// requests they receive, which must stay zero.
type servers struct {
	main, other, plain *httptest.Server
	otherHits          atomic.Int32
	plainHits          atomic.Int32
}

func newServers(t *testing.T) *servers {
	t.Helper()
	s := new(servers)
	s.other = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.otherHits.Add(1)
		servePNG(t, w, "image/png")
	}))
	t.Cleanup(s.other.Close)
	s.plain = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.plainHits.Add(1)
		servePNG(t, w, "image/png")
	}))
	t.Cleanup(s.plain.Close)

	mux := http.NewServeMux()
	mux.HandleFunc("/png", func(w http.ResponseWriter, r *http.Request) { servePNG(t, w, "image/png") })
	mux.HandleFunc("/png-octet", func(w http.ResponseWriter, r *http.Request) { servePNG(t, w, "application/octet-stream") })
	mux.HandleFunc("/png-as-jpeg", func(w http.ResponseWriter, r *http.Request) { servePNG(t, w, "image/jpeg") })
	mux.HandleFunc("/png-as-html", func(w http.ResponseWriter, r *http.Request) { servePNG(t, w, "text/html") })
	mux.HandleFunc("/polyglot", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/jpeg")
		w.Write(append(append([]byte{}, pngMagic...), jpegOf(t, 8, 8)...))
	})
	mux.HandleFunc("/wide", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(pngOf(t, 4096, 2))
	})
	mux.HandleFunc("/svg", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml; charset=utf-8")
		w.Write([]byte(okSVG))
	})
	mux.HandleFunc("/svg-script", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Write([]byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>fetch("/steal")</script></svg>`))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Content-Length", "4096")
		w.Write(padded(t, 4096))
	})
	mux.HandleFunc("/big-chunked", func(w http.ResponseWriter, r *http.Request) {
		// Flushing before the body is complete makes net/http send it
		// chunked, with no Content-Length for the client to check.
		w.Header().Set("Content-Type", "image/png")
		b := padded(t, 4096)
		w.Write(b[:512])
		w.(http.Flusher).Flush()
		w.Write(b[512:])
	})
	mux.HandleFunc("/big-until-close", func(w http.ResponseWriter, r *http.Request) {
		// A response delimited by closing the connection, written on the
		// raw connection since net/http would not produce one.
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		defer conn.Close()
		writeRaw(buf, "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nConnection: close\r\n\r\n", padded(t, 4096))
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		// Never ends by itself: only a client that stops reading after
		// MaxBytes+1 bytes and hangs up lets this test finish.
		w.Header().Set("Content-Type", "image/png")
		b := padded(t, 4096)
		for r.Context().Err() == nil {
			if _, err := w.Write(b); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			b = make([]byte, 4096)
		}
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/hop/", func(w http.ResponseWriter, r *http.Request) {
		// /hop/n is n+1 redirects away from /png.
		n := strings.TrimPrefix(r.URL.Path, "/hop/")
		next := map[string]string{"3": "/hop/2", "2": "/hop/1", "1": "/hop/0", "0": "/png"}[n]
		http.SetCookie(w, &http.Cookie{Name: "hop", Value: n})
		http.Redirect(w, r, next, http.StatusFound)
	})
	mux.HandleFunc("/to-other", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, s.other.URL+"/png", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/to-http", func(w http.ResponseWriter, r *http.Request) {
		// Same host, plain HTTP: a scheme change.
		http.Redirect(w, r, s.plain.URL+"/png", http.StatusFound)
	})
	mux.HandleFunc("/to-userinfo", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://user:secret@"+r.Host+"/png", http.StatusFound)
	})
	mux.HandleFunc("/block", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	s.main = httptest.NewTLSServer(mux)
	t.Cleanup(s.main.Close)
	return s
}

func servePNG(t *testing.T, w http.ResponseWriter, contentType string) {
	w.Header().Set("Content-Type", contentType)
	w.Write(pngOf(t, 16, 16))
}

// padded is a valid PNG followed by zeros up to n bytes, so that only the
// size limit can refuse it.
func padded(t *testing.T, n int) []byte {
	b := pngOf(t, 2, 2)
	return append(b, make([]byte, n-len(b))...)
}

func writeRaw(w *bufio.ReadWriter, head string, body []byte) {
	w.WriteString(head)
	w.Write(body)
	w.Flush()
}

func (s *servers) policy() *Policy {
	return &Policy{ServerURL: s.main.URL + "/mcp", HTTPClient: s.main.Client()}
}

func (s *servers) icon(path string) mcp.Icon {
	return mcp.Icon{Src: s.main.URL + path}
}

func TestFetchHTTPS(t *testing.T) {
	s := newServers(t)
	limit1K := func(p *Policy) { p.MaxBytes = 1024 }
	tests := []struct {
		name   string
		path   string
		mime   string // the icon's mimeType
		adjust func(*Policy)
		want   error // nil: accepted
	}{
		{name: "png", path: "/png"},
		{name: "png, generic Content-Type, mimeType given", path: "/png-octet", mime: "image/png"},
		{name: "png, generic Content-Type, no mimeType", path: "/png-octet"},
		{name: "png served as jpeg", path: "/png-as-jpeg", want: ErrMismatch},
		{name: "png served as html", path: "/png-as-html", want: ErrMismatch},
		{name: "png advertised as jpeg", path: "/png", mime: "image/jpeg", want: ErrMismatch},
		{name: "polyglot: PNG magic with a JPEG mimeType", path: "/polyglot", mime: "image/jpeg", want: ErrMismatch},
		{name: "dimensions over the limit", path: "/wide", want: ErrDimensions},
		{name: "svg refused by default", path: "/svg", want: ErrType},
		{name: "svg refused by default, mimeType given", path: "/svg", mime: "image/svg+xml", want: ErrType},
		{name: "svg allowed", path: "/svg", adjust: func(p *Policy) { p.AllowSVG = true }},
		{name: "svg with script", path: "/svg-script", adjust: func(p *Policy) { p.AllowSVG = true }, want: ErrUnsafeSVG},
		{name: "within the size limit", path: "/big"},
		{name: "Content-Length over the limit", path: "/big", adjust: limit1K, want: ErrTooLarge},
		{name: "chunked body over the limit", path: "/big-chunked", adjust: limit1K, want: ErrTooLarge},
		{name: "body until close over the limit", path: "/big-until-close", adjust: limit1K, want: ErrTooLarge},
		{name: "endless body", path: "/endless", adjust: limit1K, want: ErrTooLarge},
		{name: "status 404", path: "/missing", want: ErrStatus},
		{name: "redirect within the origin", path: "/hop/0"},
		{name: "redirects within the origin, at the default limit", path: "/hop/2"},
		{name: "redirects within the origin, over the default limit", path: "/hop/3", want: ErrRedirect},
		{name: "redirects within the origin, over MaxRedirects", path: "/hop/2", adjust: func(p *Policy) { p.MaxRedirects = 2 }, want: ErrRedirect},
		{name: "redirect with redirects off", path: "/hop/0", adjust: func(p *Policy) { p.MaxRedirects = -1 }, want: ErrRedirect},
		{name: "redirect to another origin", path: "/to-other", want: ErrRedirect},
		{name: "redirect to another origin, trusted for icons", path: "/to-other", adjust: func(p *Policy) { p.TrustedOrigins = []string{s.other.URL} }, want: ErrRedirect},
		{name: "redirect to http", path: "/to-http", want: ErrRedirect},
		{name: "redirect to a URL with credentials", path: "/to-userinfo", want: ErrCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := s.policy()
			if tt.adjust != nil {
				tt.adjust(p)
			}
			ic := s.icon(tt.path)
			ic.MIMEType = tt.mime
			img, err := p.Fetch(context.Background(), ic)
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("Fetch(%s) = %v, want an error wrapping %v", tt.path, err, tt.want)
				}
				var e *Error
				if !errors.As(err, &e) || e.Src != ic.Src {
					t.Fatalf("Fetch(%s) = %#v, want an *Error naming the source", tt.path, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Fetch(%s) = %v, want nil", tt.path, err)
			}
			if len(img.Data) == 0 || img.MIMEType == "" {
				t.Fatalf("Fetch(%s) = %+v, want bytes and a type", tt.path, img)
			}
		})
	}
	if n := s.otherHits.Load(); n != 0 {
		t.Errorf("the other origin received %d requests, want 0", n)
	}
	if n := s.plainHits.Load(); n != 0 {
		t.Errorf("the plain HTTP server received %d requests, want 0", n)
	}
}

// The caller's client has a cookie jar holding a cookie for the server,
// and the server sets a cookie on each redirect: neither may be sent.
func TestFetchSendsNoCookiesOrAuthorization(t *testing.T) {
	type seen struct{ path, cookie, auth, accept string }
	got := make(chan seen, 16)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- seen{r.URL.Path, r.Header.Get("Cookie"), r.Header.Get("Authorization"), r.Header.Get("Accept")}
		if r.URL.Path == "/first" {
			http.SetCookie(w, &http.Cookie{Name: "set", Value: "by-redirect"})
			http.Redirect(w, r, "/icon", http.StatusFound)
			return
		}
		servePNG(t, w, "image/png")
	}))
	defer srv.Close()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(srv.URL)
	jar.SetCookies(u, []*http.Cookie{{Name: "session", Value: "secret"}})
	client := srv.Client()
	client.Jar = jar

	// The jar works: the caller's own requests carry the cookie.
	resp, err := client.Get(srv.URL + "/icon")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if s := <-got; !strings.Contains(s.cookie, "session=secret") {
		t.Fatalf("control request sent Cookie %q, want the jar's cookie", s.cookie)
	}

	p := &Policy{ServerURL: srv.URL, HTTPClient: client}
	if _, err := p.Fetch(context.Background(), mcp.Icon{Src: srv.URL + "/first"}); err != nil {
		t.Fatalf("Fetch = %v", err)
	}
	close(got)
	n := 0
	for s := range got {
		n++
		if s.cookie != "" || s.auth != "" {
			t.Errorf("%s: Cookie %q, Authorization %q; want neither", s.path, s.cookie, s.auth)
		}
		if s.accept != "image/png, image/jpeg" {
			t.Errorf("%s: Accept %q, want only the allowed types", s.path, s.accept)
		}
	}
	if n != 2 {
		t.Errorf("Fetch made %d requests, want 2 (the redirect and the icon)", n)
	}
	if cookies := jar.Cookies(u); len(cookies) != 1 {
		t.Errorf("jar holds %d cookies after Fetch, want the 1 it had: Fetch must not store any", len(cookies))
	}
}

// The caller's transport presents a client certificate, configured either
// way crypto/tls allows, and caches TLS sessions; Fetch must neither
// present the certificate nor resume a session authenticated with it.
func TestFetchSendsNoClientCertificate(t *testing.T) {
	cert := clientCertificate(t)
	tests := []struct {
		name      string
		configure func(*tls.Config)
	}{
		{"Certificates", func(c *tls.Config) { c.Certificates = []tls.Certificate{cert} }},
		{"GetClientCertificate", func(c *tls.Config) {
			c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			peerCerts := make(chan int, 4)
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				peerCerts <- len(r.TLS.PeerCertificates)
				servePNG(t, w, "image/png")
			}))
			srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
			srv.StartTLS()
			defer srv.Close()

			client := srv.Client()
			conf := client.Transport.(*http.Transport).TLSClientConfig
			tt.configure(conf)
			conf.ClientSessionCache = tls.NewLRUClientSessionCache(8)

			// The certificate works: the caller's own request presents
			// it, and leaves a session in the cache.
			resp, err := client.Get(srv.URL + "/icon")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if n := <-peerCerts; n != 1 {
				t.Fatalf("control request presented %d certificates, want 1", n)
			}

			p := &Policy{ServerURL: srv.URL, HTTPClient: client}
			if _, err := p.Fetch(context.Background(), mcp.Icon{Src: srv.URL + "/icon"}); err != nil {
				t.Fatalf("Fetch = %v", err)
			}
			if n := <-peerCerts; n != 0 {
				t.Fatalf("Fetch presented %d client certificates, want 0", n)
			}
			if conf.Certificates == nil && conf.GetClientCertificate == nil || conf.ClientSessionCache == nil {
				t.Fatal("Fetch modified the caller's TLS configuration")
			}
		})
	}
}

func clientCertificate(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "host user"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// roundTripper stands for any wrapper, such as one adding a bearer token.
type roundTripper struct{ http.RoundTripper }

func TestFetchRefusesUnknownTransport(t *testing.T) {
	s := newServers(t)
	tests := []struct {
		name      string
		transport http.RoundTripper
	}{
		{"wrapping RoundTripper", roundTripper{s.main.Client().Transport}},
		{"custom TLS dialer", &http.Transport{DialTLSContext: (&tls.Dialer{}).DialContext}},
	}
	for _, tt := range tests {
		p := s.policy()
		p.HTTPClient = &http.Client{Transport: tt.transport}
		if _, err := p.Fetch(context.Background(), s.icon("/png")); !errors.Is(err, ErrPolicy) {
			t.Errorf("%s: Fetch = %v, want ErrPolicy", tt.name, err)
		}
	}
}

// The handler blocks until its request ends, so only the Policy's Timeout
// or the caller's ctx can end the Fetch; which of them did shows in the
// error. Nothing here depends on how long anything takes.
func TestFetchTimeout(t *testing.T) {
	s := newServers(t)
	p := s.policy()
	p.Timeout = 10 * time.Millisecond
	_, err := p.Fetch(context.Background(), s.icon("/block"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Fetch = %v, want context.DeadlineExceeded", err)
	}
}

func TestFetchCallerCancels(t *testing.T) {
	arrived := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
	}))
	defer srv.Close()
	p := &Policy{ServerURL: srv.URL, HTTPClient: srv.Client(), Timeout: -1}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := p.Fetch(ctx, mcp.Icon{Src: srv.URL + "/icon"})
		done <- err
	}()
	<-arrived
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Fetch = %v, want context.Canceled", err)
	}
}
