// Wraps core modules as components:
//   node build.mjs core.wasm fixtures.wit world out.wasm [reactor]
//   node build.mjs -   (one "core.wasm wit world out.wasm [reactor]" per stdin line)
// (jco embed + jco new through jco's API, which takes the WIT as text;
// "reactor" adds jco's wasi_snapshot_preview1 reactor adapter, as
// `jco new --wasi-reactor` does). The stdin form builds every fixture in
// one Node process (scripts/component-fixtures.sh).
import { componentEmbed, componentNew } from '@bytecodealliance/jco';
import { readFileSync, writeFileSync } from 'node:fs';

const reactor = () => readFileSync(new URL('./node_modules/@bytecodealliance/jco/lib/wasi_snapshot_preview1.reactor.wasm', import.meta.url));

async function build(core, wit, world, out, adapter) {
  const embedded = await componentEmbed({ binary: readFileSync(core), witSource: readFileSync(wit, 'utf8'), world });
  const adapters = adapter === 'reactor' ? [['wasi_snapshot_preview1', reactor()]] : [];
  writeFileSync(out, await componentNew(embedded, adapters));
}

const args = process.argv.slice(2);
if (args[0] === '-') {
  for (const line of readFileSync(0, 'utf8').split('\n').filter((l) => l.trim() !== '')) {
    await build(...line.trim().split(/\s+/));
  }
} else {
  await build(...args);
}
