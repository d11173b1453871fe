package schema

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/shared/sharedtest"
	"github.com/mcpgen/mcpgen/model"
)

var allVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// lowerAll lowers the shared folder's schemas of versions into one model.
func lowerAll(t testing.TB, versions ...string) *model.Model {
	var docs []*Document
	for _, v := range versions {
		doc, err := Load(sharedtest.SchemaPath(t, v))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc)
	}
	m, err := Lower(versions, docs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// versionSet returns the set of the named versions of m.
func versionSet(t *testing.T, m *model.Model, names ...string) model.VersionSet {
	var s model.VersionSet
	for _, n := range names {
		found := false
		for i, v := range m.Versions {
			if v == n {
				s |= model.Only(model.Version(i))
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
	m := lowerAll(t, allVersions...)
	legacy := versionSet(t, m, "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
	byName := map[string]*model.Method{}
	for _, me := range m.Methods {
		byName[me.Name] = me
	}
	tests := []struct {
		method       string
		notification bool
		dir          model.Direction
		params       string
		result       string
		versions     model.VersionSet
	}{
		{"initialize", false, model.ClientToServer, "InitializeRequestParams", "InitializeResult", legacy},
		{"ping", false, model.Both, "RequestParams", "EmptyResult", legacy},
		{"notifications/cancelled", true, model.Both, "CancelledNotificationParams", "", m.All()},
		{"notifications/progress", true, model.Both, "ProgressNotificationParams", "", m.All()},
		{"tools/call", false, model.ClientToServer, "CallToolRequestParams", "CallToolResult", m.All()},
		{"tools/list", false, model.ClientToServer, "PaginatedRequestParams", "ListToolsResult", m.All()},
		{"logging/setLevel", false, model.ClientToServer, "SetLevelRequestParams", "EmptyResult", legacy},
		{"resources/subscribe", false, model.ClientToServer, "SubscribeRequestParams", "EmptyResult", legacy},
		{"sampling/createMessage", false, model.ServerToClient, "CreateMessageRequestParams", "CreateMessageResult", legacy},
		{"elicitation/create", false, model.ServerToClient, "ElicitRequestParams", "ElicitResult", versionSet(t, m, "2025-06-18", "2025-11-25")},
		{"server/discover", false, model.ClientToServer, "RequestParams", "DiscoverResult", versionSet(t, m, "2026-07-28")},
		{"subscriptions/listen", false, model.ClientToServer, "SubscriptionsListenRequestParams", "SubscriptionsListenResult", versionSet(t, m, "2026-07-28")},
		{"tasks/result", false, model.Both, "GetTaskPayloadRequestParams", "GetTaskPayloadResult", versionSet(t, m, "2025-11-25")},
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
	m := lowerAll(t, allVersions...)
	field := func(typ, json string) *model.Field {
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
	if f := field("Tool", "title"); f.Versions != versionSet(t, m, "2025-06-18", "2025-11-25", "2026-07-28") {
		t.Errorf("Tool.title versions = %v", m.VersionNames(f.Versions))
	}
	// Requiredness is per version.
	if f := field("CallToolResult", "resultType"); f.Required != versionSet(t, m, "2026-07-28") {
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
	for _, c := range []struct{ old, cur string }{
		{"Annotated", "Annotations"},
		{"JSONRPCError", "JSONRPCErrorResponse"},
		{"ResourceReference", "ResourceTemplateReference"},
	} {
		t.Run("alias "+c.old, func(t *testing.T) {
			a := m.Lookup(c.old)
			if a == nil || a.Kind != model.Alias || a.Target != c.cur || a.Deprecated == "" {
				t.Errorf("%s: want a deprecated alias of %s, got %+v", c.old, c.cur, a)
			}
		})
	}
	// Objects that became unions keep the old shape as a variant.
	for _, c := range []struct{ union, variant string }{
		{"EnumSchema", "LegacyTitledEnumSchema"},
		{"JSONRPCResponse", "JSONRPCResultResponse"},
		{"ElicitRequestParams", "ElicitRequestFormParams"},
	} {
		t.Run("union "+c.union, func(t *testing.T) {
			u := m.Lookup(c.union)
			if u.Kind != model.Union {
				t.Fatalf("%s is a %s, want a union", c.union, u.Kind)
			}
			found := false
			for _, v := range u.Variants {
				if v.Name() == c.variant {
					found = true
					if !v.Versions.Has(model.Version(2)) {
						t.Errorf("%s variant %s lacks 2025-06-18: %v", c.union, c.variant, m.VersionNames(v.Versions))
					}
				}
			}
			if !found {
				t.Errorf("%s has no variant %s", c.union, c.variant)
			}
		})
	}
	// Widened properties.
	if f := field("CallToolResult", "structuredContent"); f.Type.Kind != model.Raw || f.Type.RawKind != model.AnyValue || f.ObjectIn != versionSet(t, m, "2025-06-18", "2025-11-25") {
		t.Errorf("structuredContent = %s/%v, object in %v", f.Type.Kind, f.Type.RawKind, m.VersionNames(f.ObjectIn))
	}
	// Doc notes.
	if got := m.Since(versionSet(t, m, "2025-06-18", "2025-11-25")); got != "Since 2025-06-18. Removed in 2026-07-28." {
		t.Errorf("Since = %q", got)
	}
}

// TestUnionPicks checks the pick plans of unions whose variants need the
// override table's rules.
func TestUnionPicks(t *testing.T) {
	m := lowerAll(t, allVersions...)
	cb := m.Lookup("ContentBlock")
	if g := cb.Pick.Groups[0]; g.Kind != model.KindObject || g.ConstKey != "type" || len(g.Cases) != len(cb.Variants) {
		t.Errorf("ContentBlock picks by %q in %d cases", g.ConstKey, len(g.Cases))
	}
	id := m.Lookup("RequestId")
	if len(id.Pick.Groups) != 2 || id.Pick.Groups[0].Kind != model.KindString || id.Pick.Groups[1].Kind != model.KindInteger {
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
		m := lowerAll(t, v)
		if len(m.Types) < 70 || len(m.Methods) < 15 {
			t.Errorf("%s: %d types, %d methods", v, len(m.Types), len(m.Methods))
		}
	}
}
