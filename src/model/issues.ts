import type { z } from 'zod';

/** One line per problem, `field.path: message`, so a user can find the field in the file. */
export function formatZodIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join('.') : '(top level)';
      return `  - ${path}: ${issue.message}`;
    })
    .join('\n');
}
