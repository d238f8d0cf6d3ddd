// murmur:runtime/inference for the Node reference run of hook fixtures:
// the reply names the first message's content, as the Go test's fake does.
export function runInference(req) {
  if (req.messages.length === 0) throw 'no messages';
  return { text: 'summary of ' + req.messages[0].content, modelUsed: 'm-1', inputTokens: 7n, outputTokens: 3n };
}
