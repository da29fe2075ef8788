import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * A deployed function runs minified chunks (index.mjs and its `import()` chunks), each with its
 * source map beside it (infra/bundling.ts). Node's --enable-source-maps would map every stack, but
 * it costs about 20 ms CPU of every cold start to load the maps; the few stacks worth reading are
 * those of unexpected errors, which lib/log.ts maps here when it writes them. Only `.mjs` frames
 * are looked at, the bundles' extension: run from source (tsx), frames already name the .ts files.
 */
const FRAME_POSITION = /((?:file:\/\/)?\/[^\s()]+\.mjs):(\d+):(\d+)/;

/** Each chunk's map, read and parsed once per process at its first mapped frame; null when the chunk has none. */
const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    try {
      const path = file.startsWith('file://') ? fileURLToPath(file) : file;
      map = new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')));
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  return map;
}

/** One stack line with its bundle position replaced by the source file (as the map names it) and line; the line unchanged if it has none. */
function sourceFrame(frame: string): string {
  const match = FRAME_POSITION.exec(frame);
  if (!match) return frame;
  const [position, file, line, column] = match as unknown as [string, string, string, string];
  // The map's lines and columns count from 0, a stack's from 1.
  const entry = mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1);
  if (!entry || !('originalSource' in entry)) return frame;
  return frame.replace(position, `${entry.originalSource}:${entry.originalLine + 1}:${entry.originalColumn + 1}`);
}

/** A stack whose frames in bundled code name source positions instead. */
export function sourceStack(stack: string): string {
  return stack.split('\n').map(sourceFrame).join('\n');
}

/**
 * Rewrites the stack of an error and of its causes to source positions, in place: the error is
 * being logged, and a rewritten stack has no bundle positions left, so a second pass changes nothing.
 */
export function withSourceStack<E extends Error>(error: E): E {
  const seen = new Set<Error>();
  for (let e: unknown = error; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    if (typeof e.stack === 'string') e.stack = sourceStack(e.stack);
  }
  return error;
}
