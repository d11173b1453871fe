package mcpheader

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The markers around a Base64-encoded header value. They are matched
// exactly, case included.
const (
	sentinelPrefix = "=?base64?"
	sentinelSuffix = "?="
)

// strictBase64 is standard Base64 with padding, refusing the non-zero
// padding bits that would let two spellings decode to the same bytes.
var strictBase64 = base64.StdEncoding.Strict()

// Decode returns the text that a received Mcp-Param-{Name} or Mcp-Name
// header value stands for.
//
// Leading and trailing spaces and tabs are removed first, as HTTP does
// with every field value (net/http has already done it for a received
// header, so this only matters to other callers). A value that then starts
// with "=?base64?" and ends with "?=" is the Base64 form: what lies between
// must be standard Base64 with correct padding, and must decode to valid
// UTF-8. Any other value is taken literally and may hold only visible
// ASCII, spaces and tabs.
//
// "=?base64?=" counts as literal: its markers overlap, so it is not a
// prefix and a suffix around an empty payload. An empty payload,
// "=?base64??=", decodes to the empty string.
func Decode(value string) (string, error) {
	value = strings.Trim(value, " \t")
	if len(value) >= len(sentinelPrefix)+len(sentinelSuffix) &&
		strings.HasPrefix(value, sentinelPrefix) && strings.HasSuffix(value, sentinelSuffix) {
		return decodeBase64(value[len(sentinelPrefix) : len(value)-len(sentinelSuffix)])
	}
	for i := 0; i < len(value); i++ {
		if !fieldByte(value[i]) {
			return "", fmt.Errorf("byte 0x%02x at offset %d is not allowed in a header value %s; such values must be sent Base64-encoded", value[i], i, preview(value))
		}
	}
	return value, nil
}

func decodeBase64(payload string) (string, error) {
	// The decoder skips CR and LF wherever they occur, which would accept
	// a payload no client writes; only the alphabet and padding may occur.
	for i := 0; i < len(payload); i++ {
		if c := payload[i]; !base64Byte(c) {
			return "", fmt.Errorf("byte 0x%02x at offset %d of the Base64 payload %s is not in the Base64 alphabet", c, i, preview(payload))
		}
	}
	b, err := strictBase64.DecodeString(payload)
	if err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			return "", fmt.Errorf("malformed Base64 payload %s: bad data or padding at offset %d", preview(payload), int64(ce))
		}
		return "", fmt.Errorf("malformed Base64 payload %s: %w", preview(payload), err)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("the Base64 payload %s does not decode to UTF-8 text", preview(payload))
	}
	return string(b), nil
}

// Encode returns the header value that carries text: text itself when it
// can travel as it is, otherwise its Base64 form "=?base64?...?=".
//
// Text travels as it is when it holds only visible ASCII and inner
// spaces, neither starts nor ends with a space (which HTTP would strip),
// and does not itself start with "=?base64?" and end with "?=" (which a
// receiver would try to decode). A tab always goes in Base64: it is a
// control character to intermediaries, though HTTP allows it. The empty
// string travels as an empty value, which is what a server compares an
// empty argument with.
//
// Decode(Encode(text)) == text for every valid UTF-8 text.
func Encode(text string) string {
	if plainSafe(text) {
		return text
	}
	return sentinelPrefix + strictBase64.EncodeToString([]byte(text)) + sentinelSuffix
}

func plainSafe(text string) bool {
	if text == "" {
		return true
	}
	if isOWS(text[0]) || isOWS(text[len(text)-1]) {
		return false
	}
	if strings.HasPrefix(text, sentinelPrefix) && strings.HasSuffix(text, sentinelSuffix) {
		return false
	}
	for i := 0; i < len(text); i++ {
		// A tab is a valid field byte, but a control character all the
		// same: intermediaries treat it as one, so it travels in Base64.
		if c := text[i]; c == '\t' || !fieldByte(c) {
			return false
		}
	}
	return true
}

// fieldByte reports whether c may appear in a literal header value: visible
// ASCII, space or horizontal tab (RFC 9110, section 5.5).
func fieldByte(c byte) bool { return c == ' ' || c == '\t' || '!' <= c && c <= '~' }

func isOWS(c byte) bool { return c == ' ' || c == '\t' }

func base64Byte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '='
}

// previewLen bounds how many bytes of a value an error message shows.
const previewLen = 32

// preview quotes s for an error message: at most previewLen bytes of it,
// cut at a rune boundary and followed by "..." when cut, with everything
// but printable ASCII escaped, so that a message never carries a line break
// or a terminal escape from the peer.
func preview(s string) string {
	if len(s) <= previewLen {
		return strconv.QuoteToASCII(s)
	}
	cut := previewLen
	for cut > previewLen-utf8.UTFMax && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.QuoteToASCII(s[:cut]) + "..."
}
