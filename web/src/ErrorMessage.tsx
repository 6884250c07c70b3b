import { ApiProblem } from './api.ts';

/** An error in words (the problem's title and detail), announced to screen readers. */
export function ErrorMessage({ error }: { error: unknown }) {
  const title = error instanceof ApiProblem ? error.title : 'Something went wrong';
  const detail = error instanceof ApiProblem ? error.detail : error instanceof Error ? error.message : String(error);
  return (
    <div className="error" role="alert">
      <strong>{title}</strong>
      {detail ? <span> {detail}</span> : null}
    </div>
  );
}
