package policy

import "path"

// Approval forces the approval of tools whose name matches a glob
// (path.Match): Require true asks for it, false never does.
type Approval struct {
	Tool    string `yaml:"tool"`
	Require bool   `yaml:"require"`
}

// Destructive decides whether a call of the tool name needs a human
// approval: the first entry of overrides whose glob matches decides;
// otherwise the upstream's annotations do, as MCP defines their defaults:
// destructiveHint (true when absent) unless readOnlyHint is true.
func Destructive(name string, annotations map[string]any, overrides []Approval) bool {
	for _, o := range overrides {
		if ok, _ := path.Match(o.Tool, name); ok {
			return o.Require
		}
	}
	if ro, _ := annotations["readOnlyHint"].(bool); ro {
		return false
	}
	if d, ok := annotations["destructiveHint"].(bool); ok {
		return d
	}
	return true
}
