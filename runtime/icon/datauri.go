package icon

import (
	"encoding/base64"
	"mime"
	"net/url"
	"strings"
)

// dataURI is a decoded RFC 2397 data: URI.
type dataURI struct {
	// mediaType is the normalized media type, or "" when the URI names
	// none: RFC 2397 then implies text/plain, which for an icon means
	// "not said", so it is treated as generic rather than as a mismatch.
	mediaType string
	data      []byte
}

// parseDataURI decodes src, which starts with "data:" in any case, and
// refuses it once it is clear the payload would exceed limit bytes, before
// decoding, so that a huge URI costs no allocation.
//
// Both base64 (padded or not) and percent-encoded payloads are accepted,
// the latter because SVG icons are commonly written that way. A raw "#"
// is refused: browsers end the URI there, so a host that rendered the
// URI itself would show other bytes than those checked here.
func parseDataURI(src string, limit int64) (dataURI, error) {
	rest := src[len("data:"):]
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return dataURI{}, refuse(src, ErrSource, "data: URI without a comma")
	}
	if strings.Contains(payload, "#") {
		return dataURI{}, refuse(src, ErrSource, "raw '#' in data: payload")
	}
	isBase64 := false
	if len(meta) >= len(";base64") && strings.EqualFold(meta[len(meta)-len(";base64"):], ";base64") {
		isBase64 = true
		meta = meta[:len(meta)-len(";base64")]
	}
	var d dataURI
	if meta != "" && !strings.HasPrefix(meta, ";") {
		unescaped, err := url.PathUnescape(meta)
		if err != nil {
			return dataURI{}, refuse(src, ErrSource, "data: media type: %v", err)
		}
		t, _, err := mime.ParseMediaType(unescaped)
		if err != nil {
			return dataURI{}, refuse(src, ErrSource, "data: media type %q: %v", unescaped, err)
		}
		d.mediaType = normalizeMIME(t)
	}

	if isBase64 {
		// The padded encoding of limit bytes is the longest that fits; a
		// percent-escaped one is at most three times as long. Refuse what
		// is longer still before unescaping allocates for it.
		maxLen := (limit + 2) / 3 * 4
		if int64(len(payload)) > 3*maxLen {
			return dataURI{}, refuse(src, ErrTooLarge, "base64 payload of %d characters decodes to more than %d bytes", len(payload), limit)
		}
		// A percent-escape inside base64 is legal, if odd; undo it first.
		if strings.Contains(payload, "%") {
			var err error
			if payload, err = url.PathUnescape(payload); err != nil {
				return dataURI{}, refuse(src, ErrSource, "data: payload: %v", err)
			}
		}
		if int64(len(payload)) > maxLen {
			return dataURI{}, refuse(src, ErrTooLarge, "base64 payload of %d characters decodes to more than %d bytes", len(payload), limit)
		}
		enc := base64.StdEncoding
		if !strings.HasSuffix(payload, "=") && len(payload)%4 != 0 {
			enc = base64.RawStdEncoding
		}
		b, err := enc.DecodeString(payload)
		if err != nil {
			return dataURI{}, refuse(src, ErrSource, "data: base64 payload: %v", err)
		}
		d.data = b
	} else {
		// Each decoded byte takes one to three characters, so a payload
		// longer than 3*limit cannot fit.
		if int64(len(payload)) > 3*limit {
			return dataURI{}, refuse(src, ErrTooLarge, "payload of %d characters decodes to more than %d bytes", len(payload), limit)
		}
		s, err := url.PathUnescape(payload)
		if err != nil {
			return dataURI{}, refuse(src, ErrSource, "data: payload: %v", err)
		}
		d.data = []byte(s)
	}
	if int64(len(d.data)) > limit {
		return dataURI{}, refuse(src, ErrTooLarge, "%d bytes, limit %d", len(d.data), limit)
	}
	if len(d.data) == 0 {
		return dataURI{}, refuse(src, ErrSource, "empty data: payload")
	}
	return d, nil
}
