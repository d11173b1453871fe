package authz

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// UnmarshalYAML decodes a rule of a configuration file, keeping the line
// its expression starts on. Keys other than name, allow and deny are
// errors, as they are elsewhere in the configuration.
func (r *Rule) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: an authz rule is a mapping of name and allow or deny", n.Line)
	}
	*r = Rule{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var dst *string
		switch k.Value {
		case "name":
			dst = &r.Name
		case "allow":
			dst = &r.Allow
		case "deny":
			dst = &r.Deny
		default:
			return fmt.Errorf("line %d: field %s not found in an authz rule (name, allow, deny)", k.Line, k.Value)
		}
		if v.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: %s must be a string", v.Line, k.Value)
		}
		*dst = v.Value
		if k.Value != "name" {
			r.Line = v.Line
			if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				r.Line++ // the expression starts below the | or >
			}
		}
	}
	return nil
}
