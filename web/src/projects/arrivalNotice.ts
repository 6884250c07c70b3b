/**
 * A message the page that sent us here left in the history entry's state (`navigate(to, { state:
 * { notice } })`): "The project … is deleted." on the list, a partly saved new project on its page.
 * It goes with the entry: a filter change (which replaces the entry) or another page drops it.
 */
export function arrivalNotice(): string | null {
  const state = window.history.state as { notice?: unknown } | null;
  return typeof state?.notice === 'string' ? state.notice : null;
}
