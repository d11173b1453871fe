package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// property is the part of an elicitation schema's property that filling
// in defaults needs; every variant of mcp.PrimitiveSchemaDefinition has
// these members.
type property struct {
	Type    string          `json:"type"`
	Default json.RawMessage `json:"default"`
}

// schemaDefaults returns the content of a form submitted with every
// default of the schema (SEP-1034). A required property without a default
// is an error: nobody is here to type it in.
//
// The 2025-11-25 schema allows only whole numbers among the content's
// values (string, integer, boolean, string array), so a "number" default
// with a fraction, such as 95.5, is sent rounded to the nearest integer.
func schemaDefaults(schema mcp.ElicitRequestFormParamsRequestedSchema) (map[string]mcp.ElicitResultContentValue, error) {
	content := make(map[string]mcp.ElicitResultContentValue)
	names := make([]string, 0, len(schema.Properties))
	for name := range schema.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		raw, err := json.Marshal(schema.Properties[name])
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", name, err)
		}
		var p property
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("property %q: %w", name, err)
		}
		if len(p.Default) == 0 || bytes.Equal(p.Default, []byte("null")) {
			if slices.Contains(schema.Required, name) {
				return nil, fmt.Errorf("required property %q has no default", name)
			}
			continue
		}
		v, err := contentValue(p)
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", name, err)
		}
		content[name] = v
	}
	return content, nil
}

// contentValue converts a property's default to the content value its
// type calls for.
func contentValue(p property) (mcp.ElicitResultContentValue, error) {
	var v mcp.ElicitResultContentValueVariant
	var err error
	switch p.Type {
	case "string":
		var s string
		err = json.Unmarshal(p.Default, &s)
		v = mcp.ElicitResultContentValueString(s)
	case "boolean":
		var b bool
		err = json.Unmarshal(p.Default, &b)
		v = mcp.ElicitResultContentValueBoolean(b)
	case "integer", "number":
		var f float64
		err = json.Unmarshal(p.Default, &f)
		if err == nil && (math.IsInf(f, 0) || math.Abs(f) > 1<<53) {
			err = fmt.Errorf("default %s is out of range", p.Default)
		}
		v = mcp.ElicitResultContentValueInteger(int64(math.Round(f)))
	case "array":
		var a []string
		err = json.Unmarshal(p.Default, &a)
		v = mcp.ElicitResultContentValueArray(a)
	default:
		err = fmt.Errorf("unsupported type %q", p.Type)
	}
	if err != nil {
		return mcp.ElicitResultContentValue{}, err
	}
	return mcp.ElicitResultContentValue{Value: v}, nil
}
