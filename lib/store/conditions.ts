/**
 * Condition expressions as named fragments, combined with `and`, so that no module concatenates
 * expression strings of its own. Placeholders come from the builder: numbered within a fragment
 * and renumbered by `and`, so that the same write always produces the same command. Their `#cnd`
 * and `:cnd` prefixes are the conditions' own, apart from any hand-written update's names.
 */
export interface Condition {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

const PLACEHOLDER = /([#:])cnd(\d+)\b/g;

/** A fragment whose `build` names attributes and values through the placeholder allocators it is given. */
function fragment(build: (name: (attribute: string) => string, value: (v: unknown) => string) => string): Condition {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const expression = build(
    (attribute) => {
      const placeholder = `#cnd${Object.keys(names).length}`;
      names[placeholder] = attribute;
      return placeholder;
    },
    (v) => {
      const placeholder = `:cnd${Object.keys(values).length}`;
      values[placeholder] = v;
      return placeholder;
    },
  );
  return { expression, names, values };
}

export const itemAbsent = (): Condition => fragment((name) => `attribute_not_exists(${name('PK')})`);

export const itemPresent = (): Condition => fragment((name) => `attribute_exists(${name('PK')})`);

export const versionIs = (version: number): Condition => fragment((name, value) => `${name('version')} = ${value(version)}`);

/** Absent attribute or a value below the limit: counters that start at nothing. */
export const belowLimit = (attribute: string, limit: number): Condition =>
  fragment((name, value) => {
    const a = name(attribute);
    return `(attribute_not_exists(${a}) OR ${a} < ${value(limit)})`;
  });

/** A counter that is absent or zero (nothing counted). */
export const absentOrZero = (attribute: string): Condition =>
  fragment((name, value) => {
    const a = name(attribute);
    return `attribute_not_exists(${a}) OR ${a} = ${value(0)}`;
  });

/** A present attribute below the limit: unlike belowLimit, a missing item or attribute fails it. */
export const presentBelow = (attribute: string, limit: number): Condition => fragment((name, value) => `${name(attribute)} < ${value(limit)}`);

/** A present attribute at or above the limit: a missing item or attribute fails it. */
export const presentAtLeast = (attribute: string, limit: number): Condition => fragment((name, value) => `${name(attribute)} >= ${value(limit)}`);

export const attributeEquals = (attribute: string, expected: string | number | boolean): Condition =>
  fragment((name, value) => `${name(attribute)} = ${value(expected)}`);

/** A nested attribute (a map member) equal to the value; `orAbsent` also accepts it missing (a default). */
export const memberEquals = (path: readonly string[], expected: string | number | boolean, orAbsent = false): Condition =>
  fragment((name, value) => {
    const ref = path.map(name).join('.');
    return orAbsent ? `attribute_not_exists(${ref}) OR ${ref} = ${value(expected)}` : `${ref} = ${value(expected)}`;
  });

/** A nested attribute (a map member) equal to one of the values. */
export const memberOneOf = (path: readonly string[], expected: readonly (string | number | boolean)[]): Condition =>
  fragment((name, value) => {
    const ref = path.map(name).join('.');
    return expected.map((v) => `${ref} = ${value(v)}`).join(' OR ');
  });

/** A list or set attribute that holds every one of the values (permissions still granted). */
export const containsAll = (attribute: string, members: readonly string[]): Condition =>
  fragment((name, value) => {
    const a = name(attribute);
    return members.map((m) => `contains(${a}, ${value(m)})`).join(' AND ');
  });

/** A string attribute (such as an ISO timestamp) that sorts after the value. */
export const attributeAfter = (attribute: string, bound: string): Condition => fragment((name, value) => `${name(attribute)} > ${value(bound)}`);

/** A string attribute (an ISO timestamp) that is absent or sorts before the value. */
export const absentOrBefore = (attribute: string, bound: string): Condition =>
  fragment((name, value) => {
    const a = name(attribute);
    return `attribute_not_exists(${a}) OR ${a} < ${value(bound)}`;
  });

/** A claim item (slug, short code, logical key) still held by this owner. */
export const ownedBy = (attribute: string, ownerId: string): Condition => attributeEquals(attribute, ownerId);

/** An item that is absent or whose `expires_at` (epoch seconds) has passed. */
export const absentOrExpired = (nowSeconds: number): Condition =>
  fragment((name, value) => `(attribute_not_exists(${name('PK')}) OR ${name('expires_at')} < ${value(nowSeconds)})`);

/** A lease attribute (ISO timestamp) that is absent or has run out by `nowIso`. */
export const leaseFree = (attribute: string, nowIso: string): Condition =>
  fragment((name, value) => {
    const a = name(attribute);
    return `attribute_not_exists(${a}) OR ${a} < ${value(nowIso)}`;
  });

/** The conjunction, each part's placeholders renumbered after those of the parts before it. */
export const and = (...parts: Condition[]): Condition =>
  fragment((name, value) =>
    parts
      .map((p) => {
        const renamed: Record<string, string> = {};
        for (const [placeholder, attribute] of Object.entries(p.names)) renamed[placeholder] = name(attribute);
        for (const [placeholder, v] of Object.entries(p.values)) renamed[placeholder] = value(v);
        return `(${p.expression.replace(PLACEHOLDER, (placeholder) => renamed[placeholder]!)})`;
      })
      .join(' AND '),
  );

/** The request fields of a condition; DynamoDB rejects an empty ExpressionAttributeValues map. */
export interface ConditionFields {
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

export function conditionFields(c: Condition | undefined): ConditionFields {
  if (!c) return {};
  return {
    ConditionExpression: c.expression,
    ExpressionAttributeNames: c.names,
    ...(Object.keys(c.values).length ? { ExpressionAttributeValues: c.values } : {}),
  };
}

/** `SET a = :a, ...` for plain attribute assignments, with `#set`/`:set` placeholders numbered in field order. */
export function setFields(fields: Record<string, unknown>): { expression: string; names: Record<string, string>; values: Record<string, unknown> } {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const parts = Object.entries(fields).map(([k, v], i) => {
    names[`#set${i}`] = k;
    values[`:set${i}`] = v;
    return `#set${i} = :set${i}`;
  });
  return { expression: `SET ${parts.join(', ')}`, names, values };
}
