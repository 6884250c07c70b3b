import { useCallback, useState } from 'react';

export interface Action {
  /** True while `run`'s work is under way (the button says so and is disabled). */
  busy: boolean;
  /** The last failure, for ErrorMessage; null when there is none. */
  error: unknown;
  /** Shows an error in the same place: the form's own check, or a failure in other words (from onError). Never changes (a state setter). */
  setError(error: unknown): void;
  /** Takes the error away. Never changes. */
  clear(): void;
  /**
   * Clears the last error and runs `work` with `busy` on; a failure is shown as it is, or goes
   * to `onError` (which calls setError itself, with other words or next to a field). Answers
   * whether the work succeeded.
   */
  run(work: () => Promise<unknown>, onError?: (err: unknown) => void | Promise<void>): Promise<boolean>;
}

/**
 * One thing a component asks of the API (a form's submit, a button): `busy` while it runs and the
 * `error` it failed with, so each component does not repeat the same try/catch/finally.
 */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const clear = useCallback(() => setError(null), []);
  const run = useCallback(async (work: () => Promise<unknown>, onError: (err: unknown) => void | Promise<void> = setError) => {
    setError(null);
    setBusy(true);
    try {
      await work();
      return true;
    } catch (err) {
      // An async onError (a 412 that reads the latest version first) keeps busy on until it is done;
      // a plain one is not awaited, so the error and the end of busy reach the same render.
      const handling = onError(err);
      if (handling) await handling;
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, clear, run };
}
