package gateway

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// OpenAPIVersion is the version of the OpenAPI documents the REST facade
// serves.
const OpenAPIVersion = "3.1.0"

// jsonSchema2020 is the dialect of the documents' schemas, which is what
// MCP tool schemas are unless they say otherwise with $schema.
const jsonSchema2020 = "https://json-schema.org/draft/2020-12/schema"

// The parts of an OpenAPI 3.1 document the facade writes. Fields are in
// the order the specification lists them.
type (
	openAPIDoc struct {
		OpenAPI           string                 `json:"openapi"`
		Info              openAPIInfo            `json:"info"`
		JSONSchemaDialect string                 `json:"jsonSchemaDialect"`
		Servers           []openAPIServer        `json:"servers"`
		Paths             map[string]openAPIPath `json:"paths"`
		Components        openAPIComponents      `json:"components"`
		Security          []map[string][]string  `json:"security,omitempty"`
	}
	openAPIInfo struct {
		Title       string `json:"title"`
		Description string `json:"description,omitempty"`
		Version     string `json:"version"`
	}
	openAPIServer struct {
		URL string `json:"url"`
	}
	openAPIPath struct {
		Post *openAPIOperation `json:"post"`
	}
	openAPIOperation struct {
		OperationID string                     `json:"operationId"`
		Summary     string                     `json:"summary,omitempty"`
		Description string                     `json:"description,omitempty"`
		RequestBody openAPIRequestBody         `json:"requestBody"`
		Responses   map[string]openAPIResponse `json:"responses"`
		// Annotations are the tool's MCP annotations (readOnlyHint,
		// destructiveHint, ...), an extension field.
		Annotations *mcp.ToolAnnotations `json:"x-mcp-annotations,omitempty"`
	}
	openAPIRequestBody struct {
		Required bool                        `json:"required"`
		Content  map[string]openAPIMediaType `json:"content"`
	}
	openAPIMediaType struct {
		Schema json.RawMessage `json:"schema"`
	}
	openAPIResponse struct {
		Ref         string                      `json:"$ref,omitempty"`
		Description string                      `json:"description,omitempty"`
		Content     map[string]openAPIMediaType `json:"content,omitempty"`
	}
	openAPIComponents struct {
		Schemas         map[string]json.RawMessage       `json:"schemas"`
		Responses       map[string]openAPIResponse       `json:"responses"`
		SecuritySchemes map[string]openAPISecurityScheme `json:"securitySchemes,omitempty"`
	}
	openAPISecurityScheme struct {
		Type        string `json:"type"`
		Scheme      string `json:"scheme,omitempty"`
		In          string `json:"in,omitempty"`
		Name        string `json:"name,omitempty"`
		Description string `json:"description,omitempty"`
	}
)

// errorSchema is the body of every refusal of the facade.
const errorSchema = `{"type":"object","required":["error"],"properties":{"error":{"type":"string","description":"what went wrong"},"content":{"type":"array","description":"the content of a result the tool marked as an error","items":{"type":"object"}}}}`

// contentSchema is the answer of a tool without an outputSchema: its
// content blocks.
const contentSchema = `{"type":"array","description":"the MCP content blocks of the tool's result","items":{"type":"object","required":["type"],"properties":{"type":{"type":"string"}}}}`

// errorResponses are the statuses every call may answer besides 200,
// and why.
var errorResponses = []struct{ status, description string }{
	{"400", "The arguments are not a JSON object, or do not match the tool's input schema."},
	{"401", "No credentials, or credentials the gateway does not accept."},
	{"403", "The caller may not call this tool, or the call needs a capability the REST facade does not have (a human approval)."},
	{"404", "The caller sees no tool of this name."},
	{"413", "The request body is too large."},
	{"429", "The caller or the tool is over its rate limit."},
	{"502", "The upstream server failed the call, or its tool reported an error."},
	{"504", "The call took longer than the facade's timeout."},
}

// openAPI builds the OpenAPI 3.1 document of tools, the tools of the
// virtual server name that its caller may see, served under base.
func openAPI(name, base string, tools []mcp.Tool, f *front) ([]byte, error) {
	doc := openAPIDoc{
		OpenAPI: OpenAPIVersion,
		Info: openAPIInfo{
			Title:       "mcpgen-gateway: " + name,
			Description: "The tools of the virtual server " + name + " that the caller may use, each called with its arguments as the JSON body.",
			Version:     "0.1.0",
		},
		JSONSchemaDialect: jsonSchema2020,
		Servers:           []openAPIServer{{URL: base}},
		Paths:             map[string]openAPIPath{},
		Components: openAPIComponents{
			Schemas:   map[string]json.RawMessage{"Error": json.RawMessage(errorSchema), "Content": json.RawMessage(contentSchema)},
			Responses: map[string]openAPIResponse{},
		},
	}
	errorBody := map[string]openAPIMediaType{"application/json": {Schema: json.RawMessage(`{"$ref":"#/components/schemas/Error"}`)}}
	for _, e := range errorResponses {
		doc.Components.Responses["Error"+e.status] = openAPIResponse{Description: e.description, Content: errorBody}
	}
	if f.guarded() {
		doc.Components.SecuritySchemes = map[string]openAPISecurityScheme{}
		doc.Components.SecuritySchemes["bearer"] = openAPISecurityScheme{Type: "http", Scheme: "bearer", Description: "An API key or an OAuth access token."}
		doc.Security = append(doc.Security, map[string][]string{"bearer": {}})
		if f.keys.Load() != nil {
			doc.Components.SecuritySchemes["apiKey"] = openAPISecurityScheme{Type: "apiKey", In: "header", Name: APIKeyHeader}
			doc.Security = append(doc.Security, map[string][]string{"apiKey": {}})
		}
	}
	for _, t := range tools {
		in, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, err
		}
		out := json.RawMessage(`{"$ref":"#/components/schemas/Content"}`)
		if t.OutputSchema != nil {
			if out, err = json.Marshal(t.OutputSchema); err != nil {
				return nil, err
			}
			out = standalone(out, t.Name, "output")
		}
		op := &openAPIOperation{
			OperationID: t.Name,
			Summary:     t.Title,
			Description: t.Description,
			RequestBody: openAPIRequestBody{Required: true, Content: map[string]openAPIMediaType{"application/json": {Schema: standalone(in, t.Name, "input")}}},
			Responses: map[string]openAPIResponse{
				"200": {Description: "The tool's structuredContent, or its content when it has none.", Content: map[string]openAPIMediaType{"application/json": {Schema: out}}},
			},
			Annotations: t.Annotations,
		}
		if op.Summary == "" && t.Annotations != nil {
			op.Summary = t.Annotations.Title
		}
		for _, e := range errorResponses {
			op.Responses[e.status] = openAPIResponse{Ref: "#/components/responses/Error" + e.status}
		}
		doc.Paths["/tools/"+url.PathEscape(t.Name)] = openAPIPath{Post: op}
	}
	return json.MarshalIndent(doc, "", "  ")
}

// standalone gives a tool's schema an $id when it has references and
// none, so that its "#/..." references resolve inside it and not against
// the OpenAPI document it is embedded in.
func standalone(schema json.RawMessage, tool, which string) json.RawMessage {
	if !strings.Contains(string(schema), `"$ref"`) {
		return schema
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(schema, &m) != nil {
		return schema
	}
	if _, ok := m["$id"]; ok {
		return schema
	}
	id, _ := json.Marshal("urn:mcpgen-gateway:tool:" + url.PathEscape(tool) + ":" + which)
	m["$id"] = id
	out, err := json.Marshal(m)
	if err != nil {
		return schema
	}
	return out
}
