/**
 * The wire contract, one source for the server libs and the web UI (docs/architecture.md "Contracts"):
 * types and `as const` code lists only, no framework or Node import, so a change here that a side does
 * not follow is a compile error on that side. It is the ground of the lib graph and imports nothing.
 */
export * from './chat-stream';
export * from './payloads';
export * from './trace-api';
export * from './documents';
export * from './runs';
export * from './alerts';
export * from './notifications';
export * from './labels';
