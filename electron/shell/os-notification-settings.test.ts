import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSettingsStore, settingsUpdateSchema } from '../core/settings';
import { isTypeEnabled } from './policy/os-notifications';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('per-type OS notification switches (settings.osNotifications)', () => {
  it('every type is on by default; a switch changes one type and keeps the others', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tern-osn-'));
    dirs.push(dir);
    const store = createSettingsStore(join(dir, 'settings.json'));
    expect(store.get().osNotifications).toEqual({});
    expect(isTypeEnabled(store.get().osNotifications, 'LIKE')).toBe(true);
    store.update({ osNotifications: { LIKE: false } });
    store.update({ osNotifications: { MENTION: false } });
    store.update({ osNotifications: { MENTION: true } });
    expect(store.get().osNotifications).toEqual({ LIKE: false, MENTION: true });
    expect(createSettingsStore(join(dir, 'settings.json')).get().osNotifications).toEqual({ LIKE: false, MENTION: true });
  });

  it('settings.update accepts known types with booleans only', () => {
    expect(settingsUpdateSchema.safeParse({ osNotifications: { LIKE: false } }).success).toBe(true);
    expect(settingsUpdateSchema.safeParse({ osNotifications: { PIZZA: false } }).success).toBe(false);
    expect(settingsUpdateSchema.safeParse({ osNotifications: { LIKE: 'no' } }).success).toBe(false);
  });
});
