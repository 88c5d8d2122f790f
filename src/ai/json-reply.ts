/**
 * The JSON object a model's reply holds: from its first `{` to its last `}`, so prose or a Markdown fence around it
 * (which models add however they are asked) does not lose the answer. Throws SyntaxError when there is none.
 */
export function jsonObjectIn(reply: string): unknown {
  const start = reply.indexOf('{');
  const end = reply.lastIndexOf('}');
  if (start < 0 || end < start) throw new SyntaxError('the reply holds no JSON object');
  return JSON.parse(reply.slice(start, end + 1));
}
