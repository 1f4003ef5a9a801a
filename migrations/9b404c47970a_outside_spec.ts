// Revision 9b404c47970a: intentionally empty.
//
// The spec names this revision as the parent of 4ab54becec04 but says its contents are not
// part of the specification, so Tern's version of it changes nothing. It must still exist:
// it keeps the chain's ids and order those of the service behind the spec, so a database
// stamped 9b404c47970a is recognised and 4ab54becec04 has its parent.
import type { Revision } from './revision';

export const outsideSpec: Revision = {
  id: '9b404c47970a',
  parent: 'f5717d82b3ff',
  description: 'outside the spec: intentionally empty',
  upgrade: () => {},
  downgrade: () => {},
};
