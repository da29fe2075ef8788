import { SETTINGS } from '../../config.js';
import { functionOf, type FunctionName } from './function-of.js';
import type { AnyOperation } from './operation.js';
import { routeOf } from './router.js';

/**
 * The parts of docs/ that restate what the code declares: each group page's operation table and
 * the configuration table. They sit between `<!-- generated:NAME -->` markers, `npm run docs`
 * rewrites them, and a unit test fails when a page and the code disagree.
 */
export interface GeneratedBlock {
  file: string;
  name: string;
  content: string;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function permissionText(op: AnyOperation): string {
  const rules = Object.entries(op.permission).map(([type, alternatives]) => {
    const text = (alternatives ?? []).map((all) => (all.length ? all.join(' + ') : 'any')).join(' or ');
    return `${type}: ${text || 'any'}`;
  });
  return rules.join('; ');
}

export function operationTable(operations: readonly AnyOperation[]): string {
  const rows = operations.map(
    (op) =>
      `| \`${op.method} ${routeOf(op)}\` | \`${op.id}\` | ${cell(op.summary)} | ${cell(permissionText(op))} | ${op.mode}${op.extension ? ` (extension: ${op.extension})` : ''} |`,
  );
  return ['| Request | Operation | What it does | Credential: permissions | Mode |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

function defaultText(schema: (typeof SETTINGS)[keyof typeof SETTINGS]['schema']): string {
  const parsed = schema.safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return 'unset';
  const value = Array.isArray(parsed.data) ? parsed.data.join(',') : String(parsed.data);
  return value === '' ? 'empty' : `\`${value}\``;
}

export function configurationTable(): string {
  const rows = Object.entries(SETTINGS).map(([name, { schema, doc }]) => `| \`${name}\` | ${defaultText(schema)} | ${cell(doc)} |`);
  return ['| Variable | Default | Meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

/** Every generated block of docs/: one operation table per function's page, and the settings. */
export function generatedBlocks(operations: readonly AnyOperation[]): GeneratedBlock[] {
  const byFunction = new Map<FunctionName, AnyOperation[]>();
  for (const op of operations) byFunction.set(functionOf(op), [...(byFunction.get(functionOf(op)) ?? []), op]);
  const tables = [...byFunction].map(([fn, ops]) => ({ file: `docs/operations/${fn}.md`, name: 'operations', content: operationTable(ops) }));
  return [...tables, { file: 'docs/configuration.md', name: 'settings', content: configurationTable() }];
}

const markers = (name: string) => [`<!-- generated:${name} -->`, `<!-- /generated:${name} -->`] as const;

/** The page with the block's content between its markers; the page must hold the markers once. */
export function withBlock(page: string, block: GeneratedBlock): string {
  const [open, close] = markers(block.name);
  const start = page.indexOf(open);
  const end = page.indexOf(close);
  if (start < 0 || end < start) throw new Error(`${block.file} has no ${open} ... ${close} block`);
  return `${page.slice(0, start + open.length)}\n${block.content}\n${page.slice(end)}`;
}
