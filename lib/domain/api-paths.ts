/** Where the API lives under the deployment's base path; every URL the API writes starts here. */
export const API_PREFIX = '/api/v1';

/**
 * A path template of the API (`/projects/{project}/tasks`) with its placeholders filled, under
 * API_PREFIX; a placeholder left without a value is a programming error, never a broken link.
 */
export function apiUrl(template: string, params: Readonly<Record<string, string>> = {}): string {
  return `${API_PREFIX}${template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${template} needs a value for {${name}}`);
    return encodeURIComponent(value);
  })}`;
}
