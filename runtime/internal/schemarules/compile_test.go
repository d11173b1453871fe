package schemarules

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	s, err := Compile("t", []byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(s, []byte(`{"n":2}`)); err != nil {
		t.Errorf("valid value: %v", err)
	}
	err = Validate(s, []byte(`{"n":0}`))
	if err == nil {
		t.Fatal("n=0 accepted")
	}
	if msg := err.Error(); !strings.Contains(msg, "/n") || strings.Contains(msg, "'") || strings.Contains(msg, "\n") {
		t.Errorf("error %q: want the first cause, at /n, on one line without quotes", msg)
	}
	if err := Validate(s, []byte(`{"n":`)); err == nil {
		t.Error("malformed JSON accepted")
	}
}

func TestCompileFetchesNothing(t *testing.T) {
	if _, err := Compile("t", []byte(`{"$ref":"https://example.com/s.json"}`)); err == nil {
		t.Error("a network $ref compiled")
	}
}
