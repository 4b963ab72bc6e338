#!/usr/bin/env node
// The CLI ships prebuilt in dist/ so that `npx scalegate` needs no TypeScript toolchain.
await import('../dist/cli.mjs');
