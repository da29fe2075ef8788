import { required, type Command } from '../options.js';
import { connectionView, connectRepository, listConnections, removeConnection, RepositoryRefusedError } from '../repository.js';

export const commands: Record<string, Command> = {
  'repository connect': async (values, now) => {
    const connection = await connectRepository(
      {
        organisationId: required(values, 'organisation'),
        provider: required(values, 'provider'),
        url: required(values, 'url'),
        tokenFile: values['token-file'],
        name: values.name,
      },
      now,
    );
    return connectionView(connection);
  },
  'repository list': async (values) => {
    const organisationId = required(values, 'organisation');
    return { organisation_id: organisationId, connections: (await listConnections(organisationId)).map(connectionView) };
  },
  'repository remove': async (values, now) => {
    const id = required(values, 'id');
    await removeConnection(required(values, 'organisation'), id, now);
    return { id, removed: true };
  },
};

export const refusals = [RepositoryRefusedError];
