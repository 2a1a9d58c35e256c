// The types of fake-teammate-core.mjs (plain JavaScript, so that `node` runs the child entry
// without a build): the swarm functions it is given, and how one run of it is started.
import type { followInbox } from '../../src/mailbox/follow.js';
import type { Mailbox } from '../../src/mailbox/mailbox.js';
import type { verifyEntry } from '../../src/permissions/signing.js';
import type { encodeControl, parseControl } from '../../src/protocol/control.js';
import type { ensureDir, formatJson, writeFileAtomic } from '../../src/storage/atomic.js';
import type { resolveRoot } from '../../src/team/paths.js';
import type { Team } from '../../src/team/team.js';

/** The swarm functions the fake uses: from src/ in process, from dist/ in a child. */
export interface FakeTeammateLib {
  Mailbox: typeof Mailbox;
  Team: typeof Team;
  followInbox: typeof followInbox;
  verifyEntry: typeof verifyEntry;
  encodeControl: typeof encodeControl;
  parseControl: typeof parseControl;
  formatJson: typeof formatJson;
  writeFileAtomic: typeof writeFileAtomic;
  ensureDir: typeof ensureDir;
  resolveRoot: typeof resolveRoot;
}

export interface FakeTeammateRun {
  /** The flags (SPEC §4.3), without the command in front of them. */
  argv: readonly string[];
  /** Its environment: CLAUDE_CONFIG_DIR, the FAKE_* switches, SWARM_SHUTDOWN_GRACE_MS. */
  env: Readonly<Record<string, string | undefined>>;
  /** The pid and working directory its status file names. */
  pid: number;
  cwd: string;
  /** Extra fields of its shutdown_approved (the pane it ran in, its backend). */
  approval?: Record<string, string>;
  /** Ends it (an in-process teammate's stop signal). */
  signal?: AbortSignal;
  print(line: string): void;
  warn(line: string): void;
}

/** Runs the fake teammate to its end; resolves with its exit code. */
export function runFakeTeammate(lib: FakeTeammateLib, run: FakeTeammateRun): Promise<number>;
