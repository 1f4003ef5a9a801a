// The Webmentions channels check their input like every channel: pages of at most 100, and a
// cursor that is a row id.
import { describe, expect, it } from 'vitest';
import { inputs } from './contract';

describe('webmention channels', () => {
  it.each(['webmentions.received', 'webmentions.sent'] as const)('%s defaults to 20 and refuses bad pages', (channel) => {
    const schema = inputs[channel];
    expect(schema.parse({})).toEqual({ limit: 20 });
    expect(schema.parse({ cursor: '42', limit: 5 })).toEqual({ cursor: '42', limit: 5 });
    expect(schema.safeParse({ limit: 0 }).success).toBe(false);
    expect(schema.safeParse({ limit: 101 }).success).toBe(false);
    expect(schema.safeParse({ cursor: '1 OR 1=1' }).success).toBe(false);
    expect(schema.safeParse({ extra: true }).success).toBe(false);
  });

  it('webmentions.ofPost takes a post id and a page of its webmentions', () => {
    const schema = inputs['webmentions.ofPost'];
    expect(schema.parse({ postId: 7, cursor: '42' })).toEqual({ postId: 7, cursor: '42', limit: 20 });
    expect(schema.safeParse({ cursor: '42' }).success).toBe(false);
    expect(schema.safeParse({ postId: -1 }).success).toBe(false);
    expect(schema.safeParse({ postId: 1.5 }).success).toBe(false);
    expect(schema.safeParse({ postId: 7, limit: 101 }).success).toBe(false);
  });
});
