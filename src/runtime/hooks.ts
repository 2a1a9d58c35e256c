// Claude Code's hooks for a swarm-runtime teammate (docs/hooks.md): TeammateIdle, TaskCreated and
// TaskCompleted, as written in Claude Code's settings files (team/paths.ts hookSettingsFiles: the
// user's, the project's, the local one; their lists concatenated in that order, an identical
// command once). The matcher is ignored for these events, as in Claude Code. Each `command` hook
// runs with bash -c in the teammate's cwd, in its own process group (tools/process-groups.ts: a
// timeout kills the group), the event's JSON on stdin, the teammate's environment minus the model
// credentials plus CLAUDE_PROJECT_DIR, and a time limit (its `timeout` in seconds, default 600 as in
// Claude Code). The hooks of one event run at the same time.
//   exit 0 → go on;  exit 2 → block, its stderr the feedback;  anything else (another code, a
//   signal, the time limit, a failure to start) → a non-blocking error, shown in the pane and the
//   transcript.
// The files are read each time an event fires. A missing file has no hooks; a malformed one (not
// JSON, a hook entry of the wrong shape) is reported once per teammate process and its hooks for
// the event are skipped. Nothing here throws to the caller: a hook never ends the teammate.
import { promises as fs } from 'node:fs';
import * as z from 'zod';
import type { PermissionMode } from '../protocol/config.js';
import { errnoCode } from '../protocol/errors.js';
import type { Task } from '../protocol/task.js';
import { hookSettingsFiles } from '../team/paths.js';
import type { ProcessGroups } from './tools/process-groups.js';
import type { TaskHooks } from './tools/types.js';
import type { Transcript } from './transcript.js';
import type { PaneView } from './view.js';

export type HookEvent = 'TeammateIdle' | 'TaskCreated' | 'TaskCompleted';

/** Claude Code's default time limit of a command hook (2.1.x), in seconds. */
export const DEFAULT_HOOK_TIMEOUT_S = 600;
/** Characters of a hook's stderr kept (head and tail). */
export const HOOK_OUTPUT_CHARS = 10_000;

const CommandHook = z.object({
  type: z.literal('command'),
  command: z.string().min(1),
  timeout: z.number().positive().optional(),
});
const Matcher = z.object({ matcher: z.string().optional(), hooks: z.array(z.object({ type: z.string() }).loose()) });
const SettingsFile = z
  .object({
    hooks: z.record(z.string(), z.unknown()).optional(),
    disableAllHooks: z.boolean().optional(),
  })
  .loose();

export interface CommandHookDef {
  command: string;
  timeoutS: number;
  /** The settings file it came from. */
  file: string;
}

export interface LoadedHooks {
  hooks: CommandHookDef[];
  /** One line each: a file that is not JSON, an entry of the wrong shape, a hook type swarm does not run. */
  problems: string[];
}

function issue(error: z.ZodError): string {
  const i = error.issues[0];
  return i === undefined ? 'invalid' : `${i.path.length > 0 ? `${i.path.join('.')}: ` : ''}${i.message}`;
}

async function readSettings(file: string): Promise<{ parsed?: z.infer<typeof SettingsFile>; problem?: string }> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ENOTDIR') return {};
    return { problem: `${file}: cannot be read (${errnoCode(e) ?? String(e)}); its hooks are skipped` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { problem: `${file}: not valid JSON (${e instanceof Error ? e.message : String(e)}); its hooks are skipped until it is fixed` };
  }
  const parsed = SettingsFile.safeParse(json);
  if (!parsed.success) return { problem: `${file}: ${issue(parsed.error)}; its hooks are skipped until it is fixed` };
  return { parsed: parsed.data };
}

/** The command hooks of `event` in the settings files (Claude Code's order), each command once; `disableAllHooks` (the last file that sets it wins) turns them all off. */
export async function loadHooks(files: readonly string[], event: HookEvent): Promise<LoadedHooks> {
  const hooks: CommandHookDef[] = [];
  const problems: string[] = [];
  let disabled = false;
  for (const file of files) {
    const { parsed, problem } = await readSettings(file);
    if (problem !== undefined) problems.push(problem);
    if (parsed === undefined) continue;
    if (parsed.disableAllHooks !== undefined) disabled = parsed.disableAllHooks;
    const raw = parsed.hooks?.[event];
    if (raw === undefined) continue;
    const matchers = z.array(Matcher).safeParse(raw);
    if (!matchers.success) {
      problems.push(`${file}: hooks.${event}.${issue(matchers.error)}; its ${event} hooks are skipped until it is fixed`);
      continue;
    }
    const fromFile: CommandHookDef[] = [];
    let bad: string | undefined;
    matchers.data.forEach((m, i) =>
      m.hooks.forEach((h, j) => {
        const where = `hooks.${event}.${i}.hooks.${j}`;
        if (h.type !== 'command') {
          problems.push(`${file}: ${where}: a "${h.type}" hook is not run by swarm's runtime (command hooks only)`);
          return;
        }
        const c = CommandHook.safeParse(h);
        if (!c.success) bad ??= `${file}: ${where}.${issue(c.error)}; its ${event} hooks are skipped until it is fixed`;
        else fromFile.push({ command: c.data.command, timeoutS: c.data.timeout ?? DEFAULT_HOOK_TIMEOUT_S, file });
      }),
    );
    if (bad !== undefined) problems.push(bad);
    else hooks.push(...fromFile);
  }
  if (disabled) return { hooks: [], problems };
  const seen = new Set<string>();
  return { hooks: hooks.filter((h) => !seen.has(h.command) && seen.add(h.command)), problems };
}

export type HookOutcome =
  | { kind: 'ok'; hook: CommandHookDef }
  | { kind: 'block'; hook: CommandHookDef; stderr: string }
  | { kind: 'error'; hook: CommandHookDef; why: string };

export interface RunHookOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  processes: ProcessGroups;
  signal?: AbortSignal;
}

/** Run one command hook with `input` as JSON on its stdin. */
export async function runHook(hook: CommandHookDef, input: object, o: RunHookOptions): Promise<HookOutcome> {
  const r = await o.processes.run(hook.command, {
    cwd: o.cwd,
    env: { ...o.env, CLAUDE_PROJECT_DIR: o.cwd },
    timeoutMs: hook.timeoutS * 1000,
    maxOutput: HOOK_OUTPUT_CHARS,
    input: JSON.stringify(input),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const stderr = r.stderr.trim();
  if (r.timedOut) return { kind: 'error', hook, why: `timed out after ${hook.timeoutS}s and was killed` };
  if (r.aborted) return { kind: 'error', hook, why: 'interrupted: the teammate is stopping' };
  if (r.signal !== null) return { kind: 'error', hook, why: `killed by ${r.signal}` };
  if (r.exitCode === 0) return { kind: 'ok', hook };
  if (r.exitCode === 2) return { kind: 'block', hook, stderr };
  const detail = stderr !== '' ? stderr : r.output.trim();
  return { kind: 'error', hook, why: `exit code ${r.exitCode ?? 'none'}${detail !== '' ? `: ${detail}` : ''}` };
}

/** What the model reads when hooks of `event` block, worded as Claude Code words it: per hook, "<Event> hook feedback:" and `[command]: stderr`. */
export function hookFeedback(event: HookEvent, blocks: readonly { hook: CommandHookDef; stderr: string }[]): string | undefined {
  if (blocks.length === 0) return undefined;
  return blocks.map((b) => `${event} hook feedback:\n[${b.hook.command}]: ${b.stderr || 'No stderr output'}`).join('\n');
}

export interface TeammateHooksDeps {
  root: string;
  cwd: string;
  /** The teammate's environment minus the model credentials (what Bash gets). */
  env: NodeJS.ProcessEnv;
  processes: ProcessGroups;
  stop: AbortSignal;
  team: string;
  name: string;
  /** The hook input's session_id (the teammate's agent id). */
  sessionId: string;
  /** The hook input's transcript_path (the teammate's logs/<name>.jsonl). */
  transcriptPath: string;
  mode: () => PermissionMode;
  view: PaneView;
  transcript: Transcript;
}

/** The hooks as one teammate fires them: its input fields, its pane and transcript for what happened. */
export class TeammateHooks implements TaskHooks {
  private readonly reported = new Set<string>();

  constructor(private readonly d: TeammateHooksDeps) {}

  /** Fire `event`; resolves with the feedback when a hook blocks, else undefined. Never throws. */
  async fire(event: HookEvent, fields: Record<string, string | undefined>): Promise<string | undefined> {
    const d = this.d;
    try {
      const { hooks, problems } = await loadHooks(
        hookSettingsFiles(d.root, d.cwd).map((f) => f.file),
        event,
      );
      for (const p of problems) this.problem(p);
      if (hooks.length === 0) return undefined;
      const input = {
        session_id: d.sessionId,
        transcript_path: d.transcriptPath,
        cwd: d.cwd,
        permission_mode: d.mode(),
        hook_event_name: event,
        ...fields,
      };
      const outcomes = await Promise.all(hooks.map((h) => runHook(h, input, { cwd: d.cwd, env: d.env, processes: d.processes, signal: d.stop })));
      const blocks: { hook: CommandHookDef; stderr: string }[] = [];
      for (const o of outcomes) {
        d.transcript.append({ kind: 'hook', event, command: o.hook.command, outcome: o.kind, ...(o.kind === 'block' ? { stderr: o.stderr } : {}), ...(o.kind === 'error' ? { error: o.why } : {}) });
        if (o.kind === 'block') blocks.push(o);
        if (o.kind === 'error') d.view.warn(`${event} hook "${o.hook.command}" failed (${o.why}); going on`);
      }
      const feedback = hookFeedback(event, blocks);
      if (feedback !== undefined) d.view.notice(`${event} hook blocked: ${blocks.map((b) => b.stderr || 'No stderr output').join(' / ')}`);
      return feedback;
    } catch (e) {
      this.problem(`${event} hooks: ${e instanceof Error ? e.message : String(e)}; going on`);
      return undefined;
    }
  }

  taskCreated(task: Task): Promise<string | undefined> {
    return this.fire('TaskCreated', this.taskFields(task));
  }

  taskCompleted(task: Task): Promise<string | undefined> {
    return this.fire('TaskCompleted', this.taskFields(task));
  }

  /**
   * A turn is about to end (Claude Code's teammate stop): TaskCompleted for each task still
   * in_progress in its name, then TeammateIdle. The feedback of those that block, else undefined.
   */
  async beforeIdle(inProgress: () => Promise<Task[]>): Promise<string | undefined> {
    const parts: string[] = [];
    let tasks: Task[] = [];
    try {
      tasks = await inProgress();
    } catch (e) {
      this.problem(`TaskCompleted hooks: reading the task list: ${e instanceof Error ? e.message : String(e)}`);
    }
    for (const t of tasks) {
      const f = await this.taskCompleted(t);
      if (f !== undefined) parts.push(f);
    }
    const idle = await this.fire('TeammateIdle', { teammate_name: this.d.name, team_name: this.d.team });
    if (idle !== undefined) parts.push(idle);
    return parts.length > 0 ? parts.join('\n\n') : undefined;
  }

  private taskFields(task: Task): Record<string, string | undefined> {
    return { task_id: task.id, task_subject: task.subject, task_description: task.description, teammate_name: this.d.name, team_name: this.d.team };
  }

  /** A problem with the settings is shown (and logged) once per process; the same text again is not news. */
  private problem(text: string): void {
    if (this.reported.has(text)) return;
    this.reported.add(text);
    this.d.view.warn(text);
    this.d.transcript.append({ kind: 'hook_problem', problem: text });
  }
}
