// Shows its children only after a short delay, so a fast answer never flashes a spinner or
// skeleton on screen (UX.md: "a loading state that does not flash").
import { useEffect, useState, type ReactNode } from 'react';

export const LOADING_DELAY_MS = 200;

export function Delayed({ children, ms = LOADING_DELAY_MS }: { children: ReactNode; ms?: number }) {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setShown(true), ms);
    return () => clearTimeout(timer);
  }, [ms]);
  return shown ? children : null;
}
