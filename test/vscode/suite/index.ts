export function run(): Promise<void> { return Promise.resolve(); }
