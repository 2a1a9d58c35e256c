// Who may talk to the board (docs/board.md#trust): the access token (random, compared in constant
// time), the cookie that carries it after the first visit, the Host and Origin a request must
// name, and the rule that the board binds to loopback unless `--host` asked for more. Pure.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { SwarmError } from '../../protocol/errors.js';

/** A fresh access token: 32 random bytes, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether `given` is `token`, in time that does not depend on where they differ (both hashed to one length first). */
export function tokenMatches(given: string | undefined, token: string): boolean {
  if (given === undefined || given === '') return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

/** The cookie's name: one per port, so two boards on one machine keep their own tokens. */
export function cookieName(port: number): string {
  return `swarm_board_${port}`;
}

/** The Set-Cookie value: the token, for this origin's requests only, never readable by script. */
export function tokenCookie(port: number, token: string): string {
  return `${cookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

/** The value of cookie `name` in a Cookie header, if present. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/** True for an address only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (LOOPBACK_NAMES.includes(h)) return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** Refuses a bind address other than loopback unless the user gave `--host` on the command line. */
export function checkBindHost(host: string, explicit: boolean): void {
  if (isLoopback(host) || explicit) return;
  throw new SwarmError('invalid_input', `the board binds to 127.0.0.1 only; to serve ${host}, say --host ${host} (better: keep 127.0.0.1 and use ssh -L, see docs/board.md)`);
}

/** `host:port` as a Host header names it (an IPv6 address in brackets). */
function hostPort(host: string, port: number): string {
  const h = host.replace(/^\[|\]$/g, '');
  return `${isIP(h) === 6 ? `[${h}]` : h}:${port}`.toLowerCase();
}

/** The names this machine answers to: its host name and its interfaces' addresses (os.hostname, os.networkInterfaces). */
export interface MachineNames {
  hostname: string;
  addresses: readonly string[];
}

/** True for a bind address that means every interface. */
function isWildcard(host: string): boolean {
  return ['0.0.0.0', '::', '[::]'].includes(host);
}

/**
 * The Host header values the board answers: its loopback names, and the bind address when it is
 * another; bound to every interface (`--host 0.0.0.0`), also the machine's name and addresses.
 */
export function allowedHosts(bind: string, port: number, machine: MachineNames): Set<string> {
  const names = isLoopback(bind) ? [...LOOPBACK_NAMES, bind] : isWildcard(bind) ? [...LOOPBACK_NAMES, bind, machine.hostname, ...machine.addresses] : [bind];
  return new Set(names.map((n) => hostPort(n, port)));
}

/** Whether a POST's Origin is the board's own (`http://` + an allowed Host). A missing Origin is refused. */
export function originAllowed(origin: string | undefined, hosts: ReadonlySet<string>): boolean {
  if (origin === undefined || !origin.startsWith('http://')) return false;
  return hosts.has(origin.slice('http://'.length).toLowerCase());
}
