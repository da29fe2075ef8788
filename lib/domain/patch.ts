/** A merge patch or data object must change something: `.refine(...changesSomething('property'))`. */
export const changesSomething = (what: string) => [(v: object) => Object.keys(v).length > 0, { message: `name at least one ${what} to change` }] as const;
