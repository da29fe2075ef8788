import type { Permission } from './permissions.js';
import type { Responsibility } from './imports/rows.js';
import type { StoredAssertion } from './assertions.js';

/**
 * What the published assurance releases a project selects do to its controls (issue 14): every
 * confirmed assertion about a control shows as provider guidance, and a control that some
 * selected provider carries alone and has implemented gets the server-owned status `ec`, unless
 * the project's people chose a status themselves. Like applicability recalculation, the server
 * takes back only what it set: deselecting the release reverts `ec`, never a person's choice.
 */

/**
 * One selected release's word on a control as the control stores it: which assertion says it, and
 * whether the artefact it came from is restricted. The words themselves stay on the assertion: a
 * published release never changes, and a control item that copied them passed 1 KB, so that every
 * recalculation write cost two write units (issue 25). guidanceOf joins them at read time.
 */
export interface GuidanceReference {
  provider_id: string;
  release_id: string;
  assertion_id: string;
  /** From a restricted artefact: shown only to project callers holding view-restricted-provider-artefacts. */
  restricted: boolean;
}

/** One selected release's word on a control, as the control shows it. */
export interface ProviderGuidance extends GuidanceReference {
  responsibility: Responsibility;
  implementation_status: StoredAssertion['implementation_status'];
  /** The provider's guidance to consumers, else its implementation statement; null when it gave neither. */
  guidance: string | null;
  /** The guidance was cut to its share of GUIDANCE_BUDGET characters (code points). */
  guidance_truncated: boolean;
}

/** What a shown guidance entry reads from its assertion. */
export type AssertionText = Pick<StoredAssertion, 'id' | 'responsibility' | 'implementation_status' | 'consumer_guidance' | 'implementation_statement'>;

/** Where a control's implementation status came from: a person, or the server from a provider assertion. */
export const STATUS_ORIGINS = ['explicit_user_choice', 'provider_assertion'] as const;
export type StatusOrigin = (typeof STATUS_ORIGINS)[number];

export interface ProviderEffect {
  guidance: GuidanceReference[];
  /** A confirmed assertion makes the control provider-inherited and effective. */
  inherited: boolean;
}

/** A confirmed assertion of a selected release, with whether the artefact it came from is restricted. */
export type SelectedAssertion = Pick<StoredAssertion, 'id' | 'provider_id' | 'release_id' | 'control_id' | 'responsibility' | 'implementation_status'> & {
  restricted: boolean;
};

/**
 * Provider-inherited and effective: the provider alone is responsible and has implemented it, and
 * a person holding publish-provider-assurance-packages confirmed that in a published release.
 * Shared and consumer controls stay the project's to implement; their guidance still shows.
 */
const inheritedEffective = (a: SelectedAssertion) => a.responsibility === 'provider' && a.implementation_status === 'implemented';

/**
 * Characters of guidance one control shows, shared between its entries: 50 selected releases may
 * each bring 20,000 characters for the same control, and the control's answer gets a bounded
 * share, evenly split (the bound dates from when the control item held the texts).
 */
export const GUIDANCE_BUDGET = 16_000;

/** The effect on each control (by catalogue id) of the confirmed assertions of the selected releases, in selection order. */
export function providerEffects(assertions: readonly SelectedAssertion[]): Map<string, ProviderEffect> {
  const grouped = new Map<string, SelectedAssertion[]>();
  for (const a of assertions) grouped.set(a.control_id, [...(grouped.get(a.control_id) ?? []), a]);
  return new Map(
    [...grouped].map(([control, group]) => {
      const guidance = group.map((a) => ({ provider_id: a.provider_id, release_id: a.release_id, assertion_id: a.id, restricted: a.restricted }));
      return [control, { guidance, inherited: group.some(inheritedEffective) }];
    }),
  );
}

/**
 * A control's guidance as it shows, from its references and the assertions they name. Each entry
 * gets an even share of GUIDANCE_BUDGET over all the control's references. A reference whose
 * assertion is gone (its release deselected, and its provider deleted and purged, before the
 * recalculation took the reference back) has nothing left to show and is left out.
 */
export function guidanceOf(
  references: readonly GuidanceReference[] | undefined,
  textOf: (r: GuidanceReference) => AssertionText | undefined,
): ProviderGuidance[] {
  const all = references ?? [];
  const share = Math.floor(GUIDANCE_BUDGET / Math.max(all.length, 1));
  return all.flatMap((r) => {
    const a = textOf(r);
    if (!a) return [];
    const text = a.consumer_guidance ?? a.implementation_statement;
    // By code point, so that a cut never leaves half a surrogate pair.
    const points = text === null ? [] : [...text];
    const truncated = points.length > share;
    return [
      {
        provider_id: r.provider_id,
        release_id: r.release_id,
        assertion_id: r.assertion_id,
        responsibility: a.responsibility,
        implementation_status: a.implementation_status,
        guidance: truncated ? points.slice(0, share).join('') : text,
        guidance_truncated: truncated,
        restricted: r.restricted,
      },
    ];
  });
}

/** Only a reference's own fields: items stored before references kept the texts too. */
export const referenceOf = ({ provider_id, release_id, assertion_id, restricted }: GuidanceReference): GuidanceReference => ({
  provider_id,
  release_id,
  assertion_id,
  restricted,
});

/** The server-owned fields of a control that its provider effect decides. */
export interface ProviderOwned {
  implementation_status: string | null;
  implementation_status_origin?: StatusOrigin | null;
  provider_guidance?: GuidanceReference[];
}

/**
 * A control's status and guidance under its provider effect. `ec` goes only where no person chose
 * a status: a status without an origin predates origins and may have been a choice, so it stays.
 */
export function withProviderEffect(
  control: ProviderOwned,
  effect: ProviderEffect | undefined,
): Required<Pick<ProviderOwned, 'implementation_status' | 'implementation_status_origin' | 'provider_guidance'>> {
  const guidance = effect?.guidance ?? [];
  const origin = control.implementation_status_origin ?? null;
  const serverOwned = origin === 'provider_assertion' || (origin === null && control.implementation_status === null);
  if (!serverOwned) return { implementation_status: control.implementation_status, implementation_status_origin: origin, provider_guidance: guidance };
  return effect?.inherited
    ? { implementation_status: 'ec', implementation_status_origin: 'provider_assertion', provider_guidance: guidance }
    : { implementation_status: null, implementation_status_origin: null, provider_guidance: guidance };
}

/** The guidance a caller may see: restricted entries need view-restricted-provider-artefacts. */
export const visibleGuidance = <G extends GuidanceReference>(guidance: readonly G[] | undefined, permissions: ReadonlySet<Permission>) =>
  (guidance ?? []).filter((g) => !g.restricted || permissions.has('view-restricted-provider-artefacts'));

/** Whether two guidance lists name the same assertions (DynamoDB keeps list order; map members may come back in any order). */
export function sameGuidance(a: readonly GuidanceReference[] | undefined, b: readonly GuidanceReference[] | undefined): boolean {
  const key = (g: GuidanceReference) => [g.provider_id, g.release_id, g.assertion_id, g.restricted].join('\u0000');
  const x = (a ?? []).map(key);
  const y = (b ?? []).map(key);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}
