import { expect, it } from 'vitest';
import { activityIdBesideObject, activityIdOf } from './synthetic-id';

const actor = 'https://takahe.example/@sorrel@takahe.example/';
const vote = { id: `${actor}#vote/4830`, type: 'Create', actor, object: { id: `${actor}#vote/4830`, type: 'Note', name: 'marsh' } };

it("an activity whose id is its object's (Takahē's vote) gets an id of its own under its actor, the same for the same payload", () => {
  const own = activityIdBesideObject(vote, 'Create', actor);
  expect(own).toMatch(/^https:\/\/takahe\.example\/@sorrel@takahe\.example\/#tern-create-[0-9a-f]{32}$/);
  expect(own).not.toBe(vote.id);
  expect(activityIdBesideObject(structuredClone(vote), 'Create', actor)).toBe(own);
});

it("WriteFreely's next Update of a post (the same id, new content) gets another id: an edit, not a duplicate", () => {
  const blog = 'https://wf.example/api/collections/tides';
  const update = (content: string) => ({ id: 'https://wf.example/api/posts/x1', type: 'Update', actor: blog, object: { id: 'https://wf.example/api/posts/x1', type: 'Article', content } });
  expect(activityIdBesideObject(update('<p>one</p>'), 'Update', blog)).not.toBe(activityIdBesideObject(update('<p>two</p>'), 'Update', blog));
});

it('activityIdOf: an activity keeps its own id, unless it is the id of the object it carries', () => {
  expect(activityIdOf({ id: 'https://m.example/a/1', type: 'Create', actor, object: { id: 'https://m.example/n/1' } })).toBe('https://m.example/a/1');
  expect(activityIdOf({ id: 'https://m.example/a/1', type: 'Like', actor, object: 'https://m.example/a/1' })).toBe('https://m.example/a/1');
  expect(activityIdOf({ type: 'Flag', actor, object: 'https://m.example/n/1' })).toBeNull();
  expect(activityIdOf(vote)).toBe(activityIdBesideObject(vote, 'Create', actor));
});
