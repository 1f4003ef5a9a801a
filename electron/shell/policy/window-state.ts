// The window remembers its size and position: what is saved when it moves or closes, and where
// it opens next time — clamped to the displays there are now, so a window last seen on an
// unplugged monitor opens on one that exists, whole and at least its minimum size. Pure.
import { z } from 'zod';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowState {
  bounds: Rect;
  maximized: boolean;
}

export const DEFAULT_SIZE = { width: 1100, height: 760 } as const;
export const MIN_SIZE = { width: 640, height: 480 } as const;
/** How much of the title bar must be on a display for the window to count as visible there. */
const MIN_VISIBLE = 64;

const int = z.number().int().finite();
export const windowStateSchema = z.object({
  bounds: z.object({ x: int, y: int, width: int.positive(), height: int.positive() }),
  maximized: z.boolean().default(false),
});

/** Reads a saved state (unknown JSON); null when absent or not valid, never throws. */
export function parseWindowState(raw: unknown): WindowState | null {
  const parsed = windowStateSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** What to save: the normal (un-maximized) bounds plus whether it was maximized, so restoring
 * a maximized window gives back the size it had before. */
export function captureWindowState(normalBounds: Rect, maximized: boolean): WindowState {
  const round = (n: number) => Math.round(n);
  return {
    bounds: { x: round(normalBounds.x), y: round(normalBounds.y), width: round(normalBounds.width), height: round(normalBounds.height) },
    maximized,
  };
}

function overlap(a: Rect, b: Rect): { width: number; height: number } {
  return {
    width: Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)),
    height: Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y)),
  };
}

function centeredOn(area: Rect, width: number, height: number): Rect {
  return { x: area.x + Math.round((area.width - width) / 2), y: area.y + Math.round((area.height - height) / 2), width, height };
}

/**
 * Where the window opens. `workAreas` are the displays' work areas (primary first). With no
 * saved state: the default size, centred on the primary display. With one: its bounds, if its
 * title bar is visible on some display; otherwise centred on the primary display. Either way
 * the size is at least the minimum and at most the chosen display's work area, and the window
 * is moved inside that work area.
 */
export function restoreWindowState(saved: WindowState | null, workAreas: readonly Rect[]): { bounds: Rect | null; maximized: boolean } {
  const primary = workAreas[0];
  if (!primary) return { bounds: saved ? saved.bounds : null, maximized: saved?.maximized ?? false };
  const fit = (area: Rect, width: number, height: number) => ({
    width: Math.min(Math.max(width, MIN_SIZE.width), area.width),
    height: Math.min(Math.max(height, MIN_SIZE.height), area.height),
  });
  if (!saved) {
    const size = fit(primary, DEFAULT_SIZE.width, DEFAULT_SIZE.height);
    return { bounds: centeredOn(primary, size.width, size.height), maximized: false };
  }
  const titleBar: Rect = { ...saved.bounds, height: Math.min(saved.bounds.height, 32) };
  const home = workAreas
    .map((area) => ({ area, seen: overlap(titleBar, area) }))
    .filter(({ seen }) => seen.width >= Math.min(MIN_VISIBLE, saved.bounds.width) && seen.height > 0)
    .sort((a, b) => b.seen.width * b.seen.height - a.seen.width * a.seen.height)[0]?.area;
  const area = home ?? primary;
  const size = fit(area, saved.bounds.width, saved.bounds.height);
  if (!home) return { bounds: centeredOn(area, size.width, size.height), maximized: saved.maximized };
  const x = Math.min(Math.max(saved.bounds.x, area.x), area.x + area.width - size.width);
  const y = Math.min(Math.max(saved.bounds.y, area.y), area.y + area.height - size.height);
  return { bounds: { x, y, ...size }, maximized: saved.maximized };
}
