// Usage: node interop/gateway-client.mjs v1|v2 URL PLAN
//
// Connects an official TypeScript SDK Client to mcpgen-gateway over
// Streamable HTTP, or, when URL is "stdio:" and a JSON array of a command
// and its arguments, over stdio to the gateway that command starts
// (mcpgen-gateway serve --stdio), for gateway_test.go: v1 is SDK 1.32.2's Client
// (@modelcontextprotocol/sdk), which speaks the 2025 era; v2 is SDK v2's
// (@modelcontextprotocol/client), pinned to 2026-07-28 with no fallback.
// PLAN is a JSON object:
//
//	{"calls": [{"name": NAME, "arguments": {...}}, ...],
//	 "gets": [{"name": NAME, "arguments": {...}}, ...],
//	 "reads": [URI, ...],
//	 "elicit": "accept" | "decline" | "cancel"}
//
// The client lists every page of tools, prompts and resources, then makes
// the tool calls, the prompts/get and the resources/read requests in
// order; elicit is how it answers an elicitation request (an approval
// round, say), "accept" by default, filling every property of the
// requested schema. It prints one JSON object:
//
//	{"protocolVersion": ..., "serverInfo": ..., "tools": [NAME, ...],
//	 "prompts": [NAME, ...], "resources": [URI, ...],
//	 "calls": [{"name": NAME, "result": {...}} or {"name": NAME, "error": {"code": ..., "message": ...}}],
//	 "gets": [likewise], "reads": [{"uri": URI, "result": ...} or {"uri": URI, "error": ...}],
//	 "elicitations": [{"message": ...}, ...]}
//
// When $GATEWAY_CLIENT_API_KEY is set, every request carries it as
// "Authorization: Bearer KEY" (it is taken from the environment so that
// it shows on no command line).
//
// A request that fails is reported, not thrown, so that a test can expect
// a refusal. Anything else that fails, the SDK's own checks of the gateway's
// messages included, exits non-zero with the error on stderr.

const [sdk, url, planText] = process.argv.slice(2);
if (!["v1", "v2"].includes(sdk) || !url) {
  console.error("usage: node gateway-client.mjs v1|v2 URL [PLAN]");
  process.exit(2);
}
const plan = JSON.parse(planText ?? "{}");
const elicitAction = plan.elicit ?? "accept";
const elicitations = [];

// answer is the elicitation handler of both SDKs.
const answer = (request) => {
  elicitations.push({ message: request.params.message });
  if (elicitAction !== "accept") return { action: elicitAction };
  const content = {};
  for (const [name, prop] of Object.entries(request.params.requestedSchema?.properties ?? {})) {
    content[name] = prop.default ?? prop.enum?.[0] ?? { number: 42, integer: 42, boolean: true }[prop.type] ?? "Alice";
  }
  return { action: "accept", content };
};

const info = { name: `mcpgen-gateway-interop-${sdk}`, version: "1.0.0" };
// argv is the command of a gateway served over stdio, or null over HTTP.
const argv = url.startsWith("stdio:") ? JSON.parse(url.slice("stdio:".length)) : null;
const stdioOptions = argv && { command: argv[0], args: argv.slice(1), stderr: "inherit" };
const apiKey = process.env.GATEWAY_CLIENT_API_KEY;
const transportOptions = apiKey ? { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } } : {};
let client;
let transport;
let negotiated = () => null;
if (sdk === "v1") {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const { ElicitRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  transport = argv ? new StdioClientTransport(stdioOptions) : new StreamableHTTPClientTransport(new URL(url), transportOptions);
  // SDK 1.x keeps the negotiated version only in the transport.
  let version = null;
  const set = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (v) => {
    version = v;
    set?.(v);
  };
  negotiated = () => version;
  client = new Client(info, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, answer);
} else {
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  transport = argv ? new StdioClientTransport(stdioOptions) : new StreamableHTTPClientTransport(new URL(url), transportOptions);
  client = new Client(info, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    capabilities: { elicitation: { form: {} } },
  });
  client.setRequestHandler("elicitation/create", answer);
  negotiated = () => client.getNegotiatedProtocolVersion();
}
client.onerror = (err) => console.error("gateway-client: the SDK reported:", err.message);

// all gathers every page of a list.
async function all(list, key) {
  const out = [];
  let cursor;
  do {
    const page = await list(cursor === undefined ? {} : { cursor });
    out.push(...page[key]);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

try {
  await client.connect(transport);
  const caps = client.getServerCapabilities() ?? {};
  const out = {
    protocolVersion: negotiated(),
    serverInfo: client.getServerVersion() ?? null,
    tools: (await all((p) => client.listTools(p), "tools")).map((t) => t.name),
    prompts: caps.prompts ? (await all((p) => client.listPrompts(p), "prompts")).map((p) => p.name) : [],
    resources: caps.resources ? (await all((p) => client.listResources(p), "resources")).map((r) => r.uri) : [],
    calls: [],
    elicitations,
  };
  const attempt = async (key, request) => {
    try {
      return { ...key, result: await request() };
    } catch (err) {
      return { ...key, error: { code: err.code ?? null, message: err.message } };
    }
  };
  for (const c of plan.calls ?? []) {
    out.calls.push(await attempt({ name: c.name }, () => client.callTool({ name: c.name, arguments: c.arguments ?? {} })));
  }
  out.gets = [];
  for (const g of plan.gets ?? []) {
    out.gets.push(await attempt({ name: g.name }, () => client.getPrompt({ name: g.name, arguments: g.arguments ?? {} })));
  }
  out.reads = [];
  for (const uri of plan.reads ?? []) {
    out.reads.push(await attempt({ uri }, () => client.readResource({ uri })));
  }
  process.stdout.write(JSON.stringify(out) + "\n");
} catch (err) {
  console.error("gateway-client:", err);
  process.exitCode = 1;
} finally {
  await client.close();
}
