/**
 * Puts `text` on the clipboard; where the browser refuses (a plain-http address that is not
 * localhost, a denied permission, an old browser), focuses and selects `field` instead, so that
 * Ctrl+C copies it. Resolves whether the clipboard took it.
 */
export async function copyOrSelect(text: string, field: HTMLInputElement | HTMLTextAreaElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    field?.focus();
    field?.select();
    return false;
  }
}
