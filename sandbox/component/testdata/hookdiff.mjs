// Runs a hook component transpiled by jco on Node with preview2-shim, the
// reference the Go host is compared with: node hookdiff.mjs <dir>/<name>.js
// reads one JSON call per line on stdin, {"fn": "<lifecycle function>",
// "event": {<record, kebab-case fields>}}, makes the calls in order on one
// instance and prints one JSON line per call: {"arm", "text"?, "pairs"?},
// {"err": "<text>"} for the hook's err, or {"trap": true}.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [, , module] = process.argv;
const hook = await import(pathToFileURL(module).href);
const lifecycle = hook.lifecycle ?? hook['murmur:hook/lifecycle@0.5.0'];
const u64 = new Set(['input-bytes', 'input-tokens', 'output-tokens', 'output-bytes', 'duration-ms', 'stdout-bytes',
  'stderr-bytes', 'session-tokens', 'total-input-tokens', 'total-output-tokens']);
const camel = (s) => s.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
const record = (ev) => Object.fromEntries(Object.entries(ev).map(([k, v]) =>
  [camel(k), u64.has(k) ? BigInt(v) : v === null ? undefined : v]));
const results = [];
for (const line of readFileSync(0, 'utf8').split('\n').filter((l) => l !== '')) {
  const { fn, event } = JSON.parse(line);
  try {
    const out = lifecycle[camel(fn)](record(event));
    const r = { arm: out.tag };
    if (typeof out.val === 'string') r.text = out.val;
    if (Array.isArray(out.val)) r.pairs = out.val.map((m) => [m.role ?? m.binaryName, m.content]);
    results.push(r);
  } catch (e) {
    results.push(e && e.payload !== undefined ? { err: e.payload } : { trap: true });
  }
}
for (const r of results) process.stdout.write('\u0001' + JSON.stringify(r) + '\n');
