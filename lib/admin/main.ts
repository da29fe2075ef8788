import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { settings } from '../config.js';
import type { Emulator } from '../local/emulators.js';
import { DEFAULT_STAGE } from '../stages.js';
import { OPTIONS, UsageError, type CommandGroup, type Values } from './options.js';

/**
 * The operator CLI: the stand-in for the web interface's user, access and token administration.
 * JSON on stdout; a one-line error on stderr and exit code 2 on bad input.
 */
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

/**
 * The commands by their first word. A process runs one command, so it imports only that command's
 * module: a process per command spent most of its time loading what other commands need.
 */
const GROUPS = new Map<string, () => Promise<CommandGroup>>([
  ['user', () => import('./commands/user.js')],
  ['access', () => import('./commands/access.js')],
  ['token', () => import('./commands/token.js')],
  ['catalogue', () => import('./commands/catalogue.js')],
  ['project', () => import('./commands/project.js')],
  ['task', () => import('./commands/task.js')],
  ['repository', () => import('./commands/repository.js')],
  ['migrate', () => import('./commands/migrate.js')],
]);

/**
 * With --aws, the services of a deployed stage, as its functions have them (default credential
 * chain); else the table of a running `npm start` when there is one; otherwise a private DynamoDB
 * Local on the same data.
 */
async function connect(values: Values): Promise<Emulator | undefined> {
  if (values.aws) {
    const { useAwsStage } = await import('./aws-stage.js');
    await useAwsStage(values.stage ?? DEFAULT_STAGE, values.region);
    return undefined;
  }
  if (values.stage !== undefined || values.region !== undefined) throw new UsageError('--stage and --region go with --aws');
  const { localTokenSecret, readRuntimeInfo, useLocalServices } = await import('../local/environment.js');
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
  const [{ startDynamoDbLocal }, { ensureTable }] = await Promise.all([import('../local/emulators.js'), import('../store/schema.js')]);
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
  let group: CommandGroup | undefined;
  let own: Emulator | undefined;
  try {
    group = await GROUPS.get(parsed.positionals[0] ?? '')?.();
    const run = group && Object.hasOwn(group.commands, command) ? group.commands[command] : undefined;
    if (!run) throw new UsageError(`unknown command "${command}"\n${USAGE}`);
    own = await connect(parsed.values);
    console.log(JSON.stringify(await run(parsed.values, new Date(), command)));
    return 0;
  } catch (error) {
    if (error instanceof UsageError || group?.refusals.some((refusal) => error instanceof refusal)) {
      console.error((error as Error).message.split('\n')[0]);
      return 2;
    }
    console.error(`admin: ${(error as Error).message}`);
    return 1;
  } finally {
    await own?.stop();
  }
}

process.exitCode = await main();
