// Bench helper: runs `swarm teammate <args>` through bin/swarm.js with Node's own fetch (undici) in
// memory, as a teammate had it before runtime/model-fetch.ts: its lazy globals read and one request
// made (to a server of its own), which compiles undici's WebAssembly HTTP parser. The "before"
// variant of runtime.ts, measured in the same run. (node-fetch is loaded on the first step as well,
// so this overstates the old cost by node-fetch's own.)
import http from 'node:http';

globalThis.Headers;
globalThis.FormData;
globalThis.Response;
const server = http.createServer((_req, res) => res.end('ok'));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
await (await fetch(`http://127.0.0.1:${server.address().port}/`)).text();
await new Promise((resolve) => server.close(resolve));
await import(new URL('../../bin/swarm.js', import.meta.url).href);
