// The shutdown progress line on a fake clock (vitest's timers; the stream is a plain recorder): in
// place on a terminal, a line every 10 s in a log, nothing for a prompt answer; and what Ctrl-C says.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { interruptedLine } from '../../../src/cli/handlers/stop.js';
import { WaitingLine, nameList, type LineSink } from '../../../src/cli/output/waiting.js';

function recorder(isTTY: boolean): { stream: LineSink; writes: string[] } {
  const writes: string[] = [];
  return { stream: { isTTY, write: (s: string) => writes.push(s) }, writes };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('WaitingLine', () => {
  it('on a terminal: one line rewritten in place, shrinking as teammates answer, erased at the end', () => {
    const { stream, writes } = recorder(true);
    const w = new WaitingLine(['alice', 'bob'], { stream, now: Date.now });
    w.asked('alice');
    vi.advanceTimersByTime(5000);
    expect(writes).toEqual([]); // bob's request is not out yet
    w.asked('bob');
    vi.advanceTimersByTime(999);
    expect(writes).toEqual([]); // a prompt answer prints nothing
    vi.advanceTimersByTime(1);
    expect(writes).toEqual(['\r\x1b[2Kwaiting for alice, bob (6 s)…']);
    w.done('alice');
    vi.advanceTimersByTime(1000);
    expect(writes.slice(1)).toEqual(['\r\x1b[2Kwaiting for bob (6 s)…', '\r\x1b[2Kwaiting for bob (7 s)…']);
    w.stop();
    expect(writes.at(-1)).toBe('\r\x1b[2K');
    vi.advanceTimersByTime(5000);
    expect(writes).toHaveLength(4);
  });

  it('in a log: a line after a second, then one every 10 s', () => {
    const { stream, writes } = recorder(false);
    const w = new WaitingLine(['alice'], { stream, now: Date.now });
    w.asked('alice');
    vi.advanceTimersByTime(21_000);
    expect(writes).toEqual(['waiting for alice (1 s)…\n', 'waiting for alice (11 s)…\n', 'waiting for alice (21 s)…\n']);
    w.done('alice');
    vi.advanceTimersByTime(20_000);
    expect(writes).toHaveLength(3);
  });

  it('names them in the order given (the roster), not in the order their requests went out', () => {
    const { stream, writes } = recorder(false);
    const w = new WaitingLine(['alice', 'bob', 'carol'], { stream, now: Date.now });
    for (const name of ['carol', 'alice', 'carol', 'bob']) w.asked(name); // the requests race; one is reported twice
    vi.advanceTimersByTime(1000);
    expect(writes).toEqual(['waiting for alice, bob, carol (1 s)…\n']);
    expect(w.waitingFor).toEqual(['alice', 'bob', 'carol']);
  });

  it('names at most four', () => {
    expect(nameList(['a', 'b', 'c', 'd'])).toBe('a, b, c, d');
    expect(nameList(['a', 'b', 'c', 'd', 'e'])).toBe('a, b, c and 2 more');
  });
});

describe('what Ctrl-C during a shutdown says', () => {
  it('the requests stay; swarm teammates stop within the rest of their grace, claude ones only if they approve', () => {
    expect(interruptedLine('t', [{ name: 'alice' }, { name: 'bob', runtime: 'swarm' }, { name: 'carol', runtime: 'claude' }], ['dave'], 27_400)).toBe(
      'interrupted: the shutdown requests stay; alice, bob will stop on their own within 28 s, when their grace period ends; carol (Claude Code) will stop only if it approves; no request was sent to dave. To stop now: swarm kill <name> --team t',
    );
    expect(interruptedLine('t', [{ name: 'alice' }], [], -5)).toBe(
      'interrupted: the shutdown request stays; alice will stop on its own any moment now, when its grace period ends. To stop now: swarm kill alice --team t',
    );
    expect(interruptedLine('t', [], ['alice'], 1000)).toBe('interrupted: no shutdown request is waiting for an answer; no request was sent to alice');
  });
});
