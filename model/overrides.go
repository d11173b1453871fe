package model

import "fmt"

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
	To          RawKind
	Reason      string
}

var widenings = []widening{
	{"ClientCapabilities", "experimental", AnyObject, "an object of objects up to 2025-11-25, a JSONObject (no numbers) in 2026-07-28"},
	{"ServerCapabilities", "experimental", AnyObject, "an object of objects up to 2025-11-25, a JSONObject (no numbers) in 2026-07-28"},
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

// Overrides are the entries of a front end's override table that the
// model's own analysis reads, when New gives every union its Pick.
type Overrides struct {
	// PickRules choose between variants that nothing else tells apart.
	PickRules []PickRule
	// Discriminators declare discriminating properties that the schema
	// types as plain strings.
	Discriminators []Discriminator
}

// PickRule resolves a tie between union variants that the generic rules
// (const discriminator, JSON kind, required properties, declared keys)
// cannot separate.
type PickRule struct {
	// Prefer is chosen over Over (empty: over any variant) when the
	// instance's value at Path equals Equals (JSON), or, with Equals empty,
	// when Path is present.
	Prefer, Over string
	Path         []string
	Equals       string
	Reason       string
}

var pickRules = []PickRule{
	{Prefer: "LegacyTitledEnumSchema", Over: "UntitledSingleSelectEnumSchema", Path: []string{"enumNames"},
		Reason: "both require type and enum; only the legacy form has enumNames"},
	{Prefer: "TitledMultiSelectEnumSchema", Over: "UntitledMultiSelectEnumSchema", Path: []string{"items", "anyOf"},
		Reason: "both require type and items; titled items list anyOf, untitled items list enum"},
	{Prefer: "ElicitRequestFormParams", Over: "ElicitRequestURLParams", Path: []string{"mode"}, Equals: `"form"`,
		Reason: "an absent mode means form elicitation; the const partition handles absence, this states it"},
}

func init() {
	pickRules = append(pickRules,
		PickRule{Prefer: "GetTaskResult", Over: "CancelTaskResult",
			Reason: "the two results have the same shape; only the method table, which knows the request, can tell them apart"},
		PickRule{Prefer: "Result", Over: "GetTaskPayloadResult",
			Reason: "a task payload result has the shape of a bare Result; the method table decodes tasks/result as what it is"},
		PickRule{Prefer: "JSONRPCBatchRequest", Over: "JSONRPCBatchResponse", Path: []string{"0", "method"},
			Reason: "2025-03-26 batches: requests and notifications carry a method, responses do not"},
	)
}

// Discriminator declares the property whose string value chooses among the
// variants of a union where the schema types it as a plain string, so that
// the merge, which infers discriminators from const and enum properties,
// cannot see it. Decoding reads the value and decodes the variant it names
// without checking that variant's required properties (Validate does);
// a value the table does not list is an error that names it.
type Discriminator struct {
	// Key is the property. Every object variant of a union the entry
	// applies to declares it, as a string, in the versions it shares with
	// the variants the tags name.
	Key string
	// Tags are the values of Key and what they select. The entry applies
	// to every union that has a variant some tag names.
	Tags []Tag
	// Absent is the value that an instance without Key stands for.
	Absent string
	Reason string
}

// Tag is one value of a discriminator.
type Tag struct {
	// Value is the property's value, unquoted.
	Value string
	// Variant is the variant the value selects. Empty, it selects the
	// union's other variants: those no tag names (the method's result),
	// told apart by their properties when there are several. A tag naming
	// a variant that a union lacks is left out of that union, where its
	// value is then unknown; an extension's value (such as "task") is added
	// as one more tag naming its result type.
	Variant string
}

var discriminators = []Discriminator{
	{
		Key: "resultType",
		Tags: []Tag{
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

// checkDiscriminators rejects a malformed discriminator table: a value
// given twice, or an Absent that no tag has.
func checkDiscriminators(discriminators []Discriminator) error {
	for _, d := range discriminators {
		seen := map[string]bool{}
		for _, tag := range d.Tags {
			if seen[tag.Value] {
				return fmt.Errorf("override table: discriminator %s lists %q twice", d.Key, tag.Value)
			}
			seen[tag.Value] = true
		}
		if d.Absent != "" && !seen[d.Absent] {
			return fmt.Errorf("override table: discriminator %s reads an absent %s as %q, which no tag has", d.Key, d.Key, d.Absent)
		}
	}
	return nil
}

// discriminatorFor returns the entry that applies to a union with the
// named variants, if any.
func discriminatorFor(discriminators []Discriminator, variants map[string]bool) (*Discriminator, bool) {
	for i := range discriminators {
		d := &discriminators[i]
		for _, tag := range d.Tags {
			if tag.Variant != "" && variants[tag.Variant] {
				return d, true
			}
		}
	}
	return nil, false
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
