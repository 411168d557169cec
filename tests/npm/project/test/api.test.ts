// The API of the mock-agent package as installed from its tarballs (tests/npm.rs): the
// agent of a test, its settings, its journal, the matrix, the verdicts, the launcher.
// The tests of one agent not reaching the next run in file order.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { Case, MockAgentError, RECORD_MODES, binary, cases, dialects, realVariable, startAgent } from "@mock-agent/mock-agent";
import { expect, test, type MockAgent } from "@mock-agent/mock-agent/vitest";

const seen: MockAgent[] = [];

test("the fixture gives a test an agent answering to every dialect's executables", async ({ mockAgent }) => {
  seen.push(mockAgent);
  const names = dialects().map((d) => d.name);
  expect(names.slice(0, 4)).toEqual(["cursor-print", "cursor-acp", "claude", "codex"]);
  for (const program of dialects().flatMap((d) => d.programs)) {
    expect(path.dirname(mockAgent.bin(program))).toBe(mockAgent.binDir);
    expect(realpathSync(mockAgent.bin(program))).toBe(realpathSync(binary()));
  }
  expect(mockAgent.env.PATH.split(path.delimiter)[0]).toBe(mockAgent.binDir);
  expect(mockAgent.settings).toEqual({ MOCK_AGENT_JOURNAL: mockAgent.journalPath });
  // The default dialect's executable, then another's, found on the agent's PATH.
  expect(mockAgent.bin()).toBe(mockAgent.bin("cursor-agent"));
  const done = await mockAgent.run(["claude", "-p", "hi", "--output-format", "json"]);
  expect(done.exitCode, done.stderr).toBe(0);
  expect(JSON.parse(done.stdout).type).toBe("result");
  const [entry] = mockAgent.journal();
  expect(entry.argv).toEqual(["-p", "hi", "--output-format", "json"]);
  expect(entry.exit).toEqual({ code: 0 });
  expect(() => mockAgent.bin("gemini-pro")).toThrow(/no executable `gemini-pro`/);
});

test("the next test gets an agent of its own, and the last one is gone", ({ mockAgent }) => {
  expect(seen).toHaveLength(1);
  expect(seen[0]).not.toBe(mockAgent);
  expect(existsSync(seen[0].directory)).toBe(false);
  expect(mockAgent.journal()).toEqual([]);
  expect(process.env.MOCK_AGENT_JOURNAL).toBeUndefined();
});

test("use() says what the agent does; what it does not name is the default, but the dialect stays", async ({ mockAgent }) => {
  const cassette = path.resolve("cassettes/shell-command.cassette");
  mockAgent.use({ dialect: "cursor-print", cassette, timing: "fixed=1", seed: 7, settings: { account: "a@b.c" } });
  expect(mockAgent.settings).toEqual({
    MOCK_AGENT_CASSETTE: cassette,
    MOCK_AGENT_TIMING: "fixed=1",
    MOCK_AGENT_SEED: "7",
    MOCK_AGENT_ACCOUNT: "a@b.c",
    MOCK_AGENT_JOURNAL: mockAgent.journalPath,
  });
  const replayed = await mockAgent.run(["cursor-agent", "-p", "--output-format", "json", "fix it"]);
  expect(replayed.exitCode, replayed.stderr).toBe(0);
  expect(mockAgent.journal().at(-1)?.source).toBe(cassette);
  mockAgent.use({ dialect: "claude", faults: ["exit:code=3"] });
  expect(mockAgent.env.MOCK_AGENT_CASSETTE).toBeUndefined();
  expect(mockAgent.env.MOCK_AGENT_FAULTS).toBe("exit:code=3");
  mockAgent.use({ timing: "instant" });
  expect(mockAgent.dialect).toBe("claude");
  expect(mockAgent.bin()).toBe(mockAgent.bin("claude"));
  expect(mockAgent.env.MOCK_AGENT_FAULTS).toBeUndefined();
  // What is wrong is said, and changes nothing.
  expect(() => mockAgent.use({ cassette: "cassettes/nope.cassette" })).toThrow(/no such file/);
  expect(() => mockAgent.use({ dialect: "gemini-pro" })).toThrow(/no dialect "gemini-pro"/);
  expect(() => mockAgent.use({ record: "once" })).toThrow(/needs a cassette or a library/);
  expect(() => mockAgent.use({ library: "lib", record: "twice" as "once" })).toThrow(/none of none, once/);
  expect(() => mockAgent.use({ casette: cassette } as object)).toThrow(/no option "casette"/);
  const [claudeCase] = cases({ dialect: "claude", filter: "default/clean" });
  expect(() => mockAgent.use({ dialect: "codex", case: claudeCase })).toThrow(/is of the dialect claude/);
  expect(mockAgent.settings).toEqual({ MOCK_AGENT_TIMING: "instant", MOCK_AGENT_JOURNAL: mockAgent.journalPath });
  expect(RECORD_MODES).toContain("new_episodes");
});

test("the listed cases are the matrix of mock-agent test", () => {
  const found = cases();
  expect(found).toHaveLength(40);
  expect(new Set(found.map((c) => c.name)).size).toBe(40);
  const eof = found.find((c) => c.name === "default/eof@mid-line");
  expect(eof?.env).toEqual({ MOCK_AGENT_FAULTS: "eof:after=3,byte=10" });
  expect(eof?.succeeds).toBe(false);
  expect(eof?.answer).toBeNull();
  expect(cases({ acp: true, filter: "crash" })).toHaveLength(3);
  const shell = path.resolve("cassettes/shell-command.cassette");
  const [given] = cases({ faults: ["quota"], default: false, cassettes: [shell] });
  expect(given.name).toBe("shell-command/given");
  expect(given.env).toEqual({ MOCK_AGENT_CASSETTE: shell, MOCK_AGENT_FAULTS: "quota" });
  const claude = cases({ dialect: "claude", filter: "clean" });
  expect(claude.map(String)).toEqual(["default/clean"]);
  expect(claude[0]).toBeInstanceOf(Case);
  expect(claude[0].dialect).toBe("claude");
  expect(JSON.parse(claude[0].record()).answer).toBe(claude[0].answer);
  expect(() => cases({ faults: ["no-such-fault"] })).toThrow(MockAgentError);
});

test("a run is judged by mock-agent judge, whichever way it ended", async ({ mockAgent }) => {
  const [kill] = cases({ filter: "default/signal-kill@mid-stream" });
  // A program killed by a signal, one that never ended, one that exited.
  expect(await kill.broken({ signal: "SIGKILL" })).toEqual(["no-crash"]);
  expect((await kill.judge({ timedOut: 3 })).broken.map((p) => p.name)).toContain("ends");
  expect(await kill.broken({ exitCode: 1, stderr: "error: the agent failed" })).toEqual([]);
  expect(await kill.broken({ exitCode: 0 })).toEqual(["reports-failure"]);
  await expect(kill.judge({ stdout: "" })).rejects.toThrow(/no exitCode, signal or timedOut/);
  await expect(mockAgent.judge({ exitCode: 0 })).rejects.toThrow(/needs the case/);
  // A raw JSON line printed as the answer: the answer's words are in stdout, but its
  // user reads no answer.
  const [clean] = cases({ filter: "default/clean" });
  mockAgent.use({ case: clean });
  const raw = await mockAgent.run(["cursor-agent", "-p", "--output-format", "json", "hi"]);
  expect(raw.stdout).toContain(clean.answer);
  const verdict = await mockAgent.judge(raw);
  expect(verdict.case).toBe("default/clean");
  expect(verdict.broken.map((p) => p.name)).toEqual(["reports-success"]);
  expect(await mockAgent.broken(raw, { off: ["reports-success"] })).toEqual([]);
  // Judged with the agent's journal: it read the agent's stdout to its end.
  expect(verdict.held).toContain("reads-to-end");
});

test("call() runs a program of this process as a run judge reads", async ({ mockAgent }) => {
  expect(await mockAgent.call(async () => "the answer")).toMatchObject({ exitCode: 0, stdout: "the answer" });
  expect(await mockAgent.call(() => ({ ok: 1 }))).toMatchObject({ exitCode: 0, stdout: '{"ok":1}' });
  expect(await mockAgent.call(() => Promise.reject(new Error("no agent")))).toMatchObject({
    exitCode: 1,
    stderr: "Error: no agent",
  });
  let aborted = false;
  const late = await mockAgent.call(
    (signal) =>
      new Promise((resolve) => {
        signal.addEventListener("abort", () => {
          aborted = true;
          resolve("too late");
        });
      }),
    { timeout: 50 },
  );
  expect(late).toMatchObject({ exitCode: null, timedOut: 0.05 });
  expect(aborted).toBe(true);
});

test("the record modes replay from a library, and record into it with the real CLI", async () => {
  const library = mkdtempSync(path.join(os.tmpdir(), "mock-agent-library-"));
  // The "real" CLI: the mock itself, which gets no MOCK_AGENT_* setting from the shim.
  const recorder = startAgent({ library, record: "once", real: binary() });
  // A later test run's agent: replays only (`none`, the default), never the real CLI.
  const replayer = startAgent({ library, real: "/bin/false" });
  try {
    expect(recorder.record).toBe("once");
    const recorded = await recorder.run(["cursor-agent", "-p", "--output-format", "json", "fix the bug"]);
    expect(recorded.exitCode, recorded.stderr).toBe(0);
    const files = readdirSync(library).filter((f) => f.endsWith(".cassette"));
    expect(files).toHaveLength(1);
    expect(replayer.record).toBe("none");
    const replayed = await replayer.run(["cursor-agent", "-p", "--output-format", "json", "fix the bug"]);
    expect(replayed.exitCode, replayed.stderr).toBe(0);
    expect(replayer.journal().at(-1)?.source).toBe(path.join(library, files[0]));
  } finally {
    recorder.close();
    replayer.close();
  }
  expect(existsSync(recorder.directory)).toBe(false);
});

/** "Real" CLIs that are the mock under each program's name: run by `mock-agent record` with none of the agent's settings, each plays its dialect's default session. */
function standInReals(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mock-agent-reals-"));
  for (const program of ["claude", "codex", "gemini"]) symlinkSync(binary(), path.join(dir, program));
  return dir;
}

test("one cassette of any dialect is recorded once, then replayed without the real CLI", async ({ mockAgent }) => {
  const reals = standInReals();
  const cassette = path.join(mkdtempSync(path.join(os.tmpdir(), "mock-agent-one-")), "ask.cassette");
  // A run in json is printed, not streamed: only stream-json recordings replay.
  const argv = ["claude", "-p", "hi", "--output-format", "stream-json", "--verbose"];
  const result = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1) ?? "").result;
  mockAgent.use({ dialect: "claude", cassette, record: "once", real: path.join(reals, "claude") });
  expect([mockAgent.record, mockAgent.cassette]).toEqual(["once", cassette]);
  const recorded = await mockAgent.run(argv);
  expect(recorded.exitCode, recorded.stderr).toBe(0);
  expect(mockAgent.journal()).toEqual([]); // the real CLI ran
  expect(JSON.parse(readFileSync(cassette, "utf8").split("\n")[0]).invocation.dialect).toBe("claude");
  mockAgent.use({ dialect: "claude", cassette, record: "once", real: "/nonexistent/claude" });
  const replayed = await mockAgent.run(argv);
  expect(replayed.exitCode, replayed.stderr).toBe(0);
  expect(result(replayed.stdout)).toBe(result(recorded.stdout));
  expect(mockAgent.journal().map((e) => e.source)).toEqual([cassette]);
  // all: records again, and the real CLI given cannot be run: the cassette stays as it was.
  mockAgent.use({ dialect: "claude", cassette, record: "all", real: "/nonexistent/claude" });
  const failed = await mockAgent.run(argv);
  expect(failed.exitCode).toBe(66);
  expect(failed.stderr).toMatch(/^mock-agent: .*\/nonexistent\/claude/);
  expect(existsSync(cassette)).toBe(true);
  // Without record, the mock itself again.
  mockAgent.use({ dialect: "claude" });
  expect(realpathSync(mockAgent.bin("claude"))).toBe(realpathSync(binary()));
});

test("a library keeps each run of each CLI in order, found by its variable", async () => {
  const reals = standInReals();
  const library = mkdtempSync(path.join(os.tmpdir(), "mock-agent-library-"));
  const env = { ...process.env, PATH: "/usr/bin:/bin", [realVariable("codex")]: path.join(reals, "codex") };
  expect(realVariable("cursor-agent")).toBe("MOCK_AGENT_REAL_CURSOR_AGENT");
  const recorder = startAgent({ env, library, record: "once" });
  const replayer = startAgent({ env: { PATH: "/usr/bin:/bin" }, library });
  const codex = ["codex", "exec", "--json", "fix the bug"];
  try {
    for (const _ of [1, 2]) {
      const done = await recorder.run(codex);
      expect(done.exitCode, done.stderr).toBe(0);
    }
    expect(readdirSync(path.join(library, "codex")).sort()).toEqual(["1.cassette", "2.cassette"]);
    const gemini = await recorder.run(["gemini", "-p", "hi"]);
    expect(gemini.exitCode).toBe(64);
    expect(gemini.stderr).toMatch(/set MOCK_AGENT_REAL_GEMINI=PATH/);
    for (const _ of [1, 2]) expect((await replayer.run(codex)).exitCode).toBe(0);
    expect(replayer.journal().map((e) => path.basename(String(e.source)))).toEqual(["1.cassette", "2.cassette"]);
    const missed = await replayer.run(codex);
    expect(missed.exitCode).toBe(66);
    expect(missed.stderr).toMatch(/^mock-agent: no cassette .*\/codex\/3\.cassette for run 3 of `codex` in this test \(record mode none replays only\)/);
  } finally {
    recorder.close();
    replayer.close();
  }
});

test("the launcher says which platform has no package, and what to do", async ({ mockAgent }) => {
  // The main package alone, as npm leaves it where no platform package matches.
  const lonely = mkdtempSync(path.join(os.tmpdir(), "mock-agent-lonely-"));
  const main = path.join(lonely, "node_modules", "@mock-agent", "mock-agent");
  mkdirSync(path.dirname(main), { recursive: true });
  cpSync(realpathSync("node_modules/@mock-agent/mock-agent"), main, { recursive: true });
  const env = { ...mockAgent.env };
  delete env.MOCK_AGENT_BIN;
  const done = await mockAgent.run([process.execPath, path.join(main, "bin", "mock-agent.js"), "--help"], { env });
  expect(done.exitCode).toBe(69);
  const key = `${process.platform}-${process.arch}`;
  expect(done.stderr).toContain(`mock-agent: the package @mock-agent/${key}, which holds the binary for this platform (${key}), is not installed\nhelp: `);
  expect(done.stderr).toContain("set MOCK_AGENT_BIN=target/release/mock-agent");
  const { installedBinary } = await import(path.join(main, "lib", "platform.js"));
  expect(installedBinary("aix", "ppc64").error).toMatch(/^mock-agent: no package of mock-agent for this platform, aix-ppc64 \(there are linux-x64, /);
});

test("the launcher runs the binary of this platform's package", async ({ mockAgent }) => {
  const launcher = path.resolve("node_modules/.bin/mock-agent");
  const listed = await mockAgent.run([launcher, "dialects", "--json"]);
  expect(listed.exitCode, listed.stderr).toBe(0);
  expect(listed.stdout.trim().split("\n")).toHaveLength(dialects().length);
  // It ends as the binary ends.
  mockAgent.use({ faults: "exit:code=3" });
  const failed = await mockAgent.run([launcher, "agent", "-p", "hi"]);
  expect(failed.exitCode).toBe(3);
  const none = await mockAgent.run([launcher, "dialects"], { env: { ...mockAgent.env, MOCK_AGENT_BIN: "/nonexistent" } });
  expect(none.exitCode).toBe(69);
  expect(none.stderr).toMatch(/^mock-agent: MOCK_AGENT_BIN=\/nonexistent is no executable file/);
});
