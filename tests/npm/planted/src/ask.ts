// A planted bug in the program under test (tests/npm.rs): an ACP client (Agent Client Protocol, through its SDK) that
// runs one turn with `cursor-agent acp`.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

import * as acp from "@agentclientprotocol/sdk";

export interface Agent {
  /** The `cursor-agent` executable to run (as `cursor-agent acp`). */
  command: string;
  /** The environment to run it with. */
  env: Record<string, string>;
  /** Stops the run from outside. */
  signal?: AbortSignal;
  /** Give up after this long (ms). */
  timeout?: number;
}

/** The agent's answer to one prompt; throws when the turn does not end well. */
export async function ask(prompt: string, agent: Agent): Promise<string> {
  const child = spawn(agent.command, ["acp"], { env: agent.env, stdio: ["pipe", "pipe", "ignore"] });
  child.stdin.on("error", () => {}); // a closed pipe: the agent's end, which the turn sees
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  const app = acp.client().onRequest("session/request_permission", ({ params }) => {
    const option = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
    return { outcome: option ? { outcome: "selected", optionId: option.optionId } : { outcome: "cancelled" } };
  });
  const turn = app.connectWith(stream, async (cx) => {
    await cx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    return cx.buildSession(process.cwd()).withSession(async (session) => {
      const [response, text] = await Promise.all([session.prompt(prompt), session.readText()]);
      // PLANTED BUG: whatever ended the turn (a refusal, the token limit), it is taken for done.
      void response;
      return text;
    });
  });
  const stop = new AbortController();
  const given = AbortSignal.any([AbortSignal.timeout(agent.timeout ?? 5_000), stop.signal, ...(agent.signal ? [agent.signal] : [])]);
  const late = new Promise<never>((_, reject) => {
    given.addEventListener("abort", () => reject(new Error("the agent did not end the turn in time")), { once: true });
  });
  let ended = false;
  try {
    const text = await Promise.race([turn, late]);
    ended = true;
    return text;
  } finally {
    stop.abort();
    // The agent is never left running: after a turn that ended, it is given its end of
    // input and a moment to exit; after one that did not, it is stopped at once.
    const exited = new Promise((resolve) => child.once("exit", resolve));
    if (child.exitCode === null && child.signalCode === null) {
      if (!ended) child.kill();
      child.stdin.end();
      const grace = setTimeout(() => child.kill(), 2_000);
      await exited;
      clearTimeout(grace);
    }
  }
}
