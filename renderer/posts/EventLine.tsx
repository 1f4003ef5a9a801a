// When and where an Event takes place (Mobilizon, Friendica, Gancio…), under its title: the
// time range in the reader's own locale and time zone, and the place as the organiser wrote it.
import type { EventView } from '../../electron/core/ipc/author-contract';
import { formatTimeRange, strings } from '../strings';

export function EventLine({ event }: { event: EventView }) {
  const t = strings.post;
  const start = new Date(event.startTime);
  const end = event.endTime ? new Date(event.endTime) : null;
  return (
    <p className="post__event">
      <span className="post__event-when">
        <span className="visually-hidden">{t.eventWhen} </span>
        <time dateTime={event.startTime}>{formatTimeRange(start, end && end.getTime() > start.getTime() ? end : null)}</time>
      </span>
      {(event.place || event.online) && (
        <span className="post__event-where">
          <span className="visually-hidden">{t.eventWhere} </span>
          {[event.place, event.online ? t.eventOnline : null].filter(Boolean).join(' · ')}
        </span>
      )}
    </p>
  );
}
