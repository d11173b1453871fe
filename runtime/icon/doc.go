// Package icon lets a host show the icons an MCP server advertises on its
// implementation, tools, prompts and resources without trusting them. It
// applies the consumer rules of the specification's "icons" section: only
// HTTPS and data: sources, only the server's own origin, no credentials on
// the wire, bounded size, dimensions and time, and an image type decided
// by the bytes rather than by what the server claims.
//
// A [Policy] holds the server's URL and the host's limits. Its three
// methods split the work by cost:
//
//   - [Policy.Check] reads an icon's metadata only and never touches the
//     network, so a host can filter a tools/list result cheaply.
//   - [Policy.Select] picks, among the icons that pass Check, the one that
//     best fits a display size and background theme.
//   - [Policy.Fetch] resolves the source and returns an [Image] only after
//     its bytes have been identified by their magic numbers, measured and,
//     for SVG, scanned for active content.
//
// Every refusal wraps one of the Err variables below, so a host can tell a
// misbehaving server (ErrOrigin, ErrMismatch, ErrUnsafeSVG, ...) from its
// own misconfiguration (ErrPolicy) with errors.Is.
//
// What stays the host's job: the package checks headers, not every pixel,
// so a PNG or JPEG should still be decoded by a memory-safe decoder (the
// standard library's are), which the dimension limit keeps cheap. An SVG
// that passes the scan has no script, no foreign content and no external
// references, but the scan is a filter rather than a sanitizer: render
// SVG the way a browser renders an <img>, in a context where script never
// runs, and never inline it into a live document.
//
// The package needs nothing beyond the standard library: image/png and
// image/jpeg read the headers, encoding/xml reads SVG, and the WebP
// header is small enough to read by hand.
package icon
