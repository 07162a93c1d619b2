// Drives vivary-mcp.exe under Wine with the TypeScript SDK client (v2, auto
// negotiation) on a workspace laid with privacy traps: every trap file
// holds a marker, and its name is secret-looking, ignored by Git or its
// text holds a credential. All four tools must answer, check paths naming
// the traps (and Windows aliases of one) must answer as missing ones do,
// and no marker or trap name may appear in any answer.
//
//   node wine.mjs WINE VIVARY_MCP_EXE EXAMPLE_WORKSPACE
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tally } from './tally.mjs';

const [wine, exe, example] = process.argv.slice(2);
if (!wine || !exe || !example) {
  console.error('usage: node wine.mjs WINE VIVARY_MCP_EXE EXAMPLE_WORKSPACE');
  process.exit(2);
}
const { check, fail, finish } = tally('wine-mcp');

const root = join(mkdtempSync(join(tmpdir(), 'vivary-wine-')), 'ws');
cpSync(example, root, { recursive: true });
const write = (rel, text) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
};
write('notes/open-quokka.md', '# Quokka open\n\nThe quokka notes anyone may read.\n');
const traps = {
  '.env': 'QUOKKA=TRAP-ENV-1\n',
  'secrets/quokka.md': '# Quokka\n\nquokka TRAP-SECRETS-2\n',
  'id_rsa-quokka.md': '# Quokka\n\nquokka TRAP-IDRSA-3\n',
  'token-quokka.md': '# Quokka\n\nquokka TRAP-TOKEN-4\n',
  'drafts/quokka.md': '# Quokka\n\nquokka TRAP-DRAFT-5\n',
  'notes/quokka.draft.md': '# Quokka\n\nquokka TRAP-DRAFT-6\n',
  'notes/quokka-leak.md': '# Quokka\n\nquokka TRAP-LEAK-7 sk_live_4eC39HqLyjWDarjtT1zdp7dc\n',
};
for (const [rel, text] of Object.entries(traps)) write(rel, text);
writeFileSync(join(root, '.gitignore'), readFileSync(join(root, '.gitignore'), 'utf8') + 'drafts/\n*.draft.md\n');
execFileSync('git', ['init', '-q'], { cwd: root });

const winRoot = 'Z:' + root.replaceAll('/', '\\');
const transport = new StdioClientTransport({
  command: wine,
  args: [exe, '--workspace', 'docs', winRoot, '--observability', 'off'],
  env: { PATH: process.env.PATH, HOME: process.env.HOME, WINEDEBUG: '-all', ...(process.env.WINEPREFIX ? { WINEPREFIX: process.env.WINEPREFIX } : {}) },
  stderr: 'inherit',
});
const client = new Client({ name: 'vivary-wine', version: '0' }, { versionNegotiation: { mode: 'auto' } });
const answers = [];
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  check('four tools', tools.length === 4, tools.map((t) => t.name).join(','));
  const calls = {
    vivary_find: { workspace: 'docs', question: 'quokka' },
    vivary_query: { workspace: 'docs', text: 'quokka' },
    vivary_check: { workspace: 'docs' },
    vivary_capsule: { workspace: 'docs', question: 'quokka' },
  };
  for (const [name, args] of Object.entries(calls)) {
    const res = await client.callTool({ name, arguments: args });
    const env = res.structuredContent;
    check(`${name} answers`, env && env.status === 'known' && !res.isError, JSON.stringify(env && { status: env.status, reason: env.reason }));
    answers.push(JSON.stringify(res));
  }
  const found = await client.callTool({ name: 'vivary_query', arguments: { workspace: 'docs', text: 'quokka' } });
  check('the open note is found', JSON.stringify(found).includes('notes/open-quokka.md'), JSON.stringify(found.structuredContent));
  // A trap's path, or a Windows alias of a note, answers as a missing path does.
  const answer = async (p) => {
    const res = await client.callTool({ name: 'vivary_check', arguments: { workspace: 'docs', paths: [p] } });
    answers.push(JSON.stringify(res));
    return JSON.stringify(res.structuredContent).replaceAll(p, 'P');
  };
  // Each against its twin with no file (quokka becomes wombat), as the
  // adapter's own test compares them: the same kind of name, nothing there.
  for (const p of [...Object.keys(traps).filter((p) => p.endsWith('.md')), 'NOTES/OPEN-QUOKKA.MD', 'notes/OPEN-QU~1.MD']) {
    const got = await answer(p);
    const twin = p.replace(/quokka/i, (m) => (m === 'quokka' ? 'wombat' : 'WOMBAT')).replace('QU~1', 'WO~1');
    const want = await answer(twin);
    check(`check path ${p} answers as its missing twin ${twin} does`, got === want, `${got}\n  vs ${want}`);
  }
} catch (e) {
  fail('session', e);
} finally {
  await client.close().catch(() => {});
}
const all = answers.join('\n');
for (const [rel, text] of Object.entries(traps)) {
  const marker = text.match(/TRAP-[A-Z]+-\d/)[0];
  check(`no ${marker} in any answer`, !all.includes(marker));
  if (!rel.startsWith('notes/quokka-leak') && !rel.startsWith('.env')) {
    check(`no ${rel} in any listing`, !answers.slice(0, 4).join('\n').includes(rel));
  }
}
check('no credential in any answer', !all.includes('sk_live_'));
finish();
