import { Rng, WeightedIndex } from './random.js';
import { TimeFormatter, TimeSampler } from './time.js';
import type { SampleOptions } from './options.js';

/**
 * otel-demo-traces: spans of the OpenTelemetry demo shop. Each trace is a tree of spans: the load
 * generator (or a browser) calls the frontend proxy, which calls the frontend, which calls the
 * back-end services over gRPC or HTTP. Spans are emitted parent first (pre-order), each with
 * `_time` = its start time. `duration` is an integer number of nanoseconds (what OTLP-to-JSON
 * carries); the schema type is timespan. The last trace is cut short when `rows` is reached.
 */

interface ServiceInfo {
    language: string;
    sdkVersion: string;
    scope: string;
    scopeVersion: string;
    version: string;
}

const SERVICES: Readonly<Record<string, ServiceInfo>> = {
    frontend: { language: 'nodejs', sdkVersion: '1.24.0', scope: '@opentelemetry/instrumentation-http', scopeVersion: '0.51.0', version: '1.10.0' },
    frontendproxy: { language: 'cpp', sdkVersion: '1.15.0', scope: 'envoy', scopeVersion: '1.30.1', version: '1.10.0' },
    flagd: { language: 'go', sdkVersion: '1.26.0', scope: 'go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc', scopeVersion: '0.51.0', version: '0.10.1' },
    productcatalogservice: { language: 'go', sdkVersion: '1.26.0', scope: 'go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc', scopeVersion: '0.51.0', version: '1.10.0' },
    loadgenerator: { language: 'python', sdkVersion: '1.24.0', scope: 'opentelemetry.instrumentation.requests', scopeVersion: '0.45b0', version: '1.10.0' },
    checkoutservice: { language: 'go', sdkVersion: '1.26.0', scope: 'go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc', scopeVersion: '0.51.0', version: '1.10.0' },
    cartservice: { language: 'dotnet', sdkVersion: '1.8.1', scope: 'OpenTelemetry.Instrumentation.AspNetCore', scopeVersion: '1.8.1', version: '1.10.0' },
    recommendationservice: { language: 'python', sdkVersion: '1.24.0', scope: 'opentelemetry.instrumentation.grpc', scopeVersion: '0.45b0', version: '1.10.0' },
    emailservice: { language: 'ruby', sdkVersion: '1.4.0', scope: 'OpenTelemetry::Instrumentation::Sinatra', scopeVersion: '0.23.4', version: '1.10.0' },
    adservice: { language: 'java', sdkVersion: '1.37.0', scope: 'io.opentelemetry.grpc-1.6', scopeVersion: '2.3.0-alpha', version: '1.10.0' },
    shippingservice: { language: 'rust', sdkVersion: '0.22.1', scope: 'opentelemetry-otlp', scopeVersion: '0.15.0', version: '1.10.0' },
    quoteservice: { language: 'php', sdkVersion: '1.0.3', scope: 'io.opentelemetry.contrib.php.slim', scopeVersion: '1.0.0', version: '1.10.0' },
    currencyservice: { language: 'cpp', sdkVersion: '1.15.0', scope: 'currencyservice', scopeVersion: '', version: '1.10.0' },
    paymentservice: { language: 'nodejs', sdkVersion: '1.24.0', scope: '@opentelemetry/instrumentation-grpc', scopeVersion: '0.51.0', version: '1.10.0' },
    frauddetectionservice: { language: 'java', sdkVersion: '1.37.0', scope: 'io.opentelemetry.kafka-clients-0.11', scopeVersion: '2.3.0-alpha', version: '1.10.0' },
};

/** Service names in the order of inventory section 8.2. */
export const TRACE_SERVICES: readonly string[] = Object.keys(SERVICES);

const PRODUCT_IDS = ['OLJCESPC7Z', '66VCHSJNUP', '1YMWWN1N4O', 'L9ECAV7KIM', '2ZYFJ3GM2N', '0PUK6V6EV0', 'LS4PSXUNUM', '9SIQT8TOJO', '6E92ZMYYFZ', 'HQTGWGPNH4'];
const CURRENCIES = ['USD', 'EUR', 'CAD', 'JPY', 'GBP', 'TRY'];
const NODES = ['ip-10-0-31-14.eu-central-1.compute.internal', 'ip-10-0-44-201.eu-central-1.compute.internal', 'ip-10-0-7-92.eu-central-1.compute.internal'];

/** A span under construction; times are nanoseconds from the trace start. */
interface SpanDraft {
    service: string;
    name: string;
    kind: 'server' | 'client' | 'internal' | 'producer' | 'consumer';
    start: number;
    end: number;
    error: boolean;
    errorMessage?: string;
    attrs: Record<string, unknown>;
    custom: Record<string, unknown>;
    events: Array<Record<string, unknown>>;
    children: SpanDraft[];
}

class TraceBuilder {
    constructor(private readonly rng: Rng) {}

    span(service: string, name: string, kind: SpanDraft['kind'], start: number): SpanDraft {
        return { service, name, kind, start, end: start, error: false, attrs: {}, custom: {}, events: [], children: [] };
    }

    /** Own work of a span: log-normal around `medianMs`. */
    work(medianMs: number, sigma = 0.6): number {
        return Math.max(1000, Math.round(this.rng.logNormal(medianMs, sigma) * 1e6));
    }

    /** Network hop latency. */
    hop(): number {
        return 50_000 + Math.round(this.rng.logNormal(0.25, 0.5) * 1e6);
    }

    /**
     * A gRPC call from `parent` (client span in the caller) to `service` (server span), starting at `at`.
     * `body` adds the callee's own children and returns when the callee's work ends.
     */
    grpc(parent: SpanDraft, service: string, rpcService: string, method: string, at: number,
        ownMs: number, body?: (server: SpanDraft, t: number) => number): SpanDraft {
        const name = `${rpcService}/${method}`;
        const client = this.span(parent.service, name, 'client', at);
        client.attrs = { rpc: { system: 'grpc', service: rpcService, method } };
        const server = this.span(service, name, 'server', at + this.hop());
        server.attrs = { rpc: { system: 'grpc', service: rpcService, method } };
        let t = server.start + this.work(ownMs * 0.3);
        if (body) t = body(server, t);
        server.end = t + this.work(ownMs * 0.7);
        client.end = server.end + this.hop();
        const code = server.error ? 2 : 0;
        (server.attrs.rpc as Record<string, unknown>).grpc = { status_code: code };
        (client.attrs.rpc as Record<string, unknown>).grpc = { status_code: code };
        if (server.error) this.fail(client, server.errorMessage ?? 'upstream error', false);
        client.children.push(server);
        parent.children.push(client);
        return client;
    }

    /** An HTTP call from `parent` to `service`. */
    http(parent: SpanDraft, service: string, method: string, route: string, target: string, at: number,
        ownMs: number, body?: (server: SpanDraft, t: number) => number): SpanDraft {
        const client = this.span(parent.service, method, 'client', at);
        const server = this.span(service, `${method} ${route}`, 'server', at + this.hop());
        let t = server.start + this.work(ownMs * 0.3);
        if (body) t = body(server, t);
        server.end = t + this.work(ownMs * 0.7);
        client.end = server.end + this.hop();
        const status = server.error ? 500 : 200;
        server.attrs = { http: { method, route, target, status_code: status, response: { status_code: status } } };
        client.attrs = { http: { method, target, status_code: status, response: { status_code: status } } };
        client.custom['http.protocol'] = 'HTTP/1.1';
        server.custom['http.protocol'] = 'HTTP/1.1';
        if (server.error) this.fail(client, `HTTP ${status}`, false);
        client.children.push(server);
        parent.children.push(client);
        return client;
    }

    redis(parent: SpanDraft, op: string, at: number): number {
        const s = this.span(parent.service, op, 'client', at);
        s.end = at + this.work(0.4, 0.5);
        s.attrs = { db: { system: { name: 'redis' }, operation: { name: op } } };
        s.custom['db.system.name'] = 'redis';
        s.custom['server.address'] = 'valkey-cart';
        parent.children.push(s);
        return s.end;
    }

    flag(parent: SpanDraft, flagKey: string, at: number): number {
        const c = this.grpc(parent, 'flagd', 'flagd.evaluation.v1.Service', 'ResolveBoolean', at, 0.4);
        c.custom['feature_flag.key'] = flagKey;
        c.custom['feature_flag.provider_name'] = 'flagd';
        return c.end;
    }

    fail(span: SpanDraft, message: string, exception: boolean): void {
        span.error = true;
        span.errorMessage = message;
        if (exception) {
            // Timestamped at emission, just before the span ends.
            span.events.push({ name: 'exception', attributes: { 'exception.type': 'Error', 'exception.message': message } });
        }
    }
}

type TraceKind = 'product' | 'recommendations' | 'ads' | 'cart' | 'addToCart' | 'checkout' | 'currency' | 'shipping';

const TRACE_KINDS: ReadonlyArray<readonly [TraceKind, number]> = [
    ['product', 30], ['recommendations', 15], ['ads', 14], ['cart', 12], ['addToCart', 8], ['checkout', 5], ['currency', 9], ['shipping', 7],
];

/** Builds one trace: the root span (with its tree). */
function buildTrace(b: TraceBuilder, rng: Rng, kind: TraceKind): SpanDraft {
    const fromLoadGenerator = rng.next() < 0.8;
    const root = fromLoadGenerator ? b.span('loadgenerator', 'GET', 'client', 0) : undefined;
    const product = PRODUCT_IDS[rng.int(PRODUCT_IDS.length)];
    const [method, route, target] = ((): [string, string, string] => {
        switch (kind) {
            case 'product': return ['GET', '/api/products/[productId]', `/api/products/${product}`];
            case 'recommendations': return ['GET', '/api/recommendations', `/api/recommendations?productIds=${product}`];
            case 'ads': return ['GET', '/api/data', '/api/data?contextKeys=binoculars'];
            case 'cart': return ['GET', '/api/cart', '/api/cart?sessionId=' + rng.hex(8)];
            case 'addToCart': return ['POST', '/api/cart', '/api/cart'];
            case 'checkout': return ['POST', '/api/checkout', '/api/checkout'];
            case 'currency': return ['GET', '/api/currency', '/api/currency'];
            case 'shipping': return ['GET', '/api/shipping', `/api/shipping?itemList=${product}&currencyCode=${rng.pick(CURRENCIES)}`];
        }
    })();

    const ingress = b.span('frontendproxy', 'ingress', 'server', root ? b.hop() : 0);
    ingress.custom['http.protocol'] = 'HTTP/1.1';
    ingress.custom['upstream_cluster'] = 'frontend';
    const frontendCall = b.http(ingress, 'frontend', method, route, target, ingress.start + b.work(0.1), 1.5, (fe, t) => {
        switch (kind) {
            case 'product': {
                const c = b.grpc(fe, 'productcatalogservice', 'oteldemo.ProductCatalogService', 'GetProduct', t, 1.2, (s, t2) => {
                    s.custom['app.product.id'] = product;
                    const e = b.flag(s, 'productCatalogFailure', t2);
                    if (product === 'OLJCESPC7Z' && rng.next() < 0.1) b.fail(s, `Error: Product Catalog Fail Feature Flag Enabled`, true);
                    return e;
                });
                return c.end;
            }
            case 'recommendations': {
                const c = b.grpc(fe, 'recommendationservice', 'oteldemo.RecommendationService', 'ListRecommendations', t, 3, (s, t2) => {
                    const inner = b.span('recommendationservice', 'get_product_list', 'internal', t2);
                    const list = b.grpc(inner, 'productcatalogservice', 'oteldemo.ProductCatalogService', 'ListProducts', t2 + 50_000, 2);
                    inner.end = list.end + b.work(0.2);
                    inner.custom['app.products.count'] = 10;
                    inner.custom['app.filtered_products.count'] = 5;
                    s.children.push(inner);
                    return b.flag(s, 'recommendationServiceCacheFailure', inner.end);
                });
                return c.end;
            }
            case 'ads': {
                const c = b.grpc(fe, 'adservice', 'oteldemo.AdService', 'GetAds', t, 2.5, (s, t2) => {
                    const e = b.flag(s, 'adServiceFailure', t2);
                    const inner = b.span('adservice', 'getAdsByCategory', 'internal', e);
                    inner.end = e + b.work(0.5);
                    inner.custom['app.ads.category'] = rng.pick(['binoculars', 'telescopes', 'accessories', 'books']);
                    s.children.push(inner);
                    if (rng.next() < 0.01) b.fail(s, 'io.grpc.StatusRuntimeException: RESOURCE_EXHAUSTED', true);
                    return inner.end;
                });
                return c.end;
            }
            case 'cart':
            case 'addToCart': {
                const op = kind === 'cart' ? 'GetCart' : 'AddItem';
                const c = b.grpc(fe, 'cartservice', 'oteldemo.CartService', op, t, 1.5, (s, t2) => {
                    s.custom['app.user.id'] = rng.hex(8) + '-' + rng.hex(4);
                    let e = b.flag(s, 'cartServiceFailure', t2);
                    e = b.redis(s, kind === 'cart' ? 'HGET' : 'HSET', e);
                    if (kind === 'addToCart') e = b.redis(s, 'EXPIRE', e);
                    if (rng.next() < 0.004) b.fail(s, "Can't access cart storage. System.ApplicationException: Wasn't able to connect to redis", true);
                    return e;
                });
                return c.end;
            }
            case 'currency': {
                const c = b.grpc(fe, 'currencyservice', 'oteldemo.CurrencyService', 'GetSupportedCurrencies', t, 0.3);
                return c.end;
            }
            case 'shipping': {
                const c = b.grpc(fe, 'shippingservice', 'oteldemo.ShippingService', 'GetQuote', t, 1, (s, t2) => {
                    const q = b.http(s, 'quoteservice', 'POST', '/getquote', '/getquote', t2, 2);
                    return q.end;
                });
                return c.end;
            }
            case 'checkout': {
                const c = b.grpc(fe, 'checkoutservice', 'oteldemo.CheckoutService', 'PlaceOrder', t, 2, (s, t2) => {
                    let e = b.grpc(s, 'cartservice', 'oteldemo.CartService', 'GetCart', t2, 1.2, (cs, t3) => b.redis(cs, 'HGET', t3)).end;
                    const items = 1 + rng.int(4);
                    for (let i = 0; i < items; i++) {
                        e = b.grpc(s, 'productcatalogservice', 'oteldemo.ProductCatalogService', 'GetProduct', e, 1).end;
                        e = b.grpc(s, 'currencyservice', 'oteldemo.CurrencyService', 'Convert', e, 0.3).end;
                    }
                    e = b.grpc(s, 'shippingservice', 'oteldemo.ShippingService', 'GetQuote', e, 1, (ss, t3) =>
                        b.http(ss, 'quoteservice', 'POST', '/getquote', '/getquote', t3, 2).end).end;
                    const pay = b.grpc(s, 'paymentservice', 'oteldemo.PaymentService', 'Charge', e, 3, (ps, t3) => {
                        const f = b.flag(ps, 'paymentServiceFailure', t3);
                        ps.custom['app.payment.card_type'] = rng.pick(['visa', 'mastercard', 'amex']);
                        ps.custom['app.loyalty.level'] = rng.pick(['platinum', 'gold', 'silver', 'bronze']);
                        if (rng.next() < 0.03) b.fail(ps, 'Payment request failed. Invalid token. app.loyalty.level=gold', true);
                        return f;
                    });
                    e = pay.end;
                    if (pay.error) {
                        b.fail(s, 'failed to charge card: could not charge the card: rpc error: code = Unknown desc = Payment request failed. Invalid token.', true);
                        return e;
                    }
                    e = b.grpc(s, 'shippingservice', 'oteldemo.ShippingService', 'ShipOrder', e, 0.8).end;
                    e = b.grpc(s, 'cartservice', 'oteldemo.CartService', 'EmptyCart', e, 1, (cs, t3) => b.redis(cs, 'DEL', t3)).end;
                    e = b.http(s, 'emailservice', 'POST', '/send_order_confirmation', '/send_order_confirmation', e, 4).end;
                    const publish = b.span('checkoutservice', 'orders publish', 'producer', e);
                    publish.end = e + b.work(0.5);
                    publish.attrs = { messaging: { system: 'kafka', destination: { name: 'orders' } } };
                    s.children.push(publish);
                    const consume = b.span('frauddetectionservice', 'orders process', 'consumer', publish.end + b.work(5, 1));
                    consume.end = consume.start + b.work(1);
                    consume.attrs = { messaging: { system: 'kafka', destination: { name: 'orders' } } };
                    publish.children.push(consume);
                    s.custom['app.order.id'] = rng.uuid();
                    s.custom['app.order.items.count'] = items;
                    return publish.end;
                });
                return c.end;
            }
        }
    });
    ingress.end = frontendCall.end + b.work(0.1);
    const frontendServer = frontendCall.children[0];
    if (frontendServer.error) b.fail(ingress, 'HTTP 500', false);
    ingress.attrs = { http: { method, target, status_code: frontendServer.error ? 500 : 200 } };
    if (!root) return ingress;
    root.start = 0;
    root.end = ingress.end + b.hop();
    root.attrs = { http: { method, target: `http://frontendproxy:8080${target}`, status_code: ingress.error ? 500 : 200 } };
    if (ingress.error) b.fail(root, 'HTTP 500', false);
    root.children.push(ingress);
    return root;
}

/** otel-demo-traces events; see OTEL_DEMO_TRACES for the fields. */
export function* generateOtelTraces(options: SampleOptions): Generator<Record<string, unknown>> {
    const { rows, seed, end, days, sysTime } = options;
    const rng = new Rng(seed ^ 0x07e1);
    const setupRng = rng.fork(2);
    const time = new TimeSampler(end, days, setupRng);
    const kindIndex = new WeightedIndex(TRACE_KINDS.map(k => k[1]));
    const builder = new TraceBuilder(rng);
    const fmt = new TimeFormatter();
    const sysFmt = new TimeFormatter();
    const pods: Record<string, string[]> = {};
    const podNode: Record<string, string> = {};
    for (const svc of TRACE_SERVICES) {
        const rs = setupRng.hex(10);
        pods[svc] = [0, 1].map(() => {
            const pod = `${svc}-${rs}-${setupRng.hex(5)}`;
            podNode[pod] = NODES[setupRng.int(NODES.length)];
            return pod;
        });
    }

    let emitted = 0;
    const endMs = end.getTime();
    while (emitted < rows) {
        const startMs = Math.floor(time.at(Math.min(emitted + rng.next(), rows - 1e-9) / rows));
        const traceId = rng.hex(32);
        // The trace starts somewhere inside its millisecond.
        const baseNs = rng.int(1_000_000);
        const root = buildTrace(builder, rng, TRACE_KINDS[kindIndex.sample(rng)][0]);
        // Pre-order walk: parents before children.
        const stack: Array<[SpanDraft, string]> = [[root, '']];
        while (stack.length > 0 && emitted < rows) {
            const [span, parentId] = stack.pop()!;
            const spanId = rng.hex(16);
            for (let i = span.children.length - 1; i >= 0; i--) stack.push([span.children[i], spanId]);
            const startNs = span.start + baseNs;
            let ms = startMs + Math.floor(startNs / 1e6);
            if (ms >= endMs) ms = endMs - 1;
            const info = SERVICES[span.service];
            const pod = pods[span.service][rng.int(2)];
            const attributes: Record<string, unknown> = { ...span.attrs, custom: span.custom };
            const ev: Record<string, unknown> = {
                _time: fmt.format(ms, startNs % 1e6),
                trace_id: traceId,
                span_id: spanId,
                parent_span_id: parentId,
                name: span.name,
                kind: span.kind,
                duration: Math.max(0, span.end - span.start),
                status_code: span.error ? 'ERROR' : span.kind === 'server' || span.kind === 'client' ? 'OK' : 'UNSET',
                error: span.error,
                service: { name: span.service },
                scope: { name: info.scope, version: info.scopeVersion },
                telemetry: { sdk: { language: info.language, name: 'opentelemetry', version: info.sdkVersion } },
                attributes,
                resource: {
                    k8s: { namespace: { name: 'otel-demo' }, node: { name: podNode[pod] }, pod: { name: pod }, deployment: { name: span.service } },
                    service: { version: info.version },
                },
                events: span.events.map(e => ({
                    name: e.name,
                    // Nanoseconds since the epoch, as OTLP JSON carries them (beyond 2^53, so not exact).
                    timestamp: startMs * 1e6 + baseNs + Math.max(span.start, span.end - 1000),
                    attributes: e.attributes ?? null,
                })),
                links: [],
            };
            if (span.error) ev.status = { message: span.errorMessage ?? '' };
            if (sysTime) ev._sysTime = sysFmt.format(ms + 500 + rng.next() * 3000);
            emitted++;
            yield ev;
        }
    }
}
