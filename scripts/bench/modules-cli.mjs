// Bench helper: runs `swarm <args>` through the compiled modules in dist/cli/ (each command's
// handler loaded when it runs), the way bin/swarm.js ran every command before the bundle
// (scripts/bundle.mjs). The "modules" variant of startup.ts, measured in the same run as the bundle.
const { normalizeColorEnv } = await import(new URL('../../dist/cli/output/color.js', import.meta.url).href);
normalizeColorEnv(process.env);
const { main } = await import(new URL('../../dist/cli/main.js', import.meta.url).href);
process.exitCode = await main(process.argv.slice(2));
