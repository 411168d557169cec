// One line per message of the TypeScript Claude Agent SDK, the same lines as
// ../sdk-py/summary.py writes for the Python SDK's messages (so a test can compare the
// two SDKs' view of one mock session). Nothing that differs between runs (ids, uuids,
// timings, costs) is printed.

const text = (s) => JSON.stringify(s);

function blocks(who, content) {
  if (typeof content === "string") return [`${who} text ${text(content)}`];
  return content.map((block) => {
    switch (block.type) {
      case "text":
        return `${who} text ${text(block.text)}`;
      case "thinking":
        return `${who} thinking`;
      case "tool_use":
        return `${who} tool_use ${block.name}`;
      case "tool_result":
        return `${who} tool_result is_error=${Boolean(block.is_error)}`;
      default:
        return `${who} ${block.type}`;
    }
  });
}

/** The summary lines of one message the SDK yielded. */
export function lines(message) {
  switch (message.type) {
    case "system":
      return [`system ${message.subtype}`];
    case "assistant":
      return blocks("assistant", message.message.content);
    case "user":
      return blocks("user", message.message.content);
    case "result": {
      const denied = (message.permission_denials ?? []).map((d) => d.tool_name ?? "?").join(",");
      const said = message.result ?? (message.errors ?? []).join("; ");
      return [
        `result ${message.subtype} is_error=${message.is_error} ` +
          `num_turns=${message.num_turns} denied=[${denied}] ${text(said)}`,
      ];
    }
    default:
      return [`other ${message.type}`];
  }
}

export function show(message) {
  for (const line of lines(message)) console.log(line);
}

/** Ends the program with `timeout` and exit 3 after `seconds` (a hang fails, never sticks). */
export function deadline(seconds = Number(process.env.SDK_TIMEOUT ?? 20)) {
  const timer = setTimeout(() => {
    console.log("timeout");
    process.exit(3);
  }, seconds * 1000);
  return () => clearTimeout(timer);
}
