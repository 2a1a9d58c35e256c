// How `swarm demo` tells the console it starts in its team's tmux session what to do: the settings
// travel as environment variables of that pane (the console is `swarm lead` there). The demo writes
// them (sessionConsoleEnv); `swarm lead` reads them back by the same names (SESSION_ENV).

/** What `swarm demo` tells the console it starts in a tmux session. */
export interface SessionConsoleSettings {
  banner?: string;
  idleHint?: string;
  endWithTeam?: boolean;
  /** With --agent: the lead's first user turn. */
  goal?: string;
}

export const SESSION_ENV = { banner: 'SWARM_LEAD_BANNER', idleHint: 'SWARM_LEAD_IDLE_HINT', endWithTeam: 'SWARM_LEAD_END_WITH_TEAM', goal: 'SWARM_LEAD_GOAL' } as const;

/** The settings as environment variables for the console's pane. */
export function sessionConsoleEnv(s: SessionConsoleSettings): Record<string, string> {
  return {
    ...(s.banner !== undefined ? { [SESSION_ENV.banner]: s.banner } : {}),
    ...(s.idleHint !== undefined ? { [SESSION_ENV.idleHint]: s.idleHint } : {}),
    ...(s.endWithTeam === true ? { [SESSION_ENV.endWithTeam]: '1' } : {}),
    ...(s.goal !== undefined ? { [SESSION_ENV.goal]: s.goal } : {}),
  };
}
