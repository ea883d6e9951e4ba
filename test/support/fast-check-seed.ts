/**
 * Setup file (vitest.config.ts): property tests run with a fixed seed, so a run of `npm test` is
 * repeatable and CI cannot turn red on a case no change caused. `APL_FC_SEED=random` explores new
 * cases (fast-check prints the seed of any failure); `APL_FC_SEED=<n>` replays one.
 */
import fc from 'fast-check';

const seed = process.env.APL_FC_SEED;
if (seed !== 'random') fc.configureGlobal({ seed: seed === undefined ? 20261124 : Number(seed) });
