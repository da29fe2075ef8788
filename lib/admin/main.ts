import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { settings } from '../config.js';
import { readReleaseDirectory, SAMPLE_CATALOGUE_DIR } from '../catalogue/files.js';
import { CatalogueError } from '../domain/oscal.js';
import { importRelease } from '../catalogue/store.js';
import { ulid } from 'ulid';
import {
  createUserAs,
  grantAccessAs,
  reEnrolAs,
  revokeAccessAs,
  revokeTokenAs,
  setStatusAs,
  type AuditContext,
  type IssuedEnrolment,
} from '../auth/administration.js';
import { AdministrationRefusedError, type Administrator } from '../auth/administrator.js';
import { issueTokenAs } from '../auth/issue.js';
import { IssuanceError } from '../auth/issuance.js';
import { consoleConfig, enrolmentUrl } from '../console/config.js';
import type { AccessScope } from '../store/identity.js';
import { asProjectSummary, recountProject, summaryCount } from '../store/controls.js';
import { createManualTask, TaskRefusedError } from './task-create.js';
import { connectionView, connectRepository, listConnections, removeConnection, RepositoryRefusedError } from './repository.js';
import { keys } from '../store/keys.js';
import { runMigrations } from '../migrations/index.js';
import { getOne } from '../store/read.js';
import { ensureTable } from '../store/schema.js';
import { startDynamoDbLocal, type Emulator } from '../local/emulators.js';
import { localTokenSecret, readRuntimeInfo, useLocalServices } from '../local/environment.js';
import { DEFAULT_STAGE } from '../stages.js';
import { AwsStageError, useAwsStage } from './aws-stage.js';

/**
 * The operator CLI: the stand-in for the web interface's user, access and token administration.
 * JSON on stdout; a one-line error on stderr and exit code 2 on bad input.
 */
class UsageError extends Error {
  override readonly name = 'UsageError';
}

const USAGE = `usage:
  admin user create --email E --name N [--super-user]   (prints a one-time console enrolment link)
  admin user enrol --user ID            (re-enrolment: removes the user's passkeys, ends their console sessions, prints a new link)
  admin user disable --user ID | admin user enable --user ID | admin user delete --user ID
  admin access grant --user ID (--installation | --organisation ID | --project ID) --permissions p1,p2
        (installation scope also takes the console's manage-users and manage-super-users)
  admin access revoke --user ID (--installation | --organisation ID | --project ID)
  admin token issue --user ID --type administration|organisation|project [--organisation ID | --project ID]
        --abilities p1,p2 --read-only true|false [--expires-at ISO8601] [--name N]
  admin token revoke --id ID
  admin catalogue import --path DIR     (an ISM OSCAL release: *_catalog.json and *-baseline_profile.json)
  admin project recount --project ID    (recount a populated project's control summary and rewrite its list index)
  admin task create --project ID --title T [--control ID] [--assignee USER]
  admin repository connect --organisation ID --provider github|local --url URL [--token-file F] [--name N]
        (github: https://github.com/<owner>/<repo> or an Enterprise host's; local: the absolute path of a git repository;
         the token is read from F, kept sealed, and never printed)
  admin repository list --organisation ID
  admin repository remove --organisation ID --id CONNECTION
  admin migrate                         (apply the data migrations this installation has not recorded)

Every command runs against the local data (DATA_DIR), or with --aws against a deployed stage:
  --aws [--stage S] [--region R]        the stage S (default ${DEFAULT_STAGE}) in region R (default: AWS_REGION or the AWS
                                        profile's region), found by its CloudFormation stacks' outputs, with the default
                                        AWS credentials`;

const OPTIONS = {
  email: { type: 'string' },
  name: { type: 'string' },
  'super-user': { type: 'boolean' },
  user: { type: 'string' },
  installation: { type: 'boolean' },
  organisation: { type: 'string' },
  project: { type: 'string' },
  permissions: { type: 'string' },
  type: { type: 'string' },
  abilities: { type: 'string' },
  'read-only': { type: 'string' },
  'expires-at': { type: 'string' },
  id: { type: 'string' },
  path: { type: 'string' },
  title: { type: 'string' },
  control: { type: 'string' },
  assignee: { type: 'string' },
  provider: { type: 'string' },
  url: { type: 'string' },
  'token-file': { type: 'string' },
  aws: { type: 'boolean' },
  stage: { type: 'string' },
  region: { type: 'string' },
  help: { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function required(values: Values, name: keyof Values): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v;
}

const list = (csv: string) =>
  csv
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function scopeOf(values: Values): AccessScope {
  const chosen = [values.installation ? 'i' : '', values.organisation ? 'o' : '', values.project ? 'p' : ''].filter(Boolean);
  if (chosen.length !== 1) throw new UsageError('give exactly one of --installation, --organisation ID, --project ID');
  if (values.installation) return { kind: 'installation' };
  return values.organisation ? { kind: 'organisation', id: values.organisation } : { kind: 'project', id: values.project! };
}

const OPERATOR: Administrator = { kind: 'operator' };

/** The audit context of a CLI change: the command stands where a route would. */
const cliAudit = (command: string): AuditContext => ({ request_id: `cli-${ulid()}`, method: 'CLI', route: `admin ${command}` });

/** The link a new or recovering user opens in the console; the CLI prints it once. */
const enrolmentOutput = (enrolment: IssuedEnrolment) => ({
  enrolment_url: enrolmentUrl(consoleConfig(), enrolment.secret),
  enrolment_expires_at: enrolment.expires_at,
});

async function run(command: string, values: Values, now: Date): Promise<unknown> {
  switch (command) {
    case 'user create': {
      const { user, enrolment } = await createUserAs(
        OPERATOR,
        { email: required(values, 'email'), name: required(values, 'name'), superUser: values['super-user'] === true },
        cliAudit(command),
        now,
      );
      return { id: user.id, ...enrolmentOutput(enrolment) };
    }
    case 'user enrol': {
      const enrolment = await reEnrolAs(OPERATOR, required(values, 'user'), cliAudit(command), now);
      return { id: values.user, ...enrolmentOutput(enrolment) };
    }
    case 'user enable':
    case 'user disable':
    case 'user delete': {
      const status = ({ 'user enable': 'active', 'user disable': 'disabled', 'user delete': 'deleted' } as const)[command];
      const id = required(values, 'user');
      await setStatusAs(OPERATOR, id, status, cliAudit(command), now);
      return { id, status };
    }
    case 'access grant': {
      const userId = required(values, 'user');
      const scope = scopeOf(values);
      const permissions = list(required(values, 'permissions'));
      await grantAccessAs(OPERATOR, userId, scope, permissions, cliAudit(command), now);
      return { user_id: userId, scope: scope.kind, ...(scope.kind !== 'installation' ? { id: scope.id } : {}), permissions };
    }
    case 'access revoke': {
      const userId = required(values, 'user');
      const scope = scopeOf(values);
      return { user_id: userId, scope: scope.kind, revoked: await revokeAccessAs(OPERATOR, userId, scope, cliAudit(command), now) };
    }
    case 'token issue': {
      const readOnly = required(values, 'read-only');
      if (readOnly !== 'true' && readOnly !== 'false') throw new UsageError('--read-only must be true or false');
      const issued = await issueTokenAs(
        required(values, 'user'),
        {
          token_type: required(values, 'type'),
          organisation_id: values.organisation,
          project_id: values.project,
          name: values.name ?? `CLI token ${now.toISOString()}`,
          abilities: list(required(values, 'abilities')),
          read_only: readOnly === 'true',
          expires_at: values['expires-at'],
        },
        cliAudit(command),
        now,
      );
      return { id: issued.id, token: issued.token, expires_at: issued.expires_at };
    }
    case 'token revoke': {
      const id = required(values, 'id');
      await revokeTokenAs(OPERATOR, id, cliAudit(command), now);
      return { id, revoked: true };
    }
    case 'catalogue import': {
      const dir = resolve(required(values, 'path'));
      const release = await importRelease(readReleaseDirectory(dir), { sample: dir === resolve(SAMPLE_CATALOGUE_DIR) }, now);
      return { release: release.version, controls: release.entries };
    }
    case 'project recount': {
      const id = required(values, 'project');
      const project = await getOne(keys.project(id));
      if (!project) throw new UsageError(`no project ${id}`);
      if (project.lifecycle_state !== 'active') throw new UsageError(`project ${id} is not populated yet`);
      await recountProject(id, now);
      return { project: id, controls: summaryCount(asProjectSummary(await getOne(keys.projectSummary(id))), 'controls') };
    }
    case 'task create': {
      const task = await createManualTask(
        { projectId: required(values, 'project'), title: required(values, 'title'), controlId: values.control, assigneeId: values.assignee },
        now,
      );
      return { id: task.id, project_id: task.project_id, related_control_id: task.related_control_id, assignee_user_id: task.assignee_user_id };
    }
    case 'repository connect': {
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
    }
    case 'repository list': {
      const organisationId = required(values, 'organisation');
      return { organisation_id: organisationId, connections: (await listConnections(organisationId)).map(connectionView) };
    }
    case 'repository remove': {
      const id = required(values, 'id');
      await removeConnection(required(values, 'organisation'), id, now);
      return { id, removed: true };
    }
    case 'migrate':
      return { steps: await runMigrations(now) };
    default:
      throw new UsageError(`unknown command "${command}"\n${USAGE}`);
  }
}

/**
 * With --aws, the services of a deployed stage, as its functions have them (default credential
 * chain); else the table of a running `npm start` when there is one; otherwise a private DynamoDB
 * Local on the same data.
 */
async function connect(values: Values): Promise<Emulator | undefined> {
  if (values.aws) {
    await useAwsStage(values.stage ?? DEFAULT_STAGE, values.region);
    return undefined;
  }
  if (values.stage !== undefined || values.region !== undefined) throw new UsageError('--stage and --region go with --aws');
  const dataDir = resolve(settings().DATA_DIR);
  if (process.env.DYNAMODB_ENDPOINT) {
    useLocalServices({ dynamodb: process.env.DYNAMODB_ENDPOINT, secret: process.env.TOKEN_HASH_SECRET ?? localTokenSecret(dataDir) });
    return undefined;
  }
  const running = readRuntimeInfo(dataDir);
  // Enrolment links point at the console of the runtime this data belongs to.
  process.env.CONSOLE_ORIGIN ??= `http://localhost:${running?.port ?? settings().PORT}`;
  if (running) {
    useLocalServices({ dynamodb: running.dynamodb, secret: localTokenSecret(dataDir) });
    return undefined;
  }
  const own = await startDynamoDbLocal({ dataDir: resolve(dataDir, 'dynamodb') });
  useLocalServices({ dynamodb: own.endpoint, secret: localTokenSecret(dataDir) });
  await ensureTable();
  return own;
}

async function main(): Promise<number> {
  // Node 20 is supported locally (DESIGN); Lambda runs Node 24, so the SDK's notice is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: process.argv.slice(2), options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  if (parsed.values.help || parsed.positionals.length === 0) {
    console.log(USAGE);
    return parsed.values.help ? 0 : 2;
  }
  const command = parsed.positionals.slice(0, 2).join(' ');
  let own: Emulator | undefined;
  try {
    own = await connect(parsed.values);
    console.log(JSON.stringify(await run(command, parsed.values, new Date())));
    return 0;
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof CatalogueError ||
      error instanceof IssuanceError ||
      error instanceof AdministrationRefusedError ||
      error instanceof TaskRefusedError ||
      error instanceof RepositoryRefusedError ||
      error instanceof AwsStageError
    ) {
      console.error(error.message.split('\n')[0]);
      return 2;
    }
    console.error(`admin: ${(error as Error).message}`);
    return 1;
  } finally {
    await own?.stop();
  }
}

process.exitCode = await main();
