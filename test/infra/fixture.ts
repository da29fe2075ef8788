import { Stack } from 'aws-cdk-lib';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { createAssembly, type Assembly } from '../../infra/assembly.js';
import type { AppFunction } from '../../infra/app-function.js';
import { scratchDir } from '../support/scratch.js';

/** Unit tests skip asset bundling; test/infra/bundle.test.ts builds a function for real. */
const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] } as const;

export interface Synthesized extends Assembly {
  apiTemplate: Template;
  dataTemplate: Template;
  workersTemplate: Template;
}

/**
 * The app with a context, as a test builds it: its cloud assembly goes into the run's scratch
 * directory. Without an outdir, every App makes a directory in the temp folder that nothing removes
 * (1.3 MB each, 25 in a whole run).
 */
export function assemble(context: Record<string, unknown> = {}): Assembly {
  return createAssembly({ outdir: scratchDir('cdk.out-'), context: { ...NO_BUNDLING, ...context } });
}

const synthesized = new Map<string, Synthesized>();

/**
 * The app synthesized with a context, once per worker: the infra files of a worker share their
 * modules (vitest.config.ts), and no test changes an assembly once it is synthesized.
 */
export function synthesize(context: Record<string, unknown> = {}): Synthesized {
  const key = JSON.stringify(context);
  const known = synthesized.get(key);
  if (known) return known;
  const assembly = assemble(context);
  const made = {
    ...assembly,
    apiTemplate: Template.fromStack(assembly.api),
    dataTemplate: Template.fromStack(assembly.data),
    workersTemplate: Template.fromStack(assembly.workers),
  };
  synthesized.set(key, made);
  return made;
}

/** The logical id of a construct's CloudFormation resource (its default child, for L2 constructs). */
export function idOf(construct: IConstruct): string {
  const resource = (construct.node.defaultChild ?? construct) as CfnFunction;
  return Stack.of(construct).getLogicalId(resource);
}

export function logicalIdOf(fn: AppFunction): string {
  return idOf(fn.function);
}

export type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

export function resourcesOf(template: Template, type: string): Resources {
  return template.findResources(type) as Resources;
}

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

/** Every statement of the identity policies attached to a function's role. */
export function statementsOf(template: Template, fn: AppFunction): Statement[] {
  const roleId = Stack.of(fn).getLogicalId(fn.role.node.defaultChild as CfnRole);
  return Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

export const actionsIn = (statements: readonly Statement[]): string[] => statements.flatMap((st) => [st.Action].flat());

/** A template value as text: joins joined, references as <Id> or <Id.Attr>, imports as <import:Name>. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Record<string, unknown>;
  if (Array.isArray(v['Fn::Join'])) {
    const [separator, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map(textOf).join(separator);
  }
  if (typeof v.Ref === 'string') return `<${v.Ref}>`;
  if (Array.isArray(v['Fn::GetAtt'])) return `<${(v['Fn::GetAtt'] as string[]).join('.')}>`;
  if (v['Fn::ImportValue'] !== undefined) return `<import:${textOf(v['Fn::ImportValue'])}>`;
  return JSON.stringify(value);
}

/** The resources of a statement, as text. */
export const resourcesIn = (st: Statement): string[] => [st.Resource].flat().map(textOf);
