/** The action's post entry (dist/post.mjs): runs after the job's steps, also on failure or cancel. */
import * as core from '@actions/core';
import { runPost } from './thaw-step.js';

try {
  process.exitCode = await runPost(process.env);
} catch (e) {
  core.error(`scalegate post: ${(e as Error).message ?? String(e)}`);
  process.exitCode = 1;
}
