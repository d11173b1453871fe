// Usage: node interop/ts-v2-client.mjs [--trace] [--tools=NAME,...] http URL
//        node interop/ts-v2-client.mjs [--trace] [--tools=NAME,...] stdio COMMAND [ARG...]
//
// Connects the official TypeScript SDK v2 Client (@modelcontextprotocol/client)
// to an MCP server pinned to protocol version 2026-07-28, with no fallback to
// the 2025 initialize handshake, over Streamable HTTP or over stdio (spawning
// COMMAND). It declares elicitation, sampling and roots, answering each
// deterministically, lists the tools and calls each tool named by --tools
// (by default the ones interop_test.go checks) with no arguments.
//
// It prints one JSON object per line on stdout:
//
//	{"kind":"connected","protocolVersion":...,"era":...,"serverInfo":...,"capabilities":...}
//	{"kind":"tools","tools":[NAME,...]}
//	{"kind":"call","name":NAME,"result":{...},"resultTypes":[...],"inputRequests":[...],
//	 "progressTokens":[...],"progress":[...],"onprogress":[...]}
//
// where, for the call, result is the CallToolResult callTool gave back;
// resultTypes the resultType of every response the server sent (one per
// round trip; callTool's result drops it); inputRequests the embedded
// requests the SDK handed to the handlers below; progressTokens the
// progressToken of every request the SDK sent; progress the params of
// every notifications/progress the server sent; and onprogress what
// reached the SDK's onprogress callback. That callback also hears the
// SDK's own report of each input round, and can miss a notification that
// arrives in the same read as the result (the SDK dispatches notifications
// a microtask later than responses), which is why progress is taken off
// the transport. Any failure, the SDK's own checks of the server's
// messages included, exits non-zero with the error on stderr. --trace
// writes every JSON-RPC message after connect to stderr.

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const PROTOCOL_VERSION = "2026-07-28";
const DEFAULT_TOOLS = [
  "test_simple_text",
  "test_input_required_result_elicitation",
  "test_input_required_result_sampling",
  "test_tool_with_progress",
];

const usage = () => {
  console.error("usage: node ts-v2-client.mjs [--trace] [--tools=NAME,...] http URL | stdio COMMAND [ARG...]");
  process.exit(2);
};
const args = process.argv.slice(2);
let trace = false;
let tools = DEFAULT_TOOLS;
while (args[0]?.startsWith("--")) {
  const flag = args.shift();
  if (flag === "--trace") trace = true;
  else if (flag.startsWith("--tools=")) tools = flag.slice("--tools=".length).split(",").filter(Boolean);
  else usage();
}
const [mode, target, ...rest] = args;
let transport;
if (mode === "http" && target && rest.length === 0) {
  transport = new StreamableHTTPClientTransport(new URL(target), { fetch: fetchReportingErrors });
} else if (mode === "stdio" && target) {
  transport = new StdioClientTransport({ command: target, args: rest, stderr: "inherit" });
} else {
  usage();
}

const print = (line) => process.stdout.write(JSON.stringify(line) + "\n");

// What the current call saw; calls run one at a time.
let seen;

const client = new Client(
  { name: "mcpgen-interop-v2", version: "1.0.0" },
  {
    versionNegotiation: { mode: { pin: PROTOCOL_VERSION } },
    capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
  },
);

// What the SDK reports but does not throw, such as a message it drops.
client.onerror = (err) => console.error("ts-v2-client: the SDK reported:", err.message);

// record notes an embedded request the SDK hands to a handler; the SDK
// gives the server's key for it in inputRequests as the request id.
const record = (request, ctx) => {
  seen?.inputRequests.push({ key: ctx.mcpReq.id, method: request.method, params: request.params });
};

// Form elicitation: accept, with a value for every property of the
// requested schema: its default, else its first enum value, else one for
// its type ("Alice" for a string).
client.setRequestHandler("elicitation/create", (request, ctx) => {
  record(request, ctx);
  const content = {};
  for (const [name, prop] of Object.entries(request.params.requestedSchema?.properties ?? {})) {
    content[name] = prop.default ?? prop.enum?.[0] ?? { number: 42, integer: 42, boolean: true }[prop.type] ?? "Alice";
  }
  return { action: "accept", content };
});

client.setRequestHandler("sampling/createMessage", (request, ctx) => {
  record(request, ctx);
  return {
    role: "assistant",
    content: { type: "text", text: "Paris" },
    model: "mcpgen-interop-model",
    stopReason: "endTurn",
  };
});

client.setRequestHandler("roots/list", (request, ctx) => {
  record(request, ctx);
  return { roots: [{ uri: "file:///interop/root", name: "interop" }] };
});

try {
  await client.connect(transport);
  watch(transport);
  print({
    kind: "connected",
    protocolVersion: client.getNegotiatedProtocolVersion(),
    era: client.getProtocolEra(),
    serverInfo: client.getServerVersion() ?? null,
    capabilities: client.getServerCapabilities() ?? null,
  });
  print({ kind: "tools", tools: (await client.listTools()).tools.map((t) => t.name) });
  for (const name of tools) {
    seen = { resultTypes: [], inputRequests: [], progressTokens: [], progress: [], onprogress: [] };
    const result = await client.callTool(
      { name, arguments: {} },
      { onprogress: (p) => seen.onprogress.push(p) },
    );
    print({ kind: "call", name, result, ...seen });
  }
} catch (err) {
  console.error("ts-v2-client:", err);
  process.exitCode = 1;
} finally {
  await client.close();
}

// fetchReportingErrors is fetch, writing every answer that is not a
// success to stderr: the SDK's errors, those of connect in particular, do
// not say what the server answered.
async function fetchReportingErrors(url, init) {
  const response = await fetch(url, init);
  if (!response.ok) {
    console.error(`ts-v2-client: ${init?.method ?? "GET"} ${url} answered ${response.status}: ${await response.clone().text()}`);
  }
  return response;
}

// watch records, for the current call, the progressToken of every request
// the Client sends, and the resultType of every response and the params of
// every notifications/progress the server sends, as they come off the
// transport; with --trace it logs every message both ways. It wraps the
// handlers the Client installed on connect, so it must run after connect.
function watch(transport) {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (trace) console.error("ts-v2-client: sent", JSON.stringify(message));
    const token = message.params?._meta?.progressToken;
    if (message.id !== undefined && token !== undefined) seen?.progressTokens.push(token);
    return send(message, options);
  };
  const onmessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (trace) console.error("ts-v2-client: received", JSON.stringify(message));
    if (message.result !== undefined) seen?.resultTypes.push(message.result.resultType ?? null);
    if (message.method === "notifications/progress") seen?.progress.push(message.params);
    onmessage(message, extra);
  };
}
