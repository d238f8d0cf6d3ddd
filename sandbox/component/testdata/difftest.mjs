// Runs a tool component transpiled by jco on Node with preview2-shim, the
// reference the Go host is compared with: node difftest.mjs <dir>/<name>.js <preopen>
// reads one JSON input per line on stdin (a string or null) and prints one
// JSON line per input: the tool-result, or {"trap": true} if the call threw.
import { _setPreopens } from '@bytecodealliance/preview2-shim/filesystem';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [, , module, preopen] = process.argv;
_setPreopens({ '.': preopen });
const tool = await import(pathToFileURL(module).href);
const lines = readFileSync(0, 'utf8').split('\n').filter((l) => l !== '');
const results = [];
for (const line of lines) {
  const data = JSON.parse(line);
  try {
    const r = tool.run.run({ data: data ?? undefined, logPath: undefined });
    results.push({
      status: r.status,
      summary: r.summary ?? null,
      data: r.data ?? null,
      dataPath: r.dataPath ?? null,
      truncated: r.truncated,
      metadata: r.metadata,
    });
  } catch (e) {
    results.push({ trap: true });
  }
}
process.stderr.write('');
console.error = () => {};
for (const r of results) process.stdout.write('\u0001' + JSON.stringify(r) + '\n');
