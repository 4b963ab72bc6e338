import type { z } from 'zod';
import { printable } from './safe.js';

/**
 * One line per problem, `field.path: message`, so a user can find the field in the file. A path
 * segment or a message can carry text of the file (a record key, an unrecognized key): it is
 * printed with its unsafe characters spelled out and shortened, never as it is.
 */
export function formatZodIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path =
        issue.path.length > 0
          ? issue.path.map((segment) => printable(String(segment), 80)).join('.')
          : '(top level)';
      return `  - ${path}: ${printable(issue.message, 300)}`;
    })
    .join('\n');
}
