import { describe, expect, it } from 'vitest';
import { decideClose } from './close-to-tray';

describe('closing the window', () => {
  it('hides to the tray and says so the first time only', () => {
    expect(decideClose({ quitting: false, hasTray: true, hintShown: false })).toEqual({ kind: 'hide', showHint: true });
    expect(decideClose({ quitting: false, hasTray: true, hintShown: true })).toEqual({ kind: 'hide', showHint: false });
  });

  it('closes when quitting, or when there is no tray to live in', () => {
    expect(decideClose({ quitting: true, hasTray: true, hintShown: false })).toEqual({ kind: 'close' });
    expect(decideClose({ quitting: false, hasTray: false, hintShown: false })).toEqual({ kind: 'close' });
  });
});
