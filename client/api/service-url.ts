/**
 * A service URL as a person types it, made into the URL a client calls: a bare `host:port`
 * (`127.0.0.1:8686`) means `http://`, as for `apl serve`; any other scheme than http(s) is refused.
 * The CLI's `--url` and the editor's Add Connection read URLs through this one function.
 */

export type ServiceUrl = { ok: true; url: string } | { ok: false; problem: string };

export function normalizeServiceUrl(text: string): ServiceUrl {
    let url = text.trim();
    if (url === '') return { ok: false, problem: 'the URL is empty' };
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) url = `http://${url}`;
    if (!/^https?:\/\//i.test(url)) return { ok: false, problem: `the URL must start with http:// or https://, not '${url.slice(0, url.indexOf('://') + 3)}'` };
    let parsed: URL;
    try {
        parsed = new URL(url);
    } catch {
        return { ok: false, problem: `'${url}' is not a valid URL` };
    }
    if (parsed.hostname === '') return { ok: false, problem: `'${url}' names no host` };
    // A trailing slash would double the one of every request path.
    return { ok: true, url: url.replace(/\/+$/, '') };
}
