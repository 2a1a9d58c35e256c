// Which Claude Code a `--runtime claude` spawn used: the `claude` resolved from the user's PATH
// (command-line.ts, userPathFor) and what its `--version` prints, so the spawn can say so. The
// version is asked for beside the spawn (never in its way): a `claude` that does not answer
// `--version` costs nothing, and the question is cancelled when the spawn ends either way.
import { execa } from 'execa';

export interface ClaudeUsed {
  /** The absolute path of the `claude` the pane runs. */
  path: string;
  /** Its `--version` line (`2.1.112 (Claude Code)`); undefined when it printed nothing in time. */
  version: string | undefined;
}

/** How long the version may still take once the teammate is ready. */
const AFTER_READY_MS = 2000;
const VERSION_TIMEOUT_MS = 30_000;

export interface ClaudeVersionQuestion {
  /** The answer, waiting at most AFTER_READY_MS more; the process is ended after that. */
  answer(): Promise<ClaudeUsed>;
  /** End the question now (the spawn failed). */
  cancel(): void;
}

/** Ask `file --version` now, in the background. */
export function askClaudeVersion(file: string, env: NodeJS.ProcessEnv): ClaudeVersionQuestion {
  const ac = new AbortController();
  const run = execa(file, ['--version'], { env: { ...env }, extendEnv: false, reject: false, stdin: 'ignore', timeout: VERSION_TIMEOUT_MS, cancelSignal: ac.signal });
  const line = run.then((r) => (r.exitCode === 0 ? String(r.stdout).split('\n')[0]?.trim() || undefined : undefined));
  return {
    answer: async () => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, AFTER_READY_MS, undefined)));
      const version = await Promise.race([line, late]);
      clearTimeout(timer);
      ac.abort();
      return { path: file, version };
    },
    cancel: () => ac.abort(),
  };
}

/** `claude 2.1.112 (Claude Code) at /usr/local/bin/claude` (the version left out when unknown). */
export function describeClaudeUsed(c: ClaudeUsed): string {
  return `claude ${c.version === undefined ? '(version unknown)' : c.version} at ${c.path}`;
}
