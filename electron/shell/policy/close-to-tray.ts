// What closing the window does: while Tern can live in the tray, closing hides the window and
// the loops keep running (delivery, inbox); the first time, Tern says so once. When quitting
// (tray or menu Quit, OS logout) or without a tray, the close goes through. Pure.

export interface CloseFacts {
  /** Quit was asked for (before-quit fired). */
  quitting: boolean;
  /** A tray icon exists (some Linux desktops have none). */
  hasTray: boolean;
  /** The "Tern is still running in the tray" hint was shown before (persisted). */
  hintShown: boolean;
}

export type CloseDecision = { kind: 'close' } | { kind: 'hide'; showHint: boolean };

export function decideClose(facts: CloseFacts): CloseDecision {
  if (facts.quitting || !facts.hasTray) return { kind: 'close' };
  return { kind: 'hide', showHint: !facts.hintShown };
}

export const CLOSE_HINT = {
  title: 'Tern is still running',
  body: 'Posts keep going out and notifications keep coming in. Quit from the tray icon’s menu.',
} as const;
