// The program under test: asks Claude Code, through the Claude Agent SDK, for a summary.
import { query } from "@anthropic-ai/claude-agent-sdk";

export interface Agent {
  /** The `claude` executable to run. */
  claude: string;
  /** The environment to run it with. */
  env: Record<string, string>;
  /** Stops the run from outside. */
  signal?: AbortSignal;
  /** Give up when the agent is silent this long (ms). */
  idle?: number;
}

/** The agent's answer; throws when the agent fails, or is silent for `idle` ms. */
export async function summarize(prompt: string, agent: Agent): Promise<string> {
  const abortController = new AbortController();
  agent.signal?.addEventListener("abort", () => abortController.abort());
  let timer: NodeJS.Timeout | undefined;
  const silent = () => {
    clearTimeout(timer);
    timer = setTimeout(() => abortController.abort(), agent.idle ?? 5_000);
  };
  silent();
  try {
    const messages = query({
      prompt,
      options: { pathToClaudeCodeExecutable: agent.claude, env: agent.env, abortController, maxTurns: 3 },
    });
    for await (const message of messages) {
      silent();
      if (message.type === "result") {
        if (message.subtype !== "success" || message.is_error) {
          throw new Error(`the agent failed: ${message.subtype}`);
        }
        return message.result;
      }
    }
    throw new Error("the agent ended without a result");
  } catch (error) {
    if (abortController.signal.aborted) {
      throw new Error("the agent did not answer in time", { cause: error });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
