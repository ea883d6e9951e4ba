// Loaded with `node --import` so that langium-cli (which uses chevrotain 13) runs on Node 20.
if (typeof Object.groupBy !== 'function') {
    Object.groupBy = (items, key) => {
        const out = Object.create(null);
        let i = 0;
        for (const item of items) (out[key(item, i++)] ??= []).push(item);
        return out;
    };
}
