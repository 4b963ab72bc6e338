import { randomBytes } from 'node:crypto';

/** 12 hex characters, like the legacy run ids: unique per run, short enough to quote. */
export const newRunId = (): string => randomBytes(6).toString('hex');
