package validator

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	validate, err := Compile("t", []byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := validate([]byte(`{"n":2}`)); err != nil {
		t.Errorf("valid value: %v", err)
	}
	err = validate([]byte(`{"n":0}`))
	if err == nil {
		t.Fatal("n=0 accepted")
	}
	if msg := err.Error(); !strings.Contains(msg, "/n") || strings.Contains(msg, "'") || strings.Contains(msg, "\n") {
		t.Errorf("error %q: want the first cause, at /n, on one line without quotes", msg)
	}
	if err := validate([]byte(`{"n":`)); err == nil {
		t.Error("malformed JSON accepted")
	}
}

func TestCompileFetchesNothing(t *testing.T) {
	if _, err := Compile("t", []byte(`{"$ref":"https://example.com/s.json"}`)); err == nil {
		t.Error("a network $ref compiled")
	}
}

func TestCompileChecksRules(t *testing.T) {
	_, err := Compile("t", []byte(`{"$schema":"http://json-schema.org/draft-04/schema#"}`))
	if err == nil || !strings.Contains(err.Error(), "$schema") {
		t.Errorf("draft-04 schema: %v, want the dialect refused", err)
	}
}
