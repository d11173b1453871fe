package schema

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/model"
)

// coreSchema is a small core: a definition that extensions copy.
const coreSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$defs": {
    "Shared": {"type": "object", "properties": {"a": {"type": "string"}}}
  }
}`

// extensionSchema returns an extension document whose Shared definition
// is shared, and whose other definitions are extra.
func extensionSchema(shared, extra string) string {
	s := `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$defs": {
    "Shared": ` + shared
	if extra != "" {
		s += ",\n" + extra
	}
	return s + "\n  }\n}"
}

const sharedCopy = `{"type": "object", "properties": {"a": {"type": "string"}}}`

func lowerExtension(t *testing.T, ext string) (*model.Model, error) {
	t.Helper()
	core, err := Parse("core.json", []byte(coreSchema))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Parse("ext.json", []byte(ext))
	if err != nil {
		t.Fatal(err)
	}
	return LowerExtension("draft", doc, core, "example.com/core")
}

// TestLowerExtensionRefusesDiffering checks that a definition sharing a
// core definition's name but not its text is refused at its own position:
// treating it as the core's type would silently change what it means.
func TestLowerExtensionRefusesDiffering(t *testing.T) {
	_, err := lowerExtension(t, extensionSchema(`{"type": "object", "properties": {"a": {"type": "integer"}}}`, ""))
	var me *model.Error
	if !errors.As(err, &me) {
		t.Fatalf("error %v (%T), want a *model.Error", err, err)
	}
	if want := (model.Pos{File: "ext.json", Pointer: "/$defs/Shared"}); me.Pos != want {
		t.Errorf("error at %s, want %s", me.Pos, want)
	}
	if !strings.Contains(me.Msg, "core.json#/$defs/Shared") {
		t.Errorf("error %q does not name the core definition", me.Msg)
	}
}

// TestLowerExtensionKeepsCopies checks that a verbatim copy of a core
// definition stays the core package's type and the extension's own
// definitions stay the extension's.
func TestLowerExtensionKeepsCopies(t *testing.T) {
	m, err := lowerExtension(t, extensionSchema(sharedCopy, `"Own": {"type": "object", "properties": {"s": {"$ref": "#/$defs/Shared"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Lookup("Shared").Package; got != "example.com/core" {
		t.Errorf("Shared belongs to package %q, want example.com/core", got)
	}
	if got := m.Lookup("Own").Package; got != "" {
		t.Errorf("Own belongs to package %q, want the extension's", got)
	}
}

// extensionMessages defines a request (it has an id), its result and a
// notification the way the tasks extension writes them: no unions list
// them, so their definitions are all there is to go by.
const extensionMessages = `
    "GetTaskRequest": {"type": "object", "properties": {
      "id": {"type": "string"}, "method": {"type": "string", "const": "tasks/get"},
      "params": {"type": "object", "properties": {"taskId": {"type": "string"}}, "required": ["taskId"]}},
      "required": ["id", "method", "params"]},
    "GetTaskResult": {"type": "object", "properties": {"taskId": {"type": "string"}}},
    "TaskStatusNotification": {"type": "object", "properties": {
      "method": {"type": "string", "const": "notifications/tasks"},
      "params": {"$ref": "#/$defs/Shared"}},
      "required": ["method", "params"]}`

func TestLowerExtensionMethods(t *testing.T) {
	m, err := lowerExtension(t, extensionSchema(sharedCopy, extensionMessages))
	if err != nil {
		t.Fatal(err)
	}
	want := []model.Method{
		{Name: "notifications/tasks", Notification: true, Message: "TaskStatusNotification", Params: "Shared", Direction: model.ServerToClient},
		{Name: "tasks/get", Message: "GetTaskRequest", Params: "GetTaskRequestParams", Result: "GetTaskResult", Direction: model.ClientToServer},
	}
	if len(m.Methods) != len(want) {
		t.Fatalf("%d methods, want %d", len(m.Methods), len(want))
	}
	for i, me := range m.Methods {
		w := want[i]
		if me.Name != w.Name || me.Notification != w.Notification || me.Message != w.Message ||
			me.Params != w.Params || me.Result != w.Result || me.Direction != w.Direction || me.Versions != m.All() {
			t.Errorf("method %d: %+v, want %+v in every version", i, *me, w)
		}
	}
}

// TestLowerExtensionUnknownDirection checks that a method the direction
// table does not know is refused at its definition rather than given a
// guessed direction.
func TestLowerExtensionUnknownDirection(t *testing.T) {
	_, err := lowerExtension(t, extensionSchema(sharedCopy, `"PokeNotification": {"type": "object", "properties": {
      "method": {"type": "string", "const": "notifications/poke"}, "params": {"type": "object"}}}`))
	var me *model.Error
	if !errors.As(err, &me) || me.Pos.Pointer != "/$defs/PokeNotification" || !strings.Contains(me.Msg, "extensionDirections") {
		t.Errorf("error %v, want one at /$defs/PokeNotification naming extensionDirections", err)
	}
}
