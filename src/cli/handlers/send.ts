// What `swarm send <to> <text|->` / `--file F` does (the command line is commands/send.ts): append
// a message to a member's inbox, the leader's, or everyone's (`*`). The text comes from the
// argument, standard input (`-`) or a file, at most MAX_MESSAGE_BYTES (an argv word tops out near
// 128 KB, so big texts go through - or --file), and never read further than that; `--file` reads
// regular files only.
// A recipient that is `stopped` (docs/protocol.md#transcripts-and-resume) gets the message queued as usual, and a note on stderr
// says how to resume it (exit 0: the message is delivered once it runs again). A `hibernating`
// recipient is woken (docs/hibernation.md) and reads it then.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { SwarmError } from '../../protocol/errors.js';
import { MAX_MESSAGE_BYTES, messageTooLarge } from '../../protocol/message.js';
import { refuseHandWrittenFrame, sendMessage } from '../../mailbox/send.js';
import { describeEntry } from '../../storage/regular-file.js';
import { openMailbox, printJson, println, requireTeam } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { chalk } from '../output/render.js';
import { resumeCommand, stoppedAmong } from '../../teammates/status-report.js';
import type { Team } from '../../team/team.js';
import { cliIo, cliRun } from '../io.js';
import { readTeam } from '../../team/team-store.js';
import { sameName } from '../../protocol/names.js';

export interface SendArgs extends GlobalArgs {
  to: string;
  text?: string;
  file?: string;
  from?: string;
  summary?: string;
}

/** The text to send, from exactly one of: the argument, `-` (standard input), `--file`. */
async function messageText(args: SendArgs): Promise<string> {
  if (args.file !== undefined && args.text !== undefined) {
    throw new SwarmError('invalid_input', 'give the text or --file, not both');
  }
  if (args.file !== undefined) return readMessageFile(args.file);
  if (args.text === undefined) throw new SwarmError('invalid_input', "no message: give the text, - to read standard input, or --file <path>");
  // yargs turns a lone `-` argument into "", so ask the raw argv whether it was `-` or a real "".
  const fromStdin = args.text === '-' || (args.text === '' && cliRun().argv.includes('-'));
  if (!fromStdin) return String(args.text);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of cliIo().stdin) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += b.length;
    if (size > MAX_MESSAGE_BYTES) throw tooLarge(size, true);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const READ_CHUNK = 64 * 1024;

/**
 * The text of `--file`: a regular file only, read up to one chunk past the limit, never further.
 * Anything else would never end (/dev/zero) or wait for a writer (a FIFO: opened non-blocking, so
 * the open returns at once); a stream goes through `-`.
 */
async function readMessageFile(file: string): Promise<string> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch((e: unknown) => {
    throw new SwarmError('invalid_input', `--file ${file}: ${(e as Error).message}`);
  });
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new SwarmError('invalid_input', `--file ${file} is ${describeEntry(st)}, not a regular file; to send what a command prints, pipe it: <command> | swarm send <to> -`);
    if (st.size > MAX_MESSAGE_BYTES) throw tooLarge(st.size);
    // The size can say 0 (/proc files) or grow meanwhile: read in chunks (some /proc files take
    // only multiples of 8 bytes) and stop at the first one that passes the limit.
    const buf = Buffer.alloc(MAX_MESSAGE_BYTES + READ_CHUNK);
    let n = 0;
    while (n <= MAX_MESSAGE_BYTES) {
      const { bytesRead } = await handle.read(buf, n, READ_CHUNK, null);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    if (n > MAX_MESSAGE_BYTES) throw tooLarge(MAX_MESSAGE_BYTES, true);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    await handle.close();
  }
}

function tooLarge(bytes: number, over = false): SwarmError {
  return new SwarmError('invalid_input', messageTooLarge(bytes, over));
}

export async function send(args: SendArgs): Promise<void> {
  const team = await requireTeam(args);
  const text = await messageText(args);
  refuseHandWrittenFrame(text, args.to);
  const mailbox = await openMailbox(team);
  const result = await sendMessage(mailbox, {
    to: args.to,
    text,
    ...(args.from ? { from: args.from } : {}),
    ...(args.summary ? { summary: args.summary } : {}),
  });
  if (args.json) printJson(result);
  else println(`sent to ${result.recipients.join(', ')} ${chalk.dim(result.msg_id)}`);
  for (const line of await stoppedNotes(team, result.recipients)) cliIo().stderr.write(`${chalk.yellow('swarm: note:')} ${line}\n`);
  await wakeRecipients(team, result.recipients);
}

/** Hibernating recipients are woken here (docs/hibernation.md), whether or not a console would: the first waker starts it, the others find it started. */
async function wakeRecipients(team: Team, recipients: readonly string[]): Promise<void> {
  const asleep = (await readTeam(team)).members.some((m) => m.hibernatedAt !== undefined && recipients.some((r) => sameName(r, m.name)));
  if (!asleep) return; // the common case: the resume machinery is not even loaded
  const { wakeDue } = await import('../hibernation-waker.js');
  const say = (line: string): void => void cliIo().stderr.write(`${chalk.dim(`swarm: ${line}`)}\n`);
  const { results } = await wakeDue({ team, backends: () => ({ env: cliIo().env }), say }, (name) => !recipients.some((r) => sameName(r, name)));
  for (const r of results) {
    if (r.ok) say(`woke ${r.name}: it reads the message now`);
    else if (r.error.kind !== 'exists') cliIo().stderr.write(`${chalk.yellow('swarm: note:')} ${r.name} is hibernating and could not be woken, so the message waits in its inbox: ${r.error.message.split('\n')[0]}\n`);
  }
}

/** One note per recipient that is stopped: the message waits in its inbox until it is resumed. */
async function stoppedNotes(team: Team, recipients: readonly string[]): Promise<string[]> {
  const stopped = await stoppedAmong(team, recipients, cliIo().env).catch((): string[] => []);
  return stopped.map((name) => `${name} is stopped (its process and pane are gone); the message waits in its inbox until you resume it: ${resumeCommand(name, team.name)}`);
}
