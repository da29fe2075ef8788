import * as z from 'zod';
import { once } from '../domain/validation.js';
import { itemAbsent } from './conditions.js';
import { parseFound } from './entity.js';
import { keys } from './keys.js';
import { getOne } from './read.js';
import { putItem } from './update.js';

/** The local runtime's demo installation: which operator and organisation a first start created. */
const DEMO_MARKER = keys.installationMarker('DEMO');

const demoMarkerSchema = once(() => z.looseObject({ user_id: z.string(), organisation_id: z.string() }));
export type DemoMarker = z.output<ReturnType<typeof demoMarkerSchema>>;

export const demoMarker = async (): Promise<DemoMarker | undefined> => parseFound(demoMarkerSchema(), await getOne(DEMO_MARKER));

/** Recorded once the demo operator has its access: a start that finds it creates nothing again. */
export const recordDemo = (marker: DemoMarker): Promise<boolean> => putItem({ ...DEMO_MARKER, ...marker }, itemAbsent());
