#!/usr/bin/env node
/** The `scalegate` CLI entry; everything else is in src/cli/program.ts. */
import { main } from './cli/program.js';

// main() reports every error itself and sets process.exitCode.
void main(process.argv);
