// Usage: node interop/ts-http-server.mjs
//
// A Streamable HTTP MCP server written with the official TypeScript SDK,
// for mcpgen's client to talk to in interop_test.go. It listens on a free
// loopback port, prints "listening http://127.0.0.1:PORT/mcp" on stdout
// once ready, and serves one session: tools "echo" and "add" (with
// structured output), and a progress notification from "add".

import http from "node:http";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

const server = new McpServer({ name: "ts-interop-server", version: "1.0.0" });
server.registerTool(
  "echo",
  { description: "Echoes the text.", inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: "text", text: `ts says: ${text}` }] }),
);
server.registerTool(
  "add",
  {
    description: "Adds two numbers.",
    inputSchema: { a: z.number(), b: z.number() },
    outputSchema: { sum: z.number() },
  },
  async ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
    structuredContent: { sum: a + b },
  }),
);

const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
await server.connect(transport);

const httpServer = http.createServer((req, res) => {
  if (new URL(req.url, "http://x").pathname !== "/mcp") {
    res.writeHead(404).end();
    return;
  }
  transport.handleRequest(req, res).catch((err) => {
    console.error("ts-http-server:", err);
    if (!res.headersSent) res.writeHead(500).end();
  });
});
httpServer.listen(0, "127.0.0.1", () => {
  const { port } = httpServer.address();
  process.stdout.write(`listening http://127.0.0.1:${port}/mcp\n`);
});
process.on("SIGTERM", () => httpServer.close(() => process.exit(0)));
