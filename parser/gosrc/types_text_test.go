package gosrc

import (
	"testing"

	"github.com/mcpgen/mcpgen/model"
)

// textSource declares fields of types with and without a text form, and
// structs whose shape the guard can and cannot write.
const textSource = `package texts

import (
	"context"
	"log/slog"
	"math/big"
	"net"
	"net/netip"
	"time"
)

// Level has a text form through a value and a pointer receiver.
type Level int

const (
	Low Level = iota
	High
)

func (l Level) MarshalText() ([]byte, error)   { return nil, nil }
func (l *Level) UnmarshalText(b []byte) error { return nil }

// Code is a struct with a text form: not lowered to its fields.
type Code struct{ n int }

func (c *Code) MarshalText() ([]byte, error)  { return nil, nil }
func (c *Code) UnmarshalText(b []byte) error { return nil }

// WrongSig has methods of the names but not the signatures.
type WrongSig string

func (w WrongSig) MarshalText() string { return "" }

type In struct {
	Addr   netip.Addr   ` + "`json:\"addr\"`" + `
	IP     net.IP       ` + "`json:\"ip\"`" + `
	Slog   slog.Level   ` + "`json:\"slog\"`" + `
	Big    *big.Int     ` + "`json:\"big,omitempty\"`" + `
	Level  Level        ` + "`json:\"level\"`" + `
	Levels []*Level     ` + "`json:\"levels\"`" + `
	Code   Code         ` + "`json:\"code\"`" + `
	Wrong  WrongSig     ` + "`json:\"wrong\"`" + `
	Time   time.Time    ` + "`json:\"time\"`" + `
	Dur    time.Duration ` + "`json:\"dur\"`" + `
	Inner  Inner        ` + "`json:\"inner\"`" + `
	Slog2  slog.Attr    ` + "`json:\"-\"`" + `
}

// Inner has a field the guard cannot write: it is left unguarded.
type Inner struct {
	N    int      ` + "`json:\"n\"`" + `
	Done chan int ` + "`json:\"-\"`" + `
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
`

func TestTextTypes(t *testing.T) {
	dir := writeModule(t, map[string]string{"go.mod": "module example.com/texts\n\ngo 1.24\n", "texts.go": textSource})
	h, err := Parse(dir)
	if err != nil {
		t.Fatal(err)
	}
	in := h.Tools[0].Input.Object
	kinds := map[string]*model.Value{}
	for _, p := range in.Fields {
		kinds[p.JSONName] = p.Value
	}
	for name, want := range map[string]model.ValueKind{
		"addr": model.ValText, "ip": model.ValText, "slog": model.ValText, "level": model.ValText,
		"code": model.ValText, "wrong": model.ValString, "time": model.ValTime, "dur": model.ValInt, "inner": model.ValStruct,
	} {
		if got := kinds[name].Kind; got != want {
			t.Errorf("%s: kind %d, want %d", name, got, want)
		}
	}
	if v := kinds["big"]; v.Kind != model.ValPointer || v.Elem.Kind != model.ValText || v.Elem.Go.Path != "math/big" {
		t.Errorf("big: %+v, want a pointer to a text type", v)
	}
	if v := kinds["levels"]; v.Kind != model.ValSlice || v.Elem.Elem.Kind != model.ValText || v.Elem.Elem.Enum != nil {
		t.Errorf("levels: %+v, want []*Level of a text type without an enum", v)
	}
	if kinds["wrong"].Go.Name != "WrongSig" {
		t.Errorf("wrong: %+v", kinds["wrong"])
	}

	// The guard's shape: every field as declared, json:"-" ones included.
	if len(in.Shape) != 12 || in.Shape[11].Name != "Slog2" || in.Shape[11].Tag != `json:"-"` || in.Shape[11].Type.Go.Path != "log/slog" {
		t.Errorf("In's shape: %d fields, last %+v", len(in.Shape), in.Shape[len(in.Shape)-1])
	}
	inner := kinds["inner"].Object
	if inner.Shape != nil {
		t.Errorf("Inner has a channel field, yet a shape: %+v", inner.Shape)
	}
}
