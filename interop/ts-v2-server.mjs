// Usage: node interop/ts-v2-server.mjs [--trace] http
//        node interop/ts-v2-server.mjs stdio
//
// A 2026-07-28-era MCP server written with the official TypeScript SDK v2
// (@modelcontextprotocol/server), for checking 2026-07-28 clients (the SDK's
// own, through ts-v2-client.mjs, and mcpgen's) against a server other than
// mcpgen's. It refuses the 2025 era, so a client that falls back to
// initialize fails here.
//
// Its tools take the names, texts and input keys that examples/everything
// and the conformance suite use, and cover what the era changes: one plain
// tool, input_required results for each kind of embedded request, and
// progress.
//
//	test_simple_text                        one text block
//	test_input_required_result_elicitation  asks "user_name" by elicitation, with a
//	                                        requestState to echo; then "Hello, <name>!"
//	test_input_required_result_sampling     asks "capital_question" by sampling; then
//	                                        the sampled text
//	test_input_required_result_list_roots   asks "client_roots" for the roots; then
//	                                        "Roots: <uri>, ..."
//	test_tool_with_progress                 reports progress 0, 50 and 100 of 100
//
// With http it listens on a free loopback port and prints
// "listening http://127.0.0.1:PORT/mcp" on stdout once ready; --trace then
// writes every HTTP request (method, headers, body) to stderr. With stdio it
// serves one client on stdin and stdout.

import http from "node:http";
import {
  McpServer,
  acceptedContent,
  createMcpHandler,
  inputRequired,
  inputResponse,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

// The requestState test_input_required_result_elicitation hands out with its
// question and wants back, verbatim, with the answer. A real server must
// integrity-protect a requestState its logic depends on; this one only
// checks that the client echoes it.
const ELICITATION_STATE = "asked-user_name";

const text = (t) => ({ content: [{ type: "text", text: t }] });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// newServer is the factory both serving entries call: once per HTTP
// request, once per stdio connection.
function newServer() {
  const server = new McpServer({ name: "ts-v2-interop-server", version: "1.0.0" });

  server.registerTool(
    "test_simple_text",
    { description: "Returns one text block." },
    () => text("This is a simple text response for testing."),
  );

  server.registerTool(
    "test_input_required_result_elicitation",
    { description: "Asks the user's name by elicitation, then greets them." },
    (ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "user_name");
      if (typeof answer?.name !== "string") {
        return inputRequired({
          requestState: ELICITATION_STATE,
          inputRequests: {
            user_name: inputRequired.elicit({
              message: "What is your name?",
              requestedSchema: {
                type: "object",
                properties: { name: { type: "string" } },
                required: ["name"],
              },
            }),
          },
        });
      }
      if (ctx.mcpReq.requestState() !== ELICITATION_STATE) {
        return { ...text(`requestState ${JSON.stringify(ELICITATION_STATE)} did not come back`), isError: true };
      }
      return text(`Hello, ${answer.name}!`);
    },
  );

  server.registerTool(
    "test_input_required_result_sampling",
    { description: "Asks the client's model a question, then returns its answer." },
    (ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, "capital_question");
      if (answer.kind !== "sampling" || answer.result.content?.type !== "text") {
        return inputRequired({
          inputRequests: {
            capital_question: inputRequired.createMessage({
              messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
              maxTokens: 100,
            }),
          },
        });
      }
      return text(answer.result.content.text);
    },
  );

  server.registerTool(
    "test_input_required_result_list_roots",
    { description: "Asks the client for its roots, then lists their URIs." },
    (ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, "client_roots");
      if (answer.kind !== "roots") {
        return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
      }
      return text(`Roots: ${answer.roots.map((r) => r.uri).join(", ")}`);
    },
  );

  server.registerTool(
    "test_tool_with_progress",
    { description: "Reports progress 0, 50 and 100 out of 100 while it runs." },
    async (ctx) => {
      const steps = [0, 50, 100];
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (const [i, progress] of steps.entries()) {
        if (i > 0) await sleep(50);
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken, progress, total: 100 },
          });
        }
      }
      return text(`Tool with progress executed successfully (${steps.length} steps)`);
    },
  );

  return server;
}

const args = process.argv.slice(2);
const trace = args[0] === "--trace";
const mode = args.slice(trace ? 1 : 0).join(" ");
const onerror = (err) => console.error("ts-v2-server:", err);

if (mode === "http") {
  serveHTTP(createMcpHandler(newServer, { legacy: "reject", onerror }));
} else if (mode === "stdio" && !trace) {
  serveStdio(newServer, { legacy: "reject", onerror });
} else {
  console.error("usage: node ts-v2-server.mjs [--trace] http | stdio");
  process.exit(2);
}

// serveHTTP serves the SDK's fetch-shaped handler at /mcp on a free
// loopback port, bridging node:http to the Fetch API by hand rather than
// pinning another package for it.
function serveHTTP(handler) {
  const httpServer = http.createServer(async (req, res) => {
    try {
      if (new URL(req.url, "http://x").pathname !== "/mcp") {
        res.writeHead(404).end();
        return;
      }
      const request = await webRequest(req, res);
      if (trace) {
        const headers = [...request.headers].map(([k, v]) => `  ${k}: ${v}`).join("\n");
        console.error(`> ${req.method} ${req.url}\n${headers}\n  ${await request.clone().text()}`);
      }
      const response = await handler.fetch(request);
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
  httpServer.listen(0, "127.0.0.1", () => {
    const { port } = httpServer.address();
    process.stdout.write(`listening http://127.0.0.1:${port}/mcp\n`);
  });
  process.on("SIGTERM", () => {
    handler.close().finally(() => httpServer.close(() => process.exit(0)));
    httpServer.closeAllConnections();
  });
}

// webRequest reads a node:http request into a Fetch API Request whose
// signal aborts when the client goes away, which ends a streaming reply.
async function webRequest(req, res) {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const gone = new AbortController();
  res.on("close", () => gone.abort());
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(new URL(req.url, `http://${req.headers.host}`), {
    method: req.method,
    headers,
    body: hasBody ? Buffer.concat(chunks) : undefined,
    signal: gone.signal,
  });
}
