package icon

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/clip"
)

// The reasons an icon is refused. A refusal is an [*Error] whose Reason is
// exactly one of them.
var (
	// ErrSource reports a source that is not a well-formed absolute URI or
	// data: URI.
	ErrSource = errors.New("icon: malformed source")
	// ErrScheme reports a source whose scheme is neither https nor data.
	ErrScheme = errors.New("icon: scheme not allowed")
	// ErrCredentials reports a source URL carrying a user name or password,
	// which the HTTP client would otherwise turn into an Authorization
	// header.
	ErrCredentials = errors.New("icon: source carries credentials")
	// ErrOrigin reports an HTTPS source outside the server's origin and the
	// trusted origins, or any HTTPS source when there is no origin at all.
	ErrOrigin = errors.New("icon: source outside the server's origin")
	// ErrRedirect reports a redirect that changes scheme or origin, or one
	// redirect too many.
	ErrRedirect = errors.New("icon: redirect refused")
	// ErrStatus reports an HTTP response other than 200 OK.
	ErrStatus = errors.New("icon: unexpected HTTP status")
	// ErrTooLarge reports an icon with more bytes than Policy.MaxBytes.
	ErrTooLarge = errors.New("icon: too many bytes")
	// ErrType reports content of an unrecognized type, or of a recognized
	// type that the policy does not allow, or a declared type not allowed.
	ErrType = errors.New("icon: image type not allowed")
	// ErrMismatch reports a declared MIME type (the icon's mimeType, the
	// HTTP Content-Type or the data: media type) that disagrees with the
	// type the bytes show.
	ErrMismatch = errors.New("icon: declared type does not match content")
	// ErrImage reports content whose header cannot be read as the type its
	// magic bytes announce.
	ErrImage = errors.New("icon: malformed image")
	// ErrDimensions reports an image wider or taller than the policy allows.
	ErrDimensions = errors.New("icon: image dimensions over the limit")
	// ErrAnimated reports an animated PNG or WebP: frames multiply the cost
	// of an image that the dimension limit alone does not bound.
	ErrAnimated = errors.New("icon: animated image")
	// ErrUnsafeSVG reports an SVG with script, foreign content, event
	// handlers, or references outside the document.
	ErrUnsafeSVG = errors.New("icon: SVG with active or external content")
	// ErrPolicy reports a Policy that cannot be applied, such as an
	// unparsable ServerURL or an HTTP transport whose credentials the
	// package cannot rule out. It is the host's fault, not the server's.
	ErrPolicy = errors.New("icon: invalid policy")
)

// Error is the error of a refused icon. errors.Is finds its Reason, one of
// the Err variables, through it; errors.As finds the Error itself, for a
// host that wants to log which icon was refused.
type Error struct {
	// Src is the refused icon's source, as the server advertised it.
	Src string
	// Reason is one of the Err variables.
	Reason error
	// Detail says what exactly was wrong; it may be empty.
	Detail string
}

// Error names the icon by its source, shortened: a data: URI can be a
// megabyte long, and an error that repeats it helps nobody.
func (e *Error) Error() string {
	msg := "icon " + describe(e.Src) + ": " + strings.TrimPrefix(e.Reason.Error(), "icon: ")
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap returns e.Reason.
func (e *Error) Unwrap() error { return e.Reason }

// refuse builds the Error for src.
func refuse(src string, reason error, format string, args ...any) error {
	e := fault(reason, format, args...)
	e.Src = src
	return e
}

// fault builds an Error whose Src the caller fills in, for the checks of
// content that do not know where it came from.
func fault(reason error, format string, args ...any) *Error {
	return &Error{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

func describe(src string) string {
	const keep = 48
	if len(src) <= keep+16 {
		return fmt.Sprintf("%q", src)
	}
	return fmt.Sprintf("%q…(%d bytes)", clip.Prefix(src, keep), len(src))
}
