import type { AplType } from '../types/apl-types.js';

/**
 * The sample datasets that the APL docs query (inventory section 8), described once. The generators
 * emit events with exactly these fields, and `BuiltinSchemaProvider` serves these schemas.
 *
 * Field names are the flattened names that ingestion produces (`geo.city`); the generators emit
 * nested objects (`geo: { city }`), as a client would send them. A field marked `map` is a map
 * field: its value is an object that ingestion keeps as ONE dynamic field instead of flattening it
 * (`['attributes.custom']['http.protocol']`). Not every event carries every field (for example
 * `status.message` only on failed spans). `_sysTime` is set by ingestion; the generators emit it
 * only when asked (`sysTime: true`).
 */
export interface SampleFieldSpec {
    name: string;
    type: AplType;
    description?: string;
    /** A display unit as Axiom names them (`ms`, `decbytes`, `ns`). */
    unit?: string;
    /** A map field: an object value stored as one dynamic field, not flattened. */
    map?: boolean;
}

export interface SampleDatasetSpec {
    name: string;
    description: string;
    fields: SampleFieldSpec[];
}

const TIME_FIELDS: SampleFieldSpec[] = [
    { name: '_time', type: 'datetime', description: 'Event time.' },
    { name: '_sysTime', type: 'datetime', description: 'Ingest time, set by the server.' },
];

export const SAMPLE_HTTP_LOGS: SampleDatasetSpec = {
    name: 'sample-http-logs',
    description: 'HTTP request logs of a web service: one event per request, from ~50k users worldwide.',
    fields: [
        ...TIME_FIELDS,
        { name: 'content_type', type: 'string', description: 'Content type of the response.' },
        { name: 'geo.city', type: 'string', description: 'City the request came from.' },
        { name: 'geo.country', type: 'string', description: 'Country the request came from.' },
        { name: 'id', type: 'string', description: 'User id (a UUID).' },
        { name: 'is_tls', type: 'bool', description: 'Whether the request used TLS.' },
        { name: 'message', type: 'string', description: 'Log message.' },
        { name: 'method', type: 'string', description: 'HTTP method.' },
        { name: 'req_duration_ms', type: 'real', description: 'Time to serve the request.', unit: 'ms' },
        { name: 'resp_body_size_bytes', type: 'long', description: 'Size of the response body.', unit: 'decbytes' },
        { name: 'resp_header_size_bytes', type: 'long', description: 'Size of the response headers.', unit: 'decbytes' },
        { name: 'server_datacenter', type: 'string', description: 'Data centre that served the request.' },
        { name: 'status', type: 'string', description: 'HTTP status code, as a string ("200", "404").' },
        { name: 'uri', type: 'string', description: 'Request path.' },
        { name: 'user_agent', type: 'string', description: 'User agent of the client.' },
    ],
};

export const OTEL_DEMO_TRACES: SampleDatasetSpec = {
    name: 'otel-demo-traces',
    description:
        'OpenTelemetry spans from the OpenTelemetry demo shop (frontend, cart, checkout, payment, ...). ' +
        '`duration` is emitted as an integer number of nanoseconds, which ingestion stores as a timespan.',
    fields: [
        ...TIME_FIELDS,
        { name: 'trace_id', type: 'string', description: 'Trace id, 32 hex digits.' },
        { name: 'span_id', type: 'string', description: 'Span id, 16 hex digits.' },
        { name: 'parent_span_id', type: 'string', description: 'Parent span id; empty for root spans.' },
        { name: 'name', type: 'string', description: 'Span (operation) name.' },
        { name: 'kind', type: 'string', description: 'Span kind: server, client, internal, producer or consumer.' },
        { name: 'duration', type: 'timespan', description: 'Span duration.', unit: 'ns' },
        { name: 'status_code', type: 'string', description: 'Span status: OK, UNSET or ERROR.' },
        { name: 'status.message', type: 'string', description: 'Status message of a failed span.' },
        { name: 'error', type: 'bool', description: 'Whether the span failed.' },
        { name: 'service.name', type: 'string', description: 'Service that emitted the span.' },
        { name: 'scope.name', type: 'string', description: 'Instrumentation scope name.' },
        { name: 'scope.version', type: 'string', description: 'Instrumentation scope version.' },
        { name: 'telemetry.sdk.language', type: 'string' },
        { name: 'telemetry.sdk.name', type: 'string' },
        { name: 'telemetry.sdk.version', type: 'string' },
        { name: 'attributes.http.method', type: 'string' },
        { name: 'attributes.http.route', type: 'string' },
        { name: 'attributes.http.target', type: 'string' },
        { name: 'attributes.http.status_code', type: 'long' },
        { name: 'attributes.http.response.status_code', type: 'long' },
        { name: 'attributes.rpc.system', type: 'string' },
        { name: 'attributes.rpc.service', type: 'string' },
        { name: 'attributes.rpc.method', type: 'string' },
        { name: 'attributes.rpc.grpc.status_code', type: 'long' },
        { name: 'attributes.db.system.name', type: 'string' },
        { name: 'attributes.db.operation.name', type: 'string' },
        { name: 'attributes.messaging.system', type: 'string' },
        { name: 'attributes.messaging.destination.name', type: 'string' },
        { name: 'attributes.custom', type: 'dynamic', map: true, description: 'Other span attributes, keyed by their dotted names.' },
        { name: 'resource.k8s.namespace.name', type: 'string' },
        { name: 'resource.k8s.node.name', type: 'string' },
        { name: 'resource.k8s.pod.name', type: 'string' },
        { name: 'resource.k8s.deployment.name', type: 'string' },
        { name: 'resource.service.version', type: 'string' },
        { name: 'events', type: 'dynamic', description: 'Span events: [{name, timestamp (ns), attributes}].' },
        { name: 'links', type: 'dynamic', description: 'Span links.' },
    ],
};

export const OTEL_DEMO_GENAI: SampleDatasetSpec = {
    name: 'otel-demo-genai',
    description: 'OpenTelemetry spans of LLM calls (chat completions) made by an assistant service.',
    fields: [
        ...TIME_FIELDS,
        { name: 'trace_id', type: 'string' },
        { name: 'span_id', type: 'string' },
        { name: 'parent_span_id', type: 'string' },
        { name: 'name', type: 'string' },
        { name: 'kind', type: 'string' },
        { name: 'duration', type: 'timespan', unit: 'ns' },
        { name: 'status_code', type: 'string' },
        { name: 'error', type: 'bool' },
        { name: 'service.name', type: 'string' },
        { name: 'attributes.gen_ai.operation.name', type: 'string' },
        { name: 'attributes.gen_ai.system', type: 'string' },
        { name: 'attributes.gen_ai.request.model', type: 'string' },
        { name: 'attributes.gen_ai.request.temperature', type: 'real' },
        { name: 'attributes.gen_ai.response.model', type: 'string' },
        { name: 'attributes.gen_ai.response.finish_reasons', type: 'dynamic' },
        { name: 'attributes.gen_ai.usage.input_tokens', type: 'long' },
        { name: 'attributes.gen_ai.usage.output_tokens', type: 'long' },
        { name: 'attributes.gen_ai.input.messages', type: 'dynamic', description: 'Messages sent: [{role, content, tool_calls?}].' },
        { name: 'attributes.gen_ai.output.messages', type: 'dynamic' },
    ],
};

export const GITHUB_PUSH_EVENT: SampleDatasetSpec = {
    name: 'github-push-event',
    description: 'GitHub push events: one event per push to a repository branch.',
    fields: [
        ...TIME_FIELDS,
        { name: 'id', type: 'string', description: 'Event id.' },
        { name: 'actor', type: 'string', description: 'Login of the user who pushed.' },
        { name: 'repo', type: 'string', description: 'Repository, owner/name.' },
        { name: 'push_id', type: 'long' },
        { name: 'size', type: 'long', description: 'Number of commits in the push.' },
        { name: 'distinct_size', type: 'long', description: 'Number of commits not pushed before.' },
        { name: 'ref', type: 'string', description: 'Pushed ref (refs/heads/main).' },
        { name: 'head', type: 'string', description: 'SHA of the new head.' },
        { name: 'before', type: 'string', description: 'SHA of the head before the push.' },
        { name: 'commits', type: 'dynamic', description: 'Commits: [{sha, author: {name, email}, message, distinct}].' },
    ],
};

export const GITHUB_ISSUES_EVENT: SampleDatasetSpec = {
    name: 'github-issues-event',
    description: 'GitHub issue events: issues opened, closed, reopened or labeled.',
    fields: [
        ...TIME_FIELDS,
        { name: 'id', type: 'string', description: 'Event id.' },
        { name: 'actor', type: 'string', description: 'Login of the user who acted; bots end in [bot].' },
        { name: 'repo', type: 'string', description: 'Repository, owner/name.' },
        { name: 'action', type: 'string', description: 'opened, closed, reopened or labeled.' },
        { name: 'number', type: 'long', description: 'Issue number.' },
        { name: 'title', type: 'string' },
        { name: 'state', type: 'string', description: 'open or closed.' },
        { name: 'comments', type: 'long', description: 'Number of comments.' },
        { name: 'labels', type: 'dynamic', description: 'Labels: [{name, color, default}].' },
        { name: 'milestone.number', type: 'long' },
        { name: 'milestone.title', type: 'string' },
    ],
};

/** All sample datasets, in the order the docs use them most. */
export const SAMPLE_DATASETS: readonly SampleDatasetSpec[] = [
    SAMPLE_HTTP_LOGS,
    OTEL_DEMO_TRACES,
    OTEL_DEMO_GENAI,
    GITHUB_PUSH_EVENT,
    GITHUB_ISSUES_EVENT,
];

export function sampleDatasetSpec(name: string): SampleDatasetSpec | undefined {
    return SAMPLE_DATASETS.find(d => d.name === name);
}
