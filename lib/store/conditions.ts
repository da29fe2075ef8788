/**
 * Condition expressions as named fragments, combined with `and`, so that no module concatenates
 * expression strings of its own. Placeholders are made unique per fragment.
 */
export interface Condition {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

let counter = 0;
const uid = () => (counter = (counter + 1) % 1_000_000).toString(36);

export function itemAbsent(): Condition {
  const n = `#pk${uid()}`;
  return { expression: `attribute_not_exists(${n})`, names: { [n]: 'PK' }, values: {} };
}

export function itemPresent(): Condition {
  const n = `#pk${uid()}`;
  return { expression: `attribute_exists(${n})`, names: { [n]: 'PK' }, values: {} };
}

export function versionIs(version: number): Condition {
  const id = uid();
  return { expression: `#v${id} = :v${id}`, names: { [`#v${id}`]: 'version' }, values: { [`:v${id}`]: version } };
}

/** Absent attribute or a value below the limit: counters that start at nothing. */
export function belowLimit(attribute: string, limit: number): Condition {
  const id = uid();
  return {
    expression: `(attribute_not_exists(#a${id}) OR #a${id} < :l${id})`,
    names: { [`#a${id}`]: attribute },
    values: { [`:l${id}`]: limit },
  };
}

/** A counter that is absent or zero (nothing counted). */
export function absentOrZero(attribute: string): Condition {
  const id = uid();
  return { expression: `attribute_not_exists(#z${id}) OR #z${id} = :z${id}`, names: { [`#z${id}`]: attribute }, values: { [`:z${id}`]: 0 } };
}

/** A present attribute below the limit: unlike belowLimit, a missing item or attribute fails it. */
export function presentBelow(attribute: string, limit: number): Condition {
  const id = uid();
  return { expression: `#b${id} < :b${id}`, names: { [`#b${id}`]: attribute }, values: { [`:b${id}`]: limit } };
}

/** A present attribute at or above the limit: a missing item or attribute fails it. */
export function presentAtLeast(attribute: string, limit: number): Condition {
  const id = uid();
  return { expression: `#g${id} >= :g${id}`, names: { [`#g${id}`]: attribute }, values: { [`:g${id}`]: limit } };
}

export function attributeEquals(attribute: string, value: string | number | boolean): Condition {
  const id = uid();
  return { expression: `#q${id} = :q${id}`, names: { [`#q${id}`]: attribute }, values: { [`:q${id}`]: value } };
}

/** A nested attribute (a map member) equal to the value; `orAbsent` also accepts it missing (a default). */
export function memberEquals(path: readonly string[], value: string | number | boolean, orAbsent = false): Condition {
  const id = uid();
  const names = Object.fromEntries(path.map((p, i) => [`#m${id}_${i}`, p]));
  const ref = Object.keys(names).join('.');
  return {
    expression: orAbsent ? `attribute_not_exists(${ref}) OR ${ref} = :m${id}` : `${ref} = :m${id}`,
    names,
    values: { [`:m${id}`]: value },
  };
}

/** A list or set attribute that holds every one of the values (permissions still granted). */
export function containsAll(attribute: string, values: readonly string[]): Condition {
  const id = uid();
  return {
    expression: values.map((_, i) => `contains(#c${id}, :c${id}_${i})`).join(' AND '),
    names: { [`#c${id}`]: attribute },
    values: Object.fromEntries(values.map((v, i) => [`:c${id}_${i}`, v])),
  };
}

/** A string attribute (such as an ISO timestamp) that sorts after the value. */
export function attributeAfter(attribute: string, value: string): Condition {
  const id = uid();
  return { expression: `#t${id} > :t${id}`, names: { [`#t${id}`]: attribute }, values: { [`:t${id}`]: value } };
}

/** A string attribute (an ISO timestamp) that is absent or sorts before the value. */
export function absentOrBefore(attribute: string, value: string): Condition {
  const id = uid();
  return { expression: `attribute_not_exists(#t${id}) OR #t${id} < :t${id}`, names: { [`#t${id}`]: attribute }, values: { [`:t${id}`]: value } };
}

/** A claim item (slug, short code, logical key) still held by this owner. */
export const ownedBy = (attribute: string, ownerId: string): Condition => attributeEquals(attribute, ownerId);

/** An item that is absent or whose `expires_at` (epoch seconds) has passed. */
export function absentOrExpired(nowSeconds: number): Condition {
  const id = uid();
  return {
    expression: `(attribute_not_exists(#pk${id}) OR #e${id} < :n${id})`,
    names: { [`#pk${id}`]: 'PK', [`#e${id}`]: 'expires_at' },
    values: { [`:n${id}`]: nowSeconds },
  };
}

/** A lease attribute (ISO timestamp) that is absent or has run out by `nowIso`. */
export function leaseFree(attribute: string, nowIso: string): Condition {
  const id = uid();
  return {
    expression: `attribute_not_exists(#l${id}) OR #l${id} < :l${id}`,
    names: { [`#l${id}`]: attribute },
    values: { [`:l${id}`]: nowIso },
  };
}

export function and(...parts: Condition[]): Condition {
  return {
    expression: parts.map((p) => `(${p.expression})`).join(' AND '),
    names: Object.assign({}, ...parts.map((p) => p.names)),
    values: Object.assign({}, ...parts.map((p) => p.values)),
  };
}

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

/** `SET a = :a, ...` for plain attribute assignments, with placeholders unique to this fragment. */
export function setFields(fields: Record<string, unknown>): { expression: string; names: Record<string, string>; values: Record<string, unknown> } {
  const id = uid();
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const parts = Object.entries(fields).map(([k, v], i) => {
    names[`#s${id}_${i}`] = k;
    values[`:s${id}_${i}`] = v;
    return `#s${id}_${i} = :s${id}_${i}`;
  });
  return { expression: `SET ${parts.join(', ')}`, names, values };
}
