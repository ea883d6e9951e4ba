import { Rng, WeightedIndex, WeightedPool, zipfWeights } from './random.js';
import { TimeFormatter, TimeSampler } from './time.js';
import type { SampleOptions } from './options.js';

/** Countries (with relative traffic), their cities (most populous first) and the nearest data centre. */
const COUNTRIES: ReadonlyArray<{ country: string; weight: number; dc: string; cities: readonly string[] }> = [
    { country: 'United States', weight: 30, dc: 'DCA', cities: ['New York', 'Los Angeles', 'Chicago', 'Seattle', 'San Francisco', 'Austin', 'Boston', 'Denver', 'Atlanta', 'Miami', 'Portland', 'Humboldt', 'Phoenix', 'Dallas'] },
    { country: 'Canada', weight: 3, dc: 'DCA', cities: ['Toronto', 'Montreal', 'Vancouver', 'Calgary', 'Ottawa'] },
    { country: 'Mexico', weight: 4, dc: 'DCA', cities: ['Mexico City', 'Guadalajara', 'Monterrey', 'Puebla', 'Tijuana', 'Ojinaga'] },
    { country: 'Brazil', weight: 6, dc: 'GRU', cities: ['São Paulo', 'Rio de Janeiro', 'Belo Horizonte', 'Brasília', 'Curitiba', 'Porto Alegre', 'Recife'] },
    { country: 'Argentina', weight: 2, dc: 'GRU', cities: ['Buenos Aires', 'Córdoba', 'Rosario', 'Mendoza'] },
    { country: 'Colombia', weight: 1.5, dc: 'GRU', cities: ['Bogotá', 'Medellín', 'Cali'] },
    { country: 'Chile', weight: 1, dc: 'GRU', cities: ['Santiago', 'Valparaíso', 'Concepción'] },
    { country: 'United Kingdom', weight: 6, dc: 'FRA', cities: ['London', 'Manchester', 'Birmingham', 'Edinburgh', 'Bristol', 'Leeds'] },
    { country: 'Germany', weight: 7, dc: 'FRA', cities: ['Berlin', 'Munich', 'Hamburg', 'Frankfurt am Main', 'Cologne', 'Stuttgart', 'Leipzig'] },
    { country: 'France', weight: 5, dc: 'FRA', cities: ['Paris', 'Lyon', 'Marseille', 'Toulouse', 'Bordeaux', 'Lille', 'Nevers'] },
    { country: 'Netherlands', weight: 2, dc: 'FRA', cities: ['Amsterdam', 'Rotterdam', 'Utrecht', 'The Hague'] },
    { country: 'Spain', weight: 2, dc: 'FRA', cities: ['Madrid', 'Barcelona', 'Valencia', 'Seville'] },
    { country: 'Italy', weight: 2, dc: 'FRA', cities: ['Rome', 'Milan', 'Naples', 'Turin', 'Bologna'] },
    { country: 'Poland', weight: 1.5, dc: 'FRA', cities: ['Warsaw', 'Kraków', 'Wrocław', 'Gdańsk'] },
    { country: 'Sweden', weight: 1, dc: 'FRA', cities: ['Stockholm', 'Gothenburg', 'Malmö'] },
    { country: 'Turkey', weight: 1, dc: 'FRA', cities: ['Istanbul', 'Ankara', 'Izmir'] },
    { country: 'Russia', weight: 1.5, dc: 'FRA', cities: ['Moscow', 'Saint Petersburg', 'Novosibirsk', 'Yekaterinburg'] },
    { country: 'Nigeria', weight: 1, dc: 'FRA', cities: ['Lagos', 'Abuja', 'Ibadan'] },
    { country: 'South Africa', weight: 1, dc: 'FRA', cities: ['Johannesburg', 'Cape Town', 'Durban'] },
    { country: 'Egypt', weight: 0.7, dc: 'FRA', cities: ['Cairo', 'Alexandria', 'Giza'] },
    { country: 'India', weight: 5, dc: 'FRA', cities: ['Mumbai', 'Delhi', 'Bengaluru', 'Hyderabad', 'Chennai', 'Pune', 'Kolkata'] },
    { country: 'China', weight: 3, dc: 'FRA', cities: ['Shanghai', 'Beijing', 'Shenzhen', 'Guangzhou', 'Chengdu'] },
    { country: 'Japan', weight: 4, dc: 'DCA', cities: ['Tokyo', 'Osaka', 'Yokohama', 'Nagoya', 'Sapporo', 'Fukuoka'] },
    { country: 'South Korea', weight: 1, dc: 'DCA', cities: ['Seoul', 'Busan', 'Incheon'] },
    { country: 'Singapore', weight: 1, dc: 'FRA', cities: ['Singapore'] },
    { country: 'Indonesia', weight: 1, dc: 'FRA', cities: ['Jakarta', 'Surabaya', 'Bandung'] },
    { country: 'Australia', weight: 2, dc: 'DCA', cities: ['Sydney', 'Melbourne', 'Brisbane', 'Perth', 'Adelaide'] },
];

const DATACENTERS = ['DCA', 'GRU', 'FRA'] as const;

const USER_AGENTS: ReadonlyArray<readonly [string, number]> = [
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36', 22],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.0.0 Safari/537.36', 9],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36', 10],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15', 8],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1', 12],
    ['Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1', 2],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36', 6],
    ['Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.6312.118 Mobile Safari/537.36', 6],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0', 5],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0', 2],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0', 2],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36', 2],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51', 5],
    ['Mozilla/5.0 (Windows NT 6.1; Win64; x64; Trident/7.0; rv:11.0) like Gecko', 0.5],
    ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 1.5],
    ['Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', 0.7],
    ['curl/8.6.0', 1.5],
    ['curl/7.81.0', 0.8],
    ['python-requests/2.31.0', 1.5],
    ['Go-http-client/2.0', 1.5],
    ['axios/1.6.8', 1],
    ['PostmanRuntime/7.37.3', 0.8],
    ['okhttp/4.12.0', 1],
    ['Apache-HttpClient/4.5.14 (Java/17.0.10)', 0.5],
];

const API_RESOURCES = [
    'users', 'buy', 'cart', 'bank', 'textdata', 'orders', 'products', 'payments', 'auth', 'search',
    'sessions', 'profile', 'inventory', 'reviews', 'shipping', 'notifications', 'analytics', 'config',
    'reports', 'tokens', 'invoices', 'subscriptions',
];
const API_ACTIONS = [
    'list', 'get', 'create', 'update', 'delete', 'commit', 'warn', 'status', 'verify', 'refresh',
    'export', 'sync', 'history', 'details', 'cnfigs', 'id/go', 'batch', 'summary',
];
const STATIC_PATHS: ReadonlyArray<readonly [string, string]> = [
    ['/', 'text/html'], ['/index.html', 'text/html'], ['/login', 'text/html'], ['/signup', 'text/html'],
    ['/dashboard', 'text/html'], ['/pricing', 'text/html'], ['/docs', 'text/html'], ['/about', 'text/html'],
    ['/blog', 'text/html'], ['/checkout', 'text/html'], ['/account/settings', 'text/html'], ['/search', 'text/html'],
    ['/static/css/main.css', 'text/css'], ['/static/css/vendor.css', 'text/css'], ['/static/css/print.css', 'text/css'],
    ['/static/js/main.js', 'application/javascript'], ['/static/js/vendor.js', 'application/javascript'],
    ['/static/js/runtime.js', 'application/javascript'], ['/static/js/analytics.js', 'application/javascript'],
    ['/static/img/logo.png', 'image/png'], ['/static/img/hero.jpg', 'image/jpeg'], ['/static/img/banner.jpg', 'image/jpeg'],
    ['/static/img/avatar-default.png', 'image/png'], ['/static/img/product-1.jpg', 'image/jpeg'],
    ['/static/img/product-2.jpg', 'image/jpeg'], ['/static/img/product-3.jpg', 'image/jpeg'],
    ['/favicon.ico', 'image/x-icon'], ['/robots.txt', 'text/plain-charset=utf-8'], ['/sitemap.xml', 'application/xml'],
    ['/downloads/client-linux-amd64.tar.gz', 'application/octet-stream'], ['/downloads/client-darwin-arm64.tar.gz', 'application/octet-stream'],
    ['/downloads/report.pdf', 'application/pdf'], ['/health', 'text/plain-charset=utf-8'], ['/metrics', 'text/plain-charset=utf-8'],
    ['/.well-known/security.txt', 'text/plain-charset=utf-8'], ['/wp-login.php', 'text/html'], ['/.env', 'text/plain-charset=utf-8'],
];

/** Median response body size per content type, in bytes. */
const BODY_MEDIAN: Readonly<Record<string, number>> = {
    'application/json': 2400,
    'text/html': 9000,
    'text/css': 14000,
    'application/javascript': 60000,
    'image/png': 40000,
    'image/jpeg': 90000,
    'image/x-icon': 1150,
    'text/plain-charset=utf-8': 800,
    'application/xml': 5000,
    'application/octet-stream': 4_000_000,
    'application/pdf': 300_000,
};

const MESSAGE_SUBJECTS = [
    'QCD permutations', 'Cache shards', 'Quantum tunnels', 'Flux capacitors', 'Warp field coils',
    'Neural mesh nodes', 'Entropy pools', 'Tachyon relays', 'Photon buffers', 'Graviton queues',
    'Hyperlane indices', 'Plasma conduits', 'Dark matter pointers', 'Subspace sockets', 'Chroniton ledgers',
];
const MESSAGE_PREDICATES = [
    'were not solvable in linear time', 'could not be reconciled', 'exceeded their retry budget',
    'drifted out of phase', 'returned stale entries', 'were rebalanced', 'timed out waiting for quorum',
    'were evicted under memory pressure', 'reported a checksum mismatch', 'were flushed to cold storage',
];
const MESSAGE_OUTCOMES = [
    'expected compressed time', 'falling back to the slow path', 'retrying with backoff',
    'serving cached response', 'request degraded gracefully', 'continuing with partial results',
    'recalibrating the flux matrix', 'escalating to the on-call engineer', 'no action needed',
];

const METHOD_MIX: ReadonlyArray<readonly [string, number]> = [['GET', 62], ['POST', 20], ['PUT', 10], ['DELETE', 8]];

interface UriInfo {
    uri: string;
    contentType: string;
    primaryMethod: string;
    /** Median latency of this endpoint, ms. */
    medianMs: number;
    /** Median body size of a successful response, bytes. */
    bodyMedian: number;
    isStatic: boolean;
}

interface Pools {
    uris: UriInfo[];
    uriIndex: WeightedIndex;
    messages: string[];
    messageIndex: WeightedIndex;
}

let pools: Pools | undefined;

/** The fixed pools (URIs, messages): the same for every seed, built once. */
function getPools(): Pools {
    if (pools) return pools;
    const rng = new Rng(0x5eed);
    const uris: UriInfo[] = [];
    for (const res of API_RESOURCES) {
        for (const act of API_ACTIONS) {
            // Not every resource has every action: keep about 60% of the combinations.
            if (!rng.chance(0.6)) continue;
            const version = rng.chance(0.75) ? 'v1' : 'v2';
            const method = act === 'create' || act === 'commit' || act === 'batch' || act === 'verify' ? 'POST'
                : act === 'update' || act === 'sync' || act === 'refresh' ? 'PUT'
                    : act === 'delete' ? 'DELETE' : 'GET';
            const contentType = rng.chance(0.93) ? 'application/json' : 'text/plain-charset=utf-8';
            uris.push({
                uri: `/api/${version}/${res}/${act}`,
                contentType,
                primaryMethod: method,
                medianMs: 0.6 * Math.exp(0.8 * rng.normal()),
                bodyMedian: BODY_MEDIAN[contentType],
                isStatic: false,
            });
        }
    }
    for (const [uri, contentType] of STATIC_PATHS) {
        uris.push({
            uri,
            contentType,
            primaryMethod: 'GET',
            medianMs: 0.2 * Math.exp(0.5 * rng.normal()),
            bodyMedian: BODY_MEDIAN[contentType] ?? 2000,
            isStatic: true,
        });
    }
    // Shuffle so that popularity (Zipf over the order) is not alphabetical.
    for (let i = uris.length - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        [uris[i], uris[j]] = [uris[j], uris[i]];
    }
    const messages: string[] = [];
    for (let i = 0; i < 160; i++) {
        messages.push(`${rng.pick(MESSAGE_SUBJECTS)} ${rng.pick(MESSAGE_PREDICATES)}, ${rng.pick(MESSAGE_OUTCOMES)}`);
    }
    const unique = [...new Set(messages)];
    pools = {
        uris,
        uriIndex: new WeightedIndex(zipfWeights(uris.length, 0.9)),
        messages: unique,
        messageIndex: new WeightedIndex(zipfWeights(unique.length, 0.7)),
    };
    return pools;
}

/** Status codes and their base weights (per mille). */
const STATUS_TABLE: ReadonlyArray<readonly [string, number]> = [
    ['200', 835], ['201', 30], ['204', 10], ['301', 15], ['302', 10], ['304', 30], ['400', 10], ['401', 8],
    ['403', 5], ['404', 25], ['429', 2], ['500', 15], ['502', 3], ['503', 2],
];

export const USER_COUNT = 50_000;

/** sample-http-logs events; see SAMPLE_HTTP_LOGS for the fields. */
export function* generateHttpLogs(options: SampleOptions): Generator<Record<string, unknown>> {
    const { rows, seed, end, days, sysTime } = options;
    const rng = new Rng(seed);
    const setupRng = rng.fork(1);
    const p = getPools();

    // Users: a stable id, home city, browser and TLS habit each.
    const countryIndex = new WeightedIndex(COUNTRIES.map(c => c.weight));
    const cityNames: string[] = [];
    const cityCountry: string[] = [];
    const cityDc: string[] = [];
    const cityPickers: WeightedIndex[] = [];
    const cityOffset: number[] = [];
    for (const c of COUNTRIES) {
        cityOffset.push(cityNames.length);
        cityPickers.push(new WeightedIndex(zipfWeights(c.cities.length, 1)));
        for (const city of c.cities) {
            cityNames.push(city);
            cityCountry.push(c.country);
            cityDc.push(c.dc);
        }
    }
    const uaPool = new WeightedIndex(USER_AGENTS.map(u => u[1]));
    // Users are created on first appearance, each from its own stream, so small samples stay cheap.
    const userIds = new Array<string>(USER_COUNT);
    const userCity = new Uint16Array(USER_COUNT);
    const userUa = new Uint8Array(USER_COUNT);
    const userTls = new Uint8Array(USER_COUNT);
    const userReady = new Uint8Array(USER_COUNT);
    const userSeed = setupRng.uint32();
    const initUser = (u: number): void => {
        const r = new Rng((userSeed + Math.imul(u, 0x9e3779b1)) >>> 0);
        userIds[u] = r.uuid();
        const ci = countryIndex.sample(r);
        userCity[u] = cityOffset[ci] + cityPickers[ci].sample(r);
        userUa[u] = uaPool.sample(r);
        userTls[u] = r.chance(0.86) ? 1 : 0;
        userReady[u] = 1;
    };

    const time = new TimeSampler(end, days, setupRng);
    // A few incidents: hours during which the backend fails far more often.
    const incidents: Array<[number, number]> = [];
    const incidentCount = Math.max(1, Math.round(days / 10));
    for (let i = 0; i < incidentCount; i++) {
        const start = time.startMs + setupRng.next() * (time.endMs - time.startMs);
        incidents.push([start, start + (0.5 + 2.5 * setupRng.next()) * 3_600_000]);
    }
    const statusIndex = new WeightedIndex(STATUS_TABLE.map(s => s[1]));
    const statuses = STATUS_TABLE.map(s => s[0]);
    /** Status class per status index: 2, 3, 4 or 5; 0 for 204/304 (no body). */
    const statusClass = STATUS_TABLE.map(s => (s[0] === '204' || s[0] === '304' ? 0 : Number(s[0][0])));
    const idx200 = statuses.indexOf('200');
    const idx201 = statuses.indexOf('201');
    const idx304 = statuses.indexOf('304');
    const idx500 = statuses.indexOf('500');
    let incidentMin = Infinity;
    let incidentMax = -Infinity;
    for (const [a, b] of incidents) {
        incidentMin = Math.min(incidentMin, a);
        incidentMax = Math.max(incidentMax, b);
    }
    const methodPool = new WeightedPool(METHOD_MIX);
    const fmt = new TimeFormatter();
    const sysFmt = new TimeFormatter();
    const userAgents = USER_AGENTS.map(u => u[0]);
    const { uris, uriIndex, messages, messageIndex } = p;

    for (let i = 0; i < rows; i++) {
        const t = time.at((i + rng.next()) / rows);
        const ur = rng.next();
        // Mildly skewed towards low indices: some users are busier than others.
        const user = Math.floor(ur * (0.7 + 0.3 * ur) * USER_COUNT);
        if (userReady[user] === 0) initUser(user);
        const city = userCity[user];
        const info = uris[uriIndex.sample(rng)];
        const method = rng.next() < 0.85 ? info.primaryMethod : methodPool.sample(rng);

        let si = statusIndex.sample(rng);
        let inIncident = false;
        if (t >= incidentMin && t < incidentMax) {
            for (let k = 0; k < incidents.length; k++) {
                if (t >= incidents[k][0] && t < incidents[k][1]) inIncident = true;
            }
        }
        if (inIncident && rng.next() < 0.12) si = idx500;
        else if (si === idx200 && method === 'POST' && rng.next() < 0.4) si = idx201;
        else if (si === idx304 && !info.isStatic) si = idx200;
        else if (si === idx200 && info.isStatic && rng.next() < 0.3) si = idx304; // cached assets

        let duration = rng.logNormal(info.medianMs, 1.0);
        let body: number;
        switch (statusClass[si]) {
            case 0:
                body = 0;
                duration *= 0.3;
                break;
            case 3:
                body = 100 + rng.int(120);
                break;
            case 4:
                body = 90 + rng.int(500);
                duration *= 0.5;
                break;
            case 5:
                body = 120 + rng.int(900);
                duration *= 4;
                break;
            default:
                body = Math.round(rng.logNormal(info.bodyMedian, 0.7));
        }

        const ev: Record<string, unknown> = {
            _time: fmt.format(t, rng.int(1_000_000)),
            content_type: info.contentType,
            geo: { city: cityNames[city], country: cityCountry[city] },
            id: userIds[user],
            is_tls: userTls[user] === 1 ? rng.next() < 0.98 : rng.next() < 0.1,
            message: messages[messageIndex.sample(rng)],
            method,
            req_duration_ms: duration,
            resp_body_size_bytes: body,
            resp_header_size_bytes: 30 + Math.round(rng.logNormal(120, 0.5)),
            server_datacenter: rng.next() < 0.92 ? cityDc[city] : DATACENTERS[rng.int(3)],
            status: statuses[si],
            uri: info.uri,
            user_agent: userAgents[userUa[user]],
        };
        if (sysTime) ev._sysTime = sysFmt.format(t + 200 + rng.next() * 4000);
        yield ev;
    }
}
