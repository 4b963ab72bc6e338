#!/usr/bin/env node
/** The `scalegate` CLI entry; everything else is in src/cli/program.ts. */
import { main } from './cli/program.js';

// scalegate pins its SDK versions (package-lock.json); the SDK's notice that future versions need
// Node 22 says nothing about the ones bundled here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// main() reports every error itself and sets process.exitCode.
void main(process.argv);
