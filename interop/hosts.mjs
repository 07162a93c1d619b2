// Configures real MCP hosts from the README's own recipes ("Use it from your
// client") and checks that each connects to vivary-mcp: Claude Code through
// `claude mcp add` and through a project .mcp.json, Gemini CLI through
// .gemini/settings.json in a trusted folder. `claude mcp list` and
// `gemini mcp list` start the server and report whether it answered; neither
// needs a login or the network for that. Every JSON recipe must parse.
//
//   node hosts.mjs README.md DIR_WITH_VIVARY_MCP WORKSPACE
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tally } from './tally.mjs';

const [readmePath, binDir, workspace] = process.argv.slice(2);
if (!readmePath || !binDir || !workspace) {
  console.error('usage: node hosts.mjs README.md DIR_WITH_VIVARY_MCP WORKSPACE');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const placeholder = '/abs/path/to/notes';
const { check, fail, finish } = tally('hosts');

// recipes maps each client heading to its fenced blocks, in order.
function recipes(text) {
  const start = text.indexOf('\n## Use it from your client\n');
  if (start < 0) throw new Error('README has no "Use it from your client" section');
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  const byClient = {};
  for (const part of section.split('\n### ').slice(1)) {
    const name = part.slice(0, part.indexOf('\n')).trim();
    byClient[name] = [...part.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], body: m[2] }));
  }
  return byClient;
}

const readme = readFileSync(readmePath, 'utf8');
const byClient = recipes(readme);
for (const client of ['Claude Code', 'Codex CLI', 'Gemini CLI', 'VS Code', 'Cursor']) {
  const blocks = byClient[client] || [];
  check(`${client} has recipes`, blocks.length >= 2, JSON.stringify(Object.keys(byClient)));
  for (const b of blocks) {
    check(`${client} recipe names the workspace`, b.body.includes('--workspace') && b.body.includes(placeholder), b.body);
    check(`${client} recipe has an installed and an npx form`, blocks.some((x) => x.body.includes('npx')) && blocks.some((x) => !x.body.includes('npx')));
    if (b.lang === 'json') {
      try {
        const cfg = JSON.parse(b.body);
        const key = client === 'VS Code' ? 'servers' : 'mcpServers';
        check(`${client} JSON uses the key ${key}`, cfg[key] && cfg[key].vivary, b.body);
      } catch (e) {
        check(`${client} JSON recipe parses`, false, e.message);
      }
    }
  }
}

function bin(name) {
  return join(here, 'node_modules', '.bin', name);
}

// fresh is a new project folder and an empty home for one host run.
function fresh() {
  const root = mkdtempSync(join(tmpdir(), 'vivary-hosts-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home);
  mkdirSync(project);
  const env = {
    ...process.env,
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    PATH: `${binDir}:${process.env.PATH}`,
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    GEMINI_CLI_NO_RELAUNCH: 'true',
    NO_COLOR: '1',
  };
  return { root, home, project, env };
}

function run(cmd, args, f) {
  const r = spawnSync(cmd, args, { cwd: f.project, env: f.env, encoding: 'utf8', timeout: 180_000, input: '' });
  return { code: r.status, out: `${r.stdout || ''}${r.stderr || ''}`, error: r.error };
}

// Claude Code prints "vivary: CMD - ✔ Connected", Gemini CLI "✓ vivary: CMD
// (stdio) - Connected"; a failure reads "Failed to connect" or "Disconnected".
const connected = /vivary: .* - (✔ )?Connected$/m;
const installedForm = (blocks, lang) => blocks.find((b) => b.lang === lang && !b.body.includes('npx'));
const realPath = (s) => s.split(placeholder).join(workspace);

// Claude Code, `claude mcp add` (local scope).
{
  const f = fresh();
  const line = byClient['Claude Code'].find((b) => b.lang === 'sh').body.split('\n').find((l) => l.startsWith('claude mcp add') && !l.includes('npx'));
  const args = realPath(line).split(/\s+/).slice(1);
  const add = run(bin('claude'), args, f);
  check('claude mcp add', add.code === 0, add.out || add.error);
  const list = run(bin('claude'), ['mcp', 'list'], f);
  check('claude mcp list after claude mcp add: vivary connected', list.code === 0 && connected.test(list.out), list.out || list.error);
  rmSync(f.root, { recursive: true, force: true });
}

// Claude Code, project .mcp.json. The approval Claude Code asks for once is
// given in the user's settings, as a user who approves all project servers.
{
  const f = fresh();
  writeFileSync(join(f.project, '.mcp.json'), realPath(installedForm(byClient['Claude Code'], 'json').body));
  mkdirSync(join(f.home, '.claude'));
  writeFileSync(join(f.home, '.claude', 'settings.json'), JSON.stringify({ enableAllProjectMcpServers: true }));
  const list = run(bin('claude'), ['mcp', 'list'], f);
  check('claude mcp list with .mcp.json: vivary connected', list.code === 0 && connected.test(list.out), list.out || list.error);
  rmSync(f.root, { recursive: true, force: true });
}

// Gemini CLI, project .gemini/settings.json in a trusted folder.
{
  const f = fresh();
  mkdirSync(join(f.project, '.gemini'));
  writeFileSync(join(f.project, '.gemini', 'settings.json'), realPath(installedForm(byClient['Gemini CLI'], 'json').body));
  mkdirSync(join(f.home, '.gemini'));
  writeFileSync(join(f.home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [f.project]: 'TRUST_FOLDER' }));
  const list = run(bin('gemini'), ['mcp', 'list'], f);
  check('gemini mcp list: vivary connected', list.code === 0 && connected.test(list.out), list.out || list.error);
  rmSync(f.root, { recursive: true, force: true });
}

// "If it does not connect": the configured command with --check appended
// reads the workspace without speaking MCP and says what it found, or why
// it cannot (here a folder that is not there), with exit 0 or 2.
{
  const f = fresh();
  const start = readme.indexOf('\n### If it does not connect\n');
  const para = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const line = para.split('\n').map((l) => l.trim()).find((l) => l.startsWith('vivary-mcp ') && l.endsWith(' --check'));
  check('README says to run the configured command with --check', start >= 0 && line !== undefined, para);
  if (line) {
    const args = realPath(line).split(/\s+/).slice(1);
    const ok = run(join(binDir, 'vivary-mcp'), args, f);
    check('vivary-mcp --check reads the workspace', ok.code === 0 && /^notes: ok: \d+ documents? read/m.test(ok.out), ok.out || ok.error);
    const gone = run(join(binDir, 'vivary-mcp'), line.split(placeholder).join(join(f.root, 'nowhere')).split(/\s+/).slice(1), f);
    check('vivary-mcp --check names a missing folder', gone.code === 2 && /^notes: refused: .*does not exist/m.test(gone.out), gone.out || gone.error);
  }
  rmSync(f.root, { recursive: true, force: true });
}

finish();
