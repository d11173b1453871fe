// Package resources is a golden case: resources with fixed URIs returning
// text, bytes, contents and a whole result, and resource templates whose
// variables fill a struct by JSON name, by field name and through an
// embedded struct.
package resources

import (
	"context"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// Readme is the project's README.
//
//mcp:resource uri=file:///README.md mime=text/markdown title="Read me"
func Readme(ctx context.Context) (string, error) {
	return "# Hello", nil
}

// Logo is the project's logo.
//
//mcp:resource uri=file:///logo.png mime=image/png description="The project's logo, a PNG of 64x64 pixels."
func Logo(ctx context.Context) ([]byte, error) {
	return []byte{0x89, 'P', 'N', 'G'}, nil
}

// Both returns two contents.
//
//mcp:resource uri=mem://both name=two_things
func Both(ctx context.Context) ([]mcp.ReadResourceResultContentsItem, error) {
	return []mcp.ReadResourceResultContentsItem{
		{Value: &mcp.TextResourceContents{URI: "mem://both#1", Text: "one"}},
		{Value: &mcp.TextResourceContents{URI: "mem://both#2", Text: "two"}},
	}, nil
}

// Owner is embedded in FileVars.
type Owner struct {
	Owner string `json:"owner"`
}

// FileVars are the variables of repo_file.
type FileVars struct {
	Owner
	Repo string
	Path string `json:"path"`
}

// RepoFile reads a file of a repository.
//
//mcp:resource uri-template=repo://{owner}/{repo}/{+path} mime=text/plain
func RepoFile(ctx context.Context, v FileVars) (string, error) {
	return v.Owner.Owner + "/" + v.Repo + ":" + v.Path, nil
}

// Unit is a named string type that receives a variable.
type Unit string

// Weather serves forecasts.
type Weather struct{ Source string }

// CityVars are the variables of forecast.
type CityVars struct {
	City string `json:"city"`
	Unit Unit   `json:"unit"`
}

// Forecast is the forecast for a city.
//
//mcp:resource uri-template=weather://{city}{?unit}
func (w *Weather) Forecast(ctx context.Context, v CityVars) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{
		{Value: &mcp.TextResourceContents{URI: "weather://" + v.City, Text: w.Source + ": sunny in " + string(v.Unit)}},
	}}, nil
}
