// The channel names alone, with no zod: the sandboxed preload bundles this file, and must stay
// small. contract.ts checks at compile time that its schemas cover exactly these names.
export const CHANNEL_NAMES = ['app.status'] as const;
export type ChannelName = (typeof CHANNEL_NAMES)[number];
