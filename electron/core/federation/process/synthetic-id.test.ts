import { expect, it } from 'vitest';
import { activityIdBesideObject } from './synthetic-id';

it("a Create whose id is its object's (Takahē's vote) gets an id of its own under its actor, the same for the same id", () => {
  const actor = 'https://takahe.example/@sorrel@takahe.example/';
  const id = `${actor}#vote/4830`;
  const own = activityIdBesideObject(id, 'Create', actor);
  expect(own).toMatch(/^https:\/\/takahe\.example\/@sorrel@takahe\.example\/#tern-create-[0-9a-f]{32}$/);
  expect(own).not.toBe(id);
  expect(activityIdBesideObject(id, 'Create', actor)).toBe(own);
  expect(activityIdBesideObject(`${actor}#vote/4831`, 'Create', actor)).not.toBe(own);
});
