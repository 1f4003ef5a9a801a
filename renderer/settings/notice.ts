// A sentence that must survive the page reload after Tern reopened on new data (a restore, a
// move from microblog.pub): kept in sessionStorage for the next mount, then dropped.
const PREFIX = 'tern.settings.reopened.';

export function leaveNotice(part: string, text: string): void {
  try {
    sessionStorage.setItem(PREFIX + part, text);
  } catch {
    // No storage: the reload still shows the new data, only without the sentence.
  }
}

export function takeNotice(part: string): string | null {
  try {
    const text = sessionStorage.getItem(PREFIX + part);
    sessionStorage.removeItem(PREFIX + part);
    return text;
  } catch {
    return null;
  }
}

/** Reloads the page, so every view reads the reopened core afresh. */
export function reloadApp(): void {
  window.location.reload();
}
