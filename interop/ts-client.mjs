// Usage: node interop/ts-client.mjs SERVER_BINARY
//
// Starts SERVER_BINARY (examples/hello built) as a stdio MCP server under
// the official TypeScript SDK's Client, exercises it, and prints one JSON
// object with what came back, for interop_test.go to check. Anything that
// fails, the SDK's own checks of the server's messages included, ends the
// process with a non-zero status and the error on stderr.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [server] = process.argv.slice(2);
if (!server) {
  console.error("usage: node ts-client.mjs SERVER_BINARY");
  process.exit(2);
}

const transport = new StdioClientTransport({ command: server, stderr: "inherit" });

// The Client keeps neither the version it asks for nor the one the server
// chooses, so watch the transport: the initialize request as it is sent,
// and setProtocolVersion, which the Client calls with the negotiated
// version once it has accepted it.
const seen = { requestedProtocolVersion: null, protocolVersion: null };
const send = transport.send.bind(transport);
transport.send = (message, options) => {
  if (message.method === "initialize") {
    seen.requestedProtocolVersion = message.params.protocolVersion;
  }
  return send(message, options);
};
transport.setProtocolVersion = (version) => {
  seen.protocolVersion = version;
};

const client = new Client({ name: "mcpgen-interop", version: "1.0.0" });

try {
  await client.connect(transport);
  const out = {
    ...seen,
    serverInfo: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
    tools: (await client.listTools()).tools.map((t) => t.name),
    prompts: (await client.listPrompts()).prompts.map((p) => p.name),
    resources: (await client.listResources()).resources.map((r) => r.uri),
    echo: await client.callTool({ name: "echo", arguments: { text: "hello from TypeScript" } }),
    add: await client.callTool({ name: "add", arguments: { a: 2, b: 3.5 } }),
    addInvalid: await client.callTool({ name: "add", arguments: { a: "two", b: 3 } }),
    greet: await client.getPrompt({ name: "greet", arguments: { name: "Ada" } }),
    world: await client.readResource({ uri: "hello://world" }),
  };
  process.stdout.write(JSON.stringify(out) + "\n");
} catch (err) {
  console.error("ts-client:", err);
  process.exitCode = 1;
} finally {
  await client.close();
}
