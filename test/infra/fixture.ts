import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { Template } from 'aws-cdk-lib/assertions';
import { createAssembly, type Assembly } from '../../infra/assembly.js';
import type { ApiFunction } from '../../infra/api-function.js';

/** Unit tests skip asset bundling; test/infra/bundle.test.ts builds a function for real. */
export const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] } as const;

export interface Synthesized extends Assembly {
  apiTemplate: Template;
  dataTemplate: Template;
}

export function synthesize(context: Record<string, unknown> = {}): Synthesized {
  const assembly = createAssembly({ context: { ...NO_BUNDLING, ...context } });
  return { ...assembly, apiTemplate: Template.fromStack(assembly.api), dataTemplate: Template.fromStack(assembly.data) };
}

export function logicalIdOf(fn: ApiFunction): string {
  return fn.function.stack.getLogicalId(fn.function.node.defaultChild as CfnFunction);
}

export type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

export function resourcesOf(template: Template, type: string): Resources {
  return template.findResources(type) as Resources;
}
