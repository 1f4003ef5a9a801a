// A time shown relative to now ("3 minutes ago"), absolute on hover and to screen readers'
// "more info"; it re-renders itself each half minute so it stays true while the window is open.
import { useEffect, useState } from 'react';
import { formatDateTime, formatRelative } from '../strings';

/** The current time, renewed every `intervalMs` while the component is shown. */
export function useNow(intervalMs: number): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

export function RelativeTime({ iso }: { iso: string }) {
  const now = useNow(30_000);
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return <span>{iso}</span>;
  return (
    <time dateTime={iso} title={formatDateTime(date)}>
      {formatRelative(date, now)}
    </time>
  );
}
