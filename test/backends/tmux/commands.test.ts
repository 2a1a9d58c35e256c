// Unit tests of the tmux argv we build (through a recording `exec`, no tmux needed) and of the pure
// parsers and layout rules. The real-tmux behaviour is in tmux-backend.test.ts.
import { describe, expect, it } from 'vitest';
import { tailLines, type Exec, type ExecResult } from '../../../src/backends/process.js';
import {
  CHAIN_SEPARATOR,
  NEW_PANE_FORMAT,
  PANE_LIST_FORMAT,
  TmuxServer,
  capturePane,
  capturePaneWithExit,
  commandArgs,
  escapeTmuxArg,
  formatLiteral,
  hasSession,
  isNoSpaceError,
  isDeadPaneNotice,
  killPane,
  listAllPanes,
  newSession,
  newWindow,
  parseNewPane,
  parsePaneGeometry,
  parsePaneContext,
  parsePaneExit,
  parsePaneList,
  parsePaneSizes,
  parseWindowSize,
  respawnPane,
  selectLayout,
  selectLayoutArgs,
  setPaneOptionArgs,
  setPaneTitleArgs,
  setPaneOption,
  setPaneTitle,
  setWindowOption,
  splitWindow,
} from '../../../src/backends/tmux/commands.js';
import { TmuxBackend, chooseLayout, roomForAnother, splitOrder, tmuxColor } from '../../../src/backends/tmux/tmux-backend.js';
import { isSwarmError } from '../../../src/protocol/errors.js';
import { waitFor } from '../../support/wait.js';

/** An `exec` that records every call and answers with `reply` (or the result of a function). */
function recorder(reply: Partial<ExecResult> | ((args: readonly string[]) => Partial<ExecResult>) = {}) {
  const calls: string[][] = [];
  const exec: Exec = async (file, args) => {
    calls.push([file, ...args]);
    const r = typeof reply === 'function' ? reply(args) : reply;
    return { exitCode: 0, stdout: '', stderr: '', ...r };
  };
  return { calls, exec };
}

const NEW_PANE_OUT = '%7 4242 @3\n';

describe('TmuxServer: the one place for the socket flag and tmux escaping', () => {
  it('adds -L <socket> exactly once, before the verb', async () => {
    const { calls, exec } = recorder({ stdout: NEW_PANE_OUT });
    const server = new TmuxServer({ socket: 'swarm-test-x', exec });
    await splitWindow(server, { target: '%1', direction: 'h', argv: ['a', '-L'], env: { L: '-L' } });
    await setPaneOption(server, '%7', '@agent_name', 'ann');
    for (const call of calls) {
      expect(call.slice(0, 3)).toEqual(['tmux', '-L', 'swarm-test-x']);
      expect(call.filter((a) => a === 'swarm-test-x')).toHaveLength(1);
    }
  });

  it('adds no socket flag without a socket', async () => {
    const { calls, exec } = recorder();
    await killPane(new TmuxServer({ exec }), '%3');
    expect(calls).toEqual([['tmux', 'kill-pane', '-t', '%3']]);
    expect(new TmuxServer({ socket: '', exec }).socket).toBeUndefined();
  });

  it('escapes a trailing ; (tmux would end the command there) and nothing else', () => {
    expect(escapeTmuxArg(';')).toBe('\\;');
    expect(escapeTmuxArg('a;')).toBe('a\\;');
    expect(escapeTmuxArg('a\\;')).toBe('a\\\\;');
    expect(escapeTmuxArg('a;b')).toBe('a;b');
    expect(escapeTmuxArg('-n')).toBe('-n');
    expect(formatLiteral('/x/#{pane_id}#')).toBe('/x/##{pane_id}##');
  });

  it('chains commands in one invocation: a lone ; between them, every argument still escaped', async () => {
    const { calls, exec } = recorder({ stdout: 'out' });
    const server = new TmuxServer({ socket: 'swarm-test-x', exec });
    const out = await server.runChain([
      setPaneOptionArgs('%7', '@agent_name', 'x;'),
      setPaneTitleArgs('%7', ';'),
      selectLayoutArgs('@2', 'tiled'),
    ]);
    expect(out).toBe('out');
    expect(calls).toEqual([
      [
        'tmux', '-L', 'swarm-test-x',
        'set-option', '-p', '-t', '%7', '--', '@agent_name', 'x\\;', CHAIN_SEPARATOR,
        'select-pane', '-t', '%7', '-T', '\\;', CHAIN_SEPARATOR,
        'select-layout', '-t', '@2', 'tiled',
      ],
    ]);
    // User text can never produce the separator: only chainArgv emits a bare ';'.
    expect(calls[0]!.filter((a) => a === ';')).toHaveLength(2);
    expect(new TmuxServer({ exec }).chainArgv([['kill-pane', '-t', '%1']])).toEqual(['kill-pane', '-t', '%1']);
    expect(() => server.chainArgv([])).toThrow(/one or more non-empty tmux commands/);
    expect(() => server.chainArgv([['list-panes'], []])).toThrow(/one or more non-empty tmux commands/);
  });

  it('a failing chain throws SwarmError(backend) naming its verbs and carrying tmux stderr', async () => {
    const { exec } = recorder({ exitCode: 1, stderr: "can't find pane: %9\n" });
    const err = await new TmuxServer({ exec }).runChain([['set-option', '-p', '-t', '%9', '--', 'a', 'b'], ['select-layout', '-t', '@1', 'tiled']]).catch((e: unknown) => e);
    expect(isSwarmError(err, 'backend')).toBe(true);
    expect((err as Error).message).toBe("tmux set-option ; select-layout failed: can't find pane: %9");
  });

  it('throws SwarmError(backend) with tmux stderr on a non-zero exit', async () => {
    const { exec } = recorder({ exitCode: 1, stderr: 'no space for new pane\n' });
    const err = await splitWindow(new TmuxServer({ exec }), { target: '%1', direction: 'v', argv: ['x', 'y'] }).catch((e: unknown) => e);
    expect(isSwarmError(err, 'backend')).toBe(true);
    expect(isNoSpaceError(err)).toBe(true);
    expect(String(err)).toContain('tmux split-window failed: no space for new pane');
    expect(isNoSpaceError(new Error('no space for new pane'))).toBe(false);
  });
});

describe('verbs build the exact argv', () => {
  it('split-window: -d, direction, target, -c, -e flags, -P -F, then -- and the argv verbatim', async () => {
    const { calls, exec } = recorder({ stdout: NEW_PANE_OUT });
    const pane = await splitWindow(new TmuxServer({ socket: 's', exec }), {
      target: '%1',
      direction: 'h',
      cwd: '/w d/#1',
      env: { A: 'x;', B: '-n', C: `"q" 'sq' $HOME` },
      argv: ['node', '-n', 'a b', "it's", ';', 'x;', '"q"', '--', ''],
    });
    expect(pane).toEqual({ paneId: '%7', pid: 4242, windowId: '@3' });
    expect(calls[0]).toEqual([
      'tmux', '-L', 's', 'split-window', '-d', '-h', '-t', '%1', '-c', '/w d/##1',
      '-e', 'A=x\\;', '-e', 'B=-n', '-e', `C="q" 'sq' $HOME`,
      '-P', '-F', NEW_PANE_FORMAT,
      '--', 'node', '-n', 'a b', "it's", '\\;', 'x\\;', '"q"', '--', '',
    ]);
  });

  it('a lone argv element is shell-quoted, because tmux runs a single argument with sh -c', () => {
    expect(commandArgs(['/my dir/run me.sh'])).toEqual(['--', "'/my dir/run me.sh'"]);
    expect(commandArgs(['a', 'b c'])).toEqual(['--', 'a', 'b c']);
    expect(() => commandArgs([])).toThrow(/empty argv/);
  });

  it('rejects an invalid environment variable name before running tmux', async () => {
    const { calls, exec } = recorder();
    const err = await splitWindow(new TmuxServer({ exec }), { target: '%1', direction: 'v', env: { 'A=B': 'x' }, argv: ['a', 'b'] }).catch(
      (e: unknown) => e,
    );
    expect(isSwarmError(err, 'invalid_input')).toBe(true);
    expect(calls).toHaveLength(0);
  });

  it('new-session, new-window and respawn-pane', async () => {
    const { calls, exec } = recorder({ stdout: NEW_PANE_OUT });
    const server = new TmuxServer({ exec });
    await newSession(server, { name: 'swarm-t' });
    await newSession(server, { name: 'swarm-t', cwd: '/#', argv: ['sleep', '9'] });
    await newWindow(server, { session: '$1', name: 'swarm-#t', argv: ['sleep', '9'] });
    await respawnPane(server, { target: '%2', cwd: '/c', env: { X: 'y z' }, argv: ['node', 'p;'] });
    expect(calls).toEqual([
      ['tmux', 'new-session', '-d', '-s', 'swarm-t', '-P', '-F', NEW_PANE_FORMAT],
      ['tmux', 'new-session', '-d', '-s', 'swarm-t', '-c', '/##', '-P', '-F', NEW_PANE_FORMAT, '--', 'sleep', '9'],
      ['tmux', 'new-window', '-d', '-t', '$1:', '-n', 'swarm-##t', '-P', '-F', NEW_PANE_FORMAT, '--', 'sleep', '9'],
      ['tmux', 'respawn-pane', '-k', '-t', '%2', '-c', '/c', '-e', 'X=y z', '--', 'node', 'p\\;'],
    ]);
  });

  it('options, title, layout, capture', async () => {
    const { calls, exec } = recorder();
    const server = new TmuxServer({ exec });
    await setWindowOption(server, '@1', 'remain-on-exit', 'on');
    await setPaneOption(server, '%2', '@agent_name', '-n;');
    await setPaneTitle(server, '%2', 'a#b');
    await selectLayout(server, '@1', 'main-vertical');
    await capturePane(server, '%2', 50);
    expect(calls).toEqual([
      ['tmux', 'set-option', '-w', '-t', '@1', '--', 'remain-on-exit', 'on'],
      ['tmux', 'set-option', '-p', '-t', '%2', '--', '@agent_name', '-n\\;'],
      ['tmux', 'select-pane', '-t', '%2', '-T', 'a##b'],
      ['tmux', 'select-layout', '-t', '@1', 'main-vertical'],
      ['tmux', 'capture-pane', '-p', '-J', '-t', '%2', '-S', '-50'],
    ]);
  });

  it('has-session uses an exact =name target and maps the exit code', async () => {
    const yes = recorder();
    expect(await hasSession(new TmuxServer({ exec: yes.exec }), 'swarm-a')).toBe(true);
    expect(yes.calls[0]).toEqual(['tmux', 'has-session', '-t', '=swarm-a']);
    const no = recorder({ exitCode: 1, stderr: "can't find session: swarm-a" });
    expect(await hasSession(new TmuxServer({ exec: no.exec }), 'swarm-a')).toBe(false);
  });

  it('list-panes -a: no server means no panes; other failures throw', async () => {
    const none = recorder({ exitCode: 1, stderr: 'no server running on /tmp/tmux-0/x\n' });
    expect(await listAllPanes(new TmuxServer({ exec: none.exec }))).toEqual([]);
    expect(none.calls[0]).toEqual(['tmux', 'list-panes', '-a', '-F', PANE_LIST_FORMAT]);
    const empty = recorder({ exitCode: 1, stderr: 'no current target\n' });
    expect(await listAllPanes(new TmuxServer({ exec: empty.exec }))).toEqual([]);
    const bad = recorder({ exitCode: 1, stderr: 'something else' });
    await expect(listAllPanes(new TmuxServer({ exec: bad.exec }))).rejects.toThrow(/something else/);
  });
});

describe('parsers', () => {
  it('parsePaneList: alive, dead with status, a shell pane, session names with spaces', () => {
    const out = '%0 100 0  @0 cmd swarm-a\n%3 103 1 7 @1 cmd my work session\n%4 104 0  @1 shell cc\n\n';
    expect(parsePaneList(out)).toEqual([
      { paneId: '%0', pid: 100, dead: false, deadStatus: undefined, windowId: '@0', shell: false, sessionName: 'swarm-a' },
      { paneId: '%3', pid: 103, dead: true, deadStatus: 7, windowId: '@1', shell: false, sessionName: 'my work session' },
      { paneId: '%4', pid: 104, dead: false, deadStatus: undefined, windowId: '@1', shell: true, sessionName: 'cc' },
    ]);
    expect(parsePaneList('')).toEqual([]);
    expect(() => parsePaneList('garbage line')).toThrow(/unexpected tmux list-panes output/);
  });

  it('parseNewPane, parsePaneSizes, parsePaneContext, parseWindowSize', () => {
    expect(parseNewPane('%12 999 @4\n')).toEqual({ paneId: '%12', pid: 999, windowId: '@4' });
    expect(() => parseNewPane('')).toThrow(/unexpected tmux new pane output/);
    expect(parsePaneSizes('%1 40 12\n%2 39 11\n')).toEqual([
      { paneId: '%1', width: 40, height: 12 },
      { paneId: '%2', width: 39, height: 11 },
    ]);
    expect(parsePaneContext('$2 @5 %9 swarm a\n')).toEqual({ sessionId: '$2', windowId: '@5', paneId: '%9', sessionName: 'swarm a' });
    expect(parseWindowSize('80 24\n')).toEqual({ width: 80, height: 24 });
  });

  it('tailLines keeps the last non-blank lines, right-trimmed: output above a screen of empty rows survives', () => {
    expect(tailLines('a  \nb\nc\n\n\n', 2)).toEqual(['b', 'c']);
    expect(tailLines(['error: no key', ...Array<string>(40).fill(''), 'Pane is dead'].join('\n'), 2)).toEqual(['error: no key', 'Pane is dead']);
    expect(tailLines('only', 10)).toEqual(['only']);
    expect(tailLines('x', 0)).toEqual([]);
  });

  it('capturePaneWithExit: the whole history and the exit fields in one chained call', async () => {
    const { calls, exec } = recorder({ stdout: 'boom\n\nPane is dead (status 3, Thu)\n1 3 \n' });
    const got = await capturePaneWithExit(new TmuxServer({ exec }), '%2');
    expect(calls).toEqual([
      ['tmux', 'capture-pane', '-p', '-J', '-t', '%2', '-S', '-', ';', 'display-message', '-p', '-t', '%2', '#{pane_dead} #{pane_dead_status} #{pane_dead_signal}'],
    ]);
    expect(got).toEqual({ text: 'boom\n\nPane is dead (status 3, Thu)', exit: { code: 3 } });
  });

  it('parsePaneExit: status, signal, still running; isDeadPaneNotice matches only tmux\'s line', () => {
    expect(parsePaneExit('1 3 \n')).toEqual({ code: 3 });
    expect(parsePaneExit('1  15')).toEqual({ signal: 15 });
    expect(parsePaneExit('0  ')).toBeUndefined();
    expect(parsePaneExit('1  ')).toBeUndefined(); // dead, but tmux did not get the status
    expect(() => parsePaneExit('junk')).toThrow(/unexpected tmux pane exit output/);
    expect(isDeadPaneNotice('Pane is dead (status 3, Thu Dec  3 20:07:24 2026)')).toBe(true);
    expect(isDeadPaneNotice('Pane is dead (signal 15, Thu')).toBe(true);
    expect(isDeadPaneNotice('the Pane is dead (status 3')).toBe(false);
  });
});

describe('layout rules', () => {
  it('main-vertical beside the leader up to 4 teammates, then tiled; overflow windows tiled', () => {
    expect(chooseLayout(1, true)).toBe('main-vertical');
    expect(chooseLayout(4, true)).toBe('main-vertical');
    expect(chooseLayout(5, true)).toBe('tiled');
    expect(chooseLayout(1, false)).toBe('tiled');
  });

  it('roomForAnother follows the 80x24 budget (leader + 11 teammates at 20x3 minimum)', () => {
    const w = { width: 80, height: 24 };
    expect(roomForAnother(w, 1, true)).toBe(true); // first teammate
    expect(roomForAnother(w, 5, true)).toBe(true); // 5th teammate: tiled 3x2
    expect(roomForAnother(w, 11, true)).toBe(true); // 12 panes: 4 rows x 3 columns of 26x5
    expect(roomForAnother(w, 12, true)).toBe(false); // 13 panes: 4 columns of 19 < 20
    expect(roomForAnother({ width: 30, height: 10 }, 1, true)).toBe(false);
    expect(roomForAnother(w, 0, false)).toBe(true);
  });

  it('splitOrder prefers side by side for wide panes', () => {
    expect(splitOrder(80, 24)).toEqual(['h', 'v']);
    expect(splitOrder(40, 24)).toEqual(['v', 'h']);
  });

  it('tmuxColor maps palette names, anything else is default', () => {
    expect(tmuxColor('purple')).toBe('magenta');
    expect(tmuxColor('orange')).toBe('colour208');
    expect(tmuxColor('#ff0000')).toBe('default');
  });

  it('describe() gives the attach line, with -L only for a private socket', () => {
    expect(new TmuxBackend({ sessionName: 'swarm-a' }).describe()).toBe('tmux attach -t swarm-a');
    expect(new TmuxBackend({ sessionName: 'swarm-a', socket: 'priv' }).describe()).toBe('tmux -L priv attach -t swarm-a');
    expect(new TmuxBackend({ sessionName: 'swarm-a', insideTmux: { paneId: '%4' } }).describe()).toContain('%4');
  });
});

describe('parsePaneGeometry', () => {
  it('reads id, pid, dead flag, window, pane size and window size; rejects anything else', () => {
    expect(parsePaneGeometry('%0 100 0 @0 80 24 80 24\n%3 101 1 @1 39 11 80 24\n')).toEqual([
      { paneId: '%0', pid: 100, dead: false, windowId: '@0', width: 80, height: 24, window: { width: 80, height: 24 } },
      { paneId: '%3', pid: 101, dead: true, windowId: '@1', width: 39, height: 11, window: { width: 80, height: 24 } },
    ]);
    expect(parsePaneGeometry('')).toEqual([]);
    expect(() => parsePaneGeometry('%0 100 0 @0 80 24')).toThrow(/unexpected tmux pane geometry output/);
  });
});

describe('TmuxBackend pane listings are coalesced', () => {
  it('concurrent isAlive calls share one list-panes; a call during a listing waits for a fresh one', async () => {
    const replies: ((stdout: string) => void)[] = [];
    const calls: string[][] = [];
    const exec: Exec = (_file, args) =>
      new Promise<ExecResult>((resolve) => {
        calls.push([...args]);
        replies.push((stdout) => resolve({ exitCode: 0, stdout, stderr: '' }));
      });
    const backend = new TmuxBackend({ sessionName: 'swarm-a', exec });
    const line = (id: string, pid: number): string => `${id} ${pid} 0  @1 cmd swarm-a\n`;
    const a = backend.isAlive({ paneId: '%1', backendType: 'tmux', pid: 11 });
    const b = backend.isAlive({ paneId: '%2', backendType: 'tmux', pid: 12 });
    await waitFor(() => calls.length === 1, 1000, 'the first listing');
    // %2 is created after the first listing started: its caller must not get that listing.
    const c = backend.isAlive({ paneId: '%2', backendType: 'tmux', pid: 12 });
    const d = backend.isAlive({ paneId: '%1', backendType: 'tmux', pid: 11 });
    replies[0]!(line('%1', 11));
    expect([await a, await b]).toEqual([true, false]);
    await waitFor(() => calls.length === 2, 1000, 'the second listing');
    replies[1]!(line('%1', 11) + line('%2', 12));
    expect([await c, await d]).toEqual([true, true]);
    expect(calls).toEqual([
      ['list-panes', '-a', '-F', PANE_LIST_FORMAT],
      ['list-panes', '-a', '-F', PANE_LIST_FORMAT],
    ]);
  });
});

describe('TmuxBackend.probe', () => {
  it('answers a whole roster from one list-panes: alive, dead (remain-on-exit), gone (missing or another pid)', async () => {
    const calls: string[][] = [];
    const exec: Exec = async (_file, args) => {
      calls.push([...args]);
      return { exitCode: 0, stdout: '%1 11 0  @1 cmd swarm-a\n%2 12 1 0 @1 cmd swarm-a\n%3 99 0  @1 cmd swarm-a\n', stderr: '' };
    };
    const backend = new TmuxBackend({ sessionName: 'swarm-a', socket: 'priv', exec });
    const pane = (paneId: string, pid?: number) => ({ paneId, backendType: 'tmux' as const, ...(pid === undefined ? {} : { pid }) });
    expect(await backend.probe([pane('%1', 11), pane('%2', 12), pane('%3', 13), pane('%4'), pane('%3')])).toEqual(['alive', 'dead', 'gone', 'gone', 'alive']);
    expect(calls).toEqual([['-L', 'priv', 'list-panes', '-a', '-F', PANE_LIST_FORMAT]]);
  });

  it('asks each pane on the server recorded with it (-S <socket path>), one list per server; no server there means gone', async () => {
    const calls: string[][] = [];
    const exec: Exec = async (_file, args) => {
      calls.push([...args]);
      if (args[1] === '/tmp/tmux-1/a') return { exitCode: 0, stdout: '%1 11 0  @1 cmd swarm-a\n', stderr: '' };
      if (args[1] === '/tmp/tmux-1/gone') return { exitCode: 1, stdout: '', stderr: 'no server running on /tmp/tmux-1/gone' };
      return { exitCode: 0, stdout: '%1 77 0  @1 cmd other\n', stderr: '' };
    };
    const backend = new TmuxBackend({ sessionName: 'swarm-a', socket: 'mine', exec });
    const pane = (paneId: string, pid: number, server?: string) => ({ paneId, backendType: 'tmux' as const, pid, ...(server ? { server } : {}) });
    const states = await backend.probe([pane('%1', 11, '/tmp/tmux-1/a'), pane('%1', 11, '/tmp/tmux-1/gone'), pane('%1', 11), pane('%1', 11, '/tmp/tmux-1/a')]);
    expect(states).toEqual(['alive', 'gone', 'gone', 'alive']);
    expect(calls.map((c) => c.slice(0, 2)).sort()).toEqual([['-L', 'mine'], ['-S', '/tmp/tmux-1/a'], ['-S', '/tmp/tmux-1/gone']]);
    expect(backend.howToReach(pane('%1', 11, '/tmp/tmux-1/a'))).toBe('tmux -S /tmp/tmux-1/a attach -t %1');
  });

  it('answers unknown for every pane when tmux cannot be asked', async () => {
    const exec: Exec = async () => ({ exitCode: 127, stdout: '', stderr: 'tmux: not found' });
    const backend = new TmuxBackend({ sessionName: 'swarm-a', exec });
    expect(await backend.probe([{ paneId: '%1', backendType: 'tmux' }, { paneId: '%2', backendType: 'tmux' }])).toEqual(['unknown', 'unknown']);
  });
});
