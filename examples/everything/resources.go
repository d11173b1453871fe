package main

import (
	"context"
	"encoding/json"
	"fmt"
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

// A fixed text resource.
//
//mcp:resource uri=test://static-text name=static-text mime=text/plain
func staticTextResource(context.Context) (string, error) {
	return staticText, nil
}

// A fixed binary resource: a 1x1 PNG image.
//
//mcp:resource uri=test://static-binary name=static-binary mime=image/png
func staticBinaryResource(context.Context) ([]byte, error) {
	return redPixel, nil
}

// A text resource that changes now and then; subscribe to hear of it.
//
//mcp:resource uri=test://watched-resource name=watched-resource mime=text/plain
func (e *everything) watchedResource(context.Context) (string, error) {
	return fmt.Sprintf(watchedTextFormat, e.watched.Load()), nil
}

// templateVars are the variables of test://template/{id}/data.
type templateVars struct {
	ID string `json:"id"`
}

// templateData is what test://template/{id}/data holds.
type templateData struct {
	ID           string `json:"id"`
	TemplateTest bool   `json:"templateTest"`
	Data         string `json:"data"`
}

// JSON data for any id, which the URI names.
//
//mcp:resource uri-template=test://template/{id}/data name=template-data mime=application/json
func templateResource(_ context.Context, v templateVars) (string, error) {
	b, err := json.Marshal(templateData{ID: v.ID, TemplateTest: true, Data: "Data for ID: " + v.ID})
	if err != nil {
		return "", err
	}
	return string(b), nil
}
