// murmur:task/task for the Node reference run: outside an A2A task the
// call fails, as in murmur's host.
export function requestInput(prompt) {
  throw new Error('request-input is not available outside an A2A task context');
}
