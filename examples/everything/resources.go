package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// The resources of the contract.
const (
	staticTextURI     = "test://static-text"
	staticText        = "This is the content of the static text resource."
	staticBinaryURI   = "test://static-binary"
	templateURI       = "test://template/{id}/data"
	watchedURI        = "test://watched-resource"
	watchedTextFormat = "Watched resource content, revision %d."
)

func (e *everything) addResources() error {
	if err := e.srv.AddResource(mcp.Resource{
		URI:         staticTextURI,
		Name:        "static-text",
		Description: "A fixed text resource.",
		MIMEType:    "text/plain",
	}, readStaticText); err != nil {
		return err
	}
	if err := e.srv.AddResource(mcp.Resource{
		URI:         staticBinaryURI,
		Name:        "static-binary",
		Description: "A fixed binary resource: a 1x1 PNG image.",
		MIMEType:    "image/png",
	}, readStaticBinary); err != nil {
		return err
	}
	if err := e.srv.AddResource(mcp.Resource{
		URI:         watchedURI,
		Name:        "watched-resource",
		Description: "A text resource that changes now and then; subscribe to hear of it.",
		MIMEType:    "text/plain",
	}, e.readWatched); err != nil {
		return err
	}
	return e.srv.AddResourceTemplate(mcp.ResourceTemplate{
		URITemplate: templateURI,
		Name:        "template-data",
		Description: "JSON data for any id, which the URI names.",
		MIMEType:    "application/json",
	}, readTemplate)
}

func readStaticText(_ context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{
		Value: &mcp.TextResourceContents{URI: p.URI, MIMEType: "text/plain", Text: staticText},
	}}}, nil
}

func readStaticBinary(_ context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{
		Value: &mcp.BlobResourceContents{URI: p.URI, MIMEType: "image/png", Blob: redPixelPNG},
	}}}, nil
}

func (e *everything) readWatched(_ context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{
		Value: &mcp.TextResourceContents{URI: p.URI, MIMEType: "text/plain", Text: fmt.Sprintf(watchedTextFormat, e.watched.Load())},
	}}}, nil
}

// templateData is what test://template/{id}/data holds.
type templateData struct {
	ID           string `json:"id"`
	TemplateTest bool   `json:"templateTest"`
	Data         string `json:"data"`
}

func readTemplate(_ context.Context, p *mcp.ReadResourceRequestParams, vars map[string]string) (*mcp.ReadResourceResult, error) {
	id := vars["id"]
	b, err := json.Marshal(templateData{ID: id, TemplateTest: true, Data: "Data for ID: " + id})
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{
		Value: &mcp.TextResourceContents{URI: p.URI, MIMEType: "application/json", Text: string(b)},
	}}}, nil
}
