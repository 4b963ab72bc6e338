import { markerValue } from './escape-md.js';

// ---------------------------------------------------------------------------------------------
// Hidden markers: which model a comment is about, and which run wrote it.

export const MODEL_MARKER_PREFIX = '<!-- scalegate:model=';

export function modelMarker(modelName: string): string {
  return `${MODEL_MARKER_PREFIX}${markerValue(modelName)} -->`;
}

export interface RunStamp {
  runId: string;
  attempt: number;
  at: string;
}

export function runMarker(stamp: RunStamp): string {
  return `<!-- scalegate:run id=${markerValue(stamp.runId)} attempt=${stamp.attempt} at=${markerValue(stamp.at)} -->`;
}

export function parseRunMarker(body: string): RunStamp | null {
  const m = /<!-- scalegate:run id=([^\s]+) attempt=(\d+) at=([^\s]+) -->/.exec(body);
  if (!m) return null;
  try {
    return {
      runId: decodeURIComponent(m[1] as string),
      attempt: Number(m[2]),
      at: decodeURIComponent(m[3] as string),
    };
  } catch {
    return null;
  }
}

/** True when the comment body is about `modelName` (its first line is exactly our marker). */
export function hasModelMarker(body: string, modelName: string): boolean {
  return body.split('\n', 1)[0]?.trim() === modelMarker(modelName);
}
