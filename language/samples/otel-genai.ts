import { Rng, WeightedPool } from './random.js';
import { TimeFormatter, TimeSampler } from './time.js';
import type { SampleOptions } from './options.js';

const MODELS: ReadonlyArray<readonly [string, number]> = [['gpt-4', 5], ['gpt-4o', 8], ['gpt-4o-mini', 10], ['claude-3-5-sonnet', 4], ['gemini-1.5-pro', 2]];
const QUESTIONS = [
    'Which telescope is best for viewing planets?', 'What is the status of my order?', 'Recommend binoculars under $200.',
    'How do I clean the lens of my telescope?', 'Can I return an opened product?', 'Compare the Lyra and Orion telescopes.',
    'What accessories do I need for astrophotography?', 'When will my package arrive?',
];
const ANSWERS = [
    'For planetary viewing, a refractor with at least 90 mm aperture works well.', 'Your order has shipped and should arrive in 3 days.',
    'Here are three binoculars that fit your budget.', 'Use a blower first, then a lens tissue with a drop of cleaning fluid.',
    'Yes, opened products can be returned within 30 days.', 'The Lyra has a wider field of view; the Orion gathers more light.',
];
const TOOLS = ['get_order_status', 'search_products', 'get_product_details', 'get_shipping_estimate'];

/** otel-demo-genai events: client spans of LLM chat calls; see OTEL_DEMO_GENAI for the fields. */
export function* generateOtelGenai(options: SampleOptions): Generator<Record<string, unknown>> {
    const { rows, seed, end, days, sysTime } = options;
    const rng = new Rng(seed ^ 0x6e41);
    const setup = rng.fork(5);
    const time = new TimeSampler(end, days, setup);
    const models = new WeightedPool(MODELS);
    const fmt = new TimeFormatter();
    const sysFmt = new TimeFormatter();
    for (let i = 0; i < rows; i++) {
        const t = time.at((i + rng.next()) / rows);
        const model = models.sample(rng);
        const input: Array<Record<string, unknown>> = [
            { role: 'system', content: 'You are the shopping assistant of the OpenTelemetry Astronomy Shop.' },
            { role: 'user', content: rng.pick(QUESTIONS) },
        ];
        const useTool = rng.next() < 0.3;
        if (useTool && rng.next() < 0.5) {
            const name = rng.pick(TOOLS);
            input.push({ role: 'assistant', content: '', tool_calls: [{ id: `call_${rng.hex(12)}`, type: 'function', function: { name, arguments: '{}' } }] });
            input.push({ role: 'tool', content: '{"ok":true}' });
        }
        const inputTokens = 40 + Math.round(rng.logNormal(300, 0.8));
        const outputTokens = 5 + Math.round(rng.logNormal(120, 0.9));
        const failed = rng.next() < 0.02;
        const finish = failed ? 'error' : useTool && rng.next() < 0.5 ? 'tool_calls' : rng.next() < 0.03 ? 'length' : 'stop';
        const durationNs = Math.round((200 + outputTokens * rng.logNormal(25, 0.3)) * 1e6);
        const ev: Record<string, unknown> = {
            _time: fmt.format(t, rng.int(1_000_000)),
            trace_id: rng.hex(32),
            span_id: rng.hex(16),
            parent_span_id: rng.hex(16),
            name: `chat ${model}`,
            kind: 'client',
            duration: durationNs,
            status_code: failed ? 'ERROR' : 'UNSET',
            error: failed,
            service: { name: 'shopping-assistant' },
            attributes: {
                gen_ai: {
                    operation: { name: 'chat' },
                    system: model.startsWith('gpt') ? 'openai' : model.startsWith('claude') ? 'anthropic' : 'gcp.gemini',
                    request: { model, temperature: rng.pick([0, 0.2, 0.7, 1]) },
                    response: { model, finish_reasons: [finish] },
                    usage: { input_tokens: inputTokens, output_tokens: failed ? 0 : outputTokens },
                    input: { messages: input },
                    output: { messages: failed ? [] : [{ role: 'assistant', content: rng.pick(ANSWERS) }] },
                },
            },
        };
        if (sysTime) ev._sysTime = sysFmt.format(t + 300 + rng.next() * 3000);
        yield ev;
    }
}
