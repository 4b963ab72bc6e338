/**
 * The gate's `request_shape` check: the body, Content-Type and Accept the measurement sent against
 * what the config sends. A container measured with another request shape (or one that reads
 * another) was not measured as production will call it. Pure.
 */
import { type RequestShape, requestShapeLabel, sameRequestShape } from '../model/index.js';

export function requestShapeCheck(
  measured: RequestShape | undefined,
  configured: RequestShape | undefined,
  measure: string,
): { check: 'request_shape'; ok: boolean; detail: string; fix: string | null } {
  return sameRequestShape(measured, configured)
    ? { check: 'request_shape', ok: true, detail: requestShapeLabel(measured), fix: null }
    : {
        check: 'request_shape',
        ok: false,
        detail: `plan measured sending ${requestShapeLabel(measured)}, the config sends ${requestShapeLabel(configured)}`,
        fix: `set request in scalegate.config.json to what was measured, or ${measure} (with the config's request)`,
      };
}
