//go:build interop

package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// The npm packages the tests run, as package.json pins them.
const (
	sdkPackage        = "@modelcontextprotocol/sdk"
	everythingPackage = "@modelcontextprotocol/server-everything"
	// SDK v2, the 2026-07-28 era, comes as separate client and server
	// packages.
	clientV2Package = "@modelcontextprotocol/client"
	serverV2Package = "@modelcontextprotocol/server"
)

// requireNode fails the test unless node is on PATH and node_modules holds
// the versions package.json pins. These tests never skip: a run with the
// interop tag that cannot reach the SDKs is broken.
func requireNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH (%v): the interop tests need Node.js 20 or later; `make interop` installs the npm packages and runs them (.ci/run puts Node 22 first on PATH)", err)
	}
	var pins struct{ Dependencies map[string]string }
	readJSON(t, "package.json", &pins)
	for _, pkg := range []string{sdkPackage, everythingPackage, clientV2Package, serverV2Package} {
		path := filepath.Join("node_modules", pkg, "package.json")
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s is not installed (%v): run `npm ci` in interop/, or `make interop`", pkg, err)
		}
		var installed struct{ Version string }
		readJSON(t, path, &installed)
		if want := pins.Dependencies[pkg]; installed.Version != want {
			t.Fatalf("interop/node_modules holds %s@%s but package.json pins %s: run `npm ci` in interop/", pkg, installed.Version, want)
		}
	}
	return node
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// buildExample builds the example examples/<name> and returns the
// binary's path. The examples are a module of their own (examples/go.mod),
// so the build runs in that module's folder: it then works both in the
// repository's workspace (go.work) and with GOWORK=off, where the examples'
// replace directive points at this repository's core module.
func buildExample(t *testing.T, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("go", "build", "-C", "../examples", "-o", bin, "./"+name).CombinedOutput(); err != nil {
		t.Fatalf("go build -C ../examples ./%s: %v\n%s", name, err, out)
	}
	return bin
}

// buildHello builds examples/hello and returns the binary's path.
func buildHello(t *testing.T) string {
	t.Helper()
	return buildExample(t, "hello")
}

// tsReport is what ts-client.mjs prints, decoded into mcpgen's protocol
// types.
type tsReport struct {
	RequestedProtocolVersion string                 `json:"requestedProtocolVersion"`
	ProtocolVersion          string                 `json:"protocolVersion"`
	ServerInfo               mcp.Implementation     `json:"serverInfo"`
	Capabilities             mcp.ServerCapabilities `json:"capabilities"`
	Tools                    []string               `json:"tools"`
	Prompts                  []string               `json:"prompts"`
	Resources                []string               `json:"resources"`
	Echo                     mcp.CallToolResult     `json:"echo"`
	Add                      mcp.CallToolResult     `json:"add"`
	AddInvalid               mcp.CallToolResult     `json:"addInvalid"`
	Greet                    mcp.GetPromptResult    `json:"greet"`
	World                    mcp.ReadResourceResult `json:"world"`
}

// TestTypeScriptClient serves examples/hello to the TypeScript SDK's
// Client, through ts-client.mjs.
func TestTypeScriptClient(t *testing.T) {
	node := requireNode(t)
	bin := buildHello(t)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, node, "ts-client.mjs", bin)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node ts-client.mjs: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.Bytes(), stderr.Bytes())
	}
	t.Logf("ts-client.mjs printed %s", stdout.Bytes())
	var got tsReport
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("decode the output of ts-client.mjs: %v\n%s", err, stdout.Bytes())
	}

	// SDK 1.32.2 asks for 2025-11-25, its LATEST_PROTOCOL_VERSION, which
	// mcpgen speaks: the server must accept it as asked.
	if got.RequestedProtocolVersion != string(mcp.Version20251125) {
		t.Errorf("the SDK asked for protocol version %q, want %q", got.RequestedProtocolVersion, mcp.Version20251125)
	}
	if got.ProtocolVersion != got.RequestedProtocolVersion {
		t.Errorf("negotiated protocol version %q, want the one asked for, %q", got.ProtocolVersion, got.RequestedProtocolVersion)
	}
	if got.ServerInfo.Name != "mcpgen-hello" || got.ServerInfo.Version != "1.0.0" {
		t.Errorf("serverInfo = %+v, want mcpgen-hello 1.0.0", got.ServerInfo)
	}
	if c := got.Capabilities; c.Tools == nil || c.Prompts == nil || c.Resources == nil {
		t.Errorf("capabilities lack tools, prompts or resources: %+v", c)
	}
	if want := []string{"echo", "add"}; !slices.Equal(got.Tools, want) {
		t.Errorf("tools = %q, want %q", got.Tools, want)
	}
	if want := []string{"greet"}; !slices.Equal(got.Prompts, want) {
		t.Errorf("prompts = %q, want %q", got.Prompts, want)
	}
	if want := []string{"hello://world"}; !slices.Equal(got.Resources, want) {
		t.Errorf("resources = %q, want %q", got.Resources, want)
	}

	if text, err := onlyText(&got.Echo); err != nil || got.Echo.IsError || text != "hello from TypeScript" {
		t.Errorf("echo: text %q, isError %v, %v; want the text sent back", text, got.Echo.IsError, err)
	}

	if text, err := onlyText(&got.Add); err != nil || got.Add.IsError || text != "5.5" {
		t.Errorf("add: text %q, isError %v, %v; want 5.5", text, got.Add.IsError, err)
	}
	var sum struct{ Sum *float64 }
	if err := json.Unmarshal(got.Add.StructuredContent, &sum); err != nil || sum.Sum == nil || *sum.Sum != 5.5 {
		t.Errorf("add: structuredContent %s (%v), want {\"sum\":5.5}", got.Add.StructuredContent, err)
	}

	// Arguments that break the input schema are the model's to read about,
	// not a protocol error.
	if text, err := onlyText(&got.AddInvalid); err != nil || !got.AddInvalid.IsError || text == "" {
		t.Errorf("add with a: \"two\": text %q, isError %v, %v; want an isError result saying why", text, got.AddInvalid.IsError, err)
	}

	if msgs := got.Greet.Messages; len(msgs) != 1 {
		t.Errorf("greet: %d messages, want 1", len(msgs))
	} else if tc, ok := msgs[0].Content.Value.(*mcp.TextContent); !ok || msgs[0].Role != mcp.RoleUser || tc.Text != "Say hello to Ada." {
		t.Errorf("greet: message %+v, want the user saying \"Say hello to Ada.\"", msgs[0])
	}

	if c := got.World.Contents; len(c) != 1 {
		t.Errorf("hello://world: %d contents, want 1", len(c))
	} else if tc, ok := c[0].Value.(*mcp.TextResourceContents); !ok || tc.URI != "hello://world" || tc.MIMEType != "text/plain" || tc.Text != "Hello, world!" {
		t.Errorf("hello://world: contents %+v, want the text/plain \"Hello, world!\"", c[0].Value)
	}
}

// onlyText returns the text of a result that holds one text block.
func onlyText(r *mcp.CallToolResult) (string, error) {
	if len(r.Content) != 1 {
		return "", fmt.Errorf("%d content blocks, want 1", len(r.Content))
	}
	tc, ok := r.Content[0].Value.(*mcp.TextContent)
	if !ok {
		return "", fmt.Errorf("content block is %T, want text", r.Content[0].Value)
	}
	return tc.Text, nil
}

// TestEverythingServer runs mcpgen's client against the reference server
// of the MCP project, @modelcontextprotocol/server-everything, over stdio.
func TestEverythingServer(t *testing.T) {
	node := requireNode(t)

	// The server's stderr goes to a file, which the test reads only on
	// failure, after the process has gone.
	stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	logs := &records{}
	cmd := exec.Command(node, filepath.Join("node_modules", everythingPackage, "dist", "index.js"), "stdio")
	cmd.Stderr = stderr
	proc, err := client.CommandTransport(cmd, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := &recorder{Transport: proc}
	t.Cleanup(func() {
		if t.Failed() {
			tr.dump(t)
			out, _ := os.ReadFile(stderr.Name())
			t.Logf("the server's stderr:\n%s", out)
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := client.New(mcp.Implementation{Name: "mcpgen-interop", Version: "1.0.0"}, &client.Options{
		Logger: slog.New(logs),
	})
	sess, err := c.Connect(ctx, tr)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer func() {
		if err := sess.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		// Everything the server sent decoded and validated: nothing was
		// dropped on the floor.
		logs.failOnWarnings(t)
	}()

	if v := sess.ProtocolVersion(); v != client.DefaultProtocolVersion {
		t.Errorf("negotiated protocol version %q, want the one asked for, %q", v, client.DefaultProtocolVersion)
	}
	if info := sess.InitializeResult().ServerInfo; info.Name != "mcp-servers/everything" {
		t.Errorf("serverInfo = %+v, want mcp-servers/everything", info)
	}

	tools := map[string]mcp.Tool{}
	for tool, err := range sess.AllTools(ctx) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		if err := tool.ValidateVersion(sess.ProtocolVersion()); err != nil {
			t.Errorf("tool %s does not validate: %v", tool.Name, err)
		}
		tools[tool.Name] = tool
	}
	for _, name := range []string{"echo", "get-sum", "get-structured-content"} {
		if _, ok := tools[name]; !ok {
			t.Fatalf("tools/list lacks %s; it has %v", name, slices.Sorted(maps.Keys(tools)))
		}
	}

	call := func(name, args string) *mcp.CallToolResult {
		t.Helper()
		r, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("tools/call %s: %v", name, err)
		}
		if r.IsError {
			t.Fatalf("tools/call %s: isError result %+v", name, r.Content)
		}
		return r
	}

	if text, err := onlyText(call("echo", `{"message":"hello from mcpgen"}`)); err != nil || text != "Echo: hello from mcpgen" {
		t.Errorf("echo: %q (%v), want \"Echo: hello from mcpgen\"", text, err)
	}
	if text, err := onlyText(call("get-sum", `{"a":2,"b":3.5}`)); err != nil || text != "The sum of 2 and 3.5 is 5.5." {
		t.Errorf("get-sum: %q (%v), want \"The sum of 2 and 3.5 is 5.5.\"", text, err)
	}

	// get-structured-content promises, in its outputSchema, an object with
	// temperature, conditions and humidity; check the result against the
	// schema the server listed, and its text block against the structure.
	tool := tools["get-structured-content"]
	if tool.OutputSchema == nil {
		t.Fatal("get-structured-content has no outputSchema")
	}
	for _, prop := range []string{"temperature", "conditions", "humidity"} {
		if !slices.Contains(tool.OutputSchema.Required, prop) {
			t.Errorf("get-structured-content's outputSchema does not require %s: %+v", prop, tool.OutputSchema)
		}
	}
	r := call("get-structured-content", `{"location":"Chicago"}`)
	if len(r.StructuredContent) == 0 {
		t.Fatal("get-structured-content: no structuredContent")
	}
	schema, err := tool.OutputSchema.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(schema, r.StructuredContent); err != nil {
		t.Errorf("get-structured-content: structuredContent %s does not match its outputSchema %s: %v", r.StructuredContent, schema, err)
	}
	var weather struct {
		Temperature *float64
		Conditions  *string
		Humidity    *float64
	}
	if err := json.Unmarshal(r.StructuredContent, &weather); err != nil || weather.Temperature == nil || weather.Conditions == nil || weather.Humidity == nil {
		t.Errorf("get-structured-content: structuredContent %s (%v) lacks a field", r.StructuredContent, err)
	}
	text, err := onlyText(r)
	if err != nil {
		t.Fatalf("get-structured-content: %v", err)
	}
	var fromText, fromStructured any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		t.Errorf("get-structured-content: text block %q is not JSON: %v", text, err)
	}
	json.Unmarshal(r.StructuredContent, &fromStructured)
	if !reflect.DeepEqual(fromText, fromStructured) {
		t.Errorf("get-structured-content: text block %s and structuredContent %s differ", text, r.StructuredContent)
	}
}

// validate checks instance against a JSON Schema (draft 2020-12, as MCP
// says when a schema names no $schema).
func validate(schema, instance []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("outputSchema.json", doc); err != nil {
		return err
	}
	s, err := c.Compile("outputSchema.json")
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

// recorder keeps every frame the server sent, to show on failure.
type recorder struct {
	jsonrpc.Transport
	mu     sync.Mutex
	frames [][]byte
}

func (r *recorder) Read(ctx context.Context) ([]byte, error) {
	frame, err := r.Transport.Read(ctx)
	if err == nil {
		r.mu.Lock()
		r.frames = append(r.frames, slices.Clone(frame))
		r.mu.Unlock()
	}
	return frame, err
}

func (r *recorder) dump(t *testing.T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range r.frames {
		t.Logf("server sent: %s", f)
	}
}

// records is a slog.Handler that keeps what the client logs.
type records struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (h *records) Enabled(context.Context, slog.Level) bool { return true }
func (h *records) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *records) WithGroup(string) slog.Handler            { return h }

func (h *records) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.recs = append(h.recs, r.Clone())
	h.mu.Unlock()
	return nil
}

// failOnWarnings fails t for every record at level Warn or above: the
// client dropped or could not send something.
func (h *records) failOnWarnings(t *testing.T) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.recs {
		var attrs []string
		r.Attrs(func(a slog.Attr) bool {
			attrs = append(attrs, a.String())
			return true
		})
		if r.Level >= slog.LevelWarn {
			t.Errorf("client logged %s %q %v", r.Level, r.Message, attrs)
		} else {
			t.Logf("client logged %s %q %v", r.Level, r.Message, attrs)
		}
	}
}

// freeAddr returns a loopback address with a free port.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// buildEverything builds examples/everything and returns the binary's
// path.
func buildEverything(t *testing.T) string {
	t.Helper()
	return buildExample(t, "everything")
}

// startEverything builds and starts examples/everything over Streamable
// HTTP and returns its URL once it answers.
func startEverything(t *testing.T) string {
	t.Helper()
	bin := buildEverything(t)
	addr := freeAddr(t)
	cmd := exec.Command(bin, "-http", addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr + "/mcp"
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("examples/everything did not start listening on %s", addr)
	return ""
}

// runNode runs node on a script in this directory and returns what it
// wrote to stdout and stderr. It gives the script a minute, then
// interrupts node (and kills it 5s later); node's end closes the pipes of
// any server the script spawned, which then sees the end of its input and
// exits too.
func runNode(t *testing.T, node string, args ...string) (stdout, stderr []byte, err error) {
	t.Helper()
	return runNodeEnv(t, node, nil, args...)
}

// runNodeEnv is runNode with env added to node's environment.
func runNodeEnv(t *testing.T, node string, env []string, args ...string) (stdout, stderr []byte, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("%w (gave up after a minute)", err)
	}
	return out.Bytes(), errOut.Bytes(), err
}

// TestTypeScriptClientOverHTTP serves examples/everything over Streamable
// HTTP to the TypeScript SDK's Client, through ts-http-client.mjs.
func TestTypeScriptClientOverHTTP(t *testing.T) {
	node := requireNode(t)
	checkTypeScriptHTTPClient(t, node, startEverything(t))
}

// checkTypeScriptHTTPClient runs ts-http-client.mjs, SDK 1.32.2's Client
// in the 2025 era, against examples/everything at url and checks what it
// saw.
func checkTypeScriptHTTPClient(t *testing.T, node, url string) {
	t.Helper()
	out, stderr, err := runNode(t, node, "ts-http-client.mjs", url)
	if err != nil {
		t.Fatalf("ts-http-client.mjs: %v\n%s", err, stderr)
	}
	var r struct {
		SessionID    string                 `json:"sessionId"`
		ServerInfo   mcp.Implementation     `json:"serverInfo"`
		Tools        []string               `json:"tools"`
		Simple       mcp.CallToolResult     `json:"simple"`
		Multiple     mcp.CallToolResult     `json:"multiple"`
		WithProgress mcp.CallToolResult     `json:"withProgress"`
		WithLogging  mcp.CallToolResult     `json:"withLogging"`
		StaticText   mcp.ReadResourceResult `json:"staticText"`
		Prompts      []string               `json:"prompts"`
		Progress     []json.RawMessage      `json:"progress"`
		Logs         []json.RawMessage      `json:"logs"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("ts-http-client.mjs printed %s: %v", out, err)
	}
	if r.SessionID == "" {
		t.Error("no Mcp-Session-Id reached the SDK")
	}
	for _, want := range []string{"test_simple_text", "test_tool_with_progress", "test_sampling", "json_schema_2020_12_tool"} {
		if !slices.Contains(r.Tools, want) {
			t.Errorf("tool %s missing from %v", want, r.Tools)
		}
	}
	if len(r.Simple.Content) != 1 || r.Simple.IsError {
		t.Errorf("test_simple_text = %+v", r.Simple)
	} else if tc, ok := r.Simple.Content[0].Value.(*mcp.TextContent); !ok || tc.Text == "" {
		t.Errorf("test_simple_text content = %#v", r.Simple.Content[0].Value)
	}
	if len(r.Multiple.Content) < 2 {
		t.Errorf("test_multiple_content_types gave %d blocks", len(r.Multiple.Content))
	}
	if len(r.Progress) == 0 {
		t.Error("no progress notification reached the SDK's onprogress")
	}
	if len(r.Logs) == 0 {
		t.Error("no log message reached the SDK")
	}
	if len(r.StaticText.Contents) != 1 {
		t.Errorf("test://static-text = %+v", r.StaticText)
	}
	if !slices.Contains(r.Prompts, "test_simple_prompt") {
		t.Errorf("prompts = %v", r.Prompts)
	}
}

// TestTypeScriptV2ClientOverHTTP serves examples/everything over Streamable
// HTTP to the 2026-07-28 Client of the TypeScript SDK v2, through
// ts-v2-client.mjs.
func TestTypeScriptV2ClientOverHTTP(t *testing.T) {
	node := requireNode(t)
	checkTypeScriptV2Client(t, node, "http", startEverything(t))
}

// TestTypeScriptV2ClientOverStdio has the 2026-07-28 Client of the
// TypeScript SDK v2 spawn examples/everything -stdio, through
// ts-v2-client.mjs. The SDK spawns the server twice: once to send
// server/discover alone, and once more for the calls, which therefore
// reach a process that saw no server/discover.
func TestTypeScriptV2ClientOverStdio(t *testing.T) {
	node := requireNode(t)
	checkTypeScriptV2Client(t, node, "stdio", buildEverything(t), "-stdio")
}

// TestTypeScriptClientsOfBothEras serves SDK v2's Client, in the
// 2026-07-28 era, and SDK 1.32.2's, in the 2025 era, from one
// examples/everything process at the same time: serving one era must not
// disturb the other.
func TestTypeScriptClientsOfBothEras(t *testing.T) {
	node := requireNode(t)
	url := startEverything(t)
	t.Run("v2", func(t *testing.T) {
		t.Parallel()
		checkTypeScriptV2Client(t, node, "http", url)
	})
	t.Run("v1", func(t *testing.T) {
		t.Parallel()
		checkTypeScriptHTTPClient(t, node, url)
	})
}

// v2Calls are the tools checkTypeScriptV2Client calls, in order, and what
// each must give back: the text of its one content block, the resultType
// of each response on the way (one per round trip), and the one embedded
// request, if any, the server asked the client to fulfil, as "key method".
// ts-v2-client.mjs answers an elicitation with name "Alice" and a sampling
// request with "Paris".
var v2Calls = []struct {
	tool         string
	text         string
	resultTypes  []string
	inputRequest string
}{
	{"test_simple_text", "This is a simple text response for testing.", []string{"complete"}, ""},
	{"test_input_required_result_elicitation", "Hello, Alice!", []string{"input_required", "complete"}, "user_name elicitation/create"},
	{"test_input_required_result_sampling", "Paris", []string{"input_required", "complete"}, "capital_question sampling/createMessage"},
	{"test_tool_with_progress", "Tool with progress executed successfully (3 steps)", []string{"complete"}, ""},
}

// v2Line is one line of what ts-v2-client.mjs prints; Kind says which
// fields it holds.
type v2Line struct {
	Kind string `json:"kind"`

	// Kind "connected".
	ProtocolVersion string              `json:"protocolVersion"`
	Era             string              `json:"era"`
	ServerInfo      *mcp.Implementation `json:"serverInfo"`

	// Kind "tools".
	Tools []string `json:"tools"`

	// Kind "call".
	Name          string             `json:"name"`
	Result        mcp.CallToolResult `json:"result"`
	ResultTypes   []*string          `json:"resultTypes"`
	InputRequests []struct {
		Key    string `json:"key"`
		Method string `json:"method"`
	} `json:"inputRequests"`
	// The progressToken of each request the client sent, and the
	// notifications/progress the server sent, as on the wire.
	ProgressTokens []json.RawMessage `json:"progressTokens"`
	Progress       []struct {
		ProgressToken json.RawMessage `json:"progressToken"`
		Progress      float64         `json:"progress"`
		Total         float64         `json:"total"`
	} `json:"progress"`
}

// checkTypeScriptV2Client runs ts-v2-client.mjs on target (http URL, or
// stdio COMMAND ARG...) and checks that it connected in the 2026-07-28 era
// and that the tools of v2Calls answered as they should.
func checkTypeScriptV2Client(t *testing.T, node string, target ...string) {
	t.Helper()
	tools := make([]string, len(v2Calls))
	for i, c := range v2Calls {
		tools[i] = c.tool
	}
	args := append([]string{"ts-v2-client.mjs", "--tools=" + strings.Join(tools, ",")}, target...)
	out, stderr, err := runNode(t, node, args...)
	if err != nil {
		t.Fatalf("node %s: %v\n"+
			"The SDK v2 Client is pinned to 2026-07-28 with no fallback: examples/everything must answer server/discover offering 2026-07-28, "+
			"and requests without initialize that carry the version, client info and capabilities in _meta.\n"+
			"stdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, stderr)
	}
	t.Logf("ts-v2-client.mjs printed:\n%s", out)

	var connected, listed *v2Line
	calls := map[string]*v2Line{}
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var l v2Line
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("decode the output of ts-v2-client.mjs: %v\n%s", err, out)
		}
		switch l.Kind {
		case "connected":
			connected = &l
		case "tools":
			listed = &l
		case "call":
			calls[l.Name] = &l
		default:
			t.Fatalf("ts-v2-client.mjs printed a line of kind %q", l.Kind)
		}
	}
	if connected == nil || listed == nil {
		t.Fatalf("ts-v2-client.mjs printed no connected or no tools line:\n%s", out)
	}

	if connected.ProtocolVersion != string(mcp.Version20260728) || connected.Era != "modern" {
		t.Errorf("negotiated protocol version %q (era %q), want %q (modern)", connected.ProtocolVersion, connected.Era, mcp.Version20260728)
	}
	// serverInfo rides in the _meta of the server/discover result, where
	// the protocol says a server SHOULD put it; it must name the server the
	// 2025 era's initialize names.
	if info := connected.ServerInfo; info == nil {
		t.Error("no serverInfo reached the SDK, want mcpgen-everything in the _meta of the server/discover result")
	} else if info.Name != "mcpgen-everything" {
		t.Errorf("serverInfo names %q %q, want mcpgen-everything", info.Name, info.Version)
	}
	for _, want := range tools {
		if !slices.Contains(listed.Tools, want) {
			t.Errorf("tools/list lacks %s; it has %v", want, listed.Tools)
		}
	}

	for _, want := range v2Calls {
		got := calls[want.tool]
		if got == nil {
			t.Errorf("%s: ts-v2-client.mjs printed no call line", want.tool)
			continue
		}
		if text, err := onlyText(&got.Result); err != nil || got.Result.IsError || text != want.text {
			t.Errorf("%s: text %q, isError %v, %v; want %q", want.tool, text, got.Result.IsError, err, want.text)
		}
		var resultTypes []string
		for _, rt := range got.ResultTypes {
			if rt == nil {
				resultTypes = append(resultTypes, "(none)")
			} else {
				resultTypes = append(resultTypes, *rt)
			}
		}
		if !slices.Equal(resultTypes, want.resultTypes) {
			t.Errorf("%s: the responses had resultType %q, want %q", want.tool, resultTypes, want.resultTypes)
		}
		var requests, wantRequests []string
		for _, r := range got.InputRequests {
			requests = append(requests, r.Key+" "+r.Method)
		}
		if want.inputRequest != "" {
			wantRequests = []string{want.inputRequest}
		}
		if !slices.Equal(requests, wantRequests) {
			t.Errorf("%s: the client fulfilled input requests %q, want %q", want.tool, requests, wantRequests)
		}
	}

	// test_tool_with_progress sends notifications/progress on the call's
	// own stream, with the call's progressToken. The script takes them off
	// the transport, not from the SDK's onprogress, which over stdio misses
	// the last when it arrives in one read with the result.
	if got := calls["test_tool_with_progress"]; got != nil {
		var steps []string
		for _, p := range got.Progress {
			steps = append(steps, fmt.Sprintf("%g/%g", p.Progress, p.Total))
			if !slices.ContainsFunc(got.ProgressTokens, func(tok json.RawMessage) bool { return bytes.Equal(tok, p.ProgressToken) }) {
				t.Errorf("test_tool_with_progress: progress %g came with progressToken %s, want one of the request's, %s", p.Progress, p.ProgressToken, got.ProgressTokens)
			}
		}
		if want := []string{"0/100", "50/100", "100/100"}; !slices.Equal(steps, want) {
			t.Errorf("test_tool_with_progress: the server sent progress %q, want %q", steps, want)
		}
	}
}

// TestClientAgainstTypeScriptHTTPServer drives a Streamable HTTP server
// written with the TypeScript SDK (ts-http-server.mjs) with mcpgen's client.
func TestClientAgainstTypeScriptHTTPServer(t *testing.T) {
	url := startNodeServer(t, requireNode(t), "ts-http-server.mjs")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.New(mcp.Implementation{Name: "mcpgen-interop", Version: "1.0.0"}, nil)
	tr := streamable.NewClientTransport(url, nil)
	sess, err := c.Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if sess.Era() != mcp.EraLegacy {
		t.Fatalf("era %v: the SDK 1.32.2 server is of the legacy era, which Connect must find by itself", sess.Era())
	}
	if got := sess.InitializeResult().ServerInfo.Name; got != "ts-interop-server" {
		t.Errorf("server name %q", got)
	}
	if tr.SessionID() == "" {
		t.Error("no Mcp-Session-Id from the SDK's server")
	}
	var names []string
	for tool, err := range sess.AllTools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if err := tool.ValidateVersion(sess.ProtocolVersion()); err != nil {
			t.Errorf("tool %s does not validate: %v", tool.Name, err)
		}
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, []string{"echo", "add"}) {
		t.Fatalf("tools = %v", names)
	}
	echo, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := echo.Content[0].Value.(*mcp.TextContent); !ok || tc.Text != "ts says: hi" {
		t.Fatalf("echo = %#v", echo.Content[0].Value)
	}
	add, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "add", Arguments: json.RawMessage(`{"a":2,"b":3.5}`)})
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Sum float64 }
	if err := json.Unmarshal(add.StructuredContent, &out); err != nil || out.Sum != 5.5 {
		t.Fatalf("add structuredContent %s (%v)", add.StructuredContent, err)
	}
}

// TestClientAgainstTypeScriptV2Server runs mcpgen's client, with no
// option, against the TypeScript SDK v2's 2026-07-28 server
// (ts-v2-server.mjs), over Streamable HTTP and over stdio: Connect must
// find the era by itself, and the rounds of input go through the client's
// handlers.
func TestClientAgainstTypeScriptV2Server(t *testing.T) {
	node := requireNode(t)
	for _, over := range []string{"http", "stdio"} {
		t.Run(over, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			progress := make(chan float64, 16)
			c := client.New(mcp.Implementation{Name: "mcpgen-interop", Version: "1.0.0"}, &client.Options{
				Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept, Content: map[string]mcp.ElicitResultContentValue{
						"name": {Value: mcp.ElicitResultContentValueString("Alice")},
					}}, nil
				},
				CreateMessage: func(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
					return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "interop",
						Content: mcp.CreateMessageResultContent{Value: &mcp.TextContent{Text: "Paris"}}}, nil
				},
				Roots: func(ctx context.Context) ([]mcp.Root, error) {
					return []mcp.Root{{URI: "file:///interop/root"}}, nil
				},
				OnProgress: func(p *mcp.ProgressNotificationParams) {
					select {
					case progress <- p.Progress:
					default: // more than the test reads is the test's failure
					}
				},
			})
			var tr jsonrpc.Transport
			if over == "http" {
				tr = streamable.NewClientTransport(startNodeServer(t, node, "ts-v2-server.mjs", "http"), nil)
			} else {
				p, err := client.CommandTransport(exec.Command(node, "ts-v2-server.mjs", "stdio"), nil)
				if err != nil {
					t.Fatal(err)
				}
				tr = p
			}
			sess, err := c.Connect(ctx, tr)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			if sess.Era() != mcp.EraModern || sess.ProtocolVersion() != mcp.Version20260728 {
				t.Fatalf("era %v, version %s", sess.Era(), sess.ProtocolVersion())
			}
			d := sess.DiscoverResult()
			if d == nil || d.Meta == nil || d.Meta.ServerInfo == nil || d.Meta.ServerInfo.Name != "ts-v2-interop-server" {
				t.Errorf("server/discover: %+v", d)
			}
			var names []string
			for tool, err := range sess.AllTools(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, tool.Name)
			}
			if !slices.Contains(names, "test_input_required_result_elicitation") {
				t.Fatalf("tools = %v", names)
			}
			calls := []struct{ tool, want string }{
				{"test_simple_text", "This is a simple text response for testing."},
				{"test_input_required_result_elicitation", "Hello, Alice!"},
				{"test_input_required_result_sampling", "Paris"},
				{"test_input_required_result_list_roots", "Roots: file:///interop/root"},
			}
			for _, tt := range calls {
				t.Run(tt.tool, func(t *testing.T) {
					r, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: tt.tool, Arguments: json.RawMessage(`{}`)})
					if err != nil {
						t.Fatal(err)
					}
					if got, err := onlyText(r); err != nil || got != tt.want {
						t.Errorf("%q %v, want %q", got, err, tt.want)
					}
				})
			}
			if _, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "test_tool_with_progress", Arguments: json.RawMessage(`{}`)}); err != nil {
				t.Fatal(err)
			}
			var steps []float64
			for len(steps) < 3 && ctx.Err() == nil {
				select {
				case v := <-progress:
					steps = append(steps, v)
				case <-ctx.Done():
				}
			}
			if fmt.Sprint(steps) != "[0 50 100]" || len(progress) != 0 {
				t.Errorf("OnProgress got %v and %d more, want [0 50 100]", steps, len(progress))
			}
			sub, err := sess.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true})
			if err != nil {
				t.Fatalf("subscriptions/listen: %v", err)
			}
			if !sub.Acknowledged().ToolsListChanged {
				t.Errorf("the SDK's server acknowledged %+v", sub.Acknowledged())
			}
			sub.Close()
		})
	}
}

// startNodeServer runs a Streamable HTTP server script with node until
// the test ends, and returns the URL it prints as "listening <url>".
func startNodeServer(t *testing.T, node, script string, args ...string) string {
	t.Helper()
	cmd := exec.Command(node, append([]string{script}, args...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		t.Fatalf("%s printed nothing: %v", script, lines.Err())
	}
	url, ok := strings.CutPrefix(lines.Text(), "listening ")
	if !ok {
		t.Fatalf("%s printed %q", script, lines.Text())
	}
	return url
}
