package schemarules

import "encoding/json"

// AcceptsAnyObject reports whether schema, a tool's inputSchema or
// outputSchema, accepts every JSON object: besides "type": "object" and
// empty "properties" and "required" it holds only annotations, which
// constrain nothing. A tool with such a schema needs no schema validator,
// only a check that the value is an object, which the arguments of a
// tools/call always are.
func AcceptsAnyObject(schema []byte) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(schema, &obj) != nil || obj == nil {
		return false
	}
	for key, v := range obj {
		switch key {
		case "type":
			var s string
			if json.Unmarshal(v, &s) != nil || s != "object" {
				return false
			}
		case "properties":
			var props map[string]json.RawMessage
			if json.Unmarshal(v, &props) != nil || len(props) != 0 {
				return false
			}
		case "required":
			var names []string
			if json.Unmarshal(v, &names) != nil || len(names) != 0 {
				return false
			}
		case "$schema", "$id", "$comment", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly":
		default:
			return false
		}
	}
	return true
}
