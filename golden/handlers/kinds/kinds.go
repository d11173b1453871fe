// Package kinds is a compiled golden case: every kind the type mapping
// knows, by value and through pointers, nested in slices, maps and
// structs, as one tool's input and output, so that the generated decoder
// and encoder of each are built and a value is round-tripped through them
// (kinds_test.go). Its mcpgen_gen.go is committed and kept up to date by
// go test ./gen (TestHandlersLive).
package kinds

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen

import (
	"context"
	"encoding/json"
	"net/netip"
	"strings"
	"time"
)

// Color is an enum of strings.
type Color string

// The colors.
const (
	Red  Color = "red"
	Blue Color = "blue"
)

// Size is an enum of integers.
type Size int

// The sizes.
const (
	Small Size = 1
	Large Size = 3
)

// Blob is a named []byte: a base64 string.
type Blob []byte

// Level marshals itself as text: a string in JSON, read with UnmarshalText.
type Level int

// The levels.
const (
	Debug Level = iota
	Info
)

// MarshalText writes the level's name.
func (l Level) MarshalText() ([]byte, error) {
	switch l {
	case Debug:
		return []byte("debug"), nil
	case Info:
		return []byte("info"), nil
	}
	return nil, errUnknownLevel
}

// UnmarshalText reads a level's name.
func (l *Level) UnmarshalText(b []byte) error {
	switch strings.ToLower(string(b)) {
	case "debug":
		*l = Debug
	case "info":
		*l = Info
	default:
		return errUnknownLevel
	}
	return nil
}

var errUnknownLevel = levelError("unknown level: want debug or info")

type levelError string

func (e levelError) Error() string { return string(e) }

// Point is a nested struct.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// All holds every kind by value.
type All struct {
	Bool   bool              `json:"bool"`
	Int    int               `json:"int"`
	Int8   int8              `json:"int8"`
	Uint16 uint16            `json:"uint16"`
	Float  float32           `json:"float"`
	String string            `json:"string"`
	Color  Color             `json:"color"`
	Size   Size              `json:"size"`
	Bytes  []byte            `json:"bytes"`
	Blob   Blob              `json:"blob"`
	Time   time.Time         `json:"time"`
	Dur    time.Duration     `json:"dur"`
	Addr   netip.Addr        `json:"addr"`
	Level  Level             `json:"level"`
	Raw    json.RawMessage   `json:"raw"`
	Any    any               `json:"any"`
	Point  Point             `json:"point"`
	Slice  []string          `json:"slice"`
	Array  [2]int            `json:"array"`
	Map    map[string]int    `json:"map"`
	Colors map[Color]float64 `json:"colors"`
}

// Ptrs holds a pointer to every kind: each is optional.
type Ptrs struct {
	Bool   *bool               `json:"bool"`
	Int    *int                `json:"int"`
	Int8   *int8               `json:"int8"`
	Uint16 *uint16             `json:"uint16"`
	Float  *float32            `json:"float"`
	String *string             `json:"string"`
	Color  *Color              `json:"color"`
	Size   *Size               `json:"size"`
	Bytes  *[]byte             `json:"bytes"`
	Blob   *Blob               `json:"blob"`
	Time   *time.Time          `json:"time"`
	Dur    *time.Duration      `json:"dur"`
	Addr   *netip.Addr         `json:"addr"`
	Level  *Level              `json:"level"`
	Raw    *json.RawMessage    `json:"raw"`
	Any    *any                `json:"any"`
	Point  *Point              `json:"point"`
	Slice  *[]string           `json:"slice"`
	Array  *[2]int             `json:"array"`
	Map    *map[string]int     `json:"map"`
	Colors *map[Color]*float64 `json:"colors"`
}

// Nested holds pointers inside containers and containers inside pointers.
type Nested struct {
	Times  []*time.Time         `json:"times"`
	Addrs  []netip.Addr         `json:"addrs"`
	Levels map[string]*Level    `json:"levels"`
	Points []*Point             `json:"points"`
	Grid   [2]*[]*Point         `json:"grid"`
	ByDay  map[string][]*Size   `json:"byDay"`
	Deep   *[]map[string]*Color `json:"deep"`
	Inner  *Ptrs                `json:"inner,omitempty"`
	Opt    string               `json:"opt,omitempty"`
	When   time.Time            `json:"when,omitzero"`
	Blobs  map[string]*Blob     `json:"blobs,omitempty"`
	Bytes  [][]byte             `json:"bytes,omitempty"`
}

// Kinds is the input and output of echo.
type Kinds struct {
	All    All    `json:"all"`
	Ptrs   Ptrs   `json:"ptrs"`
	Nested Nested `json:"nested"`
}

// Echo returns its input.
//
//mcp:tool
func Echo(ctx context.Context, in Kinds) (Kinds, error) { return in, nil }
