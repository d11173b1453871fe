package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// TestSharedStateKey checks EVERYTHING_STATE_KEY: two replicas with the
// same key finish each other's input rounds; one with another key
// refuses the state; a malformed key is refused without being echoed.
func TestSharedStateKey(t *testing.T) {
	const key = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == stateKeyEnv {
				return v
			}
			return ""
		}
	}
	a, ca := connectModern(t)
	b, cb := connectModern(t)
	c, cc := connectModern(t)
	for _, e := range []*everything{a, b} {
		if err := setStateKey(e.srv, env(key)); err != nil {
			t.Fatal(err)
		}
	}
	// Rotation: c seals with a new key and still opens the old one.
	if err := setStateKey(c.srv, env(strings.Repeat("ab", 32)+","+key)); err != nil {
		t.Fatal(err)
	}
	const call = `"name":"test_input_required_result_elicitation","arguments":{}`
	answer := `,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}},"requestState":"`
	ir := ca.inputRequired("tools/call", allCaps, call)
	if got := cb.completeText(allCaps, call+answer+ir.RequestState+`"`); got != "Hello, Alice!" {
		t.Fatalf("round 2 on the other replica: %q", got)
	}
	if got := cc.completeText(allCaps, call+answer+ir.RequestState+`"`); got != "Hello, Alice!" {
		t.Fatalf("round 2 on a replica that rotated the key in: %q", got)
	}
	// A state c sealed with its new key does not open on a and b.
	ir = cc.inputRequired("tools/call", allCaps, call)
	_, err := ca.call("tools/call", allCaps, call+answer+ir.RequestState+`"`)
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "requestState") {
		t.Fatalf("a state sealed under another key: %v, want -32602 naming requestState", err)
	}

	for _, bad := range []string{"zz", key[:62], key + ",", "secret-value-" + key} {
		err := setStateKey(a.srv, env(bad))
		if err == nil {
			t.Errorf("%q was taken as a key", bad)
			continue
		}
		if strings.Contains(err.Error(), bad) {
			t.Errorf("the error echoes the secret: %v", err)
		}
	}
}
