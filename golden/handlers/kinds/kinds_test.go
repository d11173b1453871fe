package kinds

import (
	"encoding/json"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

// full is a Kinds with every field set, pointers included, and values
// that every encoder writes the same way (floats exact in float32).
func full() Kinds {
	at := time.Date(2026, 12, 3, 8, 15, 0, 123_000_000, time.UTC)
	addr := netip.MustParseAddr("2001:db8::1")
	all := All{
		Bool: true, Int: -7, Int8: -128, Uint16: 65535, Float: 1.5, String: "s\u00e9\"",
		Color: Blue, Size: Large, Bytes: []byte("hi"), Blob: Blob{0, 1, 255}, Time: at,
		Dur: 90 * time.Second, Addr: addr, Level: Info, Raw: json.RawMessage(`{"k":[1,null]}`),
		Any: map[string]any{"a": []any{1.0, "b"}}, Point: Point{X: 1, Y: -2},
		Slice: []string{"a", "b"}, Array: [2]int{3, 4}, Map: map[string]int{"z": 1, "a": 2},
		Colors: map[Color]float64{Red: 0.5},
	}
	raw := json.RawMessage(`"kept"`)
	var anything any = "x"
	return Kinds{
		All: all,
		Ptrs: Ptrs{
			Bool: ptr(false), Int: ptr(1), Int8: ptr(int8(2)), Uint16: ptr(uint16(3)), Float: ptr(float32(0.25)),
			String: ptr("p"), Color: ptr(Red), Size: ptr(Small), Bytes: ptr([]byte{9}), Blob: ptr(Blob("b")),
			Time: &at, Dur: ptr(time.Millisecond), Addr: &addr, Level: ptr(Debug), Raw: &raw, Any: &anything,
			Point: &Point{X: 5}, Slice: &[]string{"q"}, Array: &[2]int{1, 2}, Map: &map[string]int{"m": 1},
			Colors: &map[Color]*float64{Blue: ptr(2.0)},
		},
		Nested: Nested{
			Times:  []*time.Time{&at},
			Addrs:  []netip.Addr{addr, netip.MustParseAddr("10.0.0.1")},
			Levels: map[string]*Level{"x": ptr(Info)},
			Points: []*Point{{X: 1, Y: 1}},
			Grid:   [2]*[]*Point{{{X: 2}}, {}},
			ByDay:  map[string][]*Size{"mon": {ptr(Small), ptr(Large)}},
			Deep:   &[]map[string]*Color{{"c": ptr(Red)}},
			Inner:  &Ptrs{Time: &at, Addr: &addr},
			Opt:    "o",
			When:   at,
			Blobs:  map[string]*Blob{"b": ptr(Blob("z"))},
			Bytes:  [][]byte{[]byte("a"), {}},
		},
	}
}

// TestRoundTrip writes a value of every kind with the generated encoder,
// checks that encoding/json reads the same JSON from it as it writes
// itself, and reads it back with the generated decoder unchanged.
func TestRoundTrip(t *testing.T) {
	in := full()
	data, err := mcpgenEncodeOutputEcho(&in)
	if err != nil {
		t.Fatal(err)
	}
	std, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("the encoder wrote invalid JSON: %v\n%s", err, data)
	}
	if err := json.Unmarshal(std, &want); err != nil {
		t.Fatal(err)
	}
	dropNulls(want) // the generated encoder leaves nil pointers out
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the generated encoder and encoding/json disagree:\ngenerated: %s\njson:      %s", data, std)
	}
	for _, src := range [][]byte{data, std} {
		var out Kinds
		if err := mcpgenDecodeInputEcho(src, &out); err != nil {
			t.Fatalf("decode %s: %v", src, err)
		}
		if !reflect.DeepEqual(out, in) {
			t.Errorf("round trip changed the value:\n in: %+v\nout: %+v", in, out)
		}
		if err := mcpgenCheckOutputEcho(src); err != nil {
			t.Errorf("output check: %v", err)
		}
	}
}

// dropNulls deletes the null members of every object in v.
func dropNulls(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e == nil {
				delete(v, k)
			} else {
				dropNulls(e)
			}
		}
	case []any:
		for _, e := range v {
			dropNulls(e)
		}
	}
}

// edit returns the JSON of full() with f applied to it as a map.
func edit(t *testing.T, f func(m map[string]any)) []byte {
	t.Helper()
	in := full()
	data, err := mcpgenEncodeOutputEcho(&in)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func obj(m map[string]any, key string) map[string]any { return m[key].(map[string]any) }

// TestNullIsAbsent: every optional field takes null as left out, pointers
// to every kind included; any and raw JSON by value keep null as a value.
func TestNullIsAbsent(t *testing.T) {
	data := edit(t, func(m map[string]any) {
		for k := range obj(m, "ptrs") {
			obj(m, "ptrs")[k] = nil
		}
		n := obj(m, "nested")
		n["inner"], n["opt"], n["when"], n["blobs"], n["bytes"] = nil, nil, nil, nil, nil
	})
	var out Kinds
	if err := mcpgenDecodeInputEcho(data, &out); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	if !reflect.DeepEqual(out.Ptrs, Ptrs{}) {
		t.Errorf("ptrs = %+v, want all nil", out.Ptrs)
	}
	// A null for any JSON by value is that JSON, as in encoding/json.
	data = edit(t, func(m map[string]any) { obj(m, "all")["raw"], obj(m, "all")["any"] = nil, nil })
	var values Kinds
	if err := mcpgenDecodeInputEcho(data, &values); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	if string(values.All.Raw) != "null" || values.All.Any != nil {
		t.Errorf("all.raw = %s, all.any = %v; want null and nil", values.All.Raw, values.All.Any)
	}
	n := out.Nested
	if n.Inner != nil || n.Opt != "" || !n.When.IsZero() || n.Blobs != nil || n.Bytes != nil {
		t.Errorf("nested optional fields = %+v, want zero", n)
	}
}

// TestDecodeErrors: a required field refuses null, and a text type's
// parser error becomes the field's error on its path.
func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"required null", func(m map[string]any) { obj(m, "all")["time"] = nil }, "all.time: expected string, got null"},
		{"required object null", func(m map[string]any) { m["nested"] = nil }, "nested: expected object, got null"},
		{"bad address", func(m map[string]any) { obj(m, "all")["addr"] = "10.0.0.256" }, `all.addr: ParseAddr("10.0.0.256"): IPv4 field has value >255`},
		{"bad level", func(m map[string]any) { obj(m, "ptrs")["level"] = "loud" }, "ptrs.level: unknown level: want debug or info"},
		{"level in a map", func(m map[string]any) { obj(m, "nested")["levels"] = map[string]any{"k": "x"} }, "nested.levels.k: unknown level"},
		{"address in a list", func(m map[string]any) { obj(m, "nested")["addrs"] = []any{"::1", 5} }, "nested.addrs[1]: expected string, got number"},
		{"bad time behind a pointer", func(m map[string]any) { obj(m, "ptrs")["time"] = "noon" }, "ptrs.time: not a valid date-time"},
		{"enum behind a pointer", func(m map[string]any) { obj(m, "ptrs")["color"] = "green" }, `ptrs.color: must be one of ["red","blue"], got "green"`},
		{"null in a list of pointers", func(m map[string]any) { obj(m, "nested")["times"] = []any{nil} }, "nested.times[0]: expected string, got null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out Kinds
			err := mcpgenDecodeInputEcho(edit(t, tc.edit), &out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestEncodeErrors: a text type's MarshalText error, and a nil pointer
// inside a list, fail the encoding on their path.
func TestEncodeErrors(t *testing.T) {
	in := full()
	in.Nested.Levels["x"] = ptr(Level(7))
	if _, err := mcpgenEncodeOutputEcho(&in); err == nil || !strings.Contains(err.Error(), "nested.levels.x: unknown level") {
		t.Errorf("err = %v, want nested.levels.x: unknown level", err)
	}
	in = full()
	in.Nested.Times = []*time.Time{nil}
	if _, err := mcpgenEncodeOutputEcho(&in); err == nil || !strings.Contains(err.Error(), "nested.times[0]: is nil") {
		t.Errorf("err = %v, want nested.times[0]: is nil", err)
	}
}

// TestSchemas: text types are strings, durations integers, pointers no
// nullable types.
func TestSchemas(t *testing.T) {
	var s struct {
		Properties map[string]struct {
			Properties map[string]map[string]any
		}
	}
	if err := json.Unmarshal([]byte(mcpgenInputSchemaEcho), &s); err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"all", "ptrs"} {
		p := s.Properties[part].Properties
		for field, want := range map[string]string{"addr": "string", "level": "string", "dur": "integer", "time": "string", "blob": "string"} {
			if got := p[field]["type"]; got != want {
				t.Errorf("%s.%s type = %v, want %s", part, field, got, want)
			}
		}
		if _, ok := p["level"]["enum"]; ok {
			t.Errorf("%s.level has an enum of its integer constants: %v", part, p["level"])
		}
	}
	if !strings.Contains(mcpgenInputSchemaEcho, `"format": "date-time"`) || strings.Contains(mcpgenInputSchemaEcho, "null") {
		t.Errorf("input schema:\n%s", mcpgenInputSchemaEcho)
	}
}
