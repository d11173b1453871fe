// Package e2e is a server built from generated code, for the end-to-end
// test: its mcpgen_gen.go is committed and kept up to date by
// go test ./gen (TestHandlersE2E).
package e2e

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// AddInput is two numbers.
type AddInput struct {
	// First addend.
	A int `json:"a"`
	// Second addend.
	B int `json:"b" mcp:"minimum=0,maximum=100"`
	// Words to echo back.
	Words []string `json:"words,omitempty" mcp:"maxItems=3"`
	// How to round, which the sum of integers never needs.
	Round string `json:"round,omitempty" mcp:"enum=up|down"`
	// Scale, which the sum ignores.
	Scale int `json:"scale,omitempty" mcp:"enum=1|10"`
}

// AddOutput is a sum.
type AddOutput struct {
	Sum   int      `json:"sum"`
	Words []string `json:"words"`
	Note  *string  `json:"note,omitempty"`
}

// Add adds two numbers.
//
//mcp:tool readonly
func Add(ctx context.Context, in AddInput) (AddOutput, error) {
	return AddOutput{Sum: in.A + in.B}, nil
}

// GreetInput names someone.
type GreetInput struct {
	Name string `json:"name" mcp:"minLength=1"`
}

// Greeter greets.
type Greeter struct{ Greeting string }

// Greet greets someone.
//
//mcp:tool title="Say hello"
func (g *Greeter) Greet(ctx context.Context, in GreetInput) (string, error) {
	if strings.EqualFold(in.Name, "nobody") {
		return "", errors.New("nobody is not there")
	}
	return g.Greeting + ", " + in.Name, nil
}

// Ship accepts a shipment; the schema says an international one needs a
// customs code, which the type mapping cannot express.
//
//mcp:tool input-schema=ship.json
func Ship(ctx context.Context, in json.RawMessage) (string, error) {
	return "shipped " + string(in), nil
}

// PlanArgs are the arguments of plan_trip.
type PlanArgs struct {
	// Where to go.
	Destination string `json:"destination"`
	// How many days.
	Days *string `json:"days"`
}

// PlanTrip asks for a travel plan.
//
//mcp:prompt title="Plan a trip"
func PlanTrip(ctx context.Context, in PlanArgs) ([]mcp.PromptMessage, error) {
	text := "Plan a trip to " + in.Destination
	if in.Days != nil {
		text += " for " + *in.Days + " days"
	}
	return []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.ContentBlock{Value: &mcp.TextContent{Text: text}}}}, nil
}

// Motd is the message of the day.
//
//mcp:resource uri=mem://motd mime=text/plain
func Motd(ctx context.Context) (string, error) { return "hello", nil }

// NoteVars are the variables of note.
type NoteVars struct {
	ID string `json:"id"`
}

// Note reads a note by id.
//
//mcp:resource uri-template=mem://notes/{id}
func Note(ctx context.Context, v NoteVars) ([]byte, error) {
	if v.ID == "missing" {
		return nil, errors.New("no such note")
	}
	return []byte("note " + v.ID), nil
}

// Vault keeps secrets that only callers whose credentials grant the right
// OAuth scopes reach.
type Vault struct{ Secret string }

// EntryVars name a secret.
type EntryVars struct {
	Name string `json:"name"`
}

// Open reveals a secret.
//
//mcp:tool scopes=vault:read|vault:open
func (v *Vault) Open(ctx context.Context, in EntryVars) (string, error) {
	return v.Secret + " " + in.Name, nil
}

// Recite asks the model to recite the vault's secret.
//
//mcp:prompt scopes=vault:read
func (v *Vault) Recite(ctx context.Context) ([]mcp.PromptMessage, error) {
	return []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.ContentBlock{Value: &mcp.TextContent{Text: "Recite " + v.Secret}}}}, nil
}

// Index lists the vault's secrets.
//
//mcp:resource uri=vault://index scopes=vault:list
func (v *Vault) Index(ctx context.Context) (string, error) { return "one secret", nil }

// Entry reads one secret.
//
//mcp:resource uri-template=vault://entries/{name} scopes=vault:read
func (v *Vault) Entry(ctx context.Context, in EntryVars) (string, error) {
	return v.Secret + " " + in.Name, nil
}
