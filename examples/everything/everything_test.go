package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image/png"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// recorder keeps what the server sent the client besides responses, and
// answers the server's requests the way the conformance suite does.
type recorder struct {
	mu       sync.Mutex
	logs     []*mcp.LoggingMessageNotificationParams
	progress []*mcp.ProgressNotificationParams
	updated  []string
	sampled  []*mcp.CreateMessageRequestParams
	elicited []*mcp.ElicitRequestFormParams
	// answer is the content the Elicit handler accepts with.
	answer map[string]mcp.ElicitResultContentValue
}

// options are those of a client of the legacy era: these tests hold the
// 2025-11-25 contract (modern_test.go holds the 2026-07-28 one).
func (r *recorder) options() *client.Options {
	return &client.Options{
		Era: mcp.EraLegacy,
		OnLog: func(p *mcp.LoggingMessageNotificationParams) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.logs = append(r.logs, p)
		},
		OnProgress: func(p *mcp.ProgressNotificationParams) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.progress = append(r.progress, p)
		},
		OnResourceUpdated: func(uri string) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.updated = append(r.updated, uri)
		},
		CreateMessage: func(_ context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.sampled = append(r.sampled, p)
			return &mcp.CreateMessageResult{
				Role:       mcp.RoleAssistant,
				Content:    mcp.CreateMessageResultContent{Value: &mcp.TextContent{Text: "This is a test response from the client"}},
				Model:      "test-model",
				StopReason: "endTurn",
			}, nil
		},
		Elicit: func(_ context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			form, ok := p.Value.(*mcp.ElicitRequestFormParams)
			if !ok {
				return nil, errors.New("not a form")
			}
			r.mu.Lock()
			defer r.mu.Unlock()
			r.elicited = append(r.elicited, form)
			return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept, Content: r.answer}, nil
		},
	}
}

// connect serves a fresh everything server over an in-memory pipe and
// returns a client session to it, which declares sampling and elicitation.
func connect(t *testing.T, rec *recorder) (*everything, *client.Session) {
	t.Helper()
	a, b := transport.NewPipe()
	return connectOver(t, rec, a, b)
}

// connectOverStreams is connect with the newline-delimited framing of
// -stdio, which refuses to send a message holding a raw newline.
func connectOverStreams(t *testing.T, rec *recorder) (*everything, *client.Session) {
	t.Helper()
	a, b := streamPair()
	return connectOver(t, rec, a, b)
}

// streamPair is a server and a client transport joined by the
// newline-delimited framing of -stdio.
func streamPair() (server, client jsonrpc.Transport) {
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	return transport.NewStream(serverIn, serverOut, transport.StreamOptions{}),
		transport.NewStream(clientIn, clientOut, transport.StreamOptions{})
}

// connectOver serves a fresh everything server on a and connects a client
// on b.
func connectOver(t *testing.T, rec *recorder, a, b jsonrpc.Transport) (*everything, *client.Session) {
	t.Helper()
	return connectClient(t, client.New(mcp.Implementation{Name: "everything-test", Version: "1.0.0"}, rec.options()), a, b)
}

// connectClient serves a fresh everything server on a and connects c on b.
func connectClient(t *testing.T, c *client.Client, a, b jsonrpc.Transport) (*everything, *client.Session) {
	t.Helper()
	e, err := newEverything(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.srv.Serve(ctx, a) }()
	sess, err := c.Connect(ctx, b)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sess.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		e.srv.Close(context.Background())
	})
	return e, sess
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func call(t *testing.T, sess *client.Session, name, args string) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolRequestParams{Name: name}
	if args != "" {
		p.Arguments = json.RawMessage(args)
	}
	r, err := sess.CallTool(testContext(t), p)
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return r
}

// onlyText returns the text of a result that must be one text block.
func onlyText(t *testing.T, content []mcp.ContentBlock) string {
	t.Helper()
	if len(content) != 1 {
		t.Fatalf("got %d content blocks, want 1", len(content))
	}
	tc, ok := content[0].Value.(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", content[0].Value)
	}
	return tc.Text
}

func checkPNG(t *testing.T, data string) {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatalf("image data: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("image data is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1 || b.Dy() != 1 {
		t.Errorf("image is %v, want 1x1", b)
	}
}

func TestToolsList(t *testing.T) {
	_, sess := connect(t, &recorder{})
	r, err := sess.ListTools(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range r.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" {
			t.Errorf("tool %s has no description", tool.Name)
		}
	}
	want := []string{
		"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
		"test_multiple_content_types", "test_tool_with_logging", "test_error_handling",
		"test_tool_with_progress", "test_sampling", "test_elicitation",
		"test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
		"json_schema_2020_12_tool", "test_custom_header", "test_reconnection",
		// The 2026-07-28 fixtures, after the others: the suite calls
		// tools[0] with no arguments and needs it to succeed.
		"test_input_required_result_elicitation", "test_input_required_result_sampling",
		"test_input_required_result_list_roots", "test_input_required_result_request_state",
		"test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
		"test_input_required_result_tampered_state", "test_input_required_result_capabilities",
		"test_missing_capability", "test_streaming_elicitation", "test_logging_tool",
		// The tasks fixtures (tools_tasks.go).
		"greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete",
		"multi_input", "test_tool_with_task",
		// The methods of everything (tools_changes.go), which
		// RegisterEverything adds after Register's functions.
		"test_trigger_tool_change", "test_trigger_prompt_change",
	}
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v\nwant %v", names, want)
	}
}

func TestSimpleText(t *testing.T) {
	_, sess := connect(t, &recorder{})
	r := call(t, sess, "test_simple_text", "")
	if got := onlyText(t, r.Content); got != simpleText || r.IsError {
		t.Errorf("got %q (isError %v), want %q", got, r.IsError, simpleText)
	}
}

func TestImageContent(t *testing.T) {
	_, sess := connect(t, &recorder{})
	r := call(t, sess, "test_image_content", "{}")
	if len(r.Content) != 1 {
		t.Fatalf("got %d blocks", len(r.Content))
	}
	img, ok := r.Content[0].Value.(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" {
		t.Fatalf("got %#v, want an image/png block", r.Content[0].Value)
	}
	checkPNG(t, img.Data)
}

func TestAudioContent(t *testing.T) {
	_, sess := connect(t, &recorder{})
	r := call(t, sess, "test_audio_content", "{}")
	if len(r.Content) != 1 {
		t.Fatalf("got %d blocks", len(r.Content))
	}
	audio, ok := r.Content[0].Value.(*mcp.AudioContent)
	if !ok || audio.MIMEType != "audio/wav" {
		t.Fatalf("got %#v, want an audio/wav block", r.Content[0].Value)
	}
	raw, err := base64.StdEncoding.DecodeString(audio.Data)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) < 44 || string(raw[:4]) != "RIFF" || string(raw[8:12]) != "WAVE" || string(raw[36:40]) != "data" {
		t.Errorf("audio is not a RIFF/WAVE file: % x", raw[:min(len(raw), 44)])
	}
}

// textResource returns the text resource a block embeds.
func textResource(t *testing.T, b mcp.ContentBlock) *mcp.TextResourceContents {
	t.Helper()
	er, ok := b.Value.(*mcp.EmbeddedResource)
	if !ok {
		t.Fatalf("block is %T, want an embedded resource", b.Value)
	}
	tr, ok := er.Resource.Value.(*mcp.TextResourceContents)
	if !ok {
		t.Fatalf("embedded resource is %T, want text", er.Resource.Value)
	}
	return tr
}

func TestEmbeddedResource(t *testing.T) {
	_, sess := connect(t, &recorder{})
	r := call(t, sess, "test_embedded_resource", "{}")
	if len(r.Content) != 1 {
		t.Fatalf("got %d blocks", len(r.Content))
	}
	res := textResource(t, r.Content[0])
	if res.URI != embeddedResourceURI || res.MIMEType != "text/plain" || res.Text != embeddedText {
		t.Errorf("got %+v", res)
	}
}

func TestMultipleContentTypes(t *testing.T) {
	_, sess := connect(t, &recorder{})
	r := call(t, sess, "test_multiple_content_types", "{}")
	if len(r.Content) != 3 {
		t.Fatalf("got %d blocks, want 3", len(r.Content))
	}
	if tc, ok := r.Content[0].Value.(*mcp.TextContent); !ok || tc.Text != mixedText {
		t.Errorf("block 0 = %#v", r.Content[0].Value)
	}
	img, ok := r.Content[1].Value.(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" {
		t.Fatalf("block 1 = %#v", r.Content[1].Value)
	}
	checkPNG(t, img.Data)
	res := textResource(t, r.Content[2])
	if res.URI != mixedResourceURI || res.MIMEType != "application/json" || res.Text != mixedResourceJSON {
		t.Errorf("block 2 = %+v", res)
	}
}

func TestToolWithLogging(t *testing.T) {
	rec := &recorder{}
	_, sess := connect(t, rec)
	if _, err := sess.SetLevel(testContext(t), &mcp.SetLevelRequestParams{Level: mcp.LoggingLevelDebug}); err != nil {
		t.Fatal(err)
	}
	r := call(t, sess, "test_tool_with_logging", "{}")
	if r.IsError || len(r.Content) == 0 {
		t.Fatalf("result %+v", r)
	}
	waitFor(t, rec, func(r *recorder) int { return len(r.logs) }, len(logSteps))
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i, l := range rec.logs {
		var msg string
		if err := json.Unmarshal(l.Data, &msg); err != nil || msg != logSteps[i] || l.Level != mcp.LoggingLevelInfo {
			t.Errorf("log %d = %s %s, want info %q", i, l.Level, l.Data, logSteps[i])
		}
	}
}

// TestLoggingLevelFilters: above info, the tool's messages are not sent.
func TestLoggingLevelFilters(t *testing.T) {
	rec := &recorder{}
	_, sess := connect(t, rec)
	if _, err := sess.SetLevel(testContext(t), &mcp.SetLevelRequestParams{Level: mcp.LoggingLevelWarning}); err != nil {
		t.Fatal(err)
	}
	call(t, sess, "test_tool_with_logging", "{}")
	// A ping is answered after the notifications sent before it.
	if _, err := sess.Ping(testContext(t), nil); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.logs) != 0 {
		t.Errorf("got %d log messages at level warning", len(rec.logs))
	}
}

// waitFor waits until count(rec) reaches n: notifications reach the
// callbacks on their own goroutine, possibly after the response.
func waitFor(t *testing.T, rec *recorder, count func(*recorder) int, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		rec.mu.Lock()
		got := count(rec)
		rec.mu.Unlock()
		if got >= n {
			if got > n {
				t.Errorf("got %d, want %d", got, n)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("got %d, want %d", got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestErrorHandling(t *testing.T) {
	_, sess := connect(t, &recorder{})
	r := call(t, sess, "test_error_handling", "{}")
	if !r.IsError {
		t.Error("isError is false")
	}
	if got := onlyText(t, r.Content); got != errorText {
		t.Errorf("text %q, want %q", got, errorText)
	}
}

func TestToolWithProgress(t *testing.T) {
	rec := &recorder{}
	_, sess := connect(t, rec)
	token := mcp.ProgressTokenFromString("progress-test-1")
	r, err := sess.CallTool(testContext(t), &mcp.CallToolRequestParams{
		Name: "test_tool_with_progress",
		Meta: &mcp.RequestMetaObject{ProgressToken: token},
	})
	if err != nil || r.IsError {
		t.Fatalf("tools/call: %v %+v", err, r)
	}
	waitFor(t, rec, func(r *recorder) int { return len(r.progress) }, len(progressSteps))
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i, p := range rec.progress {
		if p.ProgressToken != token || p.Progress != progressSteps[i] || p.Total != 100 {
			t.Errorf("progress %d = %v %v/%v, want %v %v/100", i, p.ProgressToken, p.Progress, p.Total, token, progressSteps[i])
		}
	}
}

// TestToolWithProgressNoToken: without a token the tool still answers,
// and reports nothing. The mcpgen client gives every request a token when
// it has OnProgress, so this speaks raw JSON-RPC.
func TestToolWithProgressNoToken(t *testing.T) {
	_, c := connectModern(t)
	if got := c.completeText(`{}`, `"name":"test_tool_with_progress","arguments":{}`); got == "" {
		t.Fatal("no answer")
	}
	// The Conn reads notifications before the response that follows them,
	// so any the call caused are queued by now.
	select {
	case n := <-c.notes:
		t.Errorf("got %s %s without a token", n.Method, n.Params)
	default:
	}
}

func TestSampling(t *testing.T) {
	rec := &recorder{}
	_, sess := connect(t, rec)
	r := call(t, sess, "test_sampling", `{"prompt":"Test prompt for sampling"}`)
	if got, want := onlyText(t, r.Content), "LLM response: This is a test response from the client"; got != want || r.IsError {
		t.Errorf("got %q (isError %v), want %q", got, r.IsError, want)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.sampled) != 1 {
		t.Fatalf("%d sampling requests", len(rec.sampled))
	}
	p := rec.sampled[0]
	if p.MaxTokens != 100 || len(p.Messages) != 1 || p.Messages[0].Role != mcp.RoleUser {
		t.Fatalf("sampling request %+v", p)
	}
	if tc, ok := p.Messages[0].Content.Value.(*mcp.TextContent); !ok || tc.Text != "Test prompt for sampling" {
		t.Errorf("sampling message %#v", p.Messages[0].Content.Value)
	}
}

func TestSamplingNeedsArgument(t *testing.T) {
	_, sess := connect(t, &recorder{})
	if r := call(t, sess, "test_sampling", "{}"); !r.IsError {
		t.Errorf("no prompt: want isError, got %+v", r)
	}
}

// TestWithoutClientCapabilities: a client that cannot sample or elicit
// gets isError results, not a hang or a protocol error.
func TestWithoutClientCapabilities(t *testing.T) {
	e, err := newEverything(nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := transport.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- e.srv.Serve(ctx, a) }()
	sess, err := client.New(mcp.Implementation{Name: "bare", Version: "1"}, &client.Options{Era: mcp.EraLegacy}).Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, args string }{
		{"test_sampling", `{"prompt":"p"}`},
		{"test_elicitation", `{"message":"m"}`},
		{"test_elicitation_sep1034_defaults", `{}`},
		{"test_elicitation_sep1330_enums", `{}`},
	} {
		if r := call(t, sess, c.tool, c.args); !r.IsError {
			t.Errorf("%s: want isError, got %+v", c.tool, r)
		}
	}
	sess.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// schemaJSON encodes the requested schema of an elicitation as generic
// JSON, the way the suite inspects it.
func schemaJSON(t *testing.T, form *mcp.ElicitRequestFormParams) map[string]any {
	t.Helper()
	b, err := form.RequestedSchema.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["type"] != "object" {
		t.Errorf("requestedSchema.type = %v", m["type"])
	}
	props, _ := m["properties"].(map[string]any)
	return props
}

func jsonEqual(t *testing.T, got any, want string) bool {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(w)
	return bytes.Equal(gb, wb)
}

func TestElicitation(t *testing.T) {
	rec := &recorder{answer: map[string]mcp.ElicitResultContentValue{
		"username": {Value: mcp.ElicitResultContentValueString("testuser")},
		"email":    {Value: mcp.ElicitResultContentValueString("test@example.com")},
	}}
	_, sess := connect(t, rec)
	r := call(t, sess, "test_elicitation", `{"message":"Please provide your information"}`)
	want := `User response: action=accept, content={"email":"test@example.com","username":"testuser"}`
	if got := onlyText(t, r.Content); got != want || r.IsError {
		t.Errorf("got %q (isError %v)\nwant %q", got, r.IsError, want)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.elicited) != 1 {
		t.Fatalf("%d elicitations", len(rec.elicited))
	}
	form := rec.elicited[0]
	if form.Message != "Please provide your information" {
		t.Errorf("message %q", form.Message)
	}
	props := schemaJSON(t, form)
	if !jsonEqual(t, props, `{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}}`) {
		t.Errorf("properties %v", props)
	}
	if !slices.Equal(form.RequestedSchema.Required, []string{"username", "email"}) {
		t.Errorf("required %v", form.RequestedSchema.Required)
	}
}

func TestElicitationDefaults(t *testing.T) {
	rec := &recorder{answer: map[string]mcp.ElicitResultContentValue{
		"name": {Value: mcp.ElicitResultContentValueString("Jane Smith")},
		"age":  {Value: mcp.ElicitResultContentValueInteger(25)},
	}}
	_, sess := connect(t, rec)
	r := call(t, sess, "test_elicitation_sep1034_defaults", "{}")
	if got := onlyText(t, r.Content); !strings.HasPrefix(got, "Elicitation completed: action=accept, content=") || r.IsError {
		t.Errorf("got %q (isError %v)", got, r.IsError)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	props := schemaJSON(t, rec.elicited[0])
	want := `{
		"name":     {"type":"string","description":"User name","default":"John Doe"},
		"age":      {"type":"integer","description":"User age","default":30},
		"score":    {"type":"number","description":"User score","default":95.5},
		"status":   {"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
		"verified": {"type":"boolean","description":"Verification status","default":true}
	}`
	if !jsonEqual(t, props, want) {
		got, _ := json.Marshal(props)
		t.Errorf("properties %s\nwant %s", got, want)
	}
}

func TestElicitationEnums(t *testing.T) {
	rec := &recorder{answer: map[string]mcp.ElicitResultContentValue{
		"untitledSingle": {Value: mcp.ElicitResultContentValueString("option1")},
		"titledMulti":    {Value: mcp.ElicitResultContentValueArray{"value1", "value2"}},
	}}
	_, sess := connect(t, rec)
	r := call(t, sess, "test_elicitation_sep1330_enums", "{}")
	want := `Elicitation completed: action=accept, content={"titledMulti":["value1","value2"],"untitledSingle":"option1"}`
	if got := onlyText(t, r.Content); got != want || r.IsError {
		t.Errorf("got %q (isError %v)\nwant %q", got, r.IsError, want)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	props := schemaJSON(t, rec.elicited[0])
	checks := map[string]string{
		"untitledSingle": `{"type":"string","description":"Pick one (untitled)","enum":["option1","option2","option3"]}`,
		"titledSingle":   `{"type":"string","description":"Pick one (titled)","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]}`,
		"legacyEnum":     `{"type":"string","description":"Pick one (titled the deprecated way)","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]}`,
		"untitledMulti":  `{"type":"array","description":"Pick any (untitled)","items":{"type":"string","enum":["option1","option2","option3"]}}`,
		"titledMulti":    `{"type":"array","description":"Pick any (titled)","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}`,
	}
	if len(props) != len(checks) {
		t.Errorf("%d properties, want %d", len(props), len(checks))
	}
	for name, want := range checks {
		if !jsonEqual(t, props[name], want) {
			got, _ := json.Marshal(props[name])
			t.Errorf("%s = %s\nwant %s", name, got, want)
		}
	}
}

func TestJSONSchema202012(t *testing.T) {
	_, sess := connect(t, &recorder{})
	var tool *mcp.Tool
	for x, err := range sess.AllTools(testContext(t)) {
		if err != nil {
			t.Fatal(err)
		}
		if x.Name == "json_schema_2020_12_tool" {
			tool = &x
		}
	}
	if tool == nil {
		t.Fatal("json_schema_2020_12_tool is not listed")
	}
	got, err := tool.InputSchema.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	want := `{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
		"properties": {
			"name": {"type": "string"},
			"address": {"$ref": "#/$defs/address"},
			"contactMethod": {"type": "string", "enum": ["phone", "email"]},
			"phone": {"type": "string"},
			"email": {"type": "string"}
		},
		"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
		"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
		"then": {"required": ["phone"]},
		"else": {"required": ["email"]},
		"additionalProperties": false
	}`
	if !jsonEqual(t, m, want) {
		t.Errorf("inputSchema %s\nwant %s", got, want)
	}

	// The engine validates arguments against the 2020-12 schema.
	for _, c := range []struct {
		args    string
		isError bool
	}{
		{`{"name":"a","contactMethod":"phone","phone":"1"}`, false},
		{`{"name":"a","email":"a@example.com","address":{"city":"x"}}`, false},
		{`{"name":"a","contactMethod":"phone","email":"a@example.com"}`, true}, // then: phone required
		{`{"email":"a@example.com","extra":1}`, true},                          // additionalProperties
		{`{"name":"a"}`, true}, // anyOf phone|email
	} {
		if r := call(t, sess, "json_schema_2020_12_tool", c.args); r.IsError != c.isError {
			t.Errorf("%s: isError %v, want %v (%s)", c.args, r.IsError, c.isError, onlyText(t, r.Content))
		}
	}
}

func TestReconnectionTool(t *testing.T) {
	_, sess := connect(t, &recorder{})
	if got := onlyText(t, call(t, sess, "test_reconnection", "{}").Content); got != reconnectionText {
		t.Errorf("got %q", got)
	}
}

func TestResourcesList(t *testing.T) {
	_, sess := connect(t, &recorder{})
	r, err := sess.ListResources(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, res := range r.Resources {
		uris = append(uris, res.URI)
		if res.Name == "" || res.Description == "" || res.MIMEType == "" {
			t.Errorf("resource %s: name %q, description %q, mimeType %q", res.URI, res.Name, res.Description, res.MIMEType)
		}
	}
	if want := []string{staticTextURI, staticBinaryURI, watchedURI}; !slices.Equal(uris, want) {
		t.Errorf("resources %v, want %v", uris, want)
	}
	tr, err := sess.ListResourceTemplates(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.ResourceTemplates) != 1 || tr.ResourceTemplates[0].URITemplate != templateURI {
		t.Errorf("templates %+v", tr.ResourceTemplates)
	}
}

// read reads uri, which must hold one item.
func read(t *testing.T, sess *client.Session, uri string) mcp.ReadResourceResultContentsItemVariant {
	t.Helper()
	r, err := sess.ReadResource(testContext(t), &mcp.ReadResourceRequestParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(r.Contents) != 1 {
		t.Fatalf("read %s: %d items", uri, len(r.Contents))
	}
	return r.Contents[0].Value
}

func TestReadResources(t *testing.T) {
	_, sess := connect(t, &recorder{})
	text, ok := read(t, sess, staticTextURI).(*mcp.TextResourceContents)
	if !ok || text.URI != staticTextURI || text.MIMEType != "text/plain" || text.Text != staticText {
		t.Errorf("%s: %+v", staticTextURI, text)
	}
	blob, ok := read(t, sess, staticBinaryURI).(*mcp.BlobResourceContents)
	if !ok || blob.URI != staticBinaryURI || blob.MIMEType != "image/png" {
		t.Fatalf("%s: %+v", staticBinaryURI, blob)
	}
	checkPNG(t, blob.Blob)
	tmpl, ok := read(t, sess, "test://template/123/data").(*mcp.TextResourceContents)
	want := `{"id":"123","templateTest":true,"data":"Data for ID: 123"}`
	if !ok || tmpl.URI != "test://template/123/data" || tmpl.MIMEType != "application/json" || tmpl.Text != want {
		t.Errorf("template: %+v, want text %s", tmpl, want)
	}
}

func TestReadUnknownResource(t *testing.T) {
	_, sess := connect(t, &recorder{})
	_, err := sess.ReadResource(testContext(t), &mcp.ReadResourceRequestParams{URI: "test://nonexistent"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("got %v, want a JSON-RPC error", err)
	}
}

func TestSubscribeWatched(t *testing.T) {
	rec := &recorder{}
	e, sess := connect(t, rec)
	ctx := testContext(t)
	before, _ := read(t, sess, watchedURI).(*mcp.TextResourceContents)
	if _, err := sess.Subscribe(ctx, &mcp.SubscribeRequestParams{URI: watchedURI}); err != nil {
		t.Fatal(err)
	}
	e.touchWatched(ctx)
	waitFor(t, rec, func(r *recorder) int { return len(r.updated) }, 1)
	after, _ := read(t, sess, watchedURI).(*mcp.TextResourceContents)
	if before == nil || after == nil || before.Text == after.Text {
		t.Errorf("content did not change: %+v then %+v", before, after)
	}
	if _, err := sess.Unsubscribe(ctx, &mcp.UnsubscribeRequestParams{URI: watchedURI}); err != nil {
		t.Fatal(err)
	}
	e.touchWatched(ctx)
	if _, err := sess.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if !slices.Equal(rec.updated, []string{watchedURI}) {
		t.Errorf("updates %v, want one for %s", rec.updated, watchedURI)
	}
}

func TestPromptsList(t *testing.T) {
	_, sess := connect(t, &recorder{})
	r, err := sess.ListPrompts(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range r.Prompts {
		names = append(names, p.Name)
		if p.Description == "" {
			t.Errorf("prompt %s has no description", p.Name)
		}
	}
	want := []string{"test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image", "test_input_required_result_prompt"}
	if !slices.Equal(names, want) {
		t.Errorf("prompts %v, want %v", names, want)
	}
}

func getPrompt(t *testing.T, sess *client.Session, name string, args map[string]string) []mcp.PromptMessage {
	t.Helper()
	r, err := sess.GetPrompt(testContext(t), &mcp.GetPromptRequestParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("prompts/get %s: %v", name, err)
	}
	for i, m := range r.Messages {
		if m.Role != mcp.RoleUser {
			t.Errorf("%s: message %d has role %q", name, i, m.Role)
		}
	}
	return r.Messages
}

func messageText(t *testing.T, m mcp.PromptMessage) string {
	t.Helper()
	tc, ok := m.Content.Value.(*mcp.TextContent)
	if !ok {
		t.Fatalf("message is %T, want text", m.Content.Value)
	}
	return tc.Text
}

func TestPrompts(t *testing.T) {
	_, sess := connect(t, &recorder{})

	msgs := getPrompt(t, sess, "test_simple_prompt", nil)
	if len(msgs) != 1 || messageText(t, msgs[0]) != simplePromptText {
		t.Errorf("test_simple_prompt: %+v", msgs)
	}

	msgs = getPrompt(t, sess, "test_prompt_with_arguments", map[string]string{"arg1": "hello", "arg2": "world"})
	if want := "Prompt with arguments: arg1='hello', arg2='world'"; len(msgs) != 1 || messageText(t, msgs[0]) != want {
		t.Errorf("test_prompt_with_arguments: %+v, want %q", msgs, want)
	}

	msgs = getPrompt(t, sess, "test_prompt_with_embedded_resource", map[string]string{"resourceUri": "test://example-resource"})
	if len(msgs) != 2 {
		t.Fatalf("test_prompt_with_embedded_resource: %d messages", len(msgs))
	}
	if res := textResource(t, msgs[0].Content); res.URI != "test://example-resource" || res.MIMEType != "text/plain" || res.Text != embeddedPromptText {
		t.Errorf("embedded resource %+v", res)
	}
	if got := messageText(t, msgs[1]); got != embeddedPromptAfter {
		t.Errorf("second message %q", got)
	}

	msgs = getPrompt(t, sess, "test_prompt_with_image", nil)
	if len(msgs) != 2 {
		t.Fatalf("test_prompt_with_image: %d messages", len(msgs))
	}
	img, ok := msgs[0].Content.Value.(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" {
		t.Fatalf("first message %#v", msgs[0].Content.Value)
	}
	checkPNG(t, img.Data)
	if got := messageText(t, msgs[1]); got != imagePromptAfter {
		t.Errorf("second message %q", got)
	}
}

func TestPromptMissingArgument(t *testing.T) {
	_, sess := connect(t, &recorder{})
	_, err := sess.GetPrompt(testContext(t), &mcp.GetPromptRequestParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "x"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("got %v, want invalid params", err)
	}
}

func TestCompletion(t *testing.T) {
	_, sess := connect(t, &recorder{})
	for _, c := range []struct {
		ref        mcp.CompleteRequestParamsRefVariant
		arg, value string
		want       []string
	}{
		{&mcp.PromptReference{Name: "test_prompt_with_arguments"}, "arg1", "par", []string{"paris", "park", "party"}},
		{&mcp.PromptReference{Name: "test_prompt_with_arguments"}, "arg1", "test", []string{"test", "testing"}},
		{&mcp.PromptReference{Name: "test_prompt_with_arguments"}, "arg2", "wo", []string{"world", "wonder", "work"}},
		{&mcp.PromptReference{Name: "test_prompt_with_arguments"}, "arg1", "zzz", []string{}},
		{&mcp.PromptReference{Name: "test_simple_prompt"}, "arg1", "", []string{}},
		{&mcp.ResourceTemplateReference{URI: templateURI}, "id", "1", []string{}},
	} {
		r, err := sess.Complete(testContext(t), &mcp.CompleteRequestParams{
			Ref:      mcp.CompleteRequestParamsRef{Value: c.ref},
			Argument: mcp.CompleteRequestParamsArgument{Name: c.arg, Value: c.value},
		})
		if err != nil {
			t.Fatalf("%s=%q: %v", c.arg, c.value, err)
		}
		if !slices.Equal(r.Completion.Values, c.want) || r.Completion.Values == nil {
			t.Errorf("%s=%q: values %#v, want %#v", c.arg, c.value, r.Completion.Values, c.want)
		}
	}
}

func TestPing(t *testing.T) {
	_, sess := connect(t, &recorder{})
	if _, err := sess.Ping(testContext(t), nil); err != nil {
		t.Fatal(err)
	}
}

// TestStdioFraming lists everything and uses a tool, a prompt and a
// resource over the framing of -stdio: every message, the tools' schemas
// included, must fit on one line.
func TestStdioFraming(t *testing.T) {
	_, sess := connectOverStreams(t, &recorder{})
	ctx := testContext(t)
	tools, err := sess.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if len(tools.Tools) != 35 {
		t.Errorf("tools/list: %d tools", len(tools.Tools))
	}
	prompts, err := sess.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatalf("prompts/list: %v", err)
	}
	if len(prompts.Prompts) != 5 {
		t.Errorf("prompts/list: %d prompts", len(prompts.Prompts))
	}
	resources, err := sess.ListResources(ctx, nil)
	if err != nil {
		t.Fatalf("resources/list: %v", err)
	}
	if len(resources.Resources) != 3 {
		t.Errorf("resources/list: %d resources", len(resources.Resources))
	}
	templates, err := sess.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatalf("resources/templates/list: %v", err)
	}
	if len(templates.ResourceTemplates) != 1 {
		t.Errorf("resources/templates/list: %d templates", len(templates.ResourceTemplates))
	}
	if got := onlyText(t, call(t, sess, "test_simple_text", "").Content); got != simpleText {
		t.Errorf("test_simple_text: %q", got)
	}
	if msgs := getPrompt(t, sess, "test_simple_prompt", nil); len(msgs) != 1 || messageText(t, msgs[0]) != simplePromptText {
		t.Errorf("test_simple_prompt: %+v", msgs)
	}
	if text, ok := read(t, sess, staticTextURI).(*mcp.TextResourceContents); !ok || text.Text != staticText {
		t.Errorf("%s: %+v", staticTextURI, text)
	}
}
