import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assemble } from './fixture.js';

interface Acknowledgement {
  path: string;
  id: string;
  reason: string;
}

function acknowledgementsIn(root: IConstruct): Acknowledgement[] {
  return root.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) => Object.entries(m.data as Record<string, string>))
      .map(([id, reason]) => ({ path: c.node.path, id: id.replace(/^annotation::/i, ''), reason })),
  );
}

describe('cdk-nag AwsSolutions checks', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('reports no unacknowledged finding', () => {
    const { app } = assemble();
    const report = new AwsSolutionsChecks().validateScope(app);
    expect(report.violations.map((v) => `${v.ruleName} (${v.severity}) at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
  });

  it('reports no unacknowledged finding on a named stage with a custom domain', () => {
    const domain = { domainName: 'assess.example.com', certificateArn: 'arn:aws:acm:ap-southeast-2:123456789012:certificate/0f1e2d3c-4b5a-6978' };
    const { app } = assemble({ stage: 'prod', ...domain });
    expect(new AwsSolutionsChecks().validateScope(app).violations.map((v) => v.ruleName)).toEqual([]);
  });

  it('passes the same checks in a real synth, where cross-stack references have become imports', () => {
    const { app } = assemble();
    expect(() => app.synth()).not.toThrow();
  });

  it('gives every acknowledgement a written reason', () => {
    const { app } = assemble();
    const acknowledgements = acknowledgementsIn(app).filter((a) => a.id.startsWith('AwsSolutions-'));
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const a of acknowledgements) expect(a.reason.length, `${a.id} at ${a.path}`).toBeGreaterThanOrEqual(60);
  });

  it('acknowledges only findings that occur', () => {
    const acknowledged = new Set(acknowledgementsIn(assemble().app).map((a) => a.id));
    vi.spyOn(Validations.prototype, 'acknowledge').mockImplementation(() => undefined);
    const { app } = assemble();
    const found = new Set(new AwsSolutionsChecks().validateScope(app).violations.map((v) => v.ruleName));
    expect([...acknowledged].filter((id) => id.startsWith('AwsSolutions-') && !found.has(id))).toEqual([]);
  });
});
