import { metadataOf, type StoredEvidence } from '../../lib/domain/evidence.js';
import type { RepositoryConnection } from '../../lib/domain/repositories.js';
import { putRepositoryConnection } from '../../lib/store/repositories.js';
import type { Api } from './api.js';
import { arrangeControls, controlsUrl } from './controls.js';
import { buildEvidence, buildRepositoryConnection, buildUploadEvidence, createEvidence } from './factories.js';
import type { World } from './projects.js';

export const EXTERNAL = { kind: 'external_reference', title: 'Firewall change record', external_reference: 'https://tickets.example.test/CHG-1042' };
export const TEXT = { kind: 'text_reference', title: 'Interview note', description: 'The system owner confirmed quarterly access reviews.' };

/** A repository connection of the organisation, written as the operator CLI writes it. */
export async function repositoryConnection(organisationId: string, fields: Partial<RepositoryConnection> = {}): Promise<RepositoryConnection> {
  const connection = buildRepositoryConnection({ ...fields, organisation_id: organisationId });
  await putRepositoryConnection(connection);
  return connection;
}

/**
 * A populated project's control (sample-9001) and helpers over its evidence: the evidence URL,
 * create a reference or a link, read an item, read the control's evidence list with the control
 * ETag, and put an uploaded file on any control as the scan pipeline leaves it.
 */
export async function arrangeEvidence(api: Api, world: World, options: Parameters<typeof arrangeControls>[2] = {}) {
  const a = await arrangeControls(api, world, options);
  const control = a.idOf('sample-9001');
  const evidenceUrl = (rest = '', controlId = control) => controlsUrl(a.p.id, `/${controlId}/evidence${rest}`);
  const reference = async (body: Record<string, unknown> = EXTERNAL, token = a.token) => api.request('POST', evidenceUrl('/references'), { token, body });
  const link = async (body: Record<string, unknown>, token = a.token) => api.request('POST', evidenceUrl('/links'), { token, body });
  const item = async (id: string, token = a.token) => {
    const res = await api.request('GET', evidenceUrl(`/${id}`), { token });
    return { res, body: res.body?.data, etag: res.headers.get('etag')! };
  };
  const items = async () => (await a.read('sample-9001')).body.evidence_items as { id: string; etag: string; status: string }[];
  /** An uploaded file of a control, written directly (as the upload operation and the scan pipeline leave it). */
  const upload = async (catalogueId: string, fields: Partial<StoredEvidence> = {}): Promise<StoredEvidence> => {
    const ready = (fields.file_status ?? 'ready') === 'ready';
    return createEvidence(
      buildUploadEvidence({
        project_id: a.p.id,
        control_id: a.idOf(catalogueId),
        detected_type: ready ? 'application/pdf' : null,
        created_by: world.op.userId,
        updated_by: world.op.userId,
        ...fields,
      }),
    );
  };
  /**
   * Text references of the control written directly, with the writes the reference operation makes
   * (the item and the control's count): for tests that need a full control rather than the operation.
   */
  const referencesWritten = async (count: number) => {
    for (let i = 0; i < count; i++)
      await createEvidence(
        buildEvidence({
          ...metadataOf({ title: `Note ${i}`, description: 'Seen.' }),
          project_id: a.p.id,
          control_id: control,
          created_by: world.op.userId,
          updated_by: world.op.userId,
        }),
      );
  };
  const fileLink = (source: Pick<StoredEvidence, 'control_id' | 'id'>, extra: Record<string, unknown> = {}) => ({
    kind: 'file_link',
    source_control_id: source.control_id,
    source_evidence_id: source.id,
    ...extra,
  });
  return { ...a, control, evidenceUrl, reference, link, item, items, upload, referencesWritten, fileLink };
}
