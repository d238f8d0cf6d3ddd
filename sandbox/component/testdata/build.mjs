// Wraps a core module as a component:
//   node build.mjs core.wasm fixtures.wit world out.wasm [reactor]
// (jco embed + jco new through jco's API, which takes the WIT as text;
// "reactor" adds jco's wasi_snapshot_preview1 reactor adapter, as
// `jco new --wasi-reactor` does).
import { componentEmbed, componentNew } from '@bytecodealliance/jco';
import { readFileSync, writeFileSync } from 'node:fs';
const [, , core, wit, world, out, adapter] = process.argv;
const embedded = await componentEmbed({ binary: readFileSync(core), witSource: readFileSync(wit, 'utf8'), world });
const adapters = adapter === 'reactor'
  ? [['wasi_snapshot_preview1', readFileSync(new URL('./node_modules/@bytecodealliance/jco/lib/wasi_snapshot_preview1.reactor.wasm', import.meta.url))]]
  : [];
writeFileSync(out, await componentNew(embedded, adapters));
