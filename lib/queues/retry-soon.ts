/** A job that cannot run yet but soon will: its message comes back after `seconds`, not the full visibility timeout. */
export class RetrySoon extends Error {
  override readonly name = 'RetrySoon';

  constructor(
    message: string,
    readonly seconds: number,
  ) {
    super(message);
  }
}
