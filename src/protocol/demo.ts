// `<demo root>/demo.json`: the marker `swarm demo` writes into its private temporary root, so that
// `swarm doctor` can tell a running demo from one whose process is gone (killed without cleanup:
// SIGKILL, a crash) and remove what it left.
import * as z from 'zod';

export const DemoMarkerSchema = z.looseObject({
  /** The `swarm demo` process. */
  pid: z.number().int().positive(),
  startedAt: z.number(),
});
export type DemoMarker = z.infer<typeof DemoMarkerSchema>;
