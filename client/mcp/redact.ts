/**
 * The secrets of a connection (its token) never leave the MCP server: every tool result, resource,
 * prompt and error passes through `redact` before it is sent, so a service that echoes a header, a
 * URL with credentials or a stack trace cannot carry the token to the agent.
 */
export type Redact = (text: string) => string;

/** A redactor for `secrets` (empty and very short values are ignored: they would mangle ordinary text). */
export function redactorFor(secrets: readonly (string | undefined)[]): Redact {
    const values = secrets.filter((s): s is string => s !== undefined && s.length >= 4);
    if (values.length === 0) return text => text;
    return text => {
        let out = text;
        for (const s of values) out = out.split(s).join('[redacted]');
        return out;
    };
}

/** `value` with every string inside it redacted (structured tool output). */
export function redactValue<T>(value: T, redact: Redact): T {
    return JSON.parse(redact(JSON.stringify(value))) as T;
}
