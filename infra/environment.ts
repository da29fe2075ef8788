import type { Construct } from 'constructs';
import { SETTINGS } from '../lib/config.js';

/** The budgets, credential lifetimes and licence limit: the seed's settings a deployment may tune. */
const TUNABLE_PREFIXES = ['API_', 'TOKEN_PROJECT', 'TOKEN_ORGANISATION', 'TOKEN_ADMINISTRATION', 'ORGANISATION_LICENCE'] as const;

export function tunableSettingNames(): string[] {
  return Object.keys(SETTINGS).filter((name) => TUNABLE_PREFIXES.some((prefix) => name.startsWith(prefix)));
}

/**
 * Each tunable setting as a function environment variable: its schema default unless the CDK
 * context (`cdk deploy -c NAME=value`) overrides it. The value is validated here, at synth, with
 * the same schema the functions use, so that a bad override never reaches a deployment.
 */
export function tunableSettings(scope: Construct): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of tunableSettingNames()) {
    const { schema } = SETTINGS[name as keyof typeof SETTINGS];
    const raw: unknown = scope.node.tryGetContext(name);
    const parsed = schema.safeParse(raw === undefined || raw === null ? undefined : String(raw));
    if (!parsed.success || parsed.data === undefined) {
      throw new Error(`CDK context ${name}=${String(raw)} is not a valid value for this setting`);
    }
    out[name] = String(parsed.data);
  }
  return out;
}
