// Drives a built vivary-mcp with the official TypeScript SDK clients:
// v2 pinned to 2026-07-28, v2 in auto negotiation, v2 legacy initialize,
// and v1 (initialize only). Each run discovers or initializes, lists the
// four tools in order, calls each tool, and checks that invalid arguments
// come back as JSON-RPC -32602. Given a build with the test hooks
// (go build -tags vivarytest) as well, each client also asks for progress
// on a call that holds its answer until progress came, and checks it.
//
//   node drive.mjs /path/to/vivary-mcp /path/to/workspace [/path/to/test-build]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { tally } from './tally.mjs';

const [bin, workspace, testBin] = process.argv.slice(2);
if (!bin || !workspace) {
  console.error('usage: node drive.mjs VIVARY_MCP WORKSPACE');
  process.exit(2);
}

const args = ['--workspace', 'docs', workspace, '--observability', 'off'];
// serverInfo.version must be the string --version prints.
const builtVersion = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim().replace(/^vivary-mcp /, '');
const wantTools = ['vivary_find', 'vivary_query', 'vivary_check', 'vivary_capsule'];
const { check, fail, finish } = tally('interop');

async function exercise(label, client, wantVersion) {
  const server = client.getServerVersion();
  check(`${label} server identity`, server && server.name === 'vivary' && server.version === builtVersion, JSON.stringify(server));
  if (client.getNegotiatedProtocolVersion) {
    const v = client.getNegotiatedProtocolVersion();
    check(`${label} negotiated ${wantVersion}`, v === wantVersion, v);
  }
  const { tools } = await client.listTools();
  check(`${label} tools in order`, JSON.stringify(tools.map((t) => t.name)) === JSON.stringify(wantTools), tools.map((t) => t.name).join(','));
  const calls = {
    vivary_find: { workspace: 'docs', question: 'adapter wire tests' },
    vivary_query: { workspace: 'docs', text: 'git ignore rules', explain: true },
    vivary_check: { workspace: 'docs' },
    vivary_capsule: { workspace: 'docs', question: 'what changed' },
  };
  for (const [name, a] of Object.entries(calls)) {
    const res = await client.callTool({ name, arguments: a });
    const env = res.structuredContent;
    check(`${label} ${name} known`, env && env.schema === 'vivary.mcp-tool-result/v0' && env.status === 'known' && !res.isError,
      JSON.stringify(env && { status: env.status, reason: env.reason }));
    const text = res.content && res.content[0] && res.content[0].text;
    check(`${label} ${name} text is the envelope`, text && JSON.parse(text).status === env.status);
  }
  const refused = await client.callTool({ name: 'vivary_check', arguments: { workspace: 'elsewhere' } });
  check(`${label} unknown workspace refused`, refused.isError && refused.structuredContent.reason === 'unknown_workspace');
  for (const bad of [{ workspace: 'docs', bogus: 1 }, { workspace: 'docs', paths: ['../x'] }, {}]) {
    try {
      await client.callTool({ name: 'vivary_check', arguments: bad });
      check(`${label} invalid ${JSON.stringify(bad)}`, false, 'accepted');
    } catch (e) {
      check(`${label} invalid ${JSON.stringify(bad)} is -32602`, e.code === -32602, `${e.code} ${e.message}`);
    }
  }
}

// progress calls vivary_query with a progress callback on a server whose
// producer holds its answer until the gate file exists, opens the gate on
// the first notification, and checks what came: counts that grow up to
// the total, no message.
async function progress(label, client, gate, callTool) {
  const seen = [];
  const res = await callTool({ name: 'vivary_query', arguments: { workspace: 'docs', text: 'adapter' } }, (p) => {
    seen.push(p);
    writeFileSync(gate, '');
  });
  check(`${label} progress call known`, res.structuredContent && res.structuredContent.status === 'known', JSON.stringify(res.structuredContent && res.structuredContent.status));
  check(`${label} progress notified`, seen.length > 0, 'none');
  let last = -1;
  for (const p of seen) {
    check(`${label} progress ${JSON.stringify(p)} grows to its total, no message`,
      p.progress > last && p.total > 0 && p.progress <= p.total && p.message === undefined);
    last = p.progress;
  }
}

function gated() {
  const dir = mkdtempSync(join(tmpdir(), 'vivary-interop-'));
  const gate = join(dir, 'gate');
  const env = { PATH: process.env.PATH, VIVARY_MCP_TEST_WARM: 'off', VIVARY_MCP_TEST_PRODUCER: `hold:${gate}` };
  return { gate, env, done: () => rmSync(dir, { recursive: true, force: true }) };
}

async function v2progress() {
  const label = 'ts-v2 progress';
  const g = gated();
  const client = new ClientV2({ name: 'vivary-interop', version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StdioV2({ command: testBin, args, env: g.env, stderr: 'inherit' }));
  try {
    await progress(label, client, g.gate, (params, onprogress) => client.callTool(params, { onprogress }));
  } finally {
    await client.close();
    g.done();
  }
}

async function v1progress() {
  const label = 'ts-v1 progress';
  const g = gated();
  const client = new ClientV1({ name: 'vivary-interop-legacy', version: '0' });
  await client.connect(new StdioV1({ command: testBin, args, env: g.env, stderr: 'inherit' }));
  try {
    await progress(label, client, g.gate, (params, onprogress) => client.callTool(params, undefined, { onprogress }));
  } finally {
    await client.close();
    g.done();
  }
}

async function v2(mode, wantVersion) {
  const label = `ts-v2 ${typeof mode === 'string' ? mode : 'pin ' + mode.pin}`;
  const client = new ClientV2({ name: 'vivary-interop', version: '0' }, { versionNegotiation: { mode } });
  const transport = new StdioV2({ command: bin, args, env: { PATH: process.env.PATH }, stderr: 'inherit' });
  await client.connect(transport);
  try {
    check(`${label} era`, client.getProtocolEra() === (wantVersion === '2026-07-28' ? 'modern' : 'legacy'), client.getProtocolEra());
    await exercise(label, client, wantVersion);
  } finally {
    await client.close();
  }
}

async function v1() {
  const label = 'ts-v1 initialize';
  const client = new ClientV1({ name: 'vivary-interop-legacy', version: '0' });
  const transport = new StdioV1({ command: bin, args, env: { PATH: process.env.PATH }, stderr: 'inherit' });
  await client.connect(transport);
  try {
    await exercise(label, client, '2025-11-25');
  } finally {
    await client.close();
  }
}

try {
  await v2({ pin: '2026-07-28' }, '2026-07-28');
  await v2('auto', '2026-07-28');
  await v2('legacy', '2025-11-25');
  await v1();
  if (testBin) {
    await v2progress();
    await v1progress();
  }
} catch (e) {
  fail('interop run', e);
}
finish();
