package formintenum

// Level is an integer enum.
type Level int

const (
	Low  Level = 1
	High Level = 2
)

// Pick asks for an integer enum.
//
//mcp:form
type Pick struct {
	Level Level `json:"level"`
}
