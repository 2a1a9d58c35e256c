// The teammate command line (docs/protocol.md#teammate-command-line), declared once: each flag's name, value type, whether it is
// required, its help text, and whether a real `claude` teammate (`--runtime claude`) takes it too.
// teammates/command-line.ts builds argv from this table (`flagWords`), runtime/args.ts parses argv
// and validates the flags with it, and `swarm teammate`'s yargs options come from it.
import * as z from 'zod';

export interface TeammateFlagSpec {
  /** Without the leading `--`. */
  readonly flag: string;
  readonly type: 'string' | 'boolean';
  readonly required: boolean;
  readonly describe: string;
  /** How the value is shown in "expected --flag <value>". */
  readonly value?: string;
  /** Also passed to the real `claude` CLI (swarm-only flags are not). */
  readonly claude: boolean;
}

/** Keyed by the camel-cased name yargs and the runtime use; in command-line order. */
export const TEAMMATE_FLAGS = {
  agentId: { flag: 'agent-id', type: 'string', required: true, value: '<name@team>', describe: '<name>@<team>', claude: true },
  agentName: { flag: 'agent-name', type: 'string', required: true, value: '<name>', describe: 'member name', claude: true },
  teamName: { flag: 'team-name', type: 'string', required: true, value: '<team>', describe: 'team name', claude: true },
  agentColor: { flag: 'agent-color', type: 'string', required: false, describe: 'colour for the pane', claude: true },
  parentSessionId: {
    flag: 'parent-session-id',
    type: 'string',
    required: false,
    describe: "the leader's session id (config.json leadSessionId)",
    claude: true,
  },
  leadVerifyKey: {
    flag: 'lead-verify-key',
    type: 'string',
    required: true,
    value: '<createdAtMs>.<base64url key>',
    describe: "the leader's public key: <createdAtMs>.<base64url SPKI DER>",
    claude: false,
  },
  agentType: { flag: 'agent-type', type: 'string', required: false, describe: 'role shown to the team', claude: true },
  model: { flag: 'model', type: 'string', required: false, describe: 'model id (default: member model, $ANTHROPIC_MODEL, a current Sonnet)', claude: true },
  planModeRequired: {
    flag: 'plan-mode-required',
    type: 'boolean',
    required: false,
    describe: 'start in plan mode: no edits or Bash until the leader approves a plan',
    claude: true,
  },
  permissionMode: { flag: 'permission-mode', type: 'string', required: false, describe: 'default | acceptEdits | bypassPermissions | plan', claude: true },
  cwd: { flag: 'cwd', type: 'string', required: false, describe: 'working directory (default: the member cwd)', claude: false },
  resume: {
    flag: 'resume',
    type: 'boolean',
    required: false,
    describe: 'restore the conversation from logs/<name>.jsonl (what swarm resume runs)',
    claude: false,
  },
} as const satisfies Record<string, TeammateFlagSpec>;

type Flags = typeof TEAMMATE_FLAGS;
type FlagKey = keyof Flags;
type ValueOf<K extends FlagKey> = Flags[K]['type'] extends 'boolean' ? boolean : string;
type RequiredKey = { [K in FlagKey]: Flags[K]['required'] extends true ? K : never }[FlagKey];

/** The flags as the CLI hands them over (camel-cased). */
export type TeammateFlags = { [K in RequiredKey]: ValueOf<K> } & { [K in Exclude<FlagKey, RequiredKey>]?: ValueOf<K> | undefined };

export const TEAMMATE_FLAG_ENTRIES = Object.entries(TEAMMATE_FLAGS) as [FlagKey, TeammateFlagSpec][];

function fieldSchema(f: TeammateFlagSpec): z.ZodType {
  const expected = `expected --${f.flag}${f.value ? ` ${f.value}` : ''}`;
  const base = f.type === 'boolean' ? z.boolean({ error: expected }) : z.string({ error: expected }).min(1, expected);
  return f.required ? base : base.optional();
}

// Built from the table, so zod cannot infer the type: TeammateFlags is what this object accepts.
export const TeammateFlagsSchema = z.object(
  Object.fromEntries(TEAMMATE_FLAG_ENTRIES.map(([key, f]) => [key, fieldSchema(f)])),
) as unknown as z.ZodType<TeammateFlags>;

/**
 * `flags` as argv words in table order: a string flag when its value is non-empty, a boolean flag
 * when true. `include` picks the flags (e.g. those a `claude` teammate takes).
 */
export function flagWords(flags: TeammateFlags, include: (f: TeammateFlagSpec) => boolean = () => true): string[] {
  return TEAMMATE_FLAG_ENTRIES.flatMap(([key, f]) => {
    const v = flags[key];
    if (!include(f)) return [];
    if (f.type === 'boolean') return v === true ? [`--${f.flag}`] : [];
    return typeof v === 'string' && v !== '' ? [`--${f.flag}`, v] : [];
  });
}
