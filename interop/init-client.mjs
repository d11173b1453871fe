// Usage: node interop/init-client.mjs stdio SERVER_BINARY
//        node interop/init-client.mjs http URL
//
// Connects the official TypeScript SDK's Client to a server made by
// `mcpgen init` (cmd/mcpgen/init_interop_test.go), over stdio or
// Streamable HTTP, lists its tools and prompts and calls the example tool.
// Prints one JSON object with what came back; any failure, the SDK's own
// checks of the server's messages included, exits non-zero.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target] = process.argv.slice(2);
let transport;
if (mode === "stdio" && target) {
  transport = new StdioClientTransport({ command: target, stderr: "inherit" });
} else if (mode === "http" && target) {
  transport = new StreamableHTTPClientTransport(new URL(target));
} else {
  console.error("usage: node init-client.mjs stdio SERVER_BINARY | http URL");
  process.exit(2);
}

const client = new Client({ name: "mcpgen-init-interop", version: "1.0.0" });
try {
  await client.connect(transport);
  const out = {
    serverInfo: client.getServerVersion(),
    tools: (await client.listTools()).tools,
    prompts: (await client.listPrompts()).prompts.map((p) => p.name),
    greet: await client.callTool({ name: "greet", arguments: { name: "Ada", excitement: 2 } }),
    greetInvalid: await client.callTool({ name: "greet", arguments: { name: "" } }),
  };
  process.stdout.write(JSON.stringify(out) + "\n");
} catch (err) {
  console.error("init-client:", err);
  process.exitCode = 1;
} finally {
  await client.close();
}
