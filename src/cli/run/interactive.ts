// `swarm run "<goal>"` without -p: the leader console with the agent lead in it (SPEC §9).
import { SwarmError } from '../../protocol/errors.js';
import type { HeadlessRunOptions } from './headless.js';

export type InteractiveRunOptions = Omit<HeadlessRunOptions, 'progress' | 'answer' | 'signal' | 'shutdownTimeoutMs'>;

export function runInteractive(o: InteractiveRunOptions): Promise<void> {
  return Promise.reject(new SwarmError('invalid_input', `the console with an agent lead is not built yet: use swarm run -p (team ${o.team.name} was created)`));
}
