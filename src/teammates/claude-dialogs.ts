// Claude Code's first-run dialogs, recognised on the screen of a `--runtime claude` teammate while
// spawn waits for it to read its prompt. A claude waiting on one never reads it, so spawn says
// which dialog it is, how to reach the pane to answer it, and how to make Claude Code skip them
// from then on: its state file (team/paths `claudeCodeStateFile`) with
//   hasCompletedOnboarding: true                       no theme / security-notes onboarding
//   customApiKeyResponses.approved: [<last 20 chars>]  ANTHROPIC_API_KEY accepted without asking
//   projects.<real path of cwd>.hasTrustDialogAccepted  the folder is trusted
// The texts are Claude Code 2.1.112's, read off its screen in tmux with a CLAUDE_CONFIG_DIR holding
// none or part of that seed (test/teammates/claude-dialogs.test.ts runs it), plus the older trust
// wording. Offline and with no state file at all, its onboarding first checks api.anthropic.com and
// exits ("Unable to connect to Anthropic services"): that is an exit, reported with its output.

/** A dialog Claude Code shows before it starts working. */
export interface ClaudeDialog {
  id: 'api-key' | 'trust' | 'onboarding' | 'login';
  /** Its name after "Claude Code's": `folder trust dialog ("…")`. */
  what: string;
  /** What else fixes it, when seeding the state file does not. */
  hint?: string;
}

// Each mark is matched against the bottom of the screen as one line (whitespace collapsed): Claude
// Code wraps its own text to the pane's width, so a phrase may be split over two rows.
const DIALOGS: readonly (ClaudeDialog & { marks: readonly string[] })[] = [
  {
    id: 'api-key',
    what: 'API key dialog ("Detected a custom API key in your environment … Do you want to use this API key?")',
    marks: ['Detected a custom API key in your environment', 'Do you want to use this API key?'],
  },
  {
    id: 'trust',
    what: 'folder trust dialog ("Is this a project you created or one you trust?")',
    marks: ['Is this a project you created or one you trust?', 'Yes, I trust this folder', 'Do you trust the files in this folder?'],
  },
  {
    id: 'onboarding',
    what: 'first-run onboarding (theme) screen ("Choose the text style that looks best with your terminal")',
    marks: ['Choose the text style that looks best with your terminal', "Let's get started.", 'Security notes:', "Use Claude Code's terminal setup?"],
  },
  {
    id: 'login',
    what: 'login screen ("Select login method")',
    hint: 'claude found no credentials: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) where you run swarm, or log in once in that pane',
    marks: ['Select login method:'],
  },
];

/** Lines of the bottom of the screen looked at: a dialog waiting for an answer is drawn last. */
export const DIALOG_SCREEN_LINES = 20;

/** The dialog the bottom of a claude screen shows, if any (`lines`: its last non-blank lines). */
export function recognizeClaudeDialog(lines: readonly string[]): ClaudeDialog | undefined {
  const bottom = lines.slice(-DIALOG_SCREEN_LINES).join(' ').replace(/\s+/g, ' ');
  const found = DIALOGS.find((d) => d.marks.some((m) => bottom.includes(m)));
  if (found === undefined) return undefined;
  return { id: found.id, what: found.what, ...(found.hint === undefined ? {} : { hint: found.hint }) };
}

/** Claude Code compares the last 20 characters of ANTHROPIC_API_KEY with its approved list. */
export const API_KEY_SUFFIX_LENGTH = 20;

/**
 * The one-time fix, as lines: the keys to merge into Claude Code's state file. The key itself is
 * never printed: the approved entry is described, and the README shows a command that computes it.
 */
export function claudeSeedFix(o: { stateFile: string; realCwd: string; hasApiKey: boolean }): string[] {
  const approved = o.hasApiKey ? { customApiKeyResponses: { approved: [`<last ${API_KEY_SUFFIX_LENGTH} characters of $ANTHROPIC_API_KEY>`] } } : {};
  const seed = { hasCompletedOnboarding: true, ...approved, projects: { [o.realCwd]: { hasTrustDialogAccepted: true } } };
  return [`to skip these dialogs from now on, merge this into ${o.stateFile} once (see docs/claude-code.md, "Your own Claude Code as a teammate"):`, `  ${JSON.stringify(seed)}`];
}
