package icon_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/png"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/icon"
)

// A host shows a tool's icon in a 32-pixel slot on a dark background. The
// server advertises three: one on a third-party origin, which Select
// skips, and two of its own, of which the dark one wins.
func ExamplePolicy_Select() {
	var buf bytes.Buffer
	png.Encode(&buf, image.NewGray(image.Rect(0, 0, 32, 32)))
	dark := "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())

	tool := mcp.Tool{Name: "search", Icons: []mcp.Icon{
		{Src: "https://tracker.example.net/search.png", Sizes: []string{"32x32"}},
		{Src: "https://mcp.example.com/icons/search-light.png", Sizes: []string{"32x32"}, Theme: mcp.IconThemeLight},
		{Src: dark, MIMEType: "image/png", Sizes: []string{"32x32"}, Theme: mcp.IconThemeDark},
	}}
	policy := &icon.Policy{ServerURL: "https://mcp.example.com/mcp"}

	fmt.Println(errors.Is(policy.Check(tool.Icons[0]), icon.ErrOrigin))
	chosen, ok := policy.Select(tool.Icons, 32, mcp.IconThemeDark)
	if !ok {
		return
	}
	img, err := policy.Fetch(context.Background(), chosen)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(chosen.Theme, img.MIMEType, img.Width, img.Height)
	// Output:
	// true
	// dark image/png 32 32
}
