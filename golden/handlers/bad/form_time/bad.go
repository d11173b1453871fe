package formtime

import "time"

// Meeting asks for a time.Time.
//
//mcp:form
type Meeting struct {
	At time.Time `json:"at"`
}
