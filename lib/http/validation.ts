import type { z } from 'zod';
import type { FieldError } from './errors.js';

/** zod issues as RFC 6901 JSON Pointers into the body, or as parameter names for query and path. */
export function bodyErrors(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue) => {
    const base = '/' + issue.path.map((seg) => String(seg).replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({
        pointer: `${base === '/' ? '' : base}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`,
        detail: 'is not a recognised property',
        code: 'unrecognized_property',
      }));
    }
    return [{ pointer: base === '/' ? '' : base, detail: issue.message, code: issue.code }];
  });
}

export function parameterErrors(error: z.ZodError, where: 'query' | 'path'): FieldError[] {
  return error.issues.flatMap((issue) => {
    const names = issue.code === 'unrecognized_keys' ? issue.keys : [String(issue.path[0] ?? '')];
    return names.map((name) => ({
      pointer: `/${where}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      detail: issue.code === 'unrecognized_keys' ? 'is not a recognised parameter' : issue.message,
      code: issue.code === 'unrecognized_keys' ? 'unrecognized_parameter' : issue.code,
    }));
  });
}
