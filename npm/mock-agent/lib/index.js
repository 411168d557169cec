// mock-agent for JavaScript and TypeScript tests: the mock agent of one test (its own
// executables, `claude`, `codex`, `cursor-agent`, ..., an environment to spawn the
// program under test with, its journal), the matrix of cases `mock-agent test` runs,
// and the verdict of `mock-agent judge` on a run. Framework-free; `@mock-agent/mock-agent/vitest`
// puts it in a vitest fixture. The same API as the Python package (python/mock_agent).
//
// Nothing here changes `process.env`: a test's settings are in `agent.env` alone.
import { spawn, spawnSync } from "node:child_process";
import {
  accessSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  chmodSync,
  lstatSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";

import { installedBinary } from "./platform.js";

/** The record modes of the shim (`MOCK_AGENT_RECORD`), as VCR names them. */
export const RECORD_MODES = Object.freeze(["none", "once", "new_episodes", "all", "passthrough"]);

/** The variable that names the binary, as for the Rust harness and the Python package. */
export const BIN_VARIABLE = "MOCK_AGENT_BIN";

/** The mock cannot be found or run, or a setting of it is wrong. */
export class MockAgentError extends Error {
  constructor(message) {
    super(message);
    this.name = "MockAgentError";
  }
}

/**
 * The `mock-agent` binary: `MOCK_AGENT_BIN`, else the one the package of this platform
 * installed (`@mock-agent/linux-x64`, ...).
 */
export function binary() {
  const named = process.env[BIN_VARIABLE];
  if (named) {
    try {
      accessSync(named, constants.X_OK);
    } catch {
      throw new MockAgentError(
        `mock-agent: ${BIN_VARIABLE}=${named} is no executable file\n` +
          "help: point it at a built binary (target/debug/mock-agent), or unset it",
      );
    }
    return path.resolve(named);
  }
  const found = installedBinary();
  if (found.error) throw new MockAgentError(found.error);
  return found.path;
}

/** This process's environment without `MOCK_AGENT_*`: the mock's own commands get none of a test's settings. */
function withoutSettings(base = process.env) {
  return Object.fromEntries(Object.entries(base).filter(([name, value]) => !name.startsWith("MOCK_AGENT_") && value !== undefined));
}

/** Runs one of the mock's own commands to its end; its stdout, or a MockAgentError with its stderr. */
function command(argv, ok = [0]) {
  const done = spawnSync(argv[0], argv.slice(1), {
    env: withoutSettings(),
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  if (done.error) throw new MockAgentError(`mock-agent: cannot run ${argv[0]}: ${done.error.message}`);
  if (!ok.includes(done.status)) {
    const why = done.signal ? `killed by ${done.signal}` : `exit ${done.status}`;
    throw new MockAgentError(done.stderr.trimEnd() || `mock-agent: ${argv.join(" ")}: ${why}`);
  }
  return done.stdout;
}

/** Each line of a command's output, parsed. */
function jsonLines(text, what) {
  return text
    .split("\n")
    .filter((line) => line.trim())
    .map((line, index) => {
      try {
        return JSON.parse(line);
      } catch (error) {
        throw new MockAgentError(`mock-agent: ${what}, line ${index + 1}: not JSON (${error.message}): ${line.slice(0, 200)}`);
      }
    });
}

/** A dialect the mock stands in for, as `mock-agent dialects --json` lists it. */
export class Dialect {
  constructor(fields) {
    /** What `--dialect` (and `dialect`) takes, e.g. `claude`. */
    this.name = fields.name;
    /** What it is, in a few words. */
    this.title = fields.title;
    /** The executables it answers to (`claude`; `cursor-agent` and `agent`). */
    this.programs = Object.freeze([...fields.programs]);
    /** Whether the agent reads the client's messages. */
    this.conversation = Boolean(fields.conversation);
    /** The word of `mock-agent WORD ARGS` that runs its CLI (`claude`, `agent`). */
    this.word = fields.word;
    Object.freeze(this);
  }
}

const DIALECTS = new Map();

/** The dialects the `mock-agent` binary stands in for (`mock-agent dialects --json`), asked once per binary. */
export function dialects({ binary: mock } = {}) {
  const file = mock ?? binary();
  if (!DIALECTS.has(file)) {
    const listed = jsonLines(command([file, "dialects", "--json"]), `${file} dialects --json`);
    DIALECTS.set(file, Object.freeze(listed.map((fields) => new Dialect(fields))));
  }
  return DIALECTS.get(file);
}

/**
 * How a run of the program under test ended, as `judge` reads it: `exitCode` (or
 * `signal`, e.g. `SIGKILL`, or `timedOut`, the seconds it had before it was stopped),
 * and what it printed (`stdout`, `stderr`: what its user reads).
 */
function endArgs(outcome) {
  if (outcome == null || typeof outcome !== "object") {
    throw new MockAgentError("mock-agent: judge(outcome): give how the run ended: { exitCode, stdout, stderr }, { signal }, or { timedOut }");
  }
  if (outcome.timedOut != null && outcome.timedOut !== false) {
    return ["--timed-out", String(Number(outcome.timedOut))];
  }
  if (outcome.signal) return ["--signal", String(outcome.signal)];
  if (Number.isInteger(outcome.exitCode)) return ["--exit", String(outcome.exitCode)];
  throw new MockAgentError(
    "mock-agent: judge(outcome): the outcome has no exitCode, signal or timedOut\n" +
      "help: give { exitCode: 0, stdout, stderr } (agent.run() and agent.call() return one)",
  );
}

function judgeRun(caseRecord, outcome, { journal, binary: mock, off = [] } = {}) {
  const end = endArgs(outcome);
  const scratch = mkdtempSync(path.join(os.tmpdir(), "mock-agent-judge-"));
  try {
    // The case in a file: a case's answer can be longer than a command line may be.
    const caseFile = path.join(scratch, "case.json");
    writeFileSync(caseFile, caseRecord);
    const argv = [mock ?? binary(), "judge", "--case-file", caseFile, ...end, "--json"];
    for (const name of ["stdout", "stderr"]) {
      const file = path.join(scratch, name);
      const text = outcome[name] ?? "";
      writeFileSync(file, typeof text === "string" ? text : Buffer.from(text));
      argv.push(`--${name}`, file);
    }
    if (journal != null) argv.push("--journal", path.resolve(String(journal)));
    for (const property of off) argv.push("--off", property);
    return JSON.parse(command(argv, [0, 100]));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * One case of the matrix (`mock-agent cases --json`): what the agent plays, and what a
 * correct program concludes from it.
 */
export class Case {
  constructor(fields) {
    /** The stable name, e.g. `default/eof@mid-line`: the test's name. */
    this.name = fields.name;
    /** The dialect, e.g. `claude`, `codex`, `cursor-print`, `cursor-acp`. */
    this.dialect = fields.dialect;
    /** The output format the program is to use. */
    this.format = fields.format;
    /** The faults, `;`-separated as in `MOCK_AGENT_FAULTS`; empty for none. */
    this.faults = fields.faults;
    /** The `MOCK_AGENT_*` settings that play the case. */
    this.env = Object.freeze({ ...fields.env });
    /** What a correct program concludes: whether the agent succeeded. */
    this.succeeds = Boolean(fields.succeeds);
    /** The answer when the run succeeds, else null. */
    this.answer = fields.answer ?? null;
    /** The assistant's text segments in order, when the run succeeds. */
    this.segments = Object.freeze([...(fields.segments ?? [])]);
    Object.freeze(this);
  }

  /** The case as the line `mock-agent cases --json` printed for it. */
  record() {
    const { name, dialect, format, faults, env, succeeds, answer, segments } = this;
    return JSON.stringify({ name, dialect, format, faults, env, succeeds, answer, segments });
  }

  /** The case's name (a test's title, `${case}`). */
  toString() {
    return this.name;
  }

  /**
   * The verdict of `mock-agent judge` on a run of a program in this case: each property
   * as `mock-agent test` judges it, by the same code. `journal`: the agent's journal of
   * the run, without which `reads-to-end` and `answers-requests` are not judged;
   * `off`: properties not to judge. `no-leftover` never is (only `mock-agent test`
   * sees the processes a program leaves running).
   */
  async judge(outcome, options = {}) {
    return judgeRun(this.record(), outcome, options);
  }

  /** The names of the properties the run broke in this case (`[]`: it held every one judged). */
  async broken(outcome, options = {}) {
    return (await this.judge(outcome, options)).broken.map((entry) => entry.name);
  }
}

/**
 * The cases of the matrix, as `mock-agent test` runs them (`mock-agent cases`): every
 * source (the default session unless `default: false`, each cassette of `cassettes`,
 * files or directories, generated sessions `0..generated`) with each fault of the
 * matrix, or with `faults` only; `filter` keeps the cases whose name contains it.
 * `dialect` names the dialect of the matrix (`acp: true` is short for `cursor-acp`).
 */
export function cases(options = {}) {
  const {
    cassettes = [],
    acp = false,
    dialect,
    generated = 0,
    default: withDefault = true,
    formats = [],
    faults = [],
    filter,
    binary: mock,
  } = options;
  const argv = [mock ?? binary(), "cases", "--json"];
  for (const file of cassettes) argv.push("--cassettes", path.resolve(String(file)));
  if (acp) argv.push("--acp");
  if (dialect != null) argv.push("--dialect", dialect);
  if (generated) argv.push("--generated", String(Math.trunc(generated)));
  if (!withDefault) argv.push("--no-default");
  for (const format of formats) argv.push("--format", format);
  for (const spec of faults) argv.push("--fault", spec);
  if (filter != null) argv.push("--filter", filter);
  return jsonLines(command(argv), "mock-agent cases --json").map((fields) => new Case(fields));
}

/** The first executable named `program` on a PATH, if any. */
function which(program, searchPath) {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, program);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/** The file name of an executable on this platform. */
function executable(program) {
  return process.platform === "win32" ? `${program}.exe` : program;
}

/**
 * What a run does under a record mode (as the Python package's recording.py):
 * `replay`, `record`, `missing` (record when its cassette is not there yet) or
 * `passthrough`. In a library (`folder`), `once` records only into a folder with no
 * cassette yet, as VCR's `once`.
 */
function recordPolicy(mode, folder) {
  if (mode === "once" && folder != null) {
    let names = [];
    try {
      names = readdirSync(folder);
    } catch {
      // no folder yet: nothing recorded
    }
    return names.some((name) => name.endsWith(".cassette")) ? "replay" : "record";
  }
  return { none: "replay", once: "missing", new_episodes: "missing", all: "record", passthrough: "passthrough" }[mode];
}

/** The variable that names the real CLI of a program: `MOCK_AGENT_REAL_CLAUDE`. */
export function realVariable(program) {
  return `MOCK_AGENT_REAL_${program.replace(/[^A-Za-z0-9]/g, "_").toUpperCase()}`;
}

function checkMode(mode) {
  if (!RECORD_MODES.includes(mode)) {
    throw new MockAgentError(
      `mock-agent: record mode ${JSON.stringify(mode)} is none of ${RECORD_MODES.join(", ")}\n` +
        "help: `none` replays only; `once` records what the library lacks",
    );
  }
  return mode;
}

const SCRIPTS = new Map();

/**
 * The body of the script that records or replays a program's runs, as the binary gives
 * it (`mock-agent record --script`, as to the Python package), asked once per binary.
 */
function recordScript(mock) {
  if (!SCRIPTS.has(mock)) {
    let body = "";
    let why = "it printed nothing";
    try {
      body = command([mock, "record", "--script"]);
    } catch (error) {
      why = String(error.message).split("\n")[0];
    }
    if (!body.trim()) {
      throw new MockAgentError(
        `mock-agent: ${mock} gives no script to record or replay a program's runs (\`mock-agent record --script\`: ${why})\n` +
          `help: this package needs a mock-agent binary of its own release: install it again, or point ${BIN_VARIABLE} at a newer one`,
      );
    }
    SCRIPTS.set(mock, body);
  }
  return SCRIPTS.get(mock);
}

/**
 * Makes the agent's executable `program` the script that replays its runs from
 * cassettes or records them with `mock-agent record -- REAL ARGS` (the binary's
 * `mock-agent record --script`, `settings.mock`), in place of the link to the mock.
 */
function writeRecordScript(binDir, program, settings) {
  if (process.platform === "win32") {
    throw new MockAgentError(
      "mock-agent: the record modes of use() run a POSIX shell script, and there is none on Windows\n" +
        "help: record with `mock-agent record --out FILE -- REAL ARGS` and replay with use({ cassette })",
    );
  }
  const state = mkdtempSync(path.join(path.dirname(binDir), `runs-${program}-`));
  const quote = (text) => `'${String(text).replace(/'/g, "'\\''")}'`;
  const values = { ...settings, program, state, bindir: binDir, variable: realVariable(program) };
  const header = ["program", "word", "mock", "real", "policy", "mode", "cassette", "folder", "state", "bindir", "variable"]
    .map((name) => `${name}=${quote(values[name] ?? "")}\n`)
    .join("");
  const body = recordScript(settings.mock);
  const scratch = path.join(binDir, `.${program}.new`);
  writeFileSync(scratch, `#!/bin/sh\n# mock-agent: ${program}, recorded or replayed\n${header}${body}`);
  chmodSync(scratch, 0o755);
  renameSync(scratch, path.join(binDir, program));
}

/** Makes the agent's executable `program` the mock itself: a link, else (where links need rights, as on Windows) a copy. */
function linkMock(binDir, program, mock) {
  const link = path.join(binDir, executable(program));
  try {
    if (lstatSync(link).isSymbolicLink()) return;
    rmSync(link, { force: true });
  } catch {
    // not there yet
  }
  try {
    symlinkSync(mock, link);
  } catch {
    copyFileSync(mock, link);
  }
}

function settingName(key) {
  return key.startsWith("MOCK_AGENT_") ? key : `MOCK_AGENT_${key.replace(/\W/g, "_").replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()}`;
}

/**
 * The agent of one test. `env` is the environment to spawn the program under test with:
 * `PATH` starts with a folder of its own where the mock answers to every executable of
 * every dialect it stands in for (`cursor-agent`, `agent`, `claude`, `codex`, ...), and
 * the `MOCK_AGENT_*` settings are this agent's alone. `bin(program)` gives one's path,
 * for a program that takes it (`pathToClaudeCodeExecutable`, `codexPathOverride`).
 */
export class MockAgent {
  constructor({ directory, binary: mock, env } = {}) {
    this.owned = directory == null;
    /** The agent's folder: its executables (`bin/`) and its journal. */
    this.directory = path.resolve(directory ?? mkdtempSync(path.join(os.tmpdir(), "mock-agent-")));
    /** The `mock-agent` binary. */
    this.binary = mock ?? binary();
    /** The folder of the executables, first on `env.PATH`. */
    this.binDir = path.join(this.directory, "bin");
    mkdirSync(this.binDir, { recursive: true });
    /** The dialects the mock stands in for. */
    this.dialects = dialects({ binary: this.binary });
    // The mock answers as the name it is run by.
    for (const program of new Set(this.dialects.flatMap((d) => d.programs))) linkMock(this.binDir, program, this.binary);
    /** The journal: one JSON line per invocation of the agent. */
    this.journalPath = path.join(this.directory, "journal.jsonl");
    this.outside = withoutSettings(env ?? process.env);
    /** The real CLIs the environment names (`MOCK_AGENT_REAL_CLAUDE=PATH`). */
    this.namedReals = Object.fromEntries(Object.entries(env ?? process.env).filter(([name]) => name.startsWith("MOCK_AGENT_REAL_")));
    /** The `PATH` the agent was made with, without the mock's folder. */
    this.outerPath = this.outside.PATH ?? "/usr/bin:/bin";
    /** The dialect in use: `cursor-print` until `use()` names another (or a case does). */
    this.dialect = "cursor-print";
    /** The case in use (`use({ case })`), if any. */
    this.case = null;
    /** The record mode in use, if any, and its library or its one cassette. */
    this.record = null;
    this.library = null;
    this.cassette = null;
    /** The environment to spawn the program under test with. */
    this.env = {};
    this.current = {};
    this.use();
  }

  /**
   * Says what this agent does from now on; what is not named is the default (the
   * built-in default session, no fault, `instant`), but the dialect stays until another
   * is named.
   *
   * `dialect`: the CLI the program drives (`claude`, `codex`, `cursor-acp`, ...: which
   * executable `bin()` gives, and which real CLI records). `case`: a case of `cases()`
   * (its session and faults; `faults` given too are added; its dialect is the agent's).
   * `cassette`: a cassette or capture to replay. `faults`: a fault spec, or several.
   * `timing`: `MOCK_AGENT_TIMING`. `generate`: the seed of a generated session. `seed`:
   * `MOCK_AGENT_SEED`. `library`: a folder of cassettes the shim replays from and
   * records into as `record` says (a mode of `RECORD_MODES`, default `none`), running
   * `real` (default: the dialect's executable on the outer PATH) when it records.
   * `settings`: further variables, `{ account: "..." }` is `MOCK_AGENT_ACCOUNT`.
   */
  use(options = {}) {
    const { dialect, case: kase, cassette, faults, timing, generate, seed, library, record, real, settings = {} } = options;
    const known = new Set(["dialect", "case", "cassette", "faults", "timing", "generate", "seed", "library", "record", "real", "settings"]);
    const unknown = Object.keys(options).filter((key) => !known.has(key));
    if (unknown.length) {
      throw new MockAgentError(
        `mock-agent: use(): no option ${unknown.map((k) => JSON.stringify(k)).join(", ")}\n` +
          `help: the options are ${[...known].join(", ")}; other MOCK_AGENT_* variables go in settings: { ... }`,
      );
    }
    let name = dialect ?? kase?.dialect ?? this.dialect;
    if (dialect != null && kase != null && kase.dialect !== dialect) {
      throw new MockAgentError(`mock-agent: use(): the case ${kase.name} is of the dialect ${kase.dialect}, not ${dialect}\nhelp: list the cases with cases({ dialect: "${dialect}" })`);
    }
    if (!this.dialects.some((d) => d.name === name)) {
      throw new MockAgentError(
        `mock-agent: use(): no dialect ${JSON.stringify(name)}; the mock stands in for ${this.dialects.map((d) => d.name).join(", ")}`,
      );
    }
    const env = {};
    const faultList = [];
    if (kase != null) {
      Object.assign(env, kase.env);
      if (kase.faults) faultList.push(kase.faults);
    }
    const chosen = this.dialects.find((d) => d.name === name);
    let mode = record != null ? checkMode(record) : null;
    const rule = mode != null && library == null ? recordPolicy(mode, null) : null;
    if (cassette != null && (rule == null || rule === "replay")) {
      if (!existsSync(String(cassette))) {
        throw new MockAgentError(
          `mock-agent: use({ cassette: ${JSON.stringify(String(cassette))} }): no such file\n` +
            "help: give the path of a .cassette or .ndjson file, absolute or from the current folder",
        );
      }
      if (rule == null) env.MOCK_AGENT_CASSETTE = path.resolve(String(cassette));
    }
    if (typeof faults === "string") faultList.push(faults);
    else if (faults != null) faultList.push(...faults);
    const given = faultList.filter((spec) => spec.trim());
    if (given.length) env.MOCK_AGENT_FAULTS = given.join(";");
    if (timing != null) env.MOCK_AGENT_TIMING = String(timing);
    if (generate != null) env.MOCK_AGENT_GENERATE = String(Math.trunc(generate));
    if (seed != null) env.MOCK_AGENT_SEED = String(Math.trunc(seed));
    let folder = null;
    let one = null;
    const programs = new Set(this.dialects.flatMap((d) => d.programs));
    for (const program of programs) linkMock(this.binDir, program, this.binary);
    if (library != null) {
      mode = mode ?? "none";
      folder = path.resolve(String(library));
      // The default dialect's CLI: the binary's own shim, its library matched by arguments.
      const shim = this.dialects[0];
      env.MOCK_AGENT_RECORD = mode;
      env.MOCK_AGENT_LIBRARY = folder;
      const realCli = this.realOf(shim.programs[0], real, chosen.programs.join() === shim.programs.join());
      if (realCli != null) env.MOCK_AGENT_REAL = realCli;
      // Every other CLI: a folder of the library each, its runs in order.
      const done = new Set(shim.programs);
      for (const other of this.dialects) {
        for (const program of other.programs) {
          if (done.has(program)) continue;
          done.add(program);
          const programFolder = path.join(folder, program);
          writeRecordScript(this.binDir, program, {
            word: other.word,
            mock: this.binary,
            real: this.realOf(program, real, chosen.programs.includes(program)),
            policy: recordPolicy(mode, programFolder),
            mode,
            folder: programFolder,
          });
        }
      }
    } else if (mode != null) {
      if (cassette == null) {
        throw new MockAgentError(
          "mock-agent: use({ record }) needs a cassette or a library of cassettes\n" +
            "help: use({ dialect, cassette: FILE, record: \"once\" }) records the run into FILE the first time and replays it from then on; use({ library: DIR, record }) keeps every run",
        );
      }
      one = path.resolve(String(cassette));
      for (const program of chosen.programs) {
        writeRecordScript(this.binDir, program, {
          word: chosen.word,
          mock: this.binary,
          real: this.realOf(program, real, true),
          policy: rule,
          mode,
          cassette: one,
        });
      }
    }
    for (const [key, value] of Object.entries(settings)) env[settingName(key)] = String(value);
    env.MOCK_AGENT_JOURNAL = this.journalPath;
    this.dialect = name;
    this.case = kase ?? null;
    this.record = mode;
    this.library = folder;
    this.cassette = one;
    this.current = env;
    this.env = { ...this.outside, ...env, PATH: this.binDir + path.delimiter + this.outerPath };
    return this;
  }

  /** This agent's `MOCK_AGENT_*` settings. */
  get settings() {
    return { ...this.current };
  }

  /**
   * The path of the mock as `program` (`claude`, `codex`, `cursor-agent`; default: the
   * dialect's own), for a program that is given its agent's path rather than finding it
   * on `PATH`.
   */
  bin(program) {
    const name = program ?? this.dialects.find((d) => d.name === this.dialect).programs[0];
    const link = path.join(this.binDir, executable(name));
    const programs = new Set(this.dialects.flatMap((d) => d.programs));
    if (!programs.has(name) || !existsSync(link)) {
      const names = [...programs].sort().join(", ");
      throw new MockAgentError(`mock-agent: no executable \`${name}\`; the mock answers to ${names}`);
    }
    return link;
  }

  /**
   * The real CLI of `program` the record modes run: `given` (a path, when `ours`: the
   * program is the dialect's in use; or an object of programs and paths), else the
   * environment's `MOCK_AGENT_REAL_<PROGRAM>`, else `program` on the outer PATH.
   */
  realOf(program, given, ours) {
    if (given != null && typeof given === "object") {
      if (given[program] != null) return path.resolve(String(given[program]));
    } else if (given != null && ours) {
      return path.resolve(String(given));
    }
    const named = this.namedReals[realVariable(program)];
    if (named) return path.resolve(named);
    return which(program, this.outerPath);
  }

  /** The real CLI of a dialect on the outer PATH, if there is one. */
  findReal(dialect = this.dialect) {
    const program = this.dialects.find((d) => d.name === dialect)?.programs[0];
    return program == null ? null : which(program, this.outerPath);
  }

  /** Each invocation of the agent so far, parsed (one object per line of `MOCK_AGENT_JOURNAL`). */
  journal() {
    let text;
    try {
      text = readFileSync(this.journalPath, "utf8");
    } catch (error) {
      if (error.code === "ENOENT") return [];
      throw error;
    }
    return jsonLines(text, this.journalPath);
  }

  /**
   * Spawns the program under test with `env` (unless given), no stdin unless `input`,
   * and waits for its end, at most `timeout` ms (default 60 000; then it is killed):
   * `{ exitCode, signal, stdout, stderr, timedOut }`.
   */
  run(argv, { env = this.env, cwd, input, timeout = 60_000 } = {}) {
    const [file, ...args] = argv;
    return new Promise((resolve, reject) => {
      const child = spawn(file, args, { env, cwd, stdio: [input == null ? "ignore" : "pipe", "pipe", "pipe"] });
      const out = [];
      const err = [];
      let timedOut = null;
      const timer = setTimeout(() => {
        timedOut = timeout / 1000;
        child.kill("SIGKILL");
      }, timeout);
      child.stdout.on("data", (chunk) => out.push(chunk));
      child.stderr.on("data", (chunk) => err.push(chunk));
      if (input != null) child.stdin.end(input);
      child.on("error", (error) => {
        clearTimeout(timer);
        reject(new MockAgentError(`mock-agent: cannot run ${file}: ${error.message}`));
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        resolve({
          exitCode: code,
          signal: timedOut == null ? signal : null,
          stdout: Buffer.concat(out).toString("utf8"),
          stderr: Buffer.concat(err).toString("utf8"),
          timedOut,
        });
      });
    });
  }

  /**
   * Runs a program under test that lives in this process (an async function that drives
   * an SDK) as a run `judge` reads: what it resolves to is its stdout (a string as is,
   * anything else as JSON) and exit code 0; what it throws, its stderr and exit code 1;
   * not settled within `timeout` ms (default 60 000), a run that timed out (the
   * function's AbortSignal is aborted then, for it to stop its agent).
   */
  async call(program, { timeout = 60_000 } = {}) {
    const controller = new AbortController();
    let timer;
    const expired = new Promise((resolve) => {
      timer = setTimeout(() => {
        controller.abort(new MockAgentError(`mock-agent: the program did not end within ${timeout} ms`));
        resolve({ exitCode: null, signal: null, stdout: "", stderr: "", timedOut: timeout / 1000 });
      }, timeout);
    });
    const ran = (async () => {
      try {
        const value = await program(controller.signal);
        const stdout = value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
        return { exitCode: 0, signal: null, stdout, stderr: "", timedOut: null };
      } catch (error) {
        const stderr = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        return { exitCode: 1, signal: null, stdout: "", stderr, timedOut: null };
      }
    })();
    try {
      return await Promise.race([ran, expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The verdict of `mock-agent judge` on a run of the program under test (as `run()`
   * or `call()` returns it) in this agent's case, with this agent's journal (every run
   * of the agent so far): `case`, `expected`, `seen`, `shown`, `held`, `broken`
   * (`name`, `detail`), `unjudged` (`name`, `why`).
   */
  async judge(outcome, { off = [] } = {}) {
    if (this.case == null) {
      throw new MockAgentError(
        "mock-agent: judge() needs the case the agent plays\nhelp: use({ case }) first, or call kase.judge(...)",
      );
    }
    return this.case.judge(outcome, { journal: this.journalPath, binary: this.binary, off });
  }

  /** The names of the properties the run broke (see `judge()`): `[]` when it held every one judged. */
  async broken(outcome, options = {}) {
    return (await this.judge(outcome, options)).broken.map((entry) => entry.name);
  }

  /** Removes the agent's folder, when the agent made it. */
  close() {
    if (this.owned) rmSync(this.directory, { recursive: true, force: true });
  }
}

/** Starts an agent (`new MockAgent(...)`) and says what it does (`use(...)`): `startAgent({ dialect: "claude" })`. */
export function startAgent(options = {}) {
  const { directory, binary: mock, env, ...rest } = options;
  return new MockAgent({ directory, binary: mock, env }).use(rest);
}
