export * from './schema-provider.js';
export * from './static-schema-provider.js';
export * from './builtin-schema-provider.js';
export * from './empty-schema-provider.js';
export * from './mutable-schema-provider.js';
