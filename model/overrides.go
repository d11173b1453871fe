package model

import "fmt"

// This file holds the kinds of override-table entry that the model's
// analysis interprets. The table itself, with the reason for every entry,
// belongs to the front end whose input the entries correct
// (parser/schema/overrides.go for the MCP schemas), which hands them to New.

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
