/** A CLI failure with its exit code: 2 for a malformed argument, 1 when the arguments name nothing that exists. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

/** An error's message; connection errors to several addresses (AggregateError) have an empty one. */
export function describeError(err: unknown): string {
  const e = err as Error & { code?: string; errors?: Error[] };
  return e.message || e.errors?.[0]?.message || e.code || String(err);
}
