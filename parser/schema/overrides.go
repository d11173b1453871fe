package schema

import "github.com/mcpgen/mcpgen/model"

// This file is the override table: every place where the schemas and a
// single Go package disagree, resolved by a reviewed, declarative entry.
// Lowering and merging fail rather than guess when a disagreement has no
// entry here.

// renames maps definitions renamed between versions to their newest name.
// The old name survives as a deprecated alias.
var renames = map[string]string{
	"Annotated":         "Annotations",               // 2024-11-05
	"JSONRPCError":      "JSONRPCErrorResponse",      // ≤ 2025-06-18
	"ResourceReference": "ResourceTemplateReference", // ≤ 2025-03-26
}

// unwraps names renamed definitions whose new meaning is one of their old
// properties: 2024-11-05's Annotated is an object holding "annotations",
// and that inner object is what later versions call Annotations.
var unwraps = map[string]string{
	"Annotated": "annotations",
}

func renamed(name string) string {
	if n, ok := renames[name]; ok {
		return n
	}
	return name
}

// structUnion names a definition that is an object in older versions and a
// union in newer ones; the object is the variant named.
type structUnion struct {
	Union, Variant, Reason string
}

var structToUnion = []structUnion{
	{"EnumSchema", "LegacyTitledEnumSchema", "2025-06-18's enum schema (enum + enumNames) is the legacy titled variant of 2025-11-25"},
	{"ElicitRequestParams", "ElicitRequestFormParams", "2025-06-18's inline elicitation params are form params; URL mode arrives in 2025-11-25"},
	{"JSONRPCResponse", "JSONRPCResultResponse", "the response object of ≤ 2025-06-18 is the result response of 2025-11-25"},
	{"ClientNotification", "CancelledNotification", "2026-07-28 names its only client notification, cancellation, as an object"},
}

// widen lists properties whose shapes disagree between versions with
// neither containing the other; the property becomes raw JSON of the kind
// given, validated by kind only.
type widening struct {
	Type, Field string
	To          model.RawKind
	Reason      string
}

var widenings = []widening{
	{"ClientCapabilities", "experimental", model.AnyObject, "an object of objects up to 2025-11-25, a JSONObject (no numbers) in 2026-07-28"},
	{"ServerCapabilities", "experimental", model.AnyObject, "an object of objects up to 2025-11-25, a JSONObject (no numbers) in 2026-07-28"},
}

func widenFor(typ, field string) (widening, bool) {
	for _, w := range widenings {
		if w.Type == typ && w.Field == field {
			return w, true
		}
	}
	return widening{}, false
}

// resultOverrides pairs requests with results where the names do not
// (XRequest → XResult is the rule).
var resultOverrides = map[string]struct{ Result, Reason string }{
	"ping":                  {"EmptyResult", "ping answers with an empty result"},
	"logging/setLevel":      {"EmptyResult", "setting the level answers with an empty result"},
	"resources/subscribe":   {"EmptyResult", "subscribing answers with an empty result"},
	"resources/unsubscribe": {"EmptyResult", "unsubscribing answers with an empty result"},
	"tasks/result":          {"GetTaskPayloadResult", "the request is GetTaskPayloadRequest"},
}

// extensionDirections says which side sends each method of an extension
// whose schema lists its methods in no Client*/Server* union (see
// definedMethods): the schema's definitions carry no descriptions, so the
// extension's specification decides.
var extensionDirections = map[string]struct {
	Dir    model.Direction
	Reason string
}{
	"tasks/get":           {model.ClientToServer, "the client polls the status of a task the server created"},
	"tasks/update":        {model.ClientToServer, "the client answers the input requests of a task"},
	"tasks/cancel":        {model.ClientToServer, "the client asks the server to cancel a task"},
	"notifications/tasks": {model.ServerToClient, "the server pushes a task's status to a client that listens for it"},
}

var pickRules = []model.PickRule{
	{Prefer: "LegacyTitledEnumSchema", Over: "UntitledSingleSelectEnumSchema", Path: []string{"enumNames"},
		Reason: "both require type and enum; only the legacy form has enumNames"},
	{Prefer: "TitledMultiSelectEnumSchema", Over: "UntitledMultiSelectEnumSchema", Path: []string{"items", "anyOf"},
		Reason: "both require type and items; titled items list anyOf, untitled items list enum"},
	{Prefer: "ElicitRequestFormParams", Over: "ElicitRequestURLParams", Path: []string{"mode"}, Equals: `"form"`,
		Reason: "an absent mode means form elicitation; the const partition handles absence, this states it"},
}

func init() {
	pickRules = append(pickRules,
		model.PickRule{Prefer: "GetTaskResult", Over: "CancelTaskResult",
			Reason: "the two results have the same shape; only the method table, which knows the request, can tell them apart"},
		model.PickRule{Prefer: "Result", Over: "GetTaskPayloadResult",
			Reason: "a task payload result has the shape of a bare Result; the method table decodes tasks/result as what it is"},
		model.PickRule{Prefer: "JSONRPCBatchRequest", Over: "JSONRPCBatchResponse", Path: []string{"0", "method"},
			Reason: "2025-03-26 batches: requests and notifications carry a method, responses do not"},
	)
}

var discriminators = []model.Discriminator{
	{
		Key: "resultType",
		Tags: []model.Tag{
			{Value: "complete"},
			{Value: "input_required", Variant: "InputRequiredResult"},
		},
		// Servers of versions before 2026-07-28 send no resultType, which
		// the specification says to read as "complete".
		Absent: "complete",
		Reason: "2026-07-28 results say in resultType how to read them, but the schema types it as a plain string. " +
			"Required properties cannot stand in: InputRequiredResult requires only resultType and allows any other member, " +
			"so they would read a complete result that omits one of its own properties (a ReadResourceResult without ttlMs) " +
			"as an InputRequiredResult, or as nothing",
	},
}

// inlineAs names inline union variants that repeat a definition of the same
// version, keyed by union and variant index.
var inlineAs = map[string]struct{ Def, Reason string }{
	"JSONRPCMessage/2": {"JSONRPCBatchRequest", "2025-03-26 writes the batch request out inline; it is the definition of that name"},
	"JSONRPCMessage/5": {"JSONRPCBatchResponse", "2025-03-26 writes the batch response out inline; it is the definition of that name"},
}

// keeps lists properties that name different definitions in different
// versions where one of them accepts what the others describe; the
// property keeps that one.
type keep struct {
	Type, Field, Target string
	Reason              string
}

var keeps = []keep{
	{"ListRootsRequest", "params", "ListRootsRequestParams",
		"2025-11-25 uses the common RequestParams; the inline params of the other versions hold the same _meta"},
}

func keepFor(typ, field string) (keep, bool) {
	for _, k := range keeps {
		if k.Type == typ && k.Field == field {
			return k, true
		}
	}
	return keep{}, false
}
