// Types of mock-agent's JavaScript API (lib/index.js). See docs/npm.md.

/** The record modes of the shim (`MOCK_AGENT_RECORD`), as VCR names them. */
/** The variable that names the real CLI of a program: `MOCK_AGENT_REAL_CLAUDE`. */
export declare function realVariable(program: string): string;

export declare const RECORD_MODES: readonly RecordMode[];
export type RecordMode = "none" | "once" | "new_episodes" | "all" | "passthrough";

/** The variable that names the binary: `MOCK_AGENT_BIN`. */
export declare const BIN_VARIABLE: "MOCK_AGENT_BIN";

/** The mock cannot be found or run, or a setting of it is wrong. */
export declare class MockAgentError extends Error {
  constructor(message: string);
}

/** The `mock-agent` binary: `MOCK_AGENT_BIN`, else the one this platform's package installed. */
export declare function binary(): string;

/** A dialect the mock stands in for, as `mock-agent dialects --json` lists it. */
export declare class Dialect {
  /** What `--dialect` (and `dialect`) takes, e.g. `claude`. */
  readonly name: string;
  /** What it is, in a few words. */
  readonly title: string;
  /** The executables it answers to (`claude`; `cursor-agent` and `agent`). */
  readonly programs: readonly string[];
  /** Whether the agent reads the client's messages. */
  readonly conversation: boolean;
  /** The word of `mock-agent WORD ARGS` that runs its CLI (`claude`, `agent`). */
  readonly word: string;
}

/** The dialects the binary stands in for (`mock-agent dialects --json`). */
export declare function dialects(options?: { binary?: string }): readonly Dialect[];

/**
 * How a run of the program under test ended, as `judge` reads it: its exit code (or the
 * signal that killed it, or the seconds it had before it was stopped) and what it
 * printed, as its user reads it.
 */
export interface Outcome {
  exitCode?: number | null;
  /** The signal that killed it: `SIGKILL`, `KILL` or `9`. */
  signal?: string | null;
  stdout?: string | Uint8Array;
  stderr?: string | Uint8Array;
  /** It did not end within this many seconds, and was stopped. */
  timedOut?: number | null;
}

/** A property `mock-agent test` checks: `ends`, `no-crash`, `reports-failure`, `reports-success`, `no-leftover`, `reads-to-end`, `answers-requests`, `ignores-unknown`, `valid-arguments` (only where the agent refused the command line). */
export type Property = string;

/** The verdict of `mock-agent judge --json`. */
export interface Verdict {
  /** The case's name. */
  case: string;
  /** What a correct program concludes. */
  expected: string;
  /** How this run ended. */
  seen: string;
  /** Its stdout as its user reads it (the agent's own JSON events and noise lines left out). */
  shown: string;
  /** The properties that held. */
  held: Property[];
  /** The properties it broke, and why. */
  broken: { name: Property; detail: string }[];
  /** The properties not judged, and why. */
  unjudged: { name: Property; why: string }[];
}

export interface JudgeOptions {
  /** The agent's journal of the run (`MOCK_AGENT_JOURNAL`); without it `reads-to-end` and `answers-requests` are not judged. */
  journal?: string;
  /** The `mock-agent` binary (default: `binary()`). */
  binary?: string;
  /** Properties not to judge. */
  off?: Property[];
}

/** One case of the matrix (`mock-agent cases --json`): what the agent plays, and what a correct program concludes. */
export declare class Case {
  /** The stable name, e.g. `default/eof@mid-line`. */
  readonly name: string;
  /** The dialect, e.g. `claude`, `codex`, `cursor-print`, `cursor-acp`. */
  readonly dialect: string;
  /** The output format the program is to use. */
  readonly format: string;
  /** The faults, `;`-separated as in `MOCK_AGENT_FAULTS`; empty for none. */
  readonly faults: string;
  /** The `MOCK_AGENT_*` settings that play the case. */
  readonly env: Readonly<Record<string, string>>;
  /** Whether the agent succeeds: what a correct program concludes. */
  readonly succeeds: boolean;
  /** The answer when the run succeeds, else null. */
  readonly answer: string | null;
  /** The assistant's text segments in order, when the run succeeds. */
  readonly segments: readonly string[];
  /** The line `mock-agent cases --json` printed for it. */
  record(): string;
  toString(): string;
  /** The verdict of `mock-agent judge` on a run of a program in this case. */
  judge(outcome: Outcome, options?: JudgeOptions): Promise<Verdict>;
  /** The names of the properties the run broke; `[]` when it held every one judged. */
  broken(outcome: Outcome, options?: JudgeOptions): Promise<Property[]>;
}

export interface CasesOptions {
  /** Cassettes and captures, or folders of them. */
  cassettes?: string[];
  /** Short for `dialect: "cursor-acp"`. */
  acp?: boolean;
  /** The dialect of the matrix: `cursor-print` (default), `cursor-acp`, `claude`, `codex`, ... */
  dialect?: string;
  /** Also the sessions generated from seeds `0..generated`. */
  generated?: number;
  /** `false`: leave out the built-in default session. */
  default?: boolean;
  formats?: string[];
  /** Instead of the matrix's faults, one case per source with these faults. */
  faults?: string[];
  /** Only cases whose name contains this. */
  filter?: string;
  binary?: string;
}

/** The cases of the matrix, as `mock-agent test` runs them (`mock-agent cases --json`). */
export declare function cases(options?: CasesOptions): Case[];

export interface UseOptions {
  /** The CLI the program drives (`claude`, `codex`, `cursor-acp`, `cursor-print`); stays until another is named. */
  dialect?: string;
  /** A case of `cases()`: its session and faults, and its dialect. */
  case?: Case;
  /** A cassette or capture to replay; with `record`, the cassette the dialect's run is recorded into, or replayed from. */
  cassette?: string;
  /** A fault spec, or several (`mock-agent faults` lists them). */
  faults?: string | string[];
  /** `MOCK_AGENT_TIMING`, e.g. `instant`, `realtime`, `fixed=1`. */
  timing?: string;
  /** The seed of a generated session (`MOCK_AGENT_GENERATE`). */
  generate?: number;
  /** `MOCK_AGENT_SEED`. */
  seed?: number;
  /**
   * A folder of cassettes every CLI replays from, and records into as `record` says:
   * Cursor's through the binary's shim (matched by arguments and prompt), each other
   * program's runs in order in a folder of its own (`DIR/claude/1.cassette`, ...).
   */
  library?: string;
  /** The record mode (with a library, default `none`: replay only). */
  record?: RecordMode;
  /**
   * The real CLI the record modes run: a path, the dialect's; or an object of programs
   * and paths (default: `MOCK_AGENT_REAL_<PROGRAM>`, else the program on the outer PATH).
   */
  real?: string | Record<string, string>;
  /** Further variables: `{ account: "x" }` is `MOCK_AGENT_ACCOUNT`. */
  settings?: Record<string, string | number | boolean>;
}

export interface AgentOptions {
  /** The agent's folder (default: a new temporary one, removed by `close()`). */
  directory?: string;
  /** The `mock-agent` binary (default: `binary()`). */
  binary?: string;
  /** The environment to start from (default: `process.env`), without its `MOCK_AGENT_*`. */
  env?: Record<string, string | undefined>;
}

export interface RunOptions {
  /** Default: the agent's `env`. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** What the program reads on stdin (default: nothing, stdin closed). */
  input?: string | Uint8Array;
  /** Milliseconds before it is killed (default 60 000). */
  timeout?: number;
}

/** How a run ended, as `run()` and `call()` return it. */
export interface RunOutcome extends Outcome {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: number | null;
}

/** The agent of one test. */
export declare class MockAgent {
  constructor(options?: AgentOptions);
  /** The agent's folder: its executables (`bin/`) and its journal. */
  readonly directory: string;
  /** The `mock-agent` binary. */
  readonly binary: string;
  /** The folder of the executables, first on `env.PATH`. */
  readonly binDir: string;
  /** The dialects the mock stands in for. */
  readonly dialects: readonly Dialect[];
  /** The journal: one JSON line per invocation of the agent. */
  readonly journalPath: string;
  /** The `PATH` the agent was made with, without the mock's folder. */
  readonly outerPath: string;
  /** The dialect in use. */
  readonly dialect: string;
  /** The case in use, if any. */
  readonly case: Case | null;
  /** The record mode in use, if any, and its library or its one cassette. */
  readonly record: RecordMode | null;
  readonly library: string | null;
  readonly cassette: string | null;
  /** The environment to spawn the program under test with. */
  readonly env: Record<string, string>;
  /** This agent's `MOCK_AGENT_*` settings. */
  readonly settings: Record<string, string>;
  /** Says what the agent does from now on; what is not named is the default. */
  use(options?: UseOptions): this;
  /** The path of the mock as `program` (default: the dialect's executable), e.g. for `pathToClaudeCodeExecutable`. */
  bin(program?: string): string;
  /** The real CLI of a dialect on the outer PATH, if any. */
  findReal(dialect?: string): string | null;
  /** The real CLI of `program` the record modes run (see `UseOptions.real`), if any. */
  realOf(program: string, given?: string | Record<string, string>, ours?: boolean): string | null;
  /** Each invocation of the agent so far, parsed. */
  journal(): JournalEntry[];
  /** Spawns the program under test with `env` and waits for its end. */
  run(argv: readonly string[], options?: RunOptions): Promise<RunOutcome>;
  /**
   * Runs a program under test in this process: what `program` resolves to is its stdout
   * and exit 0; what it throws, its stderr and exit 1; not settled within `timeout` ms,
   * a timed-out run (and `signal` is aborted).
   */
  call(program: (signal: AbortSignal) => unknown, options?: { timeout?: number }): Promise<RunOutcome>;
  /** The verdict of `mock-agent judge` on a run in this agent's case, with its journal. */
  judge(outcome: Outcome, options?: { off?: Property[] }): Promise<Verdict>;
  /** The names of the properties the run broke. */
  broken(outcome: Outcome, options?: { off?: Property[] }): Promise<Property[]>;
  /** Removes the agent's folder, when the agent made it. */
  close(): void;
}

/** One invocation of the agent, as the journal records it (fields may grow). */
export interface JournalEntry {
  argv: string[];
  source?: string;
  prompt?: string | null;
  faults?: { fired: boolean; [key: string]: unknown }[];
  exit?: { code?: number; signal?: string };
  [key: string]: unknown;
}

/** `new MockAgent(options).use(options)`: e.g. `startAgent({ dialect: "claude" })`. */
export declare function startAgent(options?: AgentOptions & UseOptions): MockAgent;
