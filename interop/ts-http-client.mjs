// Usage: node interop/ts-http-client.mjs URL
//
// Connects the official TypeScript SDK's Client to an MCP server over
// Streamable HTTP (examples/everything in interop_test.go), exercises it,
// and prints one JSON object with what came back. Any failure, the SDK's own
// checks of the server's messages included, exits non-zero.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url] = process.argv.slice(2);
if (!url) {
  console.error("usage: node ts-http-client.mjs URL");
  process.exit(2);
}

const transport = new StreamableHTTPClientTransport(new URL(url));
const client = new Client({ name: "mcpgen-interop-http", version: "1.0.0" });
const progress = [];
const logs = [];
client.setNotificationHandler(
  (await import("@modelcontextprotocol/sdk/types.js")).LoggingMessageNotificationSchema,
  (n) => { logs.push(n.params); },
);

try {
  await client.connect(transport);
  const out = {
    sessionId: transport.sessionId ?? null,
    serverInfo: client.getServerVersion(),
    tools: (await client.listTools()).tools.map((t) => t.name),
    simple: await client.callTool({ name: "test_simple_text", arguments: {} }),
    multiple: await client.callTool({ name: "test_multiple_content_types", arguments: {} }),
    withProgress: await client.callTool(
      { name: "test_tool_with_progress", arguments: {} },
      undefined,
      { onprogress: (p) => progress.push(p) },
    ),
    withLogging: await client.callTool({ name: "test_tool_with_logging", arguments: {} }),
    staticText: await client.readResource({ uri: "test://static-text" }),
    prompts: (await client.listPrompts()).prompts.map((p) => p.name),
  };
  out.progress = progress;
  out.logs = logs;
  process.stdout.write(JSON.stringify(out) + "\n");
} catch (err) {
  console.error("ts-http-client:", err);
  process.exitCode = 1;
} finally {
  await transport.terminateSession().catch(() => {});
  await client.close();
}
