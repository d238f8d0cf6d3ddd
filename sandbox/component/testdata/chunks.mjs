// murmur:text/chunks for the Node reference run: chunks are kept in
// globalThis.chunks (murmur's host drops them outside an A2A task).
globalThis.chunks = [];
export function emitChunk(chunk) { globalThis.chunks.push(chunk); }
export function emitThinkingChunk(chunk) { globalThis.chunks.push(chunk); }
