// A scripted OpenAI-compatible server for the window tests: each POST gets the next answer,
// streamed over SSE when the request asks for it. Records every request body.
import http from "node:http";

export async function startScriptedServer(script) {
  const received = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      if (req.method !== "POST") {
        res.writeHead(404).end("not found");
        return;
      }
      const request = JSON.parse(body || "{}");
      received.push(request);
      const text = script.shift();
      if (text === undefined) {
        res.writeHead(500, { "content-type": "application/json" }).end('{"error":"script exhausted"}');
        return;
      }
      const usage = { prompt_tokens: 1500, completion_tokens: 40, prompt_tokens_details: { cached_tokens: 1200 } };
      if (request.stream) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        const chunk = (delta, finish) => ({ choices: [{ index: 0, delta, finish_reason: finish }] });
        const half = Math.ceil(text.length / 2);
        for (const piece of [text.slice(0, half), text.slice(half)]) res.write(`data: ${JSON.stringify(chunk({ content: piece }, null))}\n\n`);
        res.write(`data: ${JSON.stringify(chunk({}, "stop"))}\n\n`);
        res.write(`data: ${JSON.stringify({ choices: [], usage })}\n\n`);
        res.end("data: [DONE]\n\n");
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }], usage }));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    received,
    closeAllConnections: () => server.closeAllConnections(),
    close: () => server.close(),
  };
}
