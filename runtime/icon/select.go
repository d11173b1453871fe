package icon

import (
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// Select returns the icon among icons that passes Check and best suits a
// square display box of size device pixels on a background of the given
// theme, and false when none passes Check. It reads metadata only; the
// chosen icon can still fail Fetch, and a host that wants a fallback
// then calls Select again without it.
//
// Candidates are ranked by theme first, because an icon drawn for the
// other background can vanish into it, then by size, then by their
// position in icons, because a server lists its preferred icon first:
//
//   - Theme: with theme set, an icon of that theme beats one without a
//     theme, which beats one of another theme (kept as a last resort,
//     since some icon beats none). With theme "", an icon without a theme
//     beats a themed one.
//   - Size, for size > 0, comparing each WxH entry by its larger side:
//     an exact match, then "any" (scalable), then the smallest larger
//     than size (downscaling loses less than upscaling), then an icon
//     without usable sizes (the schema says to assume any size, but
//     nothing is known), then the largest smaller than size. An icon with
//     several entries ranks by its best one; malformed entries are
//     ignored. For size <= 0, meaning no particular size, "any" wins, then
//     the largest declared size, then no sizes.
func (p *Policy) Select(icons []mcp.Icon, size int, theme mcp.IconTheme) (mcp.Icon, bool) {
	best, found := -1, false
	var bestRank rank
	for i, ic := range icons {
		if p.Check(ic) != nil {
			continue
		}
		r := rank{theme: themeRank(ic.Theme, theme)}
		r.class, r.penalty = sizeRank(ic.Sizes, size)
		if !found || r.less(bestRank) {
			best, bestRank, found = i, r, true
		}
	}
	if !found {
		return mcp.Icon{}, false
	}
	return icons[best], true
}

// rank orders candidate icons: lower is better, field by field. Ties keep
// the earlier icon because Select replaces its choice only on less.
type rank struct {
	theme   int
	class   int
	penalty int
}

func (r rank) less(s rank) bool {
	if r.theme != s.theme {
		return r.theme < s.theme
	}
	if r.class != s.class {
		return r.class < s.class
	}
	return r.penalty < s.penalty
}

func themeRank(have, want mcp.IconTheme) int {
	switch {
	case want == "" && have == "":
		return 0
	case want == "":
		return 1
	case have == want:
		return 0
	case have == "":
		return 1
	}
	return 2
}

// The size classes of sizeRank, best first.
const (
	sizeExact = iota
	sizeAny
	sizeLarger
	sizeUnknown
	sizeSmaller
)

// sizeRank returns the best class and, within it, the penalty of the
// entries in sizes for a box of size pixels.
func sizeRank(sizes []string, size int) (class, penalty int) {
	found := false
	set := func(c, p int) {
		if !found || c < class || c == class && p < penalty {
			class, penalty, found = c, p, true
		}
	}
	for _, s := range sizes {
		if strings.EqualFold(strings.TrimSpace(s), "any") {
			if size <= 0 {
				set(sizeExact, 0)
			} else {
				set(sizeAny, 0)
			}
			continue
		}
		d, ok := parseSize(s)
		switch {
		case !ok:
		case size <= 0:
			// No wanted size: bigger is better, and beats unknown.
			set(sizeAny, -d)
		case d == size:
			set(sizeExact, 0)
		case d > size:
			set(sizeLarger, d-size)
		default:
			set(sizeSmaller, size-d)
		}
	}
	if !found {
		return sizeUnknown, 0
	}
	return class, penalty
}

// parseSize reads "WxH" (the x in either case, as in HTML's sizes
// attribute) and returns the larger side.
func parseSize(s string) (int, bool) {
	w, h, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	if !ok {
		return 0, false
	}
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	if err1 != nil || err2 != nil || wi <= 0 || hi <= 0 || w[0] == '+' || h[0] == '+' {
		return 0, false
	}
	return max(wi, hi), true
}
