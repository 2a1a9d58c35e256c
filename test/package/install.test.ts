// Installable as a package: `npm pack`, then `npm install -g` of the tarball into a fresh prefix,
// then `swarm demo` from another directory runs to its end (the one question answered with y).
// Offline: npm resolves the dependencies from a registry on 127.0.0.1 that this test serves from
// the clone's own node_modules, exactly the runtime dependencies package-lock.json records (each
// packed as npm packs it: `package/` inside a gzipped tar), so nothing comes from the network.
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { TmuxServer, capturePane, listAllPanes } from '../../src/backends/tmux/commands.js';
import { REPO } from '../support/cli.js';
import { afterThisTest, tempRoot } from '../support/tmp-root.js';
import { tmuxForThisTest } from '../support/tmux.js';
import { waitFor } from '../support/wait.js';

interface Packed {
  name: string;
  version: string;
  manifest: Record<string, unknown>;
  file: string;
  integrity: string;
}

/** Every runtime dependency package-lock.json records, packed from node_modules into `dir`. */
async function packDependencies(dir: string): Promise<Packed[]> {
  const lock = JSON.parse(await fs.readFile(path.join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; devOptional?: boolean }> };
  const entries = Object.entries(lock.packages).filter(([key, p]) => key !== '' && p.dev !== true && p.devOptional !== true);
  return Promise.all(
    entries.map(async ([key], i) => {
      const src = path.join(REPO, key);
      const manifest = JSON.parse(await fs.readFile(path.join(src, 'package.json'), 'utf8')) as Record<string, unknown> & { name: string; version: string };
      const file = path.join(dir, `${i}.tgz`);
      // npm's layout: the package's files under package/ (node_modules inside it are not its own).
      await execa('tar', ['-czf', file, '--exclude=./node_modules', '--transform', 's,^\\.,package,', '-C', src, '.']);
      const integrity = `sha512-${createHash('sha512').update(await fs.readFile(file)).digest('base64')}`;
      return { name: manifest.name, version: manifest.version, manifest, file, integrity };
    }),
  );
}

/** A registry of `packed` on 127.0.0.1: packuments at /<name>, tarballs at /-/<n>.tgz. */
async function serveRegistry(packed: readonly Packed[]): Promise<string> {
  let base = '';
  const server: Server = createServer((req, res) => {
    const url = decodeURIComponent(req.url ?? '/').slice(1);
    const tarball = packed.find((p) => url === `-/${path.basename(p.file)}`);
    if (tarball !== undefined) {
      void fs.readFile(tarball.file).then((b) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(b));
      return;
    }
    const versions = packed.filter((p) => p.name === url);
    if (versions.length === 0) return void res.writeHead(404).end('{}');
    const doc = {
      name: url,
      'dist-tags': { latest: versions.at(-1)!.version },
      versions: Object.fromEntries(versions.map((p) => [p.version, { ...p.manifest, dist: { tarball: `${base}/-/${path.basename(p.file)}`, integrity: p.integrity } }])),
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterThisTest(() => new Promise((resolve) => server.close(() => resolve())));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return base;
}

describe('the swarm package', () => {
  it('npm pack, npm install -g of the tarball into a fresh prefix, then swarm demo from another directory', async () => {
    const tmp = await tempRoot('swarm-pkg-');
    const [packs, prefix, cache, elsewhere, root] = ['packs', 'prefix', 'npm-cache', 'elsewhere', 'root'].map((d) => path.join(tmp, d)) as [string, string, string, string, string];
    for (const d of [packs, elsewhere]) await fs.mkdir(d);
    const packed = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packs], { cwd: REPO }); // dist/ is built (pretest)
    const tarball = path.join(packs, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
    expect(await fs.readFile(path.join(REPO, 'README.md'), 'utf8')).toContain(`npm install -g ./${path.basename(tarball)}`); // as the README prints it
    const registry = await serveRegistry(await packDependencies(packs));
    const npmEnv = { ...process.env, npm_config_registry: registry, npm_config_cache: cache, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false',
      // Anything but the registry above goes to a closed port: the install is offline or it fails.
      npm_config_proxy: 'http://127.0.0.1:9', npm_config_https_proxy: 'http://127.0.0.1:9', npm_config_noproxy: '127.0.0.1' };
    const install = await execa('npm', ['install', '-g', '--prefix', prefix, tarball], { env: npmEnv, cwd: elsewhere, reject: false });
    expect(install.exitCode, `${install.stdout}\n${install.stderr}`).toBe(0);
    const swarmBin = path.join(prefix, 'bin', 'swarm');
    expect((await execa(swarmBin, ['--version'], { cwd: elsewhere })).stdout).toMatch(/^\d+\.\d+\.\d+$/);

    // The demo, as a person runs it from anywhere: in a tmux pane, y to its one question.
    const socket = tmuxForThisTest();
    const tmux = new TmuxServer({ socket });
    const env = { SWARM_TMUX_SOCKET: socket, TMPDIR: tmp, CLAUDE_CONFIG_DIR: root };
    const flags = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    await execa('tmux', ['-L', socket, 'new-session', '-d', '-s', 'main', '-x', '200', '-y', '50', ...flags, '-c', elsewhere, `${quote([swarmBin, 'demo'])}; echo DEMO-EXIT=$?`], {
      env: { ...process.env, TMUX: '', SWARM_TEAM: '', ANTHROPIC_API_KEY: '' },
    });
    const pane = (await listAllPanes(tmux))[0]!.paneId;
    await tmux.run(['set-option', '-w', '-t', pane, 'remain-on-exit', 'on']);
    const screen = async (): Promise<string> => (await capturePane(tmux, pane, 400)).replaceAll('\n', '');
    await waitFor(async () => (await screen()).includes('[y] allow once'), 60_000, 'the demo question');
    await tmux.run(['send-keys', '-t', pane, 'y']);
    await waitFor(async () => (await screen()).includes('DEMO-EXIT='), 60_000, 'the demo to end');
    expect(await screen()).toContain('DEMO-EXIT=0');
    expect(await screen()).toContain('VERDICT: PASS');
  }, 240_000);
});
