#!/usr/bin/env node
// Replaces the `SPEC §N` citations in src/ (the product contract, kept outside the repository) with
// links to the matching section of docs/protocol.md, which is in it. Idempotent: run it again after
// merging a branch that added citations (`node scripts/spec-citations.mjs`); it prints what it
// changed and exits 1 if a citation is left that it does not know (add it to SECTIONS or FILES).
// Only the citation text is rewritten, so the edits are one-line comment changes.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** SPEC section → docs/protocol.md anchor. */
const SECTIONS = {
  1: 'overview',
  3: 'root-layout',
  3.1: 'names-and-ids',
  3.2: 'team-file',
  3.3: 'inboxes',
  3.4: 'control-messages',
  3.5: 'permission-requests',
  3.6: 'leader-signatures',
  4.1: 'backends',
  4.2: 'spawn',
  4.3: 'teammate-command-line',
  5: 'teammate-runtime',
  6: 'cli',
  7: 'demo',
  8: 'task-list',
  9: 'agent-lead',
  10: 'agent-types-and-worktrees',
  11: 'transcripts-and-resume',
  12: 'inbox-spool',
};
/** Where a file's citation of a section means a narrower part of the doc. */
const FILES = {
  'src/team/lead-lease.ts': { 3.2: 'lead-lease' },
  'src/storage/atomic.ts': { 3: 'locks-and-atomic-writes' },
  'src/storage/json-file.ts': { 3: 'locks-and-atomic-writes' },
  'src/permissions/audit.ts': { 3.5: 'audit-log' },
  'src/permissions/keys.ts': { 3.6: 'the-swarm-directory' },
  'src/runtime/tools/paths.ts': { 3.6: 'what-a-teammate-may-write' },
  'src/team/spend.ts': { 9: 'spend-and-budget' },
  'src/protocol/budget.ts': { 9: 'spend-and-budget' },
  'src/runtime/budget-gate.ts': { 9: 'spend-and-budget' },
  'src/protocol/prices.ts': { 9: 'spend-and-budget' },
  'src/protocol/config.ts': { 9: 'spend-and-budget' },
  'src/protocol/status.ts': { 5: 'status-files', 9: 'spend-and-budget' },
  'src/runtime/status.ts': { 5: 'status-files' },
  'src/runtime/presence.ts': { 5: 'idle' },
  'src/runtime/shutdown.ts': { 5: 'shutdown' },
  'src/teammates/readiness.ts': { 4.2: 'ready' },
  'src/teammates/resume.ts': { 11: 'resume' },
  'src/cli/interrupts.ts': { 6: 'cli' },
};
/** Whole phrases first: a SPEC item number with no counterpart in the doc. */
const PHRASES = [['SPEC §1 item 4, §6 kill/shutdown', 'docs/protocol.md#shutdown']];

const SEC = String.raw`§(\d+(?:\.\d+)?)`;
const link = (file, n) => {
  const anchor = FILES[file]?.[n] ?? SECTIONS[n];
  if (!anchor) throw new Error(`${file}: no section for §${n}: add it to scripts/spec-citations.mjs`);
  return `docs/protocol.md#${anchor}`;
};

function rewrite(file, text) {
  for (const [from, to] of PHRASES) text = text.split(from).join(to);
  // `SPEC §N`, also split over a comment line break ("... SPEC\n// §9").
  text = text.replace(new RegExp(String.raw`SPEC(\s*\n\s*(?:\/\/|\*) ?)${SEC}`, 'g'), (_, br, n) => `${br}${link(file, n)}`);
  text = text.replace(new RegExp(String.raw`SPEC ${SEC}`, 'g'), (_, n) => link(file, n));
  // The further sections of one citation: "docs/protocol.md#a, §5" or "... and §5".
  const more = new RegExp(String.raw`(docs/protocol\.md#[a-z-]+[^\n,;)§]*)(,? (?:and )?)${SEC}`, 'g');
  for (let before = ''; before !== text; ) {
    before = text;
    text = text.replace(more, (_, head, sep, n) => `${head}${sep}${link(file, n)}`);
  }
  return text.replace(/[ \t]+\n(\s*(?:\/\/|\*) ?docs\/protocol\.md#)/g, '\n$1');
}

function* tsFiles(dir) {
  for (const e of readdirSync(dir)) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) yield* tsFiles(p);
    else if (p.endsWith('.ts')) yield p;
  }
}

let changed = 0;
const left = [];
for (const file of tsFiles('src')) {
  const text = readFileSync(file, 'utf8');
  const next = rewrite(file, text);
  if (next !== text) {
    writeFileSync(file, next);
    changed++;
    console.log(`rewrote ${file}`);
  }
  next.split('\n').forEach((l, i) => {
    if (/SPEC\b|§/.test(l)) left.push(`${file}:${i + 1}: ${l.trim()}`);
  });
}
console.log(`${changed} files rewritten`);
if (left.length > 0) {
  console.error(`citations left (not rewritten):\n${left.join('\n')}`);
  process.exit(1);
}
