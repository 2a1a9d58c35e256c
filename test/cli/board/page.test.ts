// The board's page in a real browser (docs/board.md): headless Chromium (test/support/chromium.ts)
// on the board of a running team — a real swarm-runtime teammate against the stand-in Messages API
// (runtime-harness) — showing its members, a blocked edge in the task graph, a message arriving
// without a reload, a `<script>` message as text, and a permission request approved with a click
// that makes the teammate run its command. The screenshot for docs/board.md is made here: written
// to docs/board.png only with SWARM_UPDATE_SCREENSHOTS=1, else to reports/ (CI leaves the tree clean).
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { formatJson, writeFileAtomic } from '../../../src/storage/atomic.js';
import { addMember, createTeam } from '../../../src/team/index.js';
import { Team } from '../../../src/team/team.js';
import { TaskList } from '../../../src/tasks/index.js';
import { startBoard, type Board } from '../../../src/cli/board/server.js';
import { CHROMIUM_SKIP, launchChromium } from '../../support/chromium.js';
import { REPO } from '../../support/cli.js';
import { setupRuntime } from '../../support/runtime-harness.js';
import { afterThisTest, tempRoot } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';

async function startFor(root: string, team: string): Promise<Board> {
  const b = await startBoard({ root, team, env: {}, log: (l) => process.stderr.write(`${l}\n`), refreshMs: 1000 });
  afterThisTest(() => b.close());
  return b;
}

/** Where the screenshot goes: docs/ when asked to update it, reports/ otherwise. */
async function screenshotPath(name: string): Promise<string> {
  if (process.env.SWARM_UPDATE_SCREENSHOTS === '1') return path.join(REPO, 'docs', name);
  await fs.mkdir(path.join(REPO, 'reports'), { recursive: true });
  return path.join(REPO, 'reports', name);
}

describe.skipIf(CHROMIUM_SKIP !== undefined)('swarm board in Chromium', () => {
  it('shows a running team live, renders a <script> message as text, and approves a request with a click', async () => {
    const env = await setupRuntime({
      turns: [
        {
          match: { agent: 'w1', lastUser: 'write the marker' },
          reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo ran > ran.txt', description: 'Write a marker file' } }] },
        },
        { match: { agent: 'w1', toolResult: 'Bash' }, reply: 'Marker written.' },
      ],
    });
    const team = new Team(env.root, 't');
    const list = new TaskList(team);
    await list.create({ subject: 'Parse the arguments', description: '' }, 'team-lead');
    await list.create({ subject: 'Write the tests', description: '', blockedBy: ['1'] }, 'team-lead');
    await list.create({ subject: 'Document the flags', description: '', owner: 'w2', blockedBy: ['1'] }, 'team-lead');
    await env.plain.append('team-lead', { from: 'w2', text: '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">' });

    const b = await startFor(env.root, 't');
    const browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1400, height: 640 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    await page.goto(b.url);
    expect(new URL(page.url()).search, 'the token left the address bar').toBe('');

    // The members of the team.
    await page.waitForSelector('#members tr[data-member="w2"]');
    expect(await page.$$eval('#members tbody tr', (rows) => rows.map((r) => (r as HTMLElement).dataset.member))).toEqual(['team-lead', 'w1', 'w2']);

    // The graph: 1 blocks 2 and 3, drawn as blocked edges while 1 is open.
    await page.waitForSelector('svg path.edge.blocked[data-from="1"][data-to="2"]');
    expect(await page.$$eval('svg g.node', (ns) => ns.map((n) => n.getAttribute('data-task')))).toEqual(['1', '2', '3']);
    expect(await page.textContent('svg g.node[data-task="3"]')).toContain('w2');

    // A message with markup is text: shown as written, nothing of it run.
    const shown = await page.waitForSelector('#messages li:has-text("window.pwned")');
    expect(await shown.$eval('.text', (e) => e.textContent)).toBe('<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">');
    expect(await page.$$('#messages script, #messages img')).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();

    // A new message shows up without a reload.
    await page.evaluate(() => ((window as unknown as { sameLoad: boolean }).sameLoad = true));
    await env.lead.append('w1', { from: 'team-lead', text: 'Please write the marker' });
    await page.waitForSelector('#messages li:has-text("Please write the marker")');
    expect(await page.evaluate(() => (window as unknown as { sameLoad?: boolean }).sameLoad)).toBe(true);

    // The teammate asks to run its command; a click on "allow" runs it.
    env.start();
    const ask = await page.waitForSelector('.question.permission:has-text("echo ran > ran.txt")', { timeout: 20_000 });
    await page.waitForSelector('#members tr[data-member="w1"] td.state-waiting_permission');
    await page.screenshot({ path: await screenshotPath('board.png') });
    expect(existsSync(path.join(env.work, 'ran.txt'))).toBe(false);
    await (await ask.$('button[data-answer="allow"]'))!.click();
    await waitFor(() => existsSync(path.join(env.work, 'ran.txt')), 15_000, "the approved command to run in the teammate's work dir");
    await page.waitForSelector('#questions:has-text("nothing is waiting")');
    expect(errors).toEqual([]);

    // Without the token (a fresh browser profile: no cookie), nothing.
    const stranger = await browser.newContext();
    const r = await (await stranger.newPage()).goto(`http://127.0.0.1:${b.port}/team/t`);
    expect(r?.status()).toBe(401);
  }, 60_000);

  it('stays usable with 100 members and 1,000 messages: the timeline keeps at most 300 entries in the page', async () => {
    const root = await tempRoot('swarm-board-big-');
    await createTeam(root, { name: 'big', cwd: root });
    const team = new Team(root, 'big');
    for (let i = 1; i <= 100; i++) await addMember(team, { name: `m${i}`, cwd: root });
    const at = Date.now() - 1000 * 1000;
    const inbox = Array.from({ length: 1000 }, (_, i) => ({ from: `m${(i % 100) + 1}`, text: `progress note ${i}`, timestamp: new Date(at + i * 1000).toISOString(), read: true, msg_id: `msg-${i}` }));
    await writeFileAtomic(team.paths.inbox('team-lead'), formatJson(inbox));
    const b = await startFor(root, 'big');
    const browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const started = Date.now();
    await page.goto(b.url);
    await page.waitForSelector('#members tr[data-member="m100"]');
    await page.waitForSelector('#messages li:has-text("progress note 999")');
    const firstDraw = Date.now() - started;
    expect(await page.$$eval('#members tbody tr', (r) => r.length)).toBe(101);
    expect(await page.$$eval('#messages li', (l) => l.length)).toBe(300);
    // One more message: added at the end, the oldest drawn one dropped, nothing redrawn from scratch.
    await page.evaluate(() => document.querySelector('#messages li')!.setAttribute('data-first', 'yes'));
    await page.evaluate(() => document.querySelector('#messages li:last-child')!.setAttribute('data-kept', 'yes'));
    await new Mailbox({ team }).append('m1', { from: 'team-lead', text: 'one more' });
    await page.waitForSelector('#messages li:has-text("one more")');
    expect(await page.$$eval('#messages li', (l) => l.length)).toBe(300);
    expect(await page.$$('#messages li[data-first]')).toEqual([]);
    expect(await page.$$('#messages li[data-kept]')).toHaveLength(1);
    // A measurement, not an assertion (docs/board.md): what the first draw took on this machine.
    await fs.mkdir(path.join(REPO, 'reports'), { recursive: true });
    await fs.writeFile(path.join(REPO, 'reports', 'board-100x1000.txt'), `first draw of 100 members and 1000 messages: ${firstDraw} ms (page load included)\n`);
  }, 60_000);
});
