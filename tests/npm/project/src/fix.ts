// The program under test: asks Codex, through the Codex SDK, to fix a bug.
import { Codex } from "@openai/codex-sdk";

export interface Agent {
  /** The `codex` executable to run. */
  codex: string;
  /** The environment to run it with. */
  env: Record<string, string>;
  /** Stops the run from outside. */
  signal?: AbortSignal;
  /** Give up after this long (ms). */
  timeout?: number;
}

/** Codex's final answer; throws when the turn fails, or takes longer than `timeout` ms. */
export async function fix(prompt: string, agent: Agent): Promise<string> {
  const codex = new Codex({ codexPathOverride: agent.codex, env: agent.env });
  const thread = codex.startThread({ skipGitRepoCheck: true });
  const signals = [AbortSignal.timeout(agent.timeout ?? 8_000), ...(agent.signal ? [agent.signal] : [])];
  const turn = await thread.run(prompt, { signal: AbortSignal.any(signals) });
  return turn.finalResponse;
}
