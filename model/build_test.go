package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/parser/schema"
)

var allVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

func sharedDir(t testing.TB) string {
	dir := os.Getenv("MCPGEN_SHARED")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "schema")); err != nil {
		t.Fatalf("MCPGEN_SHARED: no schema folder in %s: %v", dir, err)
	}
	return dir
}

func buildAll(t testing.TB, versions ...string) *Model {
	dir := sharedDir(t)
	var docs []*schema.Document
	for _, v := range versions {
		doc, err := schema.Load(filepath.Join(dir, "schema", v, "schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc)
	}
	m, err := Build(versions, docs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (m *Model) set(t *testing.T, names ...string) VersionSet {
	var s VersionSet
	for _, n := range names {
		found := false
		for i, v := range m.Versions {
			if v == n {
				s |= Only(Version(i))
				found = true
			}
		}
		if !found {
			t.Fatalf("no version %s", n)
		}
	}
	return s
}

// TestMethodTable checks the method table derived from the five schemas.
func TestMethodTable(t *testing.T) {
	m := buildAll(t, allVersions...)
	legacy := m.set(t, "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
	byName := map[string]*Method{}
	for _, me := range m.Methods {
		byName[me.Name] = me
	}
	tests := []struct {
		method       string
		notification bool
		dir          Direction
		params       string
		result       string
		versions     VersionSet
	}{
		{"initialize", false, ClientToServer, "InitializeRequestParams", "InitializeResult", legacy},
		{"ping", false, Both, "RequestParams", "EmptyResult", legacy},
		{"notifications/cancelled", true, Both, "CancelledNotificationParams", "", m.All()},
		{"notifications/progress", true, Both, "ProgressNotificationParams", "", m.All()},
		{"tools/call", false, ClientToServer, "CallToolRequestParams", "CallToolResult", m.All()},
		{"tools/list", false, ClientToServer, "PaginatedRequestParams", "ListToolsResult", m.All()},
		{"logging/setLevel", false, ClientToServer, "SetLevelRequestParams", "EmptyResult", legacy},
		{"resources/subscribe", false, ClientToServer, "SubscribeRequestParams", "EmptyResult", legacy},
		{"sampling/createMessage", false, ServerToClient, "CreateMessageRequestParams", "CreateMessageResult", legacy},
		{"elicitation/create", false, ServerToClient, "ElicitRequestParams", "ElicitResult", m.set(t, "2025-06-18", "2025-11-25")},
		{"server/discover", false, ClientToServer, "RequestParams", "DiscoverResult", m.set(t, "2026-07-28")},
		{"subscriptions/listen", false, ClientToServer, "SubscriptionsListenRequestParams", "SubscriptionsListenResult", m.set(t, "2026-07-28")},
		{"tasks/result", false, Both, "GetTaskPayloadRequestParams", "GetTaskPayloadResult", m.set(t, "2025-11-25")},
	}
	for _, tt := range tests {
		me := byName[tt.method]
		if me == nil {
			t.Errorf("%s: missing from the method table", tt.method)
			continue
		}
		if me.Notification != tt.notification || me.Direction != tt.dir || me.Params != tt.params || me.Result != tt.result || me.Versions != tt.versions {
			t.Errorf("%s = {notification %v, %s, params %s, result %s, %v}, want {%v, %s, %s, %s, %v}", tt.method,
				me.Notification, me.Direction, me.Params, me.Result, m.VersionNames(me.Versions),
				tt.notification, tt.dir, tt.params, tt.result, m.VersionNames(tt.versions))
		}
	}
	if got := byName["tools/call"].Response; got != "CallToolResultResponse" {
		t.Errorf("tools/call response envelope = %q", got)
	}
}

// TestMerge checks how definitions that changed between versions merge.
func TestMerge(t *testing.T) {
	m := buildAll(t, allVersions...)
	field := func(typ, json string) *Field {
		t.Helper()
		ty := m.Lookup(typ)
		if ty == nil {
			t.Fatalf("no type %s", typ)
		}
		f := ty.Field(json)
		if f == nil {
			t.Fatalf("%s has no property %s", typ, json)
		}
		return f
	}
	// Added fields record when they arrived.
	if f := field("Tool", "title"); f.Versions != m.set(t, "2025-06-18", "2025-11-25", "2026-07-28") {
		t.Errorf("Tool.title versions = %v", m.VersionNames(f.Versions))
	}
	// Requiredness is per version.
	if f := field("CallToolResult", "resultType"); f.Required != m.set(t, "2026-07-28") {
		t.Errorf("CallToolResult.resultType required in %v", m.VersionNames(f.Required))
	}
	// Inline params of older versions merge into the later definitions.
	if ty := m.Lookup("CallToolRequestParams"); ty.Versions != m.All() {
		t.Errorf("CallToolRequestParams versions = %v", m.VersionNames(ty.Versions))
	}
	if ty := m.Lookup("ListToolsRequest"); ty.Field("params").Type.Target != "PaginatedRequestParams" {
		t.Errorf("ListToolsRequest.params = %s", ty.Field("params").Type.Target)
	}
	// Renamed definitions are one type plus a deprecated alias.
	for old, cur := range map[string]string{"Annotated": "Annotations", "JSONRPCError": "JSONRPCErrorResponse", "ResourceReference": "ResourceTemplateReference"} {
		a := m.Lookup(old)
		if a == nil || a.Kind != Alias || a.Target != cur || a.Deprecated == "" {
			t.Errorf("%s: want a deprecated alias of %s, got %+v", old, cur, a)
		}
	}
	// Objects that became unions keep the old shape as a variant.
	for union, variant := range map[string]string{"EnumSchema": "LegacyTitledEnumSchema", "JSONRPCResponse": "JSONRPCResultResponse", "ElicitRequestParams": "ElicitRequestFormParams"} {
		u := m.Lookup(union)
		if u.Kind != Union {
			t.Errorf("%s is a %s, want a union", union, u.Kind)
			continue
		}
		found := false
		for _, v := range u.Variants {
			if v.Name() == variant {
				found = true
				if !v.Versions.Has(Version(2)) {
					t.Errorf("%s variant %s lacks 2025-06-18: %v", union, variant, m.VersionNames(v.Versions))
				}
			}
		}
		if !found {
			t.Errorf("%s has no variant %s", union, variant)
		}
	}
	// Widened properties.
	if f := field("CallToolResult", "structuredContent"); f.Type.Kind != Raw || f.Type.RawKind != AnyValue || f.ObjectIn != m.set(t, "2025-06-18", "2025-11-25") {
		t.Errorf("structuredContent = %s/%v, object in %v", f.Type.Kind, f.Type.RawKind, m.VersionNames(f.ObjectIn))
	}
	// Doc notes.
	if got := m.Since(m.set(t, "2025-06-18", "2025-11-25")); got != "Since 2025-06-18. Removed in 2026-07-28." {
		t.Errorf("Since = %q", got)
	}
}

// TestUnionPicks checks the pick plans of unions whose variants need the
// override table's rules.
func TestUnionPicks(t *testing.T) {
	m := buildAll(t, allVersions...)
	cb := m.Lookup("ContentBlock")
	if g := cb.Pick.Groups[0]; g.Kind != KindObject || g.ConstKey != "type" || len(g.Cases) != len(cb.Variants) {
		t.Errorf("ContentBlock picks by %q in %d cases", g.ConstKey, len(g.Cases))
	}
	id := m.Lookup("RequestId")
	if len(id.Pick.Groups) != 2 || id.Pick.Groups[0].Kind != KindString || id.Pick.Groups[1].Kind != KindInteger {
		t.Errorf("RequestId groups = %+v", id.Pick.Groups)
	}
	ps := m.Lookup("PrimitiveSchemaDefinition")
	var rules []string
	for _, g := range ps.Pick.Groups {
		for _, c := range g.Cases {
			for _, r := range c.Rules {
				rules = append(rules, r.Prefer)
			}
		}
	}
	if got := strings.Join(rules, ","); !strings.Contains(got, "LegacyTitledEnumSchema") || !strings.Contains(got, "TitledMultiSelectEnumSchema") {
		t.Errorf("PrimitiveSchemaDefinition rules = %s", got)
	}
}

// TestEachVersionAlone builds a model from each schema alone.
func TestEachVersionAlone(t *testing.T) {
	for _, v := range allVersions {
		m := buildAll(t, v)
		if len(m.Types) < 70 || len(m.Methods) < 15 {
			t.Errorf("%s: %d types, %d methods", v, len(m.Types), len(m.Methods))
		}
	}
}
