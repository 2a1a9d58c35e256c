// What a command of the `swarm` CLI sees of the world outside: the environment, the working
// directory and the three standard streams (`CliIo`), so the whole CLI runs in-process as well as
// in the `swarm` process. bin/swarm.js calls main() with no io: the real process (`processIo`);
// tests call main(argv, io) with their own env and streams that collect what is written.
//
// The io of the running main() call is carried by an AsyncLocalStorage (`cliIo()`), not passed as
// a parameter: yargs command modules are static values whose handlers get only the parsed argv,
// and what they print is printed from nested helpers and from callbacks that fire later (watch
// loops, follow loops). The storage gives every main() call its own io — also two calls running at
// once in one test, where a module-level "current io" would be overwritten — and keeps each
// handler's change to `process.X` → `io.X`. Outside any main() call (a unit test of a helper),
// `cliIo()` is the real process.
import { AsyncLocalStorage } from 'node:async_hooks';
import { fstatSync } from 'node:fs';

/** Where a command writes: process.stdout / process.stderr, or a test's collector. */
export interface CliOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Where a command reads: process.stdin, or a test's stream. `fd` is set only for a real descriptor. */
export type CliInput = NodeJS.ReadableStream & { readonly isTTY?: boolean; readonly fd?: number };

export interface CliIo {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly stdin: CliInput;
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
}

/** The real process's io (its env object itself, so what a command exports there its children see). */
export function processIo(): CliIo {
  return { env: process.env, cwd: process.cwd(), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}

/** One main() call: its io, its argv (after the node and script paths), and the exit status a command chose. */
export interface CliRun {
  readonly io: CliIo;
  readonly argv: readonly string[];
  exitCode: number;
}

const current = new AsyncLocalStorage<CliRun>();

/** Run `fn` (a main() call) with `run` as what cliIo()/cliRun() answer inside it. */
export function withCliRun<T>(run: CliRun, fn: () => T): T {
  return current.run(run, fn);
}

/** The running main() call; outside one, the real process. */
export function cliRun(): CliRun {
  return current.getStore() ?? { io: processIo(), argv: process.argv.slice(2), exitCode: 0 };
}

/** The io of the running main() call (the real process outside one). */
export function cliIo(): CliIo {
  return cliRun().io;
}

/**
 * Set the status the command ends with, without failing it (doctor's unhealthy machine, a resume
 * that failed for one member): the output stays as written. Outside a main() call, process.exitCode.
 */
export function setExitCode(code: number): void {
  const run = current.getStore();
  if (run === undefined) process.exitCode = code;
  else run.exitCode = code;
}

/** Standard input is /dev/null or a closed terminal: a character device that is not a terminal. */
export function stdinIsDeadDevice(stdin: CliInput): boolean {
  return stdin.isTTY !== true && stdin.fd !== undefined && fstatSync(stdin.fd).isCharacterDevice();
}
