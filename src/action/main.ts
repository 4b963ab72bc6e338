/** The action's main entry (dist/main.mjs); the work is in ./run.ts. */
import * as core from '@actions/core';
import { runMain } from './run.js';

try {
  process.exitCode = await runMain(process.env);
} catch (e) {
  // Not a refused input (those exit 2 inside runMain): a bug or an outage. Exit 1, stack in debug.
  core.error(`scalegate: ${(e as Error).message ?? String(e)}`);
  core.debug(String((e as Error).stack));
  process.exitCode = 1;
}
