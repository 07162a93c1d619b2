#!/usr/bin/env node
// Runs the prebuilt vivary-mcp of this platform, which npm installed as one
// of the optional dependencies (each declares its os and cpu, so npm fetches
// only the matching one; nothing is downloaded here or at run time). The
// child inherits the standard streams, so MCP frames pass through untouched;
// its exit code or signal becomes this process's own.
'use strict';
const { spawn } = require('node:child_process');

const packages = {
  'darwin arm64': '@vivary/vivary-mcp-darwin-arm64',
  'darwin x64': '@vivary/vivary-mcp-darwin-x64',
  'linux arm64': '@vivary/vivary-mcp-linux-arm64',
  'linux x64': '@vivary/vivary-mcp-linux-x64',
  'win32 arm64': '@vivary/vivary-mcp-win32-arm64',
  'win32 x64': '@vivary/vivary-mcp-win32-x64',
};
const exe = process.platform === 'win32' ? '.exe' : '';
const instead = 'or install it with Go: go install github.com/vivary-dev/vivary-go/mcp/cmd/vivary-mcp@latest';

function fail(msg) {
  process.stderr.write(`vivary-mcp: error: ${msg}\n`);
  process.exit(2);
}

const pkg = packages[`${process.platform} ${process.arch}`];
if (!pkg) {
  fail(`no prebuilt binary for ${process.platform}-${process.arch}; ${instead}`);
}
let bin;
try {
  bin = require.resolve(`${pkg}/bin/vivary-mcp${exe}`);
} catch {
  fail(`${pkg} is not installed (were optional dependencies omitted?); reinstall with them, ${instead}`);
}

const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit' });
// A client stops its server with a signal; it must reach the server, which
// finishes the call in flight and exits.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => child.kill(sig));
}
child.on('error', (err) => fail(`could not start ${bin}: ${err.message}`));
child.on('exit', (code, signal) => {
  if (signal) {
    // Die of the same signal, so the client sees what it would have seen.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code);
});
