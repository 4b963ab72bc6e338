#!/usr/bin/env node
/** The `scalegate` CLI entry; everything else is in src/cli/program.ts. */
import { main } from './cli/program.js';

await main(process.argv);
