// What an OS-process pane (tmux, iTerm2) runs for a PaneSpec: the teammate's argv behind two
// wrappers, outermost first: the stderr tee (stderr-log.ts, when `spec.stderrLog` is set, so even a
// failure to load the environment is logged) and the env-file loader (env-file.ts, when `spec.env`
// has variables). Both exec, so the pane's process becomes the teammate itself.
import type { PaneSpec } from './backend.js';
import { argvWithEnvFile, plannedEnvFile } from './env-file.js';
import { argvWithStderrLog, plannedStderrLog } from './stderr-log.js';

/** Write the private files the pane needs and return its argv. */
export async function paneArgv(spec: Pick<PaneSpec, 'argv' | 'env' | 'stderrLog'>): Promise<string[]> {
  return argvWithStderrLog(spec.stderrLog, await argvWithEnvFile(spec.env, spec.argv));
}

/** The same argv for a dry run (placeholders for the private files) and the env file's note. */
export function plannedPaneArgv(spec: Pick<PaneSpec, 'argv' | 'env' | 'stderrLog'>): { argv: string[]; note: string | undefined } {
  const planned = plannedEnvFile(spec.env, spec.argv);
  return { argv: plannedStderrLog(spec.stderrLog, planned.argv), note: planned.note };
}
