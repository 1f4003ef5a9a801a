import { describe, expect, it } from 'vitest';
import { captureWindowState, DEFAULT_SIZE, MIN_SIZE, parseWindowState, restoreWindowState, type Rect } from './window-state';

const laptop: Rect = { x: 0, y: 0, width: 1440, height: 875 };
const monitorRight: Rect = { x: 1440, y: 0, width: 2560, height: 1415 };

describe('window state', () => {
  it('first run: the default size, centred on the primary display', () => {
    expect(restoreWindowState(null, [laptop])).toEqual({
      bounds: { x: (1440 - DEFAULT_SIZE.width) / 2, y: Math.round((875 - DEFAULT_SIZE.height) / 2), ...DEFAULT_SIZE },
      maximized: false,
    });
  });

  it('reopens where it was when that place is still on a display', () => {
    const saved = { bounds: { x: 1600, y: 100, width: 1200, height: 900 }, maximized: false };
    expect(restoreWindowState(saved, [laptop, monitorRight])).toEqual(saved);
  });

  it('a window last seen on an unplugged monitor opens centred on the primary display, fitted to it', () => {
    const saved = { bounds: { x: 1600, y: 100, width: 2000, height: 1200 }, maximized: true };
    expect(restoreWindowState(saved, [laptop])).toEqual({ bounds: { x: 0, y: 0, width: 1440, height: 875 }, maximized: true });
  });

  it('a window hanging off the edge is pulled back inside the display it is on', () => {
    const saved = { bounds: { x: 1200, y: 700, width: 800, height: 600 }, maximized: false };
    expect(restoreWindowState(saved, [laptop])).toEqual({ bounds: { x: 640, y: 275, width: 800, height: 600 }, maximized: false });
    // A title bar above the top of every display cannot be grabbed: centred again.
    const above = { bounds: { x: 100, y: -200, width: 800, height: 600 }, maximized: false };
    expect(restoreWindowState(above, [laptop]).bounds).toEqual({ x: 320, y: 138, width: 800, height: 600 });
  });

  it('never smaller than the minimum size', () => {
    const saved = { bounds: { x: 10, y: 10, width: 100, height: 50 }, maximized: false };
    expect(restoreWindowState(saved, [laptop]).bounds).toMatchObject({ width: MIN_SIZE.width, height: MIN_SIZE.height });
  });

  it('a title bar only a few pixels onto a display does not count as visible', () => {
    const saved = { bounds: { x: 1430, y: 100, width: 800, height: 600 }, maximized: false };
    // 10 px on the laptop: not enough to grab, so it is centred on the primary display.
    expect(restoreWindowState(saved, [laptop]).bounds).toEqual({ x: 320, y: 138, width: 800, height: 600 });
  });

  it('captures rounded normal bounds and the maximized flag; reads back only valid JSON', () => {
    const state = captureWindowState({ x: 10.4, y: 20.6, width: 800.2, height: 600 }, true);
    expect(state).toEqual({ bounds: { x: 10, y: 21, width: 800, height: 600 }, maximized: true });
    expect(parseWindowState(JSON.parse(JSON.stringify(state)))).toEqual(state);
    expect(parseWindowState({ bounds: { x: 0, y: 0, width: -5, height: 10 } })).toBeNull();
    expect(parseWindowState('garbage')).toBeNull();
    expect(parseWindowState(null)).toBeNull();
  });
});
