import { describe, expect, it } from 'vitest';
import {
  CreateProject,
  engagementView,
  identityOf,
  ScopeData,
  setupProjectView,
  UpdateEngagement,
  UpdateScope,
  UpdateSetupProject,
  workflowSettingsOf,
} from '../../../lib/domain/projects.js';
import { buildProject } from '../../support/factories.js';

const project = buildProject({
  description: 'Payroll assessment',
  ism_release_id: '01M84T2AZS9C8TZ6EGZG2RXYHR',
  ism_release_version: '2025.12.9',
  control_workflow: { edit_approval: true, assessment_approval: false },
});

describe('workflowSettingsOf', () => {
  it('takes both approvals as off for a project created before the workflow settings', () => {
    expect(workflowSettingsOf(buildProject())).toEqual({ edit_approval: false, assessment_approval: false });
  });

  it("keeps the project's own settings", () => {
    expect(workflowSettingsOf(project)).toEqual({ edit_approval: true, assessment_approval: false });
  });
});

describe('identityOf', () => {
  it('answers the identity with the release as one object, nothing of the setup', () => {
    expect(identityOf(project)).toEqual({
      id: project.id,
      organisation_id: project.organisation_id,
      system_id: project.system_id,
      name: 'Factory project',
      ism_release: { id: '01M84T2AZS9C8TZ6EGZG2RXYHR', version: '2025.12.9' },
      classification: 'P',
      essential_eight_target: 'none',
      lifecycle_state: 'active',
      archived: false,
    });
  });
});

describe('setupProjectView', () => {
  it('shows the setup fields to a caller who manages projects', () => {
    expect(setupProjectView(project, true)).toEqual({
      ...identityOf(project),
      description: 'Payroll assessment',
      control_workflow: { edit_approval: true, assessment_approval: false },
      population: { run_id: null, status: 'completed' },
      created_at: project.created_at,
      updated_at: project.updated_at,
      redacted_fields: [],
    });
  });

  it('names the setup fields as redacted to any other caller, keeping the population status', () => {
    expect(setupProjectView(project, false)).toEqual({
      ...identityOf(project),
      population: { run_id: null, status: 'completed' },
      created_at: project.created_at,
      updated_at: project.updated_at,
      redacted_fields: ['description', 'control_workflow'],
    });
  });
});

describe('CreateProject', () => {
  it('takes no Essential Eight target as none', () => {
    const parsed = CreateProject().parse({ name: 'Payroll', ism_release_id: '01M84T2AZS9C8TZ6EGZG2RXYHR', classification: 'P' });
    expect(parsed.essential_eight_target).toBe('none');
  });

  it('refuses a property it does not know', () => {
    expect(CreateProject().safeParse({ name: 'Payroll', ism_release_id: '01M84T2AZS9C8TZ6EGZG2RXYHR', classification: 'P', owner: 'x' }).success).toBe(false);
  });
});

describe('UpdateSetupProject', () => {
  it('refuses a patch whose only property is the edit reason', () => {
    expect(UpdateSetupProject().safeParse({ project_edit_reason: 'Because.' }).success).toBe(false);
  });

  it('refuses a classification: it is fixed at creation', () => {
    expect(UpdateSetupProject().safeParse({ classification: 'S' }).success).toBe(false);
  });
});

describe('ScopeData', () => {
  it('refuses a planned end before the planned start, at planned_end', () => {
    const parsed = ScopeData().safeParse({ planned_start: '2026-03-01', planned_end: '2026-02-28' });
    expect(parsed.error?.issues.map((i) => [i.path, i.message])).toEqual([[['planned_end'], 'must not precede planned_start']]);
  });

  it('takes each scope technology as yes, no or null', () => {
    expect(
      ScopeData()
        .safeParse({ wireless_networks: 'yes', mobile_devices: null, email_services: 'maybe' })
        .error?.issues.map((i) => i.path),
    ).toEqual([['email_services']]);
  });
});

describe('UpdateScope', () => {
  it('refuses a patch that names neither data nor provider selections', () => {
    expect(UpdateScope().safeParse({}).success).toBe(false);
  });

  it('takes an empty list of provider selections, which clears them', () => {
    expect(UpdateScope().parse({ provider_selections: [] })).toEqual({ provider_selections: [] });
  });
});

describe('UpdateEngagement', () => {
  it('refuses an end date before the start date, at end_date', () => {
    const parsed = UpdateEngagement().safeParse({ start_date: '2026-03-01', end_date: '2026-02-01' });
    expect(parsed.error?.issues.map((i) => i.path)).toEqual([['end_date']]);
  });
});

describe('engagementView', () => {
  const data = { engagement_reference: 'ENG-1', client_name: 'Agency', commercial_reference: 'PO-9', internal_notes: 'Quote low.' };

  it('shows every field, null where none is stored, to a caller who manages projects', () => {
    expect(engagementView(data, '2026-01-02T00:00:00.000Z', true)).toEqual({
      engagement_reference: 'ENG-1',
      client_name: 'Agency',
      assessor_organisation: null,
      lead_assessor_name: null,
      start_date: null,
      end_date: null,
      commercial_reference: 'PO-9',
      internal_notes: 'Quote low.',
      updated_at: '2026-01-02T00:00:00.000Z',
      redacted_fields: [],
    });
  });

  it('leaves out the setup-only fields for a project credential and names them', () => {
    expect(engagementView(data, null, false)).toEqual({
      engagement_reference: 'ENG-1',
      client_name: 'Agency',
      assessor_organisation: null,
      lead_assessor_name: null,
      start_date: null,
      end_date: null,
      updated_at: null,
      redacted_fields: ['commercial_reference', 'internal_notes'],
    });
  });

  it('shows an engagement never saved as all null', () => {
    expect(engagementView(undefined, null, false).client_name).toBeNull();
  });
});
