// Wraps a core module as a component: node build.mjs core.wasm fixtures.wit world out.wasm
// (jco embed + jco new through jco's API, which takes the WIT as text).
import { componentEmbed, componentNew } from '@bytecodealliance/jco';
import { readFileSync, writeFileSync } from 'node:fs';
const [,, core, wit, world, out] = process.argv;
const embedded = await componentEmbed({ binary: readFileSync(core), witSource: readFileSync(wit, 'utf8'), world });
writeFileSync(out, await componentNew(embedded));
