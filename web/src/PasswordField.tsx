import { useId, type FormEvent } from 'react';

/** The API's rule (docs/sign-in.md): 10 to 256 characters, any characters. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

/** Counted as the server counts (characters, not UTF-16 units). */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `The password is too short: use at least ${PASSWORD_MIN} characters (it has ${length}).`;
  if (length > PASSWORD_MAX) return `The password is too long: use at most ${PASSWORD_MAX} characters.`;
  return null;
}

/**
 * The check before a form with a new password is sent: the rule's failure is shown (`show`) and the
 * field focused. True when the password was refused and nothing should be sent.
 */
export function refusePassword(event: FormEvent, password: string, show: (problem: string | null) => void): boolean {
  const problem = passwordProblem(password);
  show(problem);
  if (problem) (event.currentTarget as HTMLFormElement).querySelector<HTMLInputElement>('input[type="password"]')?.focus();
  return problem !== null;
}

/** A labelled new-password field with its rule stated under it, and the rule's failure (after a submit) tied to it. */
export function PasswordField({ label, value, onChange, problem }: {
  label: string; value: string; onChange(value: string): void; problem: string | null;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const problemId = `${id}-problem`;
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <input id={id} name="new-password" type="password" autoComplete="new-password" required
        minLength={PASSWORD_MIN} maxLength={PASSWORD_MAX}
        aria-describedby={problem ? `${problemId} ${hintId}` : hintId} aria-invalid={problem ? true : undefined}
        value={value} onChange={(e) => onChange(e.target.value)} />
      {problem ? <p id={problemId} className="field-problem">{problem}</p> : null}
      <p id={hintId} className="hint">At least {PASSWORD_MIN} characters. A few words with spaces make a good one.</p>
    </>
  );
}
