// Usage: node interop/gateway-v2-server.mjs
//
// A 2026-07-28-era MCP server written with the official TypeScript SDK v2
// (@modelcontextprotocol/server), served over Streamable HTTP, as one of
// the upstreams of gateway_test.go. It refuses the 2025 era, so a legacy
// client reaches it only through the gateway's era bridge. Its tools say
// which server answered, so that a test sees where a call was routed:
//
//	whoami          "ts-v2-server"; its description is $GATEWAY_V2_WHOAMI_DESCRIPTION
//	                when set, for a test that changes a tool's definition
//	delete_records  marked destructiveHint; "deleted by ts-v2-server"
//	stats           "stats from ts-v2-server: N deletions", N the calls of
//	                delete_records it answered, for a test that checks a
//	                refused call never reached it (a test's filters drop it)
//
// It listens on the loopback port $GATEWAY_V2_PORT, or a free one, and prints
// "listening http://127.0.0.1:PORT/mcp" on stdout once ready; a test that
// restarts it with another description gives the same port again.

import http from "node:http";
import { McpServer, createMcpHandler } from "@modelcontextprotocol/server";

const text = (t) => ({ content: [{ type: "text", text: t }] });

// deletions counts the calls of delete_records across sessions: the SDK
// makes a server per request.
let deletions = 0;

function newServer() {
  const server = new McpServer({ name: "gateway-v2-server", version: "1.0.0" });
  server.registerTool(
    "whoami",
    { description: process.env.GATEWAY_V2_WHOAMI_DESCRIPTION || "Names the server that answers." },
    () => text("ts-v2-server"),
  );
  server.registerTool(
    "delete_records",
    { description: "Deletes every record.", annotations: { destructiveHint: true } },
    () => {
      deletions++;
      return text("deleted by ts-v2-server");
    },
  );
  server.registerTool("stats", { description: "Counts the records." }, () =>
    text(`stats from ts-v2-server: ${deletions} deletions`),
  );
  return server;
}

const onerror = (err) => console.error("gateway-v2-server:", err);
const handler = createMcpHandler(newServer, { legacy: "reject", onerror });

// The SDK's handler is fetch-shaped; node:http is bridged to it by hand
// rather than by pinning another package.
const httpServer = http.createServer(async (req, res) => {
  try {
    if (new URL(req.url, "http://x").pathname !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const gone = new AbortController();
    res.on("close", () => gone.abort());
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const response = await handler.fetch(
      new Request(new URL(req.url, `http://${req.headers.host}`), {
        method: req.method,
        headers,
        body: hasBody ? Buffer.concat(chunks) : undefined,
        signal: gone.signal,
      }),
    );
    res.writeHead(response.status, [...response.headers].flat());
    if (response.body) {
      for await (const chunk of response.body) res.write(chunk);
    }
    res.end();
  } catch (err) {
    onerror(err);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
});
httpServer.listen(Number(process.env.GATEWAY_V2_PORT ?? 0), "127.0.0.1", () => {
  process.stdout.write(`listening http://127.0.0.1:${httpServer.address().port}/mcp\n`);
});
process.on("SIGTERM", () => {
  handler.close().finally(() => httpServer.close(() => process.exit(0)));
  httpServer.closeAllConnections();
});
